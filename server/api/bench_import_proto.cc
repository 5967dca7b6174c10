#include "server/api/bench_import_proto.h"

#include <algorithm>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/bench_import/bench_import.h"
#include "core/validate.h"
#include "server/api/catalog_proto.h"
#include "server/api/hf_config_json.h"

namespace capplan::server {

namespace v1 = capplan::v1;
namespace bi = core::bench_import;

namespace {

// A JSON Lines file (SGLang's, vLLM's appended results): one run per line, at most this many.
constexpr size_t kMaxJsonlRuns = 1000;
constexpr int64_t kMaxGpus = 65536;
constexpr int64_t kMaxRowTokens = int64_t{1} << 24;
constexpr int64_t kMaxWarmupSteps = int64_t{1} << 40;

// A reader's error, placed under "content" unless it names it already.
absl::Status InContent(const absl::Status& s, const std::string& where) {
  if (s.ok() || absl::StartsWith(s.message(), "content")) return s;
  return absl::Status(s.code(), absl::StrCat(where, ".", s.message()));
}

// What the request says about the run's hardware, with the instance type's defaults.
struct Hardware {
  std::string gpu_name;
  int64_t gpu_count = 0;
  std::string fabric_name;
};

absl::StatusOr<Hardware> HardwareOf(const v1::ImportBenchmarkRequest& req, const store::CatalogSnapshot& catalog) {
  Hardware h{req.gpu_name(), req.gpu_count(), req.fabric_name()};
  if (!req.instance_type().empty()) {
    const core::InstanceRow* found = nullptr;
    for (const core::InstanceRow& i : catalog.instances) {
      if (i.instance_type == req.instance_type()) {
        found = &i;
        break;
      }
    }
    if (found == nullptr) {
      return core::FieldError("instance_type", absl::StrCat("no catalog instance type named \"", req.instance_type(),
                                                            "\" (any provider or region)"));
    }
    if (!h.gpu_name.empty() && h.gpu_name != found->gpu_name) {
      return core::FieldError("gpu_name", absl::StrCat("\"", h.gpu_name, "\" but instance_type ", req.instance_type(),
                                                       " has ", found->gpu_name));
    }
    h.gpu_name = found->gpu_name;
    if (h.gpu_count == 0) h.gpu_count = found->gpu_count;
    if (h.fabric_name.empty()) h.fabric_name = found->fabric_name;
  }
  if (h.gpu_name.empty()) return core::FieldError("gpu_name", "required (or an instance_type that names it)");
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("gpu_count", h.gpu_count, 1, kMaxGpus));
  return h;
}

using JsonReader = absl::StatusOr<bi::MeasuredRun> (*)(const bi::JsonFields&);

// A JSON Lines file, one run per line: SGLang's --output-file, and vLLM's --save-result with
// --append-result (a newline, then the next run's object). Blank lines are skipped.
absl::StatusOr<std::vector<bi::MeasuredRun>> JsonLinesRuns(const std::string& content, JsonReader read) {
  std::vector<bi::MeasuredRun> runs;
  size_t line_no = 0;
  for (absl::string_view line : absl::StrSplit(content, '\n')) {
    ++line_no;
    if (absl::StripAsciiWhitespace(line).empty()) continue;
    if (runs.size() == kMaxJsonlRuns) {
      return core::FieldError("content", absl::StrCat("more than ", kMaxJsonlRuns, " runs (lines)"));
    }
    const std::string where = absl::StrCat("content line ", line_no);
    absl::StatusOr<core::HfConfig> fields = JsonObjectFields(std::string(line), where);
    if (!fields.ok()) return fields.status();
    absl::StatusOr<bi::MeasuredRun> run = read(*fields);
    if (!run.ok()) return InContent(run.status(), where);
    runs.push_back(*std::move(run));
  }
  return runs;
}

// A vLLM result: one JSON object (on one line, or indented as `vllm bench sweep` writes it), or
// JSON Lines when --append-result added runs to the file. A file that is neither is the single
// object's error.
absl::StatusOr<std::vector<bi::MeasuredRun>> VllmRuns(const std::string& content) {
  absl::StatusOr<core::HfConfig> fields = JsonObjectFields(content, "content");
  if (fields.ok()) {
    absl::StatusOr<bi::MeasuredRun> run = bi::FromVllmResult(*fields);
    if (!run.ok()) return InContent(run.status(), "content");
    return std::vector<bi::MeasuredRun>{*std::move(run)};
  }
  std::vector<absl::string_view> lines = absl::StrSplit(content, '\n');
  lines.erase(std::remove_if(lines.begin(), lines.end(),
                             [](absl::string_view l) { return absl::StripAsciiWhitespace(l).empty(); }),
              lines.end());
  if (lines.size() < 2 || !JsonObjectFields(std::string(lines.front()), "content").ok()) return fields.status();
  return JsonLinesRuns(content, bi::FromVllmResult);
}

absl::StatusOr<std::vector<bi::MeasuredRun>> ReadRuns(const v1::ImportBenchmarkRequest& req, int64_t gpu_count) {
  const std::string& content = req.content();
  bi::TrainingLogOptions o;
  o.gpu_count = static_cast<int>(gpu_count);
  o.warmup_steps = req.warmup_steps();
  absl::StatusOr<bi::MeasuredRun> one;
  switch (req.format()) {
    case v1::BENCHMARK_FILE_FORMAT_VLLM:
      return VllmRuns(content);
    case v1::BENCHMARK_FILE_FORMAT_SGLANG:
      return JsonLinesRuns(content, bi::FromSglangResult);
    case v1::BENCHMARK_FILE_FORMAT_MLPERF:
      one = bi::FromMlperfSummary(content);
      break;
    case v1::BENCHMARK_FILE_FORMAT_TORCHTITAN:
      one = bi::FromTorchtitanLog(content, o);
      break;
    case v1::BENCHMARK_FILE_FORMAT_MEGATRON:
      one = bi::FromMegatronLog(content, o);
      break;
    default:
      return core::FieldError("format", "must be VLLM, SGLANG, MLPERF, TORCHTITAN or MEGATRON");
  }
  if (!one.ok()) return InContent(one.status(), "content");
  return std::vector<bi::MeasuredRun>{*std::move(one)};
}

// The serving engine: the request's, else the file's backend, else the format's own engine.
absl::StatusOr<core::ServingEngine> EngineOf(const v1::ImportBenchmarkRequest& req, const bi::MeasuredRun& run) {
  if (req.serving_engine() != v1::SERVING_ENGINE_UNSPECIFIED) {
    return ServingEngineFromProto(req.serving_engine(), "serving_engine");
  }
  if (run.engine) return *run.engine;
  if (req.format() == v1::BENCHMARK_FILE_FORMAT_VLLM) return core::ServingEngine::kVllm;
  if (req.format() == v1::BENCHMARK_FILE_FORMAT_SGLANG) return core::ServingEngine::kSglang;
  return core::FieldError("serving_engine", "required: an MLPerf summary does not name the engine that ran");
}

// The request's counts: the lengths and batch a file may lack, replicas, warm-up.
absl::Status CheckRequestCounts(const v1::ImportBenchmarkRequest& req) {
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("sequence_tokens", req.sequence_tokens(), 0, kMaxRowTokens));
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("output_tokens", req.output_tokens(), 0, kMaxRowTokens));
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("global_batch_sequences", req.global_batch_sequences(), 0, kMaxRowTokens));
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("replicas", static_cast<int64_t>(req.replicas()), 0, kMaxGpus));
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("warmup_steps", req.warmup_steps(), 0, kMaxWarmupSteps));
  if (req.content().empty()) return core::FieldError("content", "empty: the tool's output file is required");
  if (req.content().size() > kMaxBenchmarkFileBytes) {
    return core::FieldError("content", absl::StrCat("at most ", kMaxBenchmarkFileBytes, " bytes, got ",
                                                    req.content().size(), "; cut the log to its steady-state part"));
  }
  return req.model_name().empty() ? core::FieldError("model_name", "required: the catalog model that ran")
                                  : absl::OkStatus();
}

