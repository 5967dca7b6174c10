// The catalog store's row writes: each validates its row and hands the SQL to the shared
// write path (CatalogStore::Write), which audits, commits and publishes.
#include <atomic>
#include <chrono>
#include <cmath>
#include <ctime>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/validate.h"
#include "server/store/catalog_rows.h"
#include "server/store/catalog_store.h"
#include "server/store/price_csv.h"
#include "server/store/sql.h"

namespace capplan::store {

namespace {

absl::Status MustExist(sql::Connection& db, const char* sql, const std::string& value, const std::string& field,
                       const std::string& what) {
  sql::Statement q(db, sql);
  q.bind(1, value);
  if (!q.executeStep()) {
    return absl::NotFoundError(absl::StrCat(field, ": no ", what, " named \"", value, "\" in the catalog"));
  }
  return absl::OkStatus();
}

// An empty name is stored as NULL: the column references fabrics.
void BindOptionalText(sql::Statement& q, int index, const std::string& value) {
  if (value.empty()) {
    q.bind(index);
  } else {
    q.bind(index, value);
  }
}

}  // namespace

absl::StatusOr<WriteResult> CatalogStore::UpsertGpu(const WriteContext& ctx, const GpuRow& g) {
  absl::Status valid = ValidateGpuRow(g);
  if (!valid.ok()) return valid;
  Key key{"gpu_types", {{"name", g.spec.name}}, 0, ""};
  key.reload = kGpuTable;
  return Write(ctx, key, [&]() -> absl::StatusOr<int64_t> {
    sql::Statement q(Conn(),
                     "INSERT INTO gpu_types (name, vendor, memory_bytes, "
                     "memory_bandwidth_bytes_per_second, fp32_dense_tflops, tf32_dense_tflops, "
                     "fp16_dense_tflops, bf16_dense_tflops, fp8_dense_tflops, int8_dense_tops, "
                     "int4_dense_tops, tdp_watts, interconnect_kind, "
                     "interconnect_bandwidth_bytes_per_second, gpus_per_node, datacenter, "
                     "form_factor, list_price_usd, source_citation, source_as_of_date, source_note, "
                     "default_fabric_name, system_power_watts_per_gpu, idle_power_fraction, "
                     "system_price_usd_per_gpu, price_uncertainty_fraction) "
                     "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
                     "ON CONFLICT(name) DO UPDATE SET vendor=excluded.vendor, "
                     "memory_bytes=excluded.memory_bytes, "
                     "memory_bandwidth_bytes_per_second=excluded.memory_bandwidth_bytes_per_second, "
                     "fp32_dense_tflops=excluded.fp32_dense_tflops, tf32_dense_tflops=excluded.tf32_dense_tflops, "
                     "fp16_dense_tflops=excluded.fp16_dense_tflops, bf16_dense_tflops=excluded.bf16_dense_tflops, "
                     "fp8_dense_tflops=excluded.fp8_dense_tflops, int8_dense_tops=excluded.int8_dense_tops, "
                     "int4_dense_tops=excluded.int4_dense_tops, tdp_watts=excluded.tdp_watts, "
                     "interconnect_kind=excluded.interconnect_kind, "
                     "interconnect_bandwidth_bytes_per_second=excluded.interconnect_bandwidth_bytes_per_second, "
                     "gpus_per_node=excluded.gpus_per_node, datacenter=excluded.datacenter, "
                     "form_factor=excluded.form_factor, list_price_usd=excluded.list_price_usd, "
                     "source_citation=excluded.source_citation, source_as_of_date=excluded.source_as_of_date, "
                     "source_note=excluded.source_note, default_fabric_name=excluded.default_fabric_name, "
                     "system_power_watts_per_gpu=excluded.system_power_watts_per_gpu, "
                     "idle_power_fraction=excluded.idle_power_fraction, "
                     "system_price_usd_per_gpu=excluded.system_price_usd_per_gpu, "
                     "price_uncertainty_fraction=excluded.price_uncertainty_fraction");
    absl::Status fabric = CheckFabricExists(Conn(), g.default_fabric_name, "gpu.default_fabric_name");
    if (!fabric.ok()) return fabric;
    int i = 1;
    q.bind(i++, g.spec.name);
    q.bind(i++, g.vendor);
    q.bind(i++, static_cast<int64_t>(std::llround(g.spec.memory_bytes)));
    q.bind(i++, g.spec.memory_bandwidth_bytes_per_second);
    for (int p = 0; p < core::kNumPrecisions; ++p) q.bind(i++, g.spec.peak_flops_per_second[p] / 1e12);
    q.bind(i++, g.spec.tdp_watts);
    q.bind(i++, InterconnectText(g.spec.interconnect));
    q.bind(i++, g.spec.interconnect_bandwidth_bytes_per_second);
    q.bind(i++, g.spec.gpus_per_node);
    q.bind(i++, g.spec.datacenter ? 1 : 0);
    q.bind(i++, g.form_factor);
    q.bind(i++, g.list_price_usd);
    q.bind(i++, g.source.citation);
    q.bind(i++, g.source.as_of_date);
    q.bind(i++, g.source.note);
    BindOptionalText(q, i++, g.default_fabric_name);
    q.bind(i++, g.system_power_watts_per_gpu);
    q.bind(i++, g.idle_power_fraction);
    q.bind(i++, g.system_price_usd_per_gpu);
    q.bind(i++, g.price_uncertainty_fraction);
    q.exec();
    return 0;
  });
}

absl::StatusOr<WriteResult> CatalogStore::DeleteGpu(const WriteContext& ctx, const std::string& name) {
  Key key{"gpu_types", {{"name", name}}, 0, ""};
  key.reload = kGpuTable;
  return Write(ctx, key, [&]() -> absl::StatusOr<int64_t> {
    sql::Connection& db = Conn();
    sql::Statement users(db, "SELECT COUNT(*) FROM instance_types WHERE gpu_name = ?");
    users.bind(1, name);
    users.executeStep();
    if (const int n = users.getColumn(0).getInt(); n > 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("name: GPU \"", name, "\" is used by ", n, " instance types; delete those first"));
    }
    sql::Statement q(db, "DELETE FROM gpu_types WHERE name = ?");
    q.bind(1, name);
    if (q.exec() == 0) return absl::NotFoundError(absl::StrCat("name: no GPU named \"", name, "\""));
    return 0;
  });
}

