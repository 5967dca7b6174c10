// Serving calibration on measured benchmarks, input validation and cost per request/token.
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/serving.h"
#include "core/units.h"
#include "core/validate.h"

namespace capplan::core {

absl::Status ValidateServingWorkload(const ServingWorkload& w) {
  CAPPLAN_RETURN_IF_ERROR(ValidateModel(w.model));
  const int wp = static_cast<int>(w.weight_precision);
  if (!IsValidPrecision(wp) || w.weight_precision == Precision::kTf32) {
    return FieldError("weight_precision", "must be fp32, fp16, bf16, fp8, int8 or int4");
  }
  const int kp = static_cast<int>(w.kv_precision);
  if (!IsValidPrecision(kp) || w.kv_precision == Precision::kTf32 || w.kv_precision == Precision::kInt4) {
    return FieldError("kv_cache_precision", "must be fp32, fp16, bf16, fp8 or int8");
  }
  CAPPLAN_RETURN_IF_ERROR(CheckRange("prompt_tokens", w.prompt_tokens, int64_t{1}, int64_t{10000000}));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("output_tokens", w.output_tokens, int64_t{1}, int64_t{1000000}));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("requests_per_second", w.requests_per_second, 0.0, 1e7));
  // Costs per request divide by the load: a positive load of at least one request a
  // million seconds (~12 days) keeps every figure finite.
  if (w.requests_per_second > 0 && w.requests_per_second < kMinRequestsPerSecond) {
    return FieldError("requests_per_second",
                      absl::StrCat("must be 0 or in [", kMinRequestsPerSecond, ", 1e7], got ", w.requests_per_second));
  }
  CAPPLAN_RETURN_IF_ERROR(CheckRange("ttft_slo_seconds", w.ttft_slo_seconds, 0.0, 1e5));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("tpot_slo_seconds", w.tpot_slo_seconds, 0.0, 1e5));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("e2e_slo_seconds", w.e2e_slo_seconds, 0.0, 1e6));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("target_utilization_fraction", w.target_utilization, 0.05, 1.0));
  if (!IsValidServingEngine(static_cast<int>(w.engine))) {
    return FieldError("engine", "must be vllm, tensorrt_llm, sglang or llama_cpp");
  }
  return absl::OkStatus();
}

namespace {

struct Scored {
  const ServingBenchmark* b;
  double score;
};

// The GPU's usable serving benchmarks, closest first: model size, then precision, engine and
// request length.
std::vector<Scored> RankBenchmarks(const ServingWorkload& w, const GpuSpec& gpu, double target_total,
                                   const std::vector<ServingBenchmark>& benchmarks) {
  std::vector<Scored> candidates;
  for (const ServingBenchmark& b : benchmarks) {
    if (b.gpu_name != gpu.name || b.value <= 0) continue;
    if (b.unit != MeasuredUnit::kRequestsPerSecond && b.unit != MeasuredUnit::kTokensPerSecond) continue;
    absl::StatusOr<ParameterCounts> c = CountParameters(b.model);
    if (!c.ok()) continue;
    const double len_b = static_cast<double>((b.prompt_tokens > 0 ? b.prompt_tokens : w.prompt_tokens) +
                                             (b.output_tokens > 0 ? b.output_tokens : w.output_tokens));
    const double len_t = static_cast<double>(w.prompt_tokens + w.output_tokens);
    candidates.push_back({&b, std::fabs(std::log(c->total / target_total)) +
                                  (b.precision != w.weight_precision ? 0.7 : 0.0) + (b.engine != w.engine ? 0.5 : 0.0) +
                                  0.3 * std::fabs(std::log(len_b / len_t))});
  }
  std::stable_sort(candidates.begin(), candidates.end(), [](const Scored& a, const Scored& b) {
    return a.score != b.score ? a.score < b.score : a.b->id < b.b->id;
  });
  return candidates;
}

}  // namespace

