// Training efficiency: cited defaults per GPU class, or calibrated on the closest measured
// benchmark by re-running the estimator on the benchmark's setup.
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/training.h"
#include "core/training_internal.h"

namespace capplan::core {

using training_internal::Eval;
using training_internal::Evaluate;
using training_internal::Prepare;
using training_internal::Prepared;
using training_internal::Step;

Efficiency DefaultTrainingEfficiency(const GpuSpec& gpu, Precision precision) {
  // Compute efficiency: the share of dense peak the kernels sustain. Communication and the
  // pipeline bubble are modelled separately, so this sits above published end-to-end MFU:
  // 44-52% for Megatron-LM on A100 (Narayanan et al. 2021, Table 1), 46.2% PaLM and 21-32%
  // for GPT-3/Gopher/MT-NLG (Chowdhery et al. 2022, Table 3), 38-43% for Llama 3 405B on
  // H100 (Dubey et al. 2024, Table 4).
  Efficiency e;
  if (!gpu.datacenter) {
    // Consumer parts: lower sustained clocks in racks (seed 003: throttling at 105 °C) and
    // smaller caches; no published MFU, so a wide range.
    e = {0.40, 0.25, 0.50,
         "default for consumer GPUs: 0.40 (0.25-0.50), below datacenter parts that reach "
         "44-52% end-to-end MFU (Narayanan et al. 2021, Table 1); no measurement"};
  } else if (gpu.interconnect == Interconnect::kPcie) {
    e = {0.45, 0.30, 0.55,
         "default for PCIe datacenter GPUs: 0.45 (0.30-0.55), power-capped boards sustain "
         "less of peak than SXM parts at 44-52% MFU (Narayanan et al. 2021, Table 1)"};
  } else {
    e = {0.55, 0.40, 0.65,
         "default for NVLink-class datacenter GPUs: 0.55 (0.40-0.65) compute efficiency; "
         "end-to-end MFU 38-52% (Narayanan et al. 2021 Table 1; Chowdhery et al. 2022 Table 3; "
         "Dubey et al. 2024 Table 4) with communication modelled separately"};
  }
  if (precision == Precision::kFp8) {
    e.source += "; FP8 peak counted at 70% (attention and norms stay BF16)";
  }
  return e;
}

namespace {

struct Scored {
  const TrainingBenchmark* b;
  double score;   // distance from the job: log size ratio, plus precision and method mismatches
  double params;  // the benchmark model's parameters
};

// Benchmarks on this GPU type with a usable training figure, closest to the job first.
std::vector<Scored> ClosestBenchmarks(const TrainingJob& job, const ClusterSpec& cluster, double target_params,
                                      const std::vector<TrainingBenchmark>& benchmarks) {
  std::vector<Scored> candidates;
  for (const TrainingBenchmark& b : benchmarks) {
    if (b.gpu_name != cluster.gpu.name || b.value <= 0 || b.gpu_count < 1) continue;
    if (b.unit == MeasuredUnit::kRequestsPerSecond) continue;
    absl::StatusOr<ParameterCounts> c = CountParameters(b.model);
    if (!c.ok()) continue;
    candidates.push_back({&b,
                          std::fabs(std::log(c->total / target_params)) + (b.precision != job.precision ? 0.7 : 0.0) +
                              (b.method != job.method ? 0.7 : 0.0),
                          c->total});
  }
  std::stable_sort(candidates.begin(), candidates.end(), [](const Scored& a, const Scored& b) {
    return a.score != b.score ? a.score < b.score : a.b->id < b.b->id;
  });
  return candidates;
}

constexpr double kLowestEfficiency = 0.01;

// The compute efficiency that reproduces the benchmark's measured step on its own setup
// (pure data parallel, ZeRO-1, no recompute); an error when it implies one outside
// [0.01, 1] or cannot be set up.
absl::StatusOr<double> SolveEfficiency(const TrainingJob& job, const ClusterSpec& cluster, const TrainingBenchmark& b) {
  TrainingJob bench = job;
  bench.model = b.model;
  bench.precision = b.precision;
  bench.method = b.method;
  if (b.sequence_length > 0) bench.sequence_length = b.sequence_length;
  bench.global_batch_tokens = b.batch_sequences > 0
                                  ? static_cast<double>(b.batch_sequences) * bench.sequence_length
                                  : std::max(job.global_batch_tokens, static_cast<double>(bench.sequence_length));
  bench.tokens = 1e9;
  absl::StatusOr<Prepared> p = Prepare(bench, cluster);
  if (!p.ok()) return p.status();
  ParallelConfig par;
  par.dp = b.gpu_count;
  par.zero_stage = b.gpu_count > 1 ? 1 : 0;
  Eval e;
  Evaluate(*p, par, &e);
  const double tokens_per_step = e.micro_batches * par.dp * par.micro_batch * bench.sequence_length;
  const double measured_step = b.unit == MeasuredUnit::kSecondsPerStep ? b.value : tokens_per_step / b.value;
  if (Step(e, par, 1.0).total > measured_step || Step(e, par, kLowestEfficiency).total < measured_step) {
    return absl::OutOfRangeError(
        absl::StrFormat("it implies a compute efficiency outside [%.2f, 1]", kLowestEfficiency));
  }
  double lo = kLowestEfficiency, hi = 1.0;
  for (int i = 0; i < 60 && hi - lo > 1e-6; ++i) {
    const double mid = 0.5 * (lo + hi);
    (Step(e, par, mid).total > measured_step ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

Efficiency TrainingEfficiency(const TrainingJob& job, const ClusterSpec& cluster,
                              const std::vector<TrainingBenchmark>& benchmarks) {
  Efficiency fallback = DefaultTrainingEfficiency(cluster.gpu, job.precision);
  absl::StatusOr<ParameterCounts> target = CountParameters(job.model);
  if (!target.ok()) return fallback;
  std::string ignored;
  for (const Scored& cand : ClosestBenchmarks(job, cluster, target->total, benchmarks)) {
    const TrainingBenchmark& b = *cand.b;
    absl::StatusOr<double> point = SolveEfficiency(job, cluster, b);
    if (!point.ok()) {
      if (absl::IsOutOfRange(point.status())) {
        absl::StrAppend(&ignored, "; benchmark #", b.id, " (", b.citation, ") ignored: ", point.status().message());
      } else {
        absl::StrAppend(&ignored, "; benchmark #", b.id, " ignored: ", point.status().message());
      }
      continue;
    }
    const double width =
        0.10 + 0.10 * std::fabs(std::log10(cand.params / target->total)) + (b.precision != job.precision ? 0.10 : 0.0);
    Efficiency out;
    out.point = *point;
    out.low = std::max(kLowestEfficiency, *point * (1.0 - width));
    out.high = std::min(1.0, *point * (1.0 + width));
    out.benchmark_id = b.id;
    out.source = absl::StrFormat(
        "calibrated on benchmark #%d (%s, %d x %s, %s, %.4g %s): compute efficiency %.3f, "
        "range +/-%.0f%% for a model %.2fx its size%s",
        b.id, b.citation, b.gpu_count, b.gpu_name, PrecisionName(b.precision), b.value,
        b.unit == MeasuredUnit::kSecondsPerStep ? "s/step" : "tokens/s", *point, width * 100,
        target->total / cand.params, ignored);
    return out;
  }
  fallback.source += ignored;
  return fallback;
}

}  // namespace capplan::core