absl::StatusOr<WriteResult> CatalogStore::UpsertModel(const WriteContext& ctx, const ModelRow& m) {
  absl::Status valid = ValidateModelRow(m);
  if (!valid.ok()) return valid;
  Key key{"models", {{"name", m.arch.name}}, 0, ""};
  key.reload = kModelTable | kBenchmarkTable;
  return Write(ctx, key, [&]() -> absl::StatusOr<int64_t> {
    sql::Statement q(Conn(),
                     "INSERT INTO models (name, num_layers, hidden_size, num_attention_heads, "
                     "num_kv_heads, ffn_hidden_size, gated_mlp, vocab_size, tied_embeddings, "
                     "num_experts, experts_per_token, max_context_tokens, parameter_count, "
                     "source_citation, source_as_of_date, source_note, head_dim, expert_ffn_hidden_size, "
                     "num_shared_experts, shared_expert_ffn_hidden_size, num_dense_layers, q_lora_rank, "
                     "kv_lora_rank, qk_rope_head_dim, qk_nope_head_dim, v_head_dim) "
                     "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
                     "ON CONFLICT(name) DO UPDATE SET num_layers=excluded.num_layers, "
                     "hidden_size=excluded.hidden_size, num_attention_heads=excluded.num_attention_heads, "
                     "num_kv_heads=excluded.num_kv_heads, ffn_hidden_size=excluded.ffn_hidden_size, "
                     "gated_mlp=excluded.gated_mlp, vocab_size=excluded.vocab_size, "
                     "tied_embeddings=excluded.tied_embeddings, num_experts=excluded.num_experts, "
                     "experts_per_token=excluded.experts_per_token, "
                     "max_context_tokens=excluded.max_context_tokens, "
                     "parameter_count=excluded.parameter_count, source_citation=excluded.source_citation, "
                     "source_as_of_date=excluded.source_as_of_date, source_note=excluded.source_note, "
                     "head_dim=excluded.head_dim, expert_ffn_hidden_size=excluded.expert_ffn_hidden_size, "
                     "num_shared_experts=excluded.num_shared_experts, "
                     "shared_expert_ffn_hidden_size=excluded.shared_expert_ffn_hidden_size, "
                     "num_dense_layers=excluded.num_dense_layers, q_lora_rank=excluded.q_lora_rank, "
                     "kv_lora_rank=excluded.kv_lora_rank, qk_rope_head_dim=excluded.qk_rope_head_dim, "
                     "qk_nope_head_dim=excluded.qk_nope_head_dim, v_head_dim=excluded.v_head_dim");
    const core::ModelArchitecture& a = m.arch;
    int i = 1;
    q.bind(i++, a.name);
    q.bind(i++, a.num_layers);
    q.bind(i++, a.hidden_size);
    q.bind(i++, a.num_attention_heads);
    q.bind(i++, a.num_kv_heads);
    q.bind(i++, a.ffn_hidden_size);
    q.bind(i++, a.gated_mlp ? 1 : 0);
    q.bind(i++, a.vocab_size);
    q.bind(i++, a.tied_embeddings ? 1 : 0);
    q.bind(i++, a.num_experts);
    q.bind(i++, a.experts_per_token);
    q.bind(i++, m.max_context_tokens);
    q.bind(i++, a.parameter_count);
    q.bind(i++, m.source.citation);
    q.bind(i++, m.source.as_of_date);
    q.bind(i++, m.source.note);
    for (int64_t v :
         {a.head_dim, a.expert_ffn_hidden_size, a.num_shared_experts, a.shared_expert_ffn_hidden_size,
          a.num_dense_layers, a.q_lora_rank, a.kv_lora_rank, a.qk_rope_head_dim, a.qk_nope_head_dim, a.v_head_dim}) {
      q.bind(i++, v);
    }
    q.exec();
    return 0;
  });
}