ServingEfficiency ServingEfficiencyFor(const ServingWorkload& w, const GpuSpec& gpu,
                                       const std::vector<ServingBenchmark>& benchmarks) {
  // The target's defaults (its engine and weight kernels); a benchmark's ratio to what its own
  // setup's defaults predict scales them.
  ServingEfficiency defaults = DefaultServingEfficiency(w, gpu);
  absl::StatusOr<ParameterCounts> target = CountParameters(w.model);
  if (!target.ok()) return defaults;
  const std::vector<Scored> candidates = RankBenchmarks(w, gpu, target->total, benchmarks);
  std::string ignored;
  for (const Scored& c : candidates) {
    const ServingBenchmark& b = *c.b;
    ServingWorkload bw = w;
    bw.model = b.model;
    bw.weight_precision = b.precision;
    bw.engine = b.engine;
    // Benchmarks report a fixed concurrency of requests in flight (or a saturating load).
    bw.batch_arrives_at_once = false;
    if (b.prompt_tokens > 0) bw.prompt_tokens = b.prompt_tokens;
    if (b.output_tokens > 0) bw.output_tokens = b.output_tokens;
    bw.ttft_slo_seconds = bw.tpot_slo_seconds = bw.e2e_slo_seconds = 0;
    const int tp = std::max(1, b.gpu_count);
    const ServingEfficiency own = DefaultServingEfficiency(bw, gpu);
    absl::StatusOr<ServingEstimate> predicted =
        b.batch > 0 ? EstimateServingAtBatch(bw, gpu, tp, b.batch, own) : EstimateServing(bw, gpu, tp, own);
    if (!predicted.ok()) {
      absl::StrAppend(&ignored, "; benchmark #", b.id, " ignored: ", predicted.status().message());
      continue;
    }
    const double predicted_value = b.unit == MeasuredUnit::kRequestsPerSecond
                                       ? predicted->requests_per_second_per_replica
                                       : predicted->output_tokens_per_second_per_replica;
    const double f = b.value / predicted_value;
    const double bw_eff = defaults.bandwidth.point * f;
    const double c_eff = defaults.compute.point * f;
    if (own.bandwidth.point * f > 1.0 || own.compute.point * f > 1.0 || bw_eff > 1.0 || c_eff > 1.0 || bw_eff < 0.05) {
      absl::StrAppendFormat(&ignored,
                            "; benchmark #%d (%s, %.4g %s) ignored: it implies %.0f%% of peak "
                            "memory bandwidth for %d+%d-token requests",
                            b.id, b.citation, b.value,
                            b.unit == MeasuredUnit::kRequestsPerSecond ? "req/s" : "tokens/s",
                            own.bandwidth.point * f * 100, bw.prompt_tokens, bw.output_tokens);
      continue;
    }
    absl::StatusOr<ParameterCounts> bc = CountParameters(b.model);
    const double width = 0.10 + 0.10 * std::fabs(std::log10(bc->total / target->total)) +
                         (b.precision != w.weight_precision ? 0.10 : 0.0);
    ServingEfficiency out;
    const std::string src =
        absl::StrFormat("calibrated on benchmark #%d (%s: %s on %d x %s under %s, %.4g %s): %.2fx the default", b.id,
                        b.citation, b.model.name, tp, b.gpu_name, ServingEngineName(b.engine), b.value,
                        b.unit == MeasuredUnit::kRequestsPerSecond ? "req/s" : "tokens/s", f);
    out.bandwidth = {
        bw_eff, bw_eff * (1 - width), std::min(1.0, bw_eff * (1 + width)),
        absl::StrFormat("%s; bandwidth efficiency %.2f applied (%s)", src, bw_eff, defaults.bandwidth.source) + ignored,
        b.id};
    out.compute = {
        c_eff, c_eff * (1 - width), std::min(1.0, c_eff * (1 + width)),
        absl::StrFormat("%s; compute efficiency %.2f applied (%s)", src, c_eff, defaults.compute.source) + ignored,
        b.id};
    return out;
  }
  defaults.bandwidth.source += ignored;
  defaults.compute.source += ignored;
  return defaults;
}

double CostPerMillionRequests(double price_usd_per_hour, double requests_per_second) {
  if (requests_per_second <= 0) return 0;
  return price_usd_per_hour * units::kMillion / (requests_per_second * units::kSecondsPerHour);
}

double CostPerMillionTokens(double price_usd_per_hour, double tokens_per_second) {
  return CostPerMillionRequests(price_usd_per_hour, tokens_per_second);
}

}  // namespace capplan::core
