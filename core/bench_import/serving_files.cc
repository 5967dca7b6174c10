// Serving benchmark results: vLLM and SGLang JSON, MLPerf inference summaries.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "core/bench_import/bench_import.h"
#include "core/bench_import/bench_import_internal.h"
#include "core/serving/serving.h"
#include "core/validate.h"

namespace capplan::core::bench_import {

using internal::kMaxRowCount;
using internal::kMaxThroughput;

const char* FormatName(Format f) { return kFormatNames[static_cast<size_t>(f)]; }

namespace {

// A run's request count and token totals: at most a billion requests of 2^24 tokens each.
constexpr double kMaxRequests = 1e9;
constexpr double kMaxTotalTokens = kMaxRequests * static_cast<double>(kMaxRowCount);
// A mean latency: at most a day.
constexpr double kMaxLatencyMs = 86400e3;
// Text copied from a file into a note (a model id, a SUT name): at most this long.
constexpr size_t kMaxNoteValueBytes = 128;

std::string Clip(const std::string& s) { return s.substr(0, kMaxNoteValueBytes); }

const HfConfigValue* Find(const JsonFields& f, const char* key) {
  auto it = f.find(key);
  return it == f.end() || it->second.kind == HfConfigValue::Kind::kNull ? nullptr : &it->second;
}

absl::StatusOr<double> Number(const JsonFields& f, const char* key, double lo, double hi) {
  const HfConfigValue* v = Find(f, key);
  if (v == nullptr) return FieldError(key, "required; the file has none");
  if (v->kind != HfConfigValue::Kind::kNumber) return FieldError(key, "must be a number");
  CAPPLAN_RETURN_IF_ERROR(CheckRange(key, v->number, lo, hi));
  return v->number;
}

// The engines the tools' --backend names: vLLM's and SGLang's own, TensorRT-LLM's server.
std::optional<ServingEngine> EngineOfBackend(const JsonFields& f) {
  const HfConfigValue* v = Find(f, "backend");
  if (v == nullptr || v->kind != HfConfigValue::Kind::kString) return std::nullopt;
  const std::string b = absl::AsciiStrToLower(v->text);
  if (b == "vllm") return ServingEngine::kVllm;
  if (absl::StartsWith(b, "sglang")) return ServingEngine::kSglang;
  if (b == "tensorrt-llm" || b == "trt" || b == "trtllm") return ServingEngine::kTensorRtLlm;
  return std::nullopt;  // an OpenAI-compatible endpoint: any engine
}

// An open-loop run at a finite request_rate: the mean number in flight by Little's law,
// request_throughput x mean end-to-end latency (mean_e2el_ms where the file has it, else mean
// TTFT + mean TPOT x (output tokens - 1)). The estimator's throughput at that concurrency is
// then the measured one exactly when its latency is: the run calibrates as a closed loop of
// that many requests (the mapping docs/validation uses for open-loop rows).
absl::StatusOr<int64_t> LittlesLawInFlight(const JsonFields& f, double output_tokens, std::string* how) {
  absl::StatusOr<double> rps = Number(f, "request_throughput", 0, kMaxThroughput);
  if (!rps.ok()) return rps.status();
  double e2e_ms = 0;
  std::string from = "mean_e2el_ms";
  if (Find(f, "mean_e2el_ms") != nullptr) {
    absl::StatusOr<double> e2e = Number(f, "mean_e2el_ms", 0, kMaxLatencyMs);
    if (!e2e.ok()) return e2e.status();
    e2e_ms = *e2e;
  } else {
    absl::StatusOr<double> ttft = Number(f, "mean_ttft_ms", 0, kMaxLatencyMs);
    if (!ttft.ok()) return ttft.status();
    absl::StatusOr<double> tpot = Number(f, "mean_tpot_ms", 0, kMaxLatencyMs);
    if (!tpot.ok()) return tpot.status();
    e2e_ms = *ttft + *tpot * std::max(0.0, output_tokens - 1);
    from = "mean_ttft_ms + mean_tpot_ms x (output tokens - 1)";
  }
  const double in_flight = *rps * e2e_ms / 1000;
  if (!(in_flight >= 0.5)) {
    return FieldError("request_rate", absl::StrFormat("a finite rate with %.3g requests in flight on average (Little's "
                                                      "law) is too light a load to calibrate on",
                                                      in_flight));
  }
  const int64_t n = std::min(static_cast<int64_t>(std::llround(in_flight)), kMaxServingBatch);
  *how = absl::StrFormat("open loop: request_throughput %.4g req/s x %.4g s (%s) = %d in flight by Little's law", *rps,
                         e2e_ms / 1000, from, n);
  return n;
}

// The load: closed loop at max_concurrency, every request at once (request_rate inf), or an
// open loop at a finite rate (LittlesLawInFlight).
absl::StatusOr<int64_t> InFlight(const JsonFields& f, double completed, double output_tokens, std::string* how) {
  const HfConfigValue* rate = Find(f, "request_rate");
  const bool unlimited =
      rate != nullptr && rate->kind == HfConfigValue::Kind::kString && absl::AsciiStrToLower(rate->text) == "inf";
  const bool capped = Find(f, "max_concurrency") != nullptr;
  int64_t cap = kMaxServingBatch;
  if (capped) {
    absl::StatusOr<double> n = Number(f, "max_concurrency", 1, static_cast<double>(kMaxServingBatch));
    if (!n.ok()) return n.status();
    cap = static_cast<int64_t>(std::llround(*n));
  }
  if (!unlimited && rate != nullptr && rate->kind == HfConfigValue::Kind::kNumber) {
    absl::StatusOr<int64_t> n = LittlesLawInFlight(f, output_tokens, how);
    if (!n.ok() || *n <= cap) return n;
    *how = absl::StrCat("max_concurrency ", cap, " requests in flight (a finite rate above it)");
    return cap;
  }
  if (!unlimited && !capped) {
    return FieldError("request_rate", "required: \"inf\" or the requests per second the benchmark offered");
  }
  if (capped) {
    *how = absl::StrCat("closed loop of max_concurrency ", cap, " requests in flight");
    return cap;
  }
  const int64_t all = std::min(static_cast<int64_t>(std::llround(completed)), kMaxServingBatch);
  *how = absl::StrCat("request_rate inf without max_concurrency: all ", completed, " requests at once, counted as ",
                      all, " in flight");
  return all;
}

absl::StatusOr<MeasuredRun> FromServingResult(const JsonFields& f, const char* tool) {
  absl::StatusOr<double> completed = Number(f, "completed", 1, kMaxRequests);
  if (!completed.ok()) return completed.status();
  absl::StatusOr<double> in = Number(f, "total_input_tokens", 1, kMaxTotalTokens);
  if (!in.ok()) return in.status();
  absl::StatusOr<double> out = Number(f, "total_output_tokens", 1, kMaxTotalTokens);
  if (!out.ok()) return out.status();
  std::string how;
  absl::StatusOr<int64_t> batch = InFlight(f, *completed, *out / *completed, &how);
  if (!batch.ok()) return batch.status();
  absl::StatusOr<double> tput = Number(f, "output_throughput", 0, kMaxThroughput);
  if (!tput.ok()) return tput.status();
  if (*tput <= 0) return FieldError("output_throughput", "must be positive");
  MeasuredRun r;
  r.workload = WorkloadKind::kServing;
  r.unit = MeasuredUnit::kTokensPerSecond;
  r.value = *tput;
  r.batch = *batch;
  r.prompt_tokens = std::llround(*in / *completed);
  r.output_tokens = std::llround(*out / *completed);
  CAPPLAN_RETURN_IF_ERROR(CheckRange("total_input_tokens / completed", r.prompt_tokens, 1, kMaxRowCount));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("total_output_tokens / completed", r.output_tokens, 1, kMaxRowCount));
  r.engine = EngineOfBackend(f);
  r.note = absl::StrFormat("%s result: output_throughput %.6g tokens/s, %s, %.0f requests of mean %d+%d tokens", tool,
                           r.value, how, *completed, r.prompt_tokens, r.output_tokens);
  for (const char* key : {"model_id", "backend", "date"}) {
    const HfConfigValue* v = Find(f, key);
    if (v != nullptr && v->kind == HfConfigValue::Kind::kString)
      absl::StrAppend(&r.note, ", ", key, " ", Clip(v->text));
  }
  return r;
}

}  // namespace

