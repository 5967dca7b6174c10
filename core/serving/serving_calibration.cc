// Serving calibration on measured benchmarks, input validation and cost per request/token.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/assumptions.h"
#include "core/calibration_width.h"
#include "core/serving/serving.h"
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
  CAPPLAN_RETURN_IF_ERROR(CheckRange("concurrent_requests", w.concurrent_requests, int64_t{0}, int64_t{10000000}));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("engine_version.major", static_cast<int64_t>(w.engine_version.major), int64_t{0},
                                     int64_t{kMaxEngineVersionComponent}));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("engine_version.minor", static_cast<int64_t>(w.engine_version.minor), int64_t{0},
                                     int64_t{kMaxEngineVersionComponent}));
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

// The GPU's usable serving benchmarks measured under the workload's engine, closest first:
// model size, then precision and request length. Engines differ in kernels, scheduling and
// memory planning (core/serving_engine.cc), so a measurement under one engine says nothing
// about another's efficiency: other engines' rows are not candidates.
std::vector<Scored> RankBenchmarks(const ServingWorkload& w, const GpuSpec& gpu, double target_total,
                                   const std::vector<ServingBenchmark>& benchmarks) {
  std::vector<Scored> candidates;
  for (const ServingBenchmark& b : benchmarks) {
    if (b.gpu_name != gpu.name || b.engine != w.engine || b.value <= 0) continue;
    if (b.unit != MeasuredUnit::kRequestsPerSecond && b.unit != MeasuredUnit::kTokensPerSecond) continue;
    absl::StatusOr<ParameterCounts> c = CountParameters(b.model);
    if (!c.ok()) continue;
    const double len_b = static_cast<double>((b.prompt_tokens > 0 ? b.prompt_tokens : w.prompt_tokens) +
                                             (b.output_tokens > 0 ? b.output_tokens : w.output_tokens));
    const double len_t = static_cast<double>(w.prompt_tokens + w.output_tokens);
    candidates.push_back(
        {&b,
         std::fabs(std::log(c->total / target_total)) +
             (b.precision != w.weight_precision ? assumptions::kServingBenchmarkPrecisionDistance.value.point : 0.0) +
             assumptions::kServingBenchmarkLengthWeight.value.point * std::fabs(std::log(len_b / len_t))});
  }
  std::stable_sort(candidates.begin(), candidates.end(), [](const Scored& a, const Scored& b) {
    return a.score != b.score ? a.score < b.score : a.b->id < b.b->id;
  });
  return candidates;
}

const char* UnitName(const ServingBenchmark& b) {
  return b.unit == MeasuredUnit::kRequestsPerSecond ? "req/s" : "tokens/s";
}

// What a benchmark's own setup is predicted to measure at the given efficiencies.
class BenchmarkSetup {
 public:
  BenchmarkSetup(const ServingWorkload& target, const GpuSpec& gpu, const ServingBenchmark& b) : gpu_(gpu), b_(b) {
    w_ = target;
    w_.model = b.model;
    w_.weight_precision = b.precision;
    w_.engine = b.engine;
    // Benchmarks report a fixed concurrency of requests in flight (or a saturating load): their
    // own `batch`, never the target's closed loop.
    w_.batch_arrives_at_once = false;
    w_.concurrent_requests = 0;
    if (b.prompt_tokens > 0) w_.prompt_tokens = b.prompt_tokens;
    if (b.output_tokens > 0) w_.output_tokens = b.output_tokens;
    w_.ttft_slo_seconds = w_.tpot_slo_seconds = w_.e2e_slo_seconds = 0;
    tp_ = std::max(1, b.gpu_count);
  }
  const ServingWorkload& workload() const { return w_; }
  int tp() const { return tp_; }

  absl::StatusOr<double> Predict(const ServingEfficiency& eff) const {
    absl::StatusOr<ServingEstimate> e =
        b_.batch > 0 ? EstimateServingAtBatch(w_, gpu_, tp_, b_.batch, eff) : EstimateServing(w_, gpu_, tp_, eff);
    if (!e.ok()) return e.status();
    return b_.unit == MeasuredUnit::kRequestsPerSecond ? e->requests_per_second_per_replica
                                                       : e->output_tokens_per_second_per_replica;
  }

 private:
  const GpuSpec& gpu_;
  const ServingBenchmark& b_;
  ServingWorkload w_;
  int tp_ = 1;
};

// A measurement is decode-dominated when its predicted value moves mostly with the bandwidth
// efficiency, prefill-dominated when mostly with the compute efficiency (elasticities at the
// benchmark's own defaults); above this share it calibrates that efficiency alone.
constexpr double kDominantShare = assumptions::kDominantShare.value.point;

