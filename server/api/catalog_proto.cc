#include "server/api/catalog_proto.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "core/validate.h"
#include "server/api/time_fields.h"

namespace capplan::server {

namespace v1 = capplan::v1;

absl::StatusOr<core::Precision> PrecisionFromProto(v1::Precision p, const std::string& field) {
  switch (p) {
    case v1::PRECISION_FP32:
      return core::Precision::kFp32;
    case v1::PRECISION_TF32:
      return core::Precision::kTf32;
    case v1::PRECISION_FP16:
      return core::Precision::kFp16;
    case v1::PRECISION_BF16:
      return core::Precision::kBf16;
    case v1::PRECISION_FP8:
      return core::Precision::kFp8;
    case v1::PRECISION_INT8:
      return core::Precision::kInt8;
    case v1::PRECISION_INT4:
      return core::Precision::kInt4;
    default:
      return core::FieldError(field,
                              absl::StrCat("must be one of PRECISION_FP32..PRECISION_INT4, got ", static_cast<int>(p)));
  }
}

v1::Precision PrecisionToProto(core::Precision p) { return static_cast<v1::Precision>(static_cast<int>(p) + 1); }

absl::StatusOr<core::ServingEngine> ServingEngineFromProto(v1::ServingEngine e, const std::string& field) {
  if (e == v1::SERVING_ENGINE_UNSPECIFIED) return core::ServingEngine::kVllm;
  const int i = static_cast<int>(e) - 1;
  if (!core::IsValidServingEngine(i)) {
    return core::FieldError(field, "must be VLLM, TENSORRT_LLM, SGLANG or LLAMA_CPP");
  }
  return static_cast<core::ServingEngine>(i);
}

v1::ServingEngine ServingEngineToProto(core::ServingEngine e) {
  return static_cast<v1::ServingEngine>(static_cast<int>(e) + 1);
}

store::Source SourceFromProto(const v1::Source& s) { return {s.citation(), s.as_of_date(), s.note()}; }

void SourceToProto(const store::Source& s, v1::Source* out) {
  out->set_citation(s.citation);
  out->set_as_of_date(s.as_of_date);
  out->set_note(s.note);
}

absl::StatusOr<core::Interconnect> InterconnectFromProto(v1::InterconnectKind k, const std::string& field) {
  switch (k) {
    case v1::INTERCONNECT_KIND_PCIE:
      return core::Interconnect::kPcie;
    case v1::INTERCONNECT_KIND_NVLINK:
      return core::Interconnect::kNvlink;
    case v1::INTERCONNECT_KIND_INFINITY_FABRIC:
      return core::Interconnect::kInfinityFabric;
    case v1::INTERCONNECT_KIND_XE_LINK:
      return core::Interconnect::kXeLink;
    default:
      return core::FieldError(field, "must be PCIE, NVLINK, INFINITY_FABRIC or XE_LINK");
  }
}

v1::InterconnectKind InterconnectToProto(core::Interconnect i) {
  return static_cast<v1::InterconnectKind>(static_cast<int>(i) + 1);
}

absl::StatusOr<core::NetworkKind> NetworkKindFromProto(v1::NetworkKind k, const std::string& field) {
  switch (k) {
    case v1::NETWORK_KIND_NONE:
      return core::NetworkKind::kNone;
    case v1::NETWORK_KIND_ETHERNET:
      return core::NetworkKind::kEthernet;
    case v1::NETWORK_KIND_EFA:
      return core::NetworkKind::kEfa;
    case v1::NETWORK_KIND_INFINIBAND:
      return core::NetworkKind::kInfiniband;
    case v1::NETWORK_KIND_ROCE:
      return core::NetworkKind::kRoce;
    default:
      return core::FieldError(field, "must be NONE, ETHERNET, EFA, INFINIBAND or ROCE");
  }
}

v1::NetworkKind NetworkKindToProto(core::NetworkKind k) {
  return static_cast<v1::NetworkKind>(static_cast<int>(k) + 1);
}

absl::StatusOr<store::FabricRow> FabricFromProto(const v1::Fabric& f) {
  store::FabricRow row;
  row.name = f.name();
  row.fabric.gpus_per_node = f.gpus_per_node();
  absl::StatusOr<core::Interconnect> link = InterconnectFromProto(f.intra_link(), "fabric.intra_link");
  if (!link.ok()) return link.status();
  row.fabric.intra_link = *link;
  row.fabric.intra_node_bytes_per_second_per_gpu = f.intra_node_bytes_per_second_per_gpu();
  absl::StatusOr<core::NetworkKind> network = NetworkKindFromProto(f.network(), "fabric.network");
  if (!network.ok()) return network.status();
  row.fabric.network = *network;
  row.fabric.network_bytes_per_second_per_gpu = f.network_bytes_per_second_per_gpu();
  row.fabric.network_latency_seconds = f.network_latency_seconds();
  row.source = SourceFromProto(f.source());
  return row;
}

void FabricToProto(const core::Fabric& f, const std::string& name, v1::Fabric* out) {
  out->set_name(name);
  out->set_gpus_per_node(f.gpus_per_node);
  out->set_intra_link(InterconnectToProto(f.intra_link));
  out->set_intra_node_bytes_per_second_per_gpu(f.intra_node_bytes_per_second_per_gpu);
  out->set_network(NetworkKindToProto(f.network));
  out->set_network_bytes_per_second_per_gpu(f.network_bytes_per_second_per_gpu);
  out->set_network_latency_seconds(f.network_latency_seconds);
}

void FabricToProto(const store::FabricRow& row, v1::Fabric* out) {
  FabricToProto(row.fabric, row.name, out);
  SourceToProto(row.source, out->mutable_source());
}

absl::StatusOr<store::GpuRow> GpuFromProto(const v1::Gpu& g) {
  store::GpuRow row;
  row.spec.name = g.name();
  row.vendor = g.vendor();
  row.spec.memory_bytes = static_cast<double>(g.memory_bytes());
  row.spec.memory_bandwidth_bytes_per_second = g.memory_bandwidth_bytes_per_second();
  for (int i = 0; i < g.throughput_size(); ++i) {
    const std::string field = absl::StrCat("gpu.throughput[", i, "]");
    absl::StatusOr<core::Precision> p = PrecisionFromProto(g.throughput(i).precision(), field + ".precision");
    if (!p.ok()) return p.status();
    const double tflops = g.throughput(i).dense_tflops();
    if (!std::isfinite(tflops) || tflops < 0 || tflops > 1e5) {
      return core::FieldError(field + ".dense_tflops", absl::StrCat("must be in [0, 100000], got ", tflops));
    }
    row.spec.peak_flops_per_second[static_cast<int>(*p)] = tflops * 1e12;
  }
  row.spec.tdp_watts = g.tdp_watts();
  absl::StatusOr<core::Interconnect> link = InterconnectFromProto(g.interconnect_kind(), "gpu.interconnect_kind");
  if (!link.ok()) return link.status();
  row.spec.interconnect = *link;
  row.spec.interconnect_bandwidth_bytes_per_second = g.interconnect_bandwidth_bytes_per_second();
  row.spec.gpus_per_node = g.gpus_per_node();
  row.spec.datacenter = g.datacenter();
  row.form_factor = g.form_factor();
  row.list_price_usd = g.list_price_usd();
  row.default_fabric_name = g.default_fabric_name();
  row.system_power_watts_per_gpu = g.system_power_watts_per_gpu();
  row.idle_power_fraction = g.idle_power_fraction();
  row.system_price_usd_per_gpu = g.system_price_usd_per_gpu();
  row.price_uncertainty_fraction = g.price_uncertainty_fraction();
  row.source = SourceFromProto(g.source());
  return row;
}

void GpuToProto(const store::GpuRow& row, v1::Gpu* out) {
  out->set_name(row.spec.name);
  out->set_vendor(row.vendor);
  out->set_memory_bytes(static_cast<int64_t>(std::llround(row.spec.memory_bytes)));
  out->set_memory_bandwidth_bytes_per_second(row.spec.memory_bandwidth_bytes_per_second);
  for (int i = 0; i < core::kNumPrecisions; ++i) {
    if (row.spec.peak_flops_per_second[i] <= 0) continue;
    v1::PrecisionThroughput* t = out->add_throughput();
    t->set_precision(PrecisionToProto(static_cast<core::Precision>(i)));
    t->set_dense_tflops(row.spec.peak_flops_per_second[i] / 1e12);
  }
  out->set_tdp_watts(row.spec.tdp_watts);
  out->set_interconnect_kind(InterconnectToProto(row.spec.interconnect));
  out->set_interconnect_bandwidth_bytes_per_second(row.spec.interconnect_bandwidth_bytes_per_second);
  out->set_gpus_per_node(row.spec.gpus_per_node);
  out->set_datacenter(row.spec.datacenter);
  out->set_form_factor(row.form_factor);
  out->set_list_price_usd(row.list_price_usd);
  out->set_default_fabric_name(row.default_fabric_name);
  out->set_system_power_watts_per_gpu(row.system_power_watts_per_gpu);
  out->set_idle_power_fraction(row.idle_power_fraction);
  out->set_system_price_usd_per_gpu(row.system_price_usd_per_gpu);
  out->set_price_uncertainty_fraction(row.price_uncertainty_fraction);
  SourceToProto(row.source, out->mutable_source());
}

store::ElectricityRow ElectricityFromProto(const v1::ElectricityPrice& e) {
  store::ElectricityRow row;
  row.region = e.region();
  row.usd_per_kwh = e.usd_per_kwh();
  row.source = SourceFromProto(e.source());
  return row;
}

void ElectricityToProto(const store::ElectricityRow& row, v1::ElectricityPrice* out) {
  out->set_region(row.region);
  out->set_usd_per_kwh(row.usd_per_kwh);
  SourceToProto(row.source, out->mutable_source());
}

core::ModelArchitecture ArchitectureFromProto(const v1::ModelArchitecture& m) {
  core::ModelArchitecture a;
  a.name = m.name();
  a.num_layers = m.num_layers();
  a.hidden_size = m.hidden_size();
  a.num_attention_heads = m.num_attention_heads();
  a.num_kv_heads = m.num_kv_heads();
  a.ffn_hidden_size = m.ffn_hidden_size();
  a.gated_mlp = m.gated_mlp();
  a.vocab_size = m.vocab_size();
  a.tied_embeddings = m.tied_embeddings();
  a.num_experts = m.num_experts();
  a.experts_per_token = m.experts_per_token();
  a.parameter_count = m.parameter_count();
  return a;
}

absl::StatusOr<store::ModelRow> ModelFromProto(const v1::ModelArchitecture& m) {
  store::ModelRow row;
  row.arch = ArchitectureFromProto(m);
  row.max_context_tokens = m.max_context_tokens();
  row.source = SourceFromProto(m.source());
  return row;
}

void ModelToProto(const store::ModelRow& row, v1::ModelArchitecture* out) {
  const core::ModelArchitecture& a = row.arch;
  out->set_name(a.name);
  out->set_num_layers(a.num_layers);
  out->set_hidden_size(a.hidden_size);
  out->set_num_attention_heads(a.num_attention_heads);
  out->set_num_kv_heads(a.num_kv_heads);
  out->set_ffn_hidden_size(a.ffn_hidden_size);
  out->set_gated_mlp(a.gated_mlp);
  out->set_vocab_size(a.vocab_size);
  out->set_tied_embeddings(a.tied_embeddings);
  out->set_num_experts(a.num_experts);
  out->set_experts_per_token(a.experts_per_token);
  out->set_max_context_tokens(row.max_context_tokens);
  out->set_parameter_count(a.parameter_count);
  SourceToProto(row.source, out->mutable_source());
}

absl::StatusOr<store::InstanceRow> InstanceFromProto(const v1::InstanceType& i, const v1::Source& source) {
  store::InstanceRow row;
  row.provider = i.provider();
  row.instance_type = i.instance_type();
  row.region = i.region();
  row.gpu_name = i.gpu_name();
  row.gpu_count = i.gpu_count();
  row.vcpus = i.vcpus();
  row.memory_bytes = i.memory_bytes();
  row.fabric_name = i.fabric_name();
  row.source = SourceFromProto(source);
  return row;
}

void InstanceToProto(const store::InstanceRow& row, v1::InstanceType* out) {
  out->set_provider(row.provider);
  out->set_instance_type(row.instance_type);
  out->set_region(row.region);
  out->set_gpu_name(row.gpu_name);
  out->set_gpu_count(row.gpu_count);
  out->set_vcpus(row.vcpus);
  out->set_memory_bytes(row.memory_bytes);
  out->set_fabric_name(row.fabric_name);
}

absl::StatusOr<store::PriceKind> PriceKindFromProto(v1::PriceKind k, const std::string& field) {
  switch (k) {
    case v1::PRICE_KIND_ON_DEMAND:
      return store::PriceKind::kOnDemand;
    case v1::PRICE_KIND_SPOT:
      return store::PriceKind::kSpot;
    case v1::PRICE_KIND_RESERVED_1Y:
      return store::PriceKind::kReserved1y;
    case v1::PRICE_KIND_RESERVED_3Y:
      return store::PriceKind::kReserved3y;
    default:
      return core::FieldError(field, "must be ON_DEMAND, SPOT, RESERVED_1Y or RESERVED_3Y");
  }
}

v1::PriceKind PriceKindToProto(store::PriceKind k) { return static_cast<v1::PriceKind>(static_cast<int>(k) + 1); }

absl::StatusOr<store::PriceRow> PriceFromProto(const v1::Price& p) {
  store::PriceRow row;
  row.provider = p.provider();
  row.instance_type = p.instance_type();
  row.region = p.region();
  absl::StatusOr<store::PriceKind> kind = PriceKindFromProto(p.kind(), "price.kind");
  if (!kind.ok()) return kind.status();
  row.kind = *kind;
  row.price_usd_per_hour = p.price_usd_per_hour();
  absl::StatusOr<int64_t> effective =
      UnixSecondsFrom(p.effective_unix_seconds(), p.has_effective_time() ? &p.effective_time() : nullptr,
                      "price.effective_unix_seconds", "price.effective_time");
  if (!effective.ok()) return effective.status();
  row.effective_unix_seconds = *effective;
  row.source = SourceFromProto(p.source());
  return row;
}

void PriceToProto(const store::PriceRow& row, v1::Price* out) {
  out->set_id(row.id);
  out->set_provider(row.provider);
  out->set_instance_type(row.instance_type);
  out->set_region(row.region);
  out->set_kind(PriceKindToProto(row.kind));
  out->set_price_usd_per_hour(row.price_usd_per_hour);
  out->set_effective_unix_seconds(row.effective_unix_seconds);
  *out->mutable_effective_time() = TimestampOf(row.effective_unix_seconds);
  SourceToProto(row.source, out->mutable_source());
}

absl::StatusOr<store::BenchmarkRow> BenchmarkFromProto(const v1::Benchmark& b) {
  store::BenchmarkRow row;
  row.gpu_name = b.gpu_name();
  row.model_name = b.model_name();
  switch (b.workload()) {
    case v1::WORKLOAD_KIND_TRAINING:
      row.workload = core::WorkloadKind::kTraining;
      break;
    case v1::WORKLOAD_KIND_FINE_TUNING:
      row.workload = core::WorkloadKind::kFineTuning;
      break;
    case v1::WORKLOAD_KIND_SERVING:
      row.workload = core::WorkloadKind::kServing;
      break;
    default:
      return core::FieldError("benchmark.workload", "must be TRAINING, FINE_TUNING or SERVING");
  }
  absl::StatusOr<core::Precision> p = PrecisionFromProto(b.precision(), "benchmark.precision");
  if (!p.ok()) return p.status();
  row.precision = *p;
  row.gpu_count = b.gpu_count();
  row.batch_size = b.batch_size();
  row.sequence_tokens = b.sequence_tokens();
  row.output_tokens = b.output_tokens();
  row.measured_value = b.measured_value();
  if (b.measured_unit() == "requests_per_second") {
    row.unit = core::MeasuredUnit::kRequestsPerSecond;
  } else if (b.measured_unit() == "tokens_per_second") {
    row.unit = core::MeasuredUnit::kTokensPerSecond;
  } else if (b.measured_unit() == "seconds_per_step") {
    row.unit = core::MeasuredUnit::kSecondsPerStep;
  } else {
    return core::FieldError("benchmark.measured_unit",
                            "must be requests_per_second, tokens_per_second or seconds_per_step");
  }
  if (row.workload == core::WorkloadKind::kServing && row.unit == core::MeasuredUnit::kSecondsPerStep) {
    return core::FieldError("benchmark.measured_unit", "seconds_per_step is for training benchmarks");
  }
  row.tensor_parallel = b.tensor_parallel();
  row.pipeline_parallel = b.pipeline_parallel();
  row.data_parallel = b.data_parallel();
  row.context_parallel = b.context_parallel();
  row.expert_parallel = b.expert_parallel();
  row.virtual_pipeline_stages = b.virtual_pipeline_stages();
  switch (b.figure()) {
    case v1::BENCHMARK_FIGURE_UNSPECIFIED:  // the API's default: steady state
    case v1::BENCHMARK_FIGURE_STEADY_STATE:
      row.figure = core::BenchmarkFigure::kSteadyState;
      break;
    case v1::BENCHMARK_FIGURE_END_TO_END:
      row.figure = core::BenchmarkFigure::kEndToEnd;
      break;
    default:
      return core::FieldError("benchmark.figure", "must be STEADY_STATE or END_TO_END");
  }
  row.fabric_name = b.fabric_name();
  absl::StatusOr<core::ServingEngine> engine = ServingEngineFromProto(b.serving_engine(), "benchmark.serving_engine");
  if (!engine.ok()) return engine.status();
  row.engine = *engine;
  row.source = SourceFromProto(b.source());
  return row;
}

void BenchmarkToProto(const store::BenchmarkRow& row, v1::Benchmark* out) {
  out->set_id(row.id);
  out->set_gpu_name(row.gpu_name);
  out->set_model_name(row.model_name);
  out->set_workload(static_cast<v1::WorkloadKind>(static_cast<int>(row.workload) + 1));
  out->set_precision(PrecisionToProto(row.precision));
  out->set_gpu_count(row.gpu_count);
  out->set_batch_size(row.batch_size);
  out->set_sequence_tokens(row.sequence_tokens);
  out->set_output_tokens(row.output_tokens);
  out->set_measured_value(row.measured_value);
  switch (row.unit) {
    case core::MeasuredUnit::kRequestsPerSecond:
      out->set_measured_unit("requests_per_second");
      break;
    case core::MeasuredUnit::kTokensPerSecond:
      out->set_measured_unit("tokens_per_second");
      break;
    case core::MeasuredUnit::kSecondsPerStep:
      out->set_measured_unit("seconds_per_step");
      break;
  }
  out->set_tensor_parallel(row.tensor_parallel);
  out->set_pipeline_parallel(row.pipeline_parallel);
  out->set_data_parallel(row.data_parallel);
  out->set_context_parallel(row.context_parallel);
  out->set_expert_parallel(row.expert_parallel);
  out->set_virtual_pipeline_stages(row.virtual_pipeline_stages);
  out->set_figure(row.figure == core::BenchmarkFigure::kEndToEnd ? v1::BENCHMARK_FIGURE_END_TO_END
                                                                 : v1::BENCHMARK_FIGURE_STEADY_STATE);
  out->set_fabric_name(row.fabric_name);
  SourceToProto(row.source, out->mutable_source());
  out->set_serving_engine(ServingEngineToProto(row.engine));
}

}  // namespace capplan::server