absl::StatusOr<WriteResult> CatalogStore::DeleteModel(const WriteContext& ctx, const std::string& name) {
  Key key{"models", {{"name", name}}, 0, ""};
  key.reload = kModelTable | kBenchmarkTable;
  return Write(ctx, key, [&]() -> absl::StatusOr<int64_t> {
    sql::Statement q(Conn(), "DELETE FROM models WHERE name = ?");
    q.bind(1, name);
    if (q.exec() == 0) return absl::NotFoundError(absl::StrCat("name: no model named \"", name, "\""));
    return 0;
  });
}

namespace {

void BindInstance(sql::Statement& q, const InstanceRow& r) {
  int i = 1;
  q.bind(i++, r.provider);
  q.bind(i++, r.instance_type);
  q.bind(i++, r.region);
  q.bind(i++, r.gpu_name);
  q.bind(i++, r.gpu_count);
  q.bind(i++, r.vcpus);
  q.bind(i++, r.memory_bytes);
  q.bind(i++, r.source.citation);
  q.bind(i++, r.source.as_of_date);
  BindOptionalText(q, i++, r.fabric_name);
}

// A bulk import names no fabric: an offer it updates keeps the one it had (COALESCE).
constexpr char kUpsertInstance[] =
    "INSERT INTO instance_types (provider, instance_type, region, gpu_name, gpu_count, vcpus, "
    "memory_bytes, source_citation, source_as_of_date, fabric_name) VALUES (?,?,?,?,?,?,?,?,?,?) "
    "ON CONFLICT(provider, instance_type, region) DO UPDATE SET gpu_name=excluded.gpu_name, "
    "gpu_count=excluded.gpu_count, vcpus=excluded.vcpus, memory_bytes=excluded.memory_bytes, "
    "source_citation=excluded.source_citation, source_as_of_date=excluded.source_as_of_date, "
    "fabric_name=excluded.fabric_name";
constexpr char kImportInstance[] =
    "INSERT INTO instance_types (provider, instance_type, region, gpu_name, gpu_count, vcpus, "
    "memory_bytes, source_citation, source_as_of_date, fabric_name) VALUES (?,?,?,?,?,?,?,?,?,?) "
    "ON CONFLICT(provider, instance_type, region) DO UPDATE SET gpu_name=excluded.gpu_name, "
    "gpu_count=excluded.gpu_count, vcpus=excluded.vcpus, memory_bytes=excluded.memory_bytes, "
    "source_citation=excluded.source_citation, source_as_of_date=excluded.source_as_of_date, "
    "fabric_name=COALESCE(excluded.fabric_name, instance_types.fabric_name)";

constexpr char kInsertPrice[] =
    "INSERT INTO prices (provider, instance_type, region, kind, price_usd_per_hour, "
    "effective_unix_seconds, source_citation, source_as_of_date) VALUES (?,?,?,?,?,?,?,?)";

// Binds a prepared kInsertPrice (bulk imports prepare it once) and runs it.
void BindPrice(sql::Statement& q, const PriceRow& p) {
  q.reset();
  q.bind(1, p.provider);
  q.bind(2, p.instance_type);
  q.bind(3, p.region);
  q.bind(4, PriceKindName(p.kind));
  q.bind(5, p.price_usd_per_hour);
  q.bind(6, p.effective_unix_seconds);
  q.bind(7, p.source.citation);
  q.bind(8, p.source.as_of_date);
}

void InsertPrice(sql::Statement& q, const PriceRow& p) {
  BindPrice(q, p);
  q.exec();
}

// The new row's id.
int64_t InsertPrice(sql::Connection& db, const PriceRow& p) {
  sql::Statement q(db, std::string(kInsertPrice) + " RETURNING id");
  BindPrice(q, p);
  if (!q.executeStep()) throw sql::Error(absl::InternalError("INSERT INTO prices returned no id"));
  return q.getColumn(0).getInt64();
}

}  // namespace