enum class Phase { kDecode, kPrefill, kMixed };

// Which efficiency the benchmark's figure depends on: the elasticities of its predicted value
// to a 10% rise of each efficiency, at its own defaults.
absl::StatusOr<Phase> PhaseOf(const BenchmarkSetup& setup, const ServingEfficiency& own, double base) {
  ServingEfficiency up_bw = own, up_fl = own;
  up_bw.bandwidth.point *= 1.1;
  up_fl.compute.point *= 1.1;
  absl::StatusOr<double> p_bw = setup.Predict(up_bw);
  if (!p_bw.ok()) return p_bw.status();
  absl::StatusOr<double> p_fl = setup.Predict(up_fl);
  if (!p_fl.ok()) return p_fl.status();
  const double e_bw = std::max(0.0, std::log(*p_bw / base)), e_fl = std::max(0.0, std::log(*p_fl / base));
  const double share_bw = e_bw + e_fl > 0 ? e_bw / (e_bw + e_fl) : 0.5;
  if (share_bw >= kDominantShare) return Phase::kDecode;
  if (1 - share_bw >= kDominantShare) return Phase::kPrefill;
  return Phase::kMixed;
}

const char* PhaseName(Phase p) {
  return p == Phase::kDecode ? "decode-dominated" : p == Phase::kPrefill ? "prefill-dominated" : "mixed";
}

