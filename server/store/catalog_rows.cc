// Catalog rows to and from the database: the stored spelling of enums, and reading each table.
#include "server/store/catalog_rows.h"

#include "absl/strings/str_cat.h"
#include "core/enum_names.h"
#include "core/validate.h"

namespace capplan::store {

namespace {

Source SourceFrom(sql::Statement& q, int first, bool has_note) {
  Source s;
  s.citation = q.getColumn(first).getString();
  s.as_of_date = q.getColumn(first + 1).getString();
  if (has_note) s.note = q.getColumn(first + 2).getString();
  return s;
}

}  // namespace

// Stored spellings come from the enums' name tables (core/enum_names.h); a value the table
// does not know (only possible in a database edited by hand) reads as the column's default.
const char* InterconnectText(core::Interconnect i) { return core::EnumName(i); }
core::Interconnect InterconnectFrom(const std::string& s) {
  return core::EnumFromName<core::Interconnect>(s).value_or(core::Interconnect::kPcie);
}
core::Precision PrecisionFrom(const std::string& s) {
  return core::EnumFromName<core::Precision>(s).value_or(core::Precision::kFp16);
}
const char* WorkloadText(core::WorkloadKind w) { return core::EnumName(w); }
core::WorkloadKind WorkloadFrom(const std::string& s) {
  return core::EnumFromName<core::WorkloadKind>(s).value_or(core::WorkloadKind::kServing);
}
const char* MethodText(core::TrainingMethod m) { return core::EnumName(m); }
core::TrainingMethod MethodFrom(const std::string& s) {
  return core::EnumFromName<core::TrainingMethod>(s).value_or(core::TrainingMethod::kFull);
}
const char* UnitText(core::MeasuredUnit u) { return core::EnumName(u); }
core::MeasuredUnit UnitFrom(const std::string& s) {
  return core::EnumFromName<core::MeasuredUnit>(s).value_or(core::MeasuredUnit::kRequestsPerSecond);
}
PriceKind PriceKindFrom(const std::string& s) {
  return core::EnumFromName<PriceKind>(s).value_or(PriceKind::kOnDemand);
}
core::NetworkKind NetworkKindFrom(const std::string& s) {
  return core::EnumFromName<core::NetworkKind>(s).value_or(core::NetworkKind::kNone);
}
core::BenchmarkFigure FigureFrom(const std::string& s) {
  return core::EnumFromName<core::BenchmarkFigure>(s).value_or(core::BenchmarkFigure::kSteadyState);
}
core::ServingEngine EngineFrom(const std::string& s) {
  return core::EnumFromName<core::ServingEngine>(s).value_or(core::ServingEngine::kVllm);
}

absl::Status CheckFabricExists(sql::Connection& db, const std::string& name, const std::string& field) {
  if (name.empty()) return absl::OkStatus();
  sql::Statement q(db, "SELECT 1 FROM fabrics WHERE name = ?");
  q.bind(1, name);
  if (q.executeStep()) return absl::OkStatus();
  return core::FieldError(
      field, absl::StrCat("no fabric named \"", name, "\" in the catalog; add it with UpsertFabric or leave it empty"));
}

std::vector<GpuRow> ReadGpus(sql::Connection& db) {
  std::vector<GpuRow> out;
  sql::Statement q(db,
                   "SELECT name, vendor, memory_bytes, memory_bandwidth_bytes_per_second, "
                   "fp32_dense_tflops, tf32_dense_tflops, fp16_dense_tflops, "
                   "bf16_dense_tflops, fp8_dense_tflops, int8_dense_tops, int4_dense_tops, "
                   "tdp_watts, interconnect_kind, interconnect_bandwidth_bytes_per_second, "
                   "gpus_per_node, datacenter, form_factor, list_price_usd, "
                   "source_citation, source_as_of_date, source_note, COALESCE(default_fabric_name, ''), "
                   "system_power_watts_per_gpu, idle_power_fraction, system_price_usd_per_gpu, "
                   "price_uncertainty_fraction FROM gpu_types ORDER BY name");
  while (q.executeStep()) {
    GpuRow g;
    g.spec.name = q.getColumn(0).getString();
    g.vendor = q.getColumn(1).getString();
    g.spec.memory_bytes = static_cast<double>(q.getColumn(2).getInt64());
    g.spec.memory_bandwidth_bytes_per_second = q.getColumn(3).getDouble();
    for (int i = 0; i < core::kNumPrecisions; ++i) {
      g.spec.peak_flops_per_second[i] = q.getColumn(4 + i).getDouble() * 1e12;
    }
    g.spec.tdp_watts = q.getColumn(11).getDouble();
    g.spec.interconnect = InterconnectFrom(q.getColumn(12).getString());
    g.spec.interconnect_bandwidth_bytes_per_second = q.getColumn(13).getDouble();
    g.spec.gpus_per_node = q.getColumn(14).getInt();
    g.spec.datacenter = q.getColumn(15).getInt() != 0;
    g.form_factor = q.getColumn(16).getString();
    g.list_price_usd = q.getColumn(17).getDouble();
    g.source = SourceFrom(q, 18, true);
    g.default_fabric_name = q.getColumn(21).getString();
    g.system_power_watts_per_gpu = q.getColumn(22).getDouble();
    g.idle_power_fraction = q.getColumn(23).getDouble();
    g.system_price_usd_per_gpu = q.getColumn(24).getDouble();
    g.price_uncertainty_fraction = q.getColumn(25).getDouble();
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<ModelRow> ReadModels(sql::Connection& db) {
  std::vector<ModelRow> out;
  sql::Statement q(db,
                   "SELECT name, num_layers, hidden_size, num_attention_heads, num_kv_heads, "
                   "ffn_hidden_size, gated_mlp, vocab_size, tied_embeddings, num_experts, "
                   "experts_per_token, max_context_tokens, parameter_count, "
                   "source_citation, source_as_of_date, source_note FROM models ORDER BY name");
  while (q.executeStep()) {
    ModelRow m;
    m.arch.name = q.getColumn(0).getString();
    m.arch.num_layers = q.getColumn(1).getInt64();
    m.arch.hidden_size = q.getColumn(2).getInt64();
    m.arch.num_attention_heads = q.getColumn(3).getInt64();
    m.arch.num_kv_heads = q.getColumn(4).getInt64();
    m.arch.ffn_hidden_size = q.getColumn(5).getInt64();
    m.arch.gated_mlp = q.getColumn(6).getInt() != 0;
    m.arch.vocab_size = q.getColumn(7).getInt64();
    m.arch.tied_embeddings = q.getColumn(8).getInt() != 0;
    m.arch.num_experts = q.getColumn(9).getInt64();
    m.arch.experts_per_token = q.getColumn(10).getInt64();
    m.max_context_tokens = q.getColumn(11).getInt64();
    m.arch.parameter_count = q.getColumn(12).getDouble();
    m.source = SourceFrom(q, 13, true);
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<InstanceRow> ReadInstances(sql::Connection& db) {
  std::vector<InstanceRow> out;
  sql::Statement q(db,
                   "SELECT provider, instance_type, region, gpu_name, gpu_count, vcpus, "
                   "memory_bytes, source_citation, source_as_of_date, COALESCE(fabric_name, '') "
                   "FROM instance_types "
                   "ORDER BY provider, instance_type, region");
  while (q.executeStep()) {
    InstanceRow r;
    r.provider = q.getColumn(0).getString();
    r.instance_type = q.getColumn(1).getString();
    r.region = q.getColumn(2).getString();
    r.gpu_name = q.getColumn(3).getString();
    r.gpu_count = q.getColumn(4).getInt();
    r.vcpus = q.getColumn(5).getInt();
    r.memory_bytes = q.getColumn(6).getInt64();
    r.source = SourceFrom(q, 7, false);
    r.fabric_name = q.getColumn(9).getString();
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<PriceRow> ReadPrices(sql::Connection& db) {
  std::vector<PriceRow> out;
  sql::Statement q(db,
                   "SELECT id, provider, instance_type, region, kind, price_usd_per_hour, "
                   "effective_unix_seconds, source_citation, source_as_of_date FROM prices");
  while (q.executeStep()) {
    PriceRow p;
    p.id = q.getColumn(0).getInt64();
    p.provider = q.getColumn(1).getString();
    p.instance_type = q.getColumn(2).getString();
    p.region = q.getColumn(3).getString();
    p.kind = PriceKindFrom(q.getColumn(4).getString());
    p.price_usd_per_hour = q.getColumn(5).getDouble();
    p.effective_unix_seconds = q.getColumn(6).getInt64();
    p.source = SourceFrom(q, 7, false);
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<BenchmarkRow> ReadBenchmarks(sql::Connection& db) {
  std::vector<BenchmarkRow> out;
  sql::Statement q(db,
                   "SELECT id, gpu_name, model_name, workload, precision, training_method, "
                   "gpu_count, batch_size, sequence_tokens, output_tokens, measured_value, "
                   "measured_unit, source_citation, source_as_of_date, source_note, "
                   "tensor_parallel, pipeline_parallel, data_parallel, context_parallel, expert_parallel, "
                   "virtual_pipeline_stages, figure, COALESCE(fabric_name, ''), serving_engine "
                   "FROM benchmarks ORDER BY id");
  while (q.executeStep()) {
    BenchmarkRow b;
    b.id = q.getColumn(0).getInt64();
    b.gpu_name = q.getColumn(1).getString();
    b.model_name = q.getColumn(2).getString();
    b.workload = WorkloadFrom(q.getColumn(3).getString());
    b.precision = PrecisionFrom(q.getColumn(4).getString());
    b.method = MethodFrom(q.getColumn(5).getString());
    b.gpu_count = q.getColumn(6).getInt();
    b.batch_size = q.getColumn(7).getInt64();
    b.sequence_tokens = q.getColumn(8).getInt64();
    b.output_tokens = q.getColumn(9).getInt64();
    b.measured_value = q.getColumn(10).getDouble();
    b.unit = UnitFrom(q.getColumn(11).getString());
    b.source = SourceFrom(q, 12, true);
    b.tensor_parallel = q.getColumn(15).getInt();
    b.pipeline_parallel = q.getColumn(16).getInt();
    b.data_parallel = q.getColumn(17).getInt();
    b.context_parallel = q.getColumn(18).getInt();
    b.expert_parallel = q.getColumn(19).getInt();
    b.virtual_pipeline_stages = q.getColumn(20).getInt();
    b.figure = FigureFrom(q.getColumn(21).getString());
    b.fabric_name = q.getColumn(22).getString();
    b.engine = EngineFrom(q.getColumn(23).getString());
    out.push_back(std::move(b));
  }
  return out;
}

std::vector<FabricRow> ReadFabrics(sql::Connection& db) {
  std::vector<FabricRow> out;
  sql::Statement q(db,
                   "SELECT name, gpus_per_node, intra_link_kind, intra_node_bytes_per_second_per_gpu, "
                   "network_kind, network_bytes_per_second_per_gpu, network_latency_seconds, "
                   "source_citation, source_as_of_date, source_note FROM fabrics ORDER BY name");
  while (q.executeStep()) {
    FabricRow f;
    f.name = q.getColumn(0).getString();
    f.fabric.gpus_per_node = q.getColumn(1).getInt();
    f.fabric.intra_link = InterconnectFrom(q.getColumn(2).getString());
    f.fabric.intra_node_bytes_per_second_per_gpu = q.getColumn(3).getDouble();
    f.fabric.network = NetworkKindFrom(q.getColumn(4).getString());
    f.fabric.network_bytes_per_second_per_gpu = q.getColumn(5).getDouble();
    f.fabric.network_latency_seconds = q.getColumn(6).getDouble();
    f.source = SourceFrom(q, 7, true);
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<ElectricityRow> ReadElectricity(sql::Connection& db) {
  std::vector<ElectricityRow> out;
  sql::Statement q(db,
                   "SELECT region, usd_per_kwh, source_citation, source_as_of_date, source_note "
                   "FROM electricity_prices ORDER BY region");
  while (q.executeStep()) {
    ElectricityRow e;
    e.region = q.getColumn(0).getString();
    e.usd_per_kwh = q.getColumn(1).getDouble();
    e.source = SourceFrom(q, 2, true);
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<TcoScenarioRow> ReadTcoScenarios(sql::Connection& db) {
  std::vector<TcoScenarioRow> out;
  sql::Statement q(db,
                   "SELECT name, request_json, updated_by, updated_unix_seconds FROM tco_scenarios "
                   "ORDER BY name");
  while (q.executeStep()) {
    out.push_back({q.getColumn(0).getString(), q.getColumn(1).getString(), q.getColumn(2).getString(),
                   q.getColumn(3).getInt64()});
  }
  return out;
}

}  // namespace capplan::store