absl::StatusOr<WriteResult> CatalogStore::UpsertInstance(const WriteContext& ctx, const InstanceRow& r) {
  absl::Status valid = ValidateInstanceRow(r);
  if (!valid.ok()) return valid;
  Key key{
      "instance_types", {{"provider", r.provider}, {"instance_type", r.instance_type}, {"region", r.region}}, 0, ""};
  key.reload = kInstanceTable | kPriceTable;
  key.upserted_instance = &r;
  return Write(ctx, key, [&]() -> absl::StatusOr<int64_t> {
    sql::Connection& db = Conn();
    absl::Status gpu = MustExist(db, "SELECT 1 FROM gpu_types WHERE name = ?", r.gpu_name, "instance.gpu_name", "GPU");
    if (!gpu.ok()) return gpu;
    absl::Status fabric = CheckFabricExists(db, r.fabric_name, "instance.fabric_name");
    if (!fabric.ok()) return fabric;
    sql::Statement q(db, kUpsertInstance);
    BindInstance(q, r);
    q.exec();
    return 0;
  });
}

absl::StatusOr<WriteResult> CatalogStore::DeleteInstance(const WriteContext& ctx, const std::string& provider,
                                                         const std::string& instance_type, const std::string& region) {
  Key key{"instance_types", {{"provider", provider}, {"instance_type", instance_type}, {"region", region}}, 0, ""};
  key.reload = kInstanceTable | kPriceTable;
  key.erased_instance = OfferKey(provider, instance_type, region);
  return Write(ctx, key, [&]() -> absl::StatusOr<int64_t> {
    sql::Statement q(Conn(), "DELETE FROM instance_types WHERE provider = ? AND instance_type = ? AND region = ?");
    q.bind(1, provider);
    q.bind(2, instance_type);
    q.bind(3, region);
    if (q.exec() == 0) {
      return absl::NotFoundError(absl::StrCat("instance: no ", provider, " ", instance_type, " in ", region));
    }
    return 0;
  });
}