// The efficiency (of `which`: bandwidth when true, else compute) at which the setup predicts
// `value`, with the other efficiency at `own`. Predictions rise with either efficiency, so a
// bisection over [0.01, 1] finds it; nullopt when even 100% of peak predicts less (the
// benchmark implies more than the hardware's peak) or the estimate fails.
std::optional<double> SolveEfficiency(const BenchmarkSetup& setup, const ServingEfficiency& own, bool bandwidth,
                                      double value) {
  auto predict_at = [&](double x) -> absl::StatusOr<double> {
    ServingEfficiency e = own;
    (bandwidth ? e.bandwidth : e.compute).point = x;
    return setup.Predict(e);
  };
  absl::StatusOr<double> top = predict_at(1.0);
  if (!top.ok() || *top < value) return std::nullopt;
  double lo = 0.01, hi = 1.0;
  for (int i = 0; i < 40; ++i) {
    const double mid = 0.5 * (lo + hi);
    absl::StatusOr<double> p = predict_at(mid);
    if (!p.ok()) return std::nullopt;
    (*p < value ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// How an efficiency measured on the benchmark's weight kernels carries to the target's: the
// ratio of the default kernel factors (core/serving_engine.cc). Bandwidth: never above 1. The
// fraction of peak bandwidth is comparable across weight formats (a quantised row reads fewer
// bytes per token; the estimator counts the bytes), and a dequantising kernel reaches a lower
// fraction than plain 16-bit reads, so a quantised row's fraction is a lower bound for a
// 16-bit target and is carried unchanged. Compute: the full ratio both ways. Weight-only
// formats dequantise into the same 16-bit GEMMs as 16-bit weights, but first convert the whole
// weight matrix (llama.cpp's cuBLAS path converts src0 to FP16 before the GEMM; Marlin/AWQ
// dequantise in the GEMM's main loop), which is what the default kernel compute factor prices:
// an int4 row at 0.33 of the peak says 16-bit weights reach 0.33 / 0.6. Carrying it unchanged
// would set an F16 estimate below the cited F16 default whenever the quantised row is the only
// prompt-processing measurement.
double KernelRatio(double target_default, double bench_default, bool cap_at_one) {
  const double r = target_default / bench_default;
  return cap_at_one ? std::min(1.0, r) : r;
}

struct Calibrated {
  bool set = false;
  Efficiency eff;
};

Calibrated Apply(double value, const Efficiency& target_default, double width, const std::string& src,
                 const std::string& what, int64_t id) {
  Calibrated c;
  c.set = true;
  c.eff = {value, value * (1 - width), std::min(1.0, value * (1 + width)),
           absl::StrFormat("%s; %s efficiency %.2f applied (%s)", src, what, value, target_default.source), id};
  return c;
}

}  // namespace

ServingEfficiency ServingEfficiencyFor(const ServingWorkload& w, const GpuSpec& gpu,
                                       const std::vector<ServingBenchmark>& benchmarks) {
  ServingEfficiency defaults = DefaultServingEfficiency(w, gpu);
  absl::StatusOr<ParameterCounts> target = CountParameters(w.model);
  if (!target.ok()) return defaults;
  Calibrated bw, fl;
  std::string ignored;
  for (const Scored& c : RankBenchmarks(w, gpu, target->total, benchmarks)) {
    if (bw.set && fl.set) break;
    const ServingBenchmark& b = *c.b;
    const BenchmarkSetup setup(w, gpu, b);
    const ServingEfficiency own = DefaultServingEfficiency(setup.workload(), gpu);
    absl::StatusOr<double> base = setup.Predict(own);
    absl::StatusOr<Phase> phase_or = base.ok() ? PhaseOf(setup, own, *base) : base.status();
    if (!phase_or.ok()) {
      absl::StrAppend(&ignored, "; benchmark #", b.id, " ignored: ", phase_or.status().message());
      continue;
    }
    const Phase phase = *phase_or;
    if ((phase == Phase::kDecode && bw.set) || (phase == Phase::kPrefill && fl.set) ||
        (phase == Phase::kMixed && (bw.set || fl.set))) {
      continue;  // a closer benchmark already set what this one would
    }
    const double f = b.value / *base;
    const double r_bw = KernelRatio(defaults.bandwidth.point, own.bandwidth.point, true);
    const double r_fl = KernelRatio(defaults.compute.point, own.compute.point, false);
    std::optional<double> x_bw, x_fl;
    if (phase == Phase::kDecode) x_bw = SolveEfficiency(setup, own, true, b.value);
    if (phase == Phase::kPrefill) x_fl = SolveEfficiency(setup, own, false, b.value);
    if (phase == Phase::kMixed) {
      // Neither phase dominates: the ratio to the defaults' prediction scales both.
      x_bw = own.bandwidth.point * f;
      x_fl = own.compute.point * f;
    }
    const double t_bw = x_bw ? *x_bw * r_bw : 0, t_fl = x_fl ? *x_fl * r_fl : 0;
    // Under 5% of peak is a setup mismatch (a figure from another configuration), not an
    // efficiency; over 100% is impossible.
    const bool uses_bw = phase != Phase::kPrefill;
    const std::optional<double> x = uses_bw ? x_bw : x_fl;
    const double t = uses_bw ? t_bw : t_fl;
    const bool implausible = !x || *x > 1.0 || t > 1.0 || t < 0.05 ||
                             (phase == Phase::kMixed && (!x_fl || *x_fl > 1.0 || t_fl > 1.0 || t_fl < 0.05));
    if (implausible) {
      // Unsolvable (beyond peak): the defaults' efficiency times the ratio to their prediction.
      const double implied = x ? *x : (uses_bw ? own.bandwidth.point : own.compute.point) * f;
      absl::StrAppendFormat(
          &ignored, "; benchmark #%d (%s, %.4g %s) ignored: it implies %.0f%% of peak %s for %d+%d-token requests",
          b.id, b.citation, b.value, UnitName(b), 100 * implied, uses_bw ? "memory bandwidth" : "compute",
          setup.workload().prompt_tokens, setup.workload().output_tokens);
      continue;
    }
    absl::StatusOr<ParameterCounts> bc = CountParameters(b.model);
    const double width = CalibrationWidth(bc->total / target->total, b.precision != w.weight_precision);
    const std::string src = absl::StrFormat(
        "calibrated on benchmark #%d (%s: %s %s on %d x %s under %s, %d+%d tokens, %.4g %s, %s): %.2fx the default",
        b.id, b.citation, b.model.name, PrecisionName(b.precision), setup.tp(), b.gpu_name, ServingEngineName(b.engine),
        setup.workload().prompt_tokens, setup.workload().output_tokens, b.value, UnitName(b), PhaseName(phase), f);
    if (x_bw) bw = Apply(t_bw, defaults.bandwidth, width, src, "bandwidth", b.id);
    if (x_fl) fl = Apply(t_fl, defaults.compute, width, src, "compute", b.id);
  }
  ServingEfficiency out = defaults;
  if (bw.set) out.bandwidth = bw.eff;
  if (fl.set) out.compute = fl.eff;
  out.bandwidth.source += ignored;
  out.compute.source += ignored;
  return out;
}

double CostPerMillionRequests(double price_usd_per_hour, double requests_per_second) {
  if (requests_per_second <= 0) return 0;
  return price_usd_per_hour * units::kMillion / (requests_per_second * units::kSecondsPerHour);
}

double CostPerMillionTokens(double price_usd_per_hour, double tokens_per_second) {
  return CostPerMillionRequests(price_usd_per_hour, tokens_per_second);
}

}  // namespace capplan::core