// A serving run as one server's row: replicas split the GPUs, the figure and the load.
absl::Status ServingRow(const v1::ImportBenchmarkRequest& req, const bi::MeasuredRun& run, store::BenchmarkRow* row) {
  absl::StatusOr<core::ServingEngine> engine = EngineOf(req, run);
  if (!engine.ok()) return engine.status();
  row->engine = *engine;
  const int replicas = std::max(1, req.replicas());
  if (row->gpu_count % replicas != 0) {
    return core::FieldError("replicas", absl::StrCat(replicas, " must divide gpu_count ", row->gpu_count));
  }
  row->gpu_count /= replicas;
  row->measured_value /= replicas;
  row->batch_size = (run.batch + replicas - 1) / replicas;
  row->output_tokens = run.output_tokens > 0 ? run.output_tokens : req.output_tokens();
  if (row->output_tokens == 0) return core::FieldError("output_tokens", "required: the file does not state it");
  return absl::OkStatus();
}

absl::StatusOr<store::BenchmarkRow> RowOf(const v1::ImportBenchmarkRequest& req, const Hardware& hw,
                                          const bi::MeasuredRun& run) {
  store::BenchmarkRow row;
  row.gpu_name = hw.gpu_name;
  row.model_name = req.model_name();
  row.workload = run.workload;
  row.gpu_count = static_cast<int>(hw.gpu_count);
  row.measured_value = run.value;
  row.unit = run.unit;
  row.fabric_name = hw.fabric_name;
  const bool serving = run.workload == core::WorkloadKind::kServing;
  row.precision = serving ? core::Precision::kFp16 : core::Precision::kBf16;
  if (req.precision() != v1::PRECISION_UNSPECIFIED) {
    absl::StatusOr<core::Precision> p = PrecisionFromProto(req.precision(), "precision");
    if (!p.ok()) return p.status();
    row.precision = *p;
  }
  if (serving) {
    CAPPLAN_RETURN_IF_ERROR(ServingRow(req, run, &row));
  } else {
    if (req.replicas() > 1) return core::FieldError("replicas", "for serving files only");
    row.batch_size = run.batch > 0 ? run.batch : req.global_batch_sequences();
  }
  row.sequence_tokens = run.prompt_tokens > 0 ? run.prompt_tokens : req.sequence_tokens();
  if (row.sequence_tokens == 0) return core::FieldError("sequence_tokens", "required: the file does not state it");
  row.source = SourceFromProto(req.source());
  row.source.note = req.source().note().empty() ? run.note : absl::StrCat(req.source().note(), "; ", run.note);
  return row;
}

}  // namespace

absl::StatusOr<std::vector<store::BenchmarkRow>> BenchmarkRowsFromImport(const v1::ImportBenchmarkRequest& req,
                                                                         const store::CatalogSnapshot& catalog) {
  CAPPLAN_RETURN_IF_ERROR(CheckRequestCounts(req));
  absl::StatusOr<Hardware> hw = HardwareOf(req, catalog);
  if (!hw.ok()) return hw.status();
  absl::StatusOr<std::vector<bi::MeasuredRun>> runs = ReadRuns(req, hw->gpu_count);
  if (!runs.ok()) return runs.status();
  std::vector<store::BenchmarkRow> rows;
  for (const bi::MeasuredRun& run : *runs) {
    absl::StatusOr<store::BenchmarkRow> row = RowOf(req, *hw, run);
    if (!row.ok()) return row.status();
    rows.push_back(*std::move(row));
  }
  return rows;
}

}  // namespace capplan::server