absl::StatusOr<WriteResult> CatalogStore::SetPrice(const WriteContext& ctx, const PriceRow& p) {
  absl::Status valid = ValidatePriceRow(p);
  if (!valid.ok()) return valid;
  Key key{"prices", {}, 0, ""};
  key.reload = kPriceTable;
  key.appended_price = &p;
  return Write(ctx, key, [&]() -> absl::StatusOr<int64_t> {
    sql::Connection& db = Conn();
    sql::Statement exists(db, "SELECT 1 FROM instance_types WHERE provider = ? AND instance_type = ? AND region = ?");
    exists.bind(1, p.provider);
    exists.bind(2, p.instance_type);
    exists.bind(3, p.region);
    if (!exists.executeStep()) {
      return absl::NotFoundError(absl::StrCat("price: no instance type ", p.provider, " ", p.instance_type, " in ",
                                              p.region, "; add it with UpsertInstanceType first"));
    }
    return InsertPrice(db, p);
  });
}

namespace {

// The GPU, model and fabric a benchmark row names exist.
absl::Status BenchmarkReferencesExist(sql::Connection& db, const BenchmarkRow& b) {
  absl::Status gpu = MustExist(db, "SELECT 1 FROM gpu_types WHERE name = ?", b.gpu_name, "benchmark.gpu_name", "GPU");
  if (!gpu.ok()) return gpu;
  absl::Status model =
      MustExist(db, "SELECT 1 FROM models WHERE name = ?", b.model_name, "benchmark.model_name", "model");
  if (!model.ok()) return model;
  return CheckFabricExists(db, b.fabric_name, "benchmark.fabric_name");
}

// Inserts the row; returns its id. Throws sql::Error.
int64_t InsertBenchmark(sql::Connection& db, const BenchmarkRow& b) {
  sql::Statement q(db,
                   "INSERT INTO benchmarks (gpu_name, model_name, workload, precision, "
                   "training_method, gpu_count, batch_size, sequence_tokens, output_tokens, "
                   "measured_value, measured_unit, source_citation, source_as_of_date, source_note, "
                   "tensor_parallel, pipeline_parallel, data_parallel, context_parallel, expert_parallel, "
                   "virtual_pipeline_stages, figure, fabric_name, serving_engine) "
                   "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING id");
  int i = 1;
  q.bind(i++, b.gpu_name);
  q.bind(i++, b.model_name);
  q.bind(i++, WorkloadText(b.workload));
  q.bind(i++, core::PrecisionName(b.precision));
  q.bind(i++, MethodText(b.method));
  q.bind(i++, b.gpu_count);
  q.bind(i++, b.batch_size);
  q.bind(i++, b.sequence_tokens);
  q.bind(i++, b.output_tokens);
  q.bind(i++, b.measured_value);
  q.bind(i++, UnitText(b.unit));
  q.bind(i++, b.source.citation);
  q.bind(i++, b.source.as_of_date);
  q.bind(i++, b.source.note);
  for (int d : {b.tensor_parallel, b.pipeline_parallel, b.data_parallel, b.context_parallel, b.expert_parallel,
                b.virtual_pipeline_stages}) {
    q.bind(i++, d);
  }
  q.bind(i++, core::BenchmarkFigureName(b.figure));
  BindOptionalText(q, i++, b.fabric_name);
  q.bind(i++, core::ServingEngineName(b.engine));
  if (!q.executeStep()) throw sql::Error(absl::InternalError("INSERT INTO benchmarks returned no id"));
  return q.getColumn(0).getInt64();
}

bool SameSetup(const BenchmarkRow& a, const BenchmarkRow& b) {
  return a.tensor_parallel == b.tensor_parallel && a.pipeline_parallel == b.pipeline_parallel &&
         a.data_parallel == b.data_parallel && a.context_parallel == b.context_parallel &&
         a.expert_parallel == b.expert_parallel && a.virtual_pipeline_stages == b.virtual_pipeline_stages &&
         a.figure == b.figure && a.fabric_name == b.fabric_name && a.engine == b.engine;
}

// Every field but the id equal: the same measurement from the same source.
bool SameBenchmark(const BenchmarkRow& a, const BenchmarkRow& b) {
  return a.gpu_name == b.gpu_name && a.model_name == b.model_name && a.workload == b.workload &&
         a.precision == b.precision && a.method == b.method && a.gpu_count == b.gpu_count &&
         a.batch_size == b.batch_size && a.sequence_tokens == b.sequence_tokens && a.output_tokens == b.output_tokens &&
         a.measured_value == b.measured_value && a.unit == b.unit && SameSetup(a, b) &&
         a.source.citation == b.source.citation && a.source.as_of_date == b.source.as_of_date &&
         a.source.note == b.source.note;
}

// The id of a row of `held` equal to `row`; 0 when none.
int64_t HeldId(const std::vector<BenchmarkRow>& held, const BenchmarkRow& row) {
  for (const BenchmarkRow& h : held) {
    if (SameBenchmark(h, row)) return h.id;
  }
  return 0;
}

// The audit's after image of an import: the rows the file gave.
std::string BenchmarkImportAuditJson(const std::vector<BenchmarkRow>& rows) {
  std::string out = absl::StrCat("{\"rows\":", rows.size(), ",\"benchmarks\":[");
  for (size_t i = 0; i < rows.size(); ++i) {
    const BenchmarkRow& b = rows[i];
    absl::StrAppend(&out, i > 0 ? "," : "", "{\"gpu_name\":\"", absl::CEscape(b.gpu_name), "\",\"model_name\":\"",
                    absl::CEscape(b.model_name), "\",\"gpu_count\":", b.gpu_count, ",\"batch_size\":", b.batch_size,
                    ",\"measured_value\":", absl::StrFormat("%.10g", b.measured_value), ",\"measured_unit\":\"",
                    UnitText(b.unit), "\",\"serving_engine\":\"", core::ServingEngineName(b.engine),
                    "\",\"citation\":\"", absl::CEscape(b.source.citation), "\"}");
  }
  out.append("]}");
  return out;
}

}  // namespace