absl::StatusOr<MeasuredRun> FromVllmResult(const JsonFields& f) {
  return FromServingResult(f, "vLLM benchmark_serving");
}

absl::StatusOr<MeasuredRun> FromSglangResult(const JsonFields& f) {
  return FromServingResult(f, "SGLang bench_serving");
}

namespace {

// "Key : value" lines of a summary, trimmed; the first of each key.
std::map<std::string, std::string> SummaryFields(absl::string_view text) {
  std::map<std::string, std::string> out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    const size_t colon = line.find(':');
    if (colon == absl::string_view::npos) continue;
    out.emplace(std::string(absl::StripAsciiWhitespace(line.substr(0, colon))),
                std::string(absl::StripAsciiWhitespace(line.substr(colon + 1))));
  }
  return out;
}

}  // namespace

absl::StatusOr<MeasuredRun> FromMlperfSummary(absl::string_view text) {
  if (!absl::StrContains(text, "MLPerf Results Summary")) {
    return FieldError("content", "not an MLPerf mlperf_log_summary.txt (no \"MLPerf Results Summary\" header)");
  }
  const std::map<std::string, std::string> kv = SummaryFields(text);
  auto get = [&](const char* key) { return kv.count(key) ? kv.at(key) : std::string(); };
  if (get("Scenario") != "Offline") {
    return FieldError("Scenario", absl::StrCat("must be Offline, got \"", get("Scenario"),
                                               "\": only an Offline run measures what the system sustains; the "
                                               "other scenarios are bounded by their latency targets"));
  }
  if (get("Mode") == "AccuracyOnly") return FieldError("Mode", "an AccuracyOnly run measures no throughput");
  if (!absl::StartsWith(get("Result is"), "VALID")) {
    return FieldError("Result is", absl::StrCat("must be VALID, got \"", get("Result is"), "\""));
  }
  MeasuredRun r;
  r.workload = WorkloadKind::kServing;
  const bool tokens = kv.count("Tokens per second") > 0;
  const char* key = tokens ? "Tokens per second" : "Samples per second";
  r.unit = tokens ? MeasuredUnit::kTokensPerSecond : MeasuredUnit::kRequestsPerSecond;
  if (!absl::SimpleAtod(get(key), &r.value)) return FieldError(key, "required: a number");
  CAPPLAN_RETURN_IF_ERROR(CheckRange(key, r.value, 0.0, kMaxThroughput));
  if (r.value <= 0) return FieldError(key, "must be positive");
  r.note =
      absl::StrFormat("MLPerf inference Offline summary (VALID, SUT %s): %s %.6g", Clip(get("SUT name")), key, r.value);
  return r;
}

}  // namespace capplan::core::bench_import