absl::StatusOr<WriteResult> CatalogStore::RecordBenchmark(const WriteContext& ctx, const BenchmarkRow& b) {
  absl::Status valid = ValidateBenchmarkRow(b);
  if (!valid.ok()) return valid;
  Key key{"benchmarks", {}, 0, ""};
  key.reload = kBenchmarkTable;
  return Write(ctx, key, [&]() -> absl::StatusOr<int64_t> {
    sql::Connection& db = Conn();
    absl::Status refs = BenchmarkReferencesExist(db, b);
    if (!refs.ok()) return refs;
    return InsertBenchmark(db, b);
  });
}

absl::StatusOr<BenchmarkImportResult> CatalogStore::ImportBenchmarks(const WriteContext& ctx,
                                                                     const std::vector<BenchmarkRow>& rows) {
  if (rows.empty()) return absl::InvalidArgumentError("content: no measured runs to import");
  for (const BenchmarkRow& r : rows) {
    absl::Status valid = ValidateBenchmarkRow(r);
    if (!valid.ok()) return valid;
  }
  BenchmarkImportResult result;
  result.ids.assign(rows.size(), 0);
  int64_t held_before = 0;
  {
    const std::shared_ptr<const CatalogSnapshot> snap = Snapshot();
    for (const BenchmarkRow& r : rows) held_before += HeldId(snap->benchmarks, r) > 0 ? 1 : 0;
  }
  if (held_before < static_cast<int64_t>(rows.size())) {
    Key key{"benchmarks", {}, 0, "benchmarks/import"};
    key.reload = kBenchmarkTable;
    key.rows = static_cast<int64_t>(rows.size()) - held_before;
    key.audit_after = BenchmarkImportAuditJson(rows);
    absl::StatusOr<WriteResult> w = Write(ctx, key, [&]() -> absl::StatusOr<int64_t> {
      sql::Connection& db = Conn();
      // Under the write lock: the snapshot holds every write this replica committed.
      const std::shared_ptr<const CatalogSnapshot> held = Snapshot();
      std::vector<BenchmarkRow> inserted;
      for (size_t i = 0; i < rows.size(); ++i) {
        result.ids[i] = HeldId(held->benchmarks, rows[i]);
        if (result.ids[i] == 0) result.ids[i] = HeldId(inserted, rows[i]);
        if (result.ids[i] != 0) continue;
        absl::Status refs = BenchmarkReferencesExist(db, rows[i]);
        if (!refs.ok()) return refs;
        inserted.push_back(rows[i]);
        inserted.back().id = result.ids[i] = InsertBenchmark(db, rows[i]);
      }
      result.rows_written = static_cast<int>(inserted.size());
      return inserted.empty() ? 0 : inserted.front().id;
    });
    if (!w.ok()) return w.status();
    result.write = *w;
    if (!w->replayed) {
      result.rows_unchanged = static_cast<int>(rows.size()) - result.rows_written;
      return result;
    }
    result.rows_written = static_cast<int>(w->rows_written);
  } else if (!ctx.request_id.empty()) {
    // Nothing left to write: a retry of an applied import answers as Write does.
    absl::MutexLock lock(&write_mu_);
    absl::StatusOr<std::optional<WriteResult>> earlier = EarlierResult(ctx);
    if (!earlier.ok()) return earlier.status();
    if (earlier->has_value()) {
      result.write = **earlier;
      result.rows_written = static_cast<int>(result.write.rows_written);
    }
  }
  // Every row is held (or a replayed import wrote them): answer with their ids.
  const std::shared_ptr<const CatalogSnapshot> snap = Snapshot();
  if (result.write.catalog_version == 0) result.write.catalog_version = snap->catalog_version;
  for (size_t i = 0; i < rows.size(); ++i) result.ids[i] = HeldId(snap->benchmarks, rows[i]);
  result.rows_unchanged = static_cast<int>(rows.size()) - result.rows_written;
  return result;
}

absl::StatusOr<WriteResult> CatalogStore::DeleteBenchmark(const WriteContext& ctx, int64_t id) {
  Key key{"benchmarks", {}, id, ""};
  key.reload = kBenchmarkTable;
  return Write(ctx, key, [&]() -> absl::StatusOr<int64_t> {
    sql::Statement q(Conn(), "DELETE FROM benchmarks WHERE id = ?");
    q.bind(1, id);
    if (q.exec() == 0) return absl::NotFoundError(absl::StrCat("id: no benchmark ", id));
    return 0;
  });
}

namespace {

CsvImportResult ReplayedImport(const WriteResult& earlier, CsvImportResult result) {
  result.write = earlier;
  result.write.replayed = true;
  result.written = true;
  result.rows_imported = static_cast<int>(earlier.rows_written);
  return result;
}

}  // namespace

absl::StatusOr<CsvImportResult> CatalogStore::ImportPricesCsv(const WriteContext& ctx, const std::string& provider,
                                                              const std::string& csv, const Source& source,
                                                              int64_t effective_unix_seconds,
                                                              const ImportOptions& options) {
  // The range of every price row (ValidatePriceRow), checked before anything is read so that a
  // bad time writes nothing.
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("effective_unix_seconds", effective_unix_seconds, kEarliestPriceUnixSeconds,
                                           kLatestPriceUnixSeconds));
  const std::shared_ptr<const CatalogSnapshot> before = Snapshot();
  PriceCsvOptions read_options;
  read_options.max_rows = options.max_rows;
  absl::StatusOr<PriceCsv> read = ReadPriceCsv(provider, csv, source, *before, read_options);
  if (!read.ok()) return read.status();
  CheckOffers(*before, provider, options.force, &*read);
  CsvImportResult result;
  result.layout = read->layout;
  result.rows_skipped = read->rows_skipped;
  result.gpu_rows = read->gpu_rows;
  result.errors = read->errors;
  result.warnings = read->warnings;
  result.diff = DiffOffers(*before, provider, read->offers, effective_unix_seconds, &read->warnings);
  result.warnings = read->warnings;
  result.rows_imported = static_cast<int>(result.diff.writes.size());
  if (!options.partial && !result.errors.empty()) {
    result.rows_imported = 0;
    return result;
  }
  if (!options.dry_run && result.diff.writes.empty() && !ctx.request_id.empty()) {
    // A retry of an applied import finds nothing left to write: answer what the first attempt
    // wrote, as Write does for every other retried write.
    absl::MutexLock lock(&write_mu_);
    absl::StatusOr<std::optional<WriteResult>> earlier = EarlierResult(ctx);
    if (!earlier.ok()) return earlier.status();
    if (earlier->has_value()) return ReplayedImport(**earlier, std::move(result));
  }
  // An unchanged list writes nothing: no price row, no catalog version, no audit entry.
  if (options.dry_run || result.diff.writes.empty()) return result;
  const std::vector<CsvOffer>& offers = read->offers;
  const std::vector<OfferWrite>& writes = result.diff.writes;
  Key key{"prices", {}, 0, absl::StrCat("prices/import/", provider, "/", writes.size(), "-offers")};
  key.rows = static_cast<int64_t>(writes.size());
  key.reload = kInstanceTable | kPriceTable;
  key.audit_after = ImportAuditJson(options, *read, result.diff);
  absl::StatusOr<WriteResult> w = Write(ctx, key, [&]() -> absl::StatusOr<int64_t> {
    sql::Connection& db = Conn();
    sql::Statement upsert(db, kImportInstance);
    sql::Statement insert_price(db, kInsertPrice);
    size_t done = 0;
    for (const OfferWrite& ow : writes) {
      // A shutdown must not wait for the rest of a large import: give up and roll back.
      if (++done % 256 == 0 && draining_) {
        return absl::UnavailableError("server is shutting down; import rolled back, nothing written");
      }
      const CsvOffer& o = offers[ow.offer];
      if (ow.instance) {
        upsert.reset();
        BindInstance(upsert, o.instance);
        upsert.exec();
      }
      PriceRow p{0,
                 provider,
                 o.instance.instance_type,
                 o.instance.region,
                 PriceKind::kOnDemand,
                 o.on_demand_usd_per_hour,
                 effective_unix_seconds,
                 source};
      if (ow.on_demand) InsertPrice(insert_price, p);
      if (ow.spot) {
        p.kind = PriceKind::kSpot;
        p.price_usd_per_hour = o.spot_usd_per_hour;
        InsertPrice(insert_price, p);
      }
    }
    return 0;
  });
  if (!w.ok()) return w.status();
  result.write = *w;
  result.written = true;
  result.rows_imported = static_cast<int>(w->rows_written);
  return result;
}

}  // namespace capplan::store
