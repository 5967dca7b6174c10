// Training efficiency: cited defaults per GPU class, or calibrated on the closest measured
// benchmark by re-running the estimator on the benchmark's setup.
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/assumptions.h"
#include "core/calibration_width.h"
#include "core/training/training.h"
#include "core/training/training_internal.h"

namespace capplan::core {

using training_internal::Eval;
using training_internal::Evaluate;
using training_internal::Prepare;
using training_internal::Prepared;
using training_internal::SetGlobalBatch;
using training_internal::Step;

Efficiency DefaultTrainingEfficiency(const GpuSpec& gpu, Precision precision) {
  // Compute efficiency: the share of dense peak the kernels sustain. Communication and the
  // pipeline bubble are modelled separately, so this sits above published end-to-end MFU:
  // 44-52% for Megatron-LM on A100 (Narayanan et al. 2021, Table 1), 46.2% PaLM and 21-32%
  // for GPT-3/Gopher/MT-NLG (Chowdhery et al. 2022, Table 3), 38-43% for Llama 3 405B on
  // H100 (Dubey et al. 2024, Table 4).
  Efficiency e;
  const Assumption& a = !gpu.datacenter                           ? assumptions::kTrainingEfficiencyConsumer
                        : gpu.interconnect == Interconnect::kPcie ? assumptions::kTrainingEfficiencyPcie
                                                                  : assumptions::kTrainingEfficiencyNvlink;
  e.point = a.value.point;
  e.low = a.value.low;
  e.high = a.value.high;
  e.source = absl::StrFormat("default compute efficiency %s: %s", Quote(a), a.source);
  if (precision == Precision::kFp8) {
    e.source += absl::StrCat("; FP8 peak counted at ", Quote(assumptions::kFp8PeakUtilisation));
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
    if (b.unit == MeasuredUnit::kSecondsPerStep && b.batch_sequences <= 0) continue;  // a step of what?
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
// The efficiency a layout is first searched at, before the solved one refines it.
constexpr double kSearchStartEfficiency = 0.5;

// The benchmark's own run as a job on its own cluster.
struct BenchRun {
  TrainingJob job;
  ClusterSpec cluster;
  SearchOptions options;
};

BenchRun BenchSetup(const TrainingJob& job, const ClusterSpec& cluster, const TrainingBenchmark& b) {
  BenchRun r;
  r.job = job;
  r.job.model = b.model;
  r.job.precision = b.precision;
  r.job.method = b.method;
  if (b.sequence_length > 0) r.job.sequence_length = b.sequence_length;
  r.job.global_batch_tokens = b.batch_sequences > 0 ? static_cast<double>(b.batch_sequences) * r.job.sequence_length
                                                    : kDefaultGlobalBatchTokens;
  r.job.global_batch_tokens = std::max(r.job.global_batch_tokens, static_cast<double>(r.job.sequence_length));
  r.job.tokens = 1e12;
  // An end-to-end figure already includes lost time: it is reproduced at the default goodput.
  r.job.goodput = kDefaultGoodput;
  r.cluster = cluster;
  if (b.fabric.Known()) r.cluster.fabric = b.fabric;
  r.options.max_gpus = r.options.min_gpus = b.gpu_count;
  r.options.top_k = 1;
  r.options.max_rejections = 1;
  r.options.pinned = b.layout;
  return r;
}

// The steady-state seconds per step the benchmark implies for a step of `tokens_per_step`.
double MeasuredStep(const TrainingBenchmark& b, double tokens_per_step) {
  double step = b.unit == MeasuredUnit::kSecondsPerStep ? b.value : tokens_per_step / b.value;
  if (b.figure == BenchmarkFigure::kEndToEnd) step *= kDefaultGoodput;  // wall time includes lost time
  return step;
}

// The compute efficiency at which `layout` takes `measured_step`; OutOfRange outside [0.01, 1].
absl::StatusOr<double> Bisect(const Prepared& p, const ParallelConfig& layout, double measured_step) {
  Eval e;
  Evaluate(p, layout, &e);
  if (Step(e, layout, 1.0).total > measured_step || Step(e, layout, kLowestEfficiency).total < measured_step) {
    return absl::OutOfRangeError(
        absl::StrFormat("it implies a compute efficiency outside [%.2f, 1]", kLowestEfficiency));
  }
  double lo = kLowestEfficiency, hi = 1.0;
  for (int i = 0; i < 60 && hi - lo > 1e-7; ++i) {
    const double mid = 0.5 * (lo + hi);
    (Step(e, layout, mid).total > measured_step ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// Re-runs the estimator on the benchmark's whole setup (GPU count, published layout with the
// rest searched, batch, sequence, fabric) and solves for the compute efficiency that
// reproduces its figure. The layout search depends on the efficiency, so the search is
// repeated at the solved value until the layout stops changing.
absl::StatusOr<double> SolveEfficiency(const TrainingJob& job, const ClusterSpec& cluster, const TrainingBenchmark& b) {
  const BenchRun run = BenchSetup(job, cluster, b);
  absl::StatusOr<Prepared> p = Prepare(run.job, run.cluster);
  if (!p.ok()) return p.status();
  double eff = kSearchStartEfficiency;
  ParallelConfig last{};
  absl::StatusOr<double> solved = absl::InternalError("not solved");
  for (int round = 0; round < 4; ++round) {
    Efficiency e{eff, eff, eff, "", 0};
    absl::StatusOr<SearchResult> r = SearchParallelism(run.job, run.cluster, e, run.options);
    if (!r.ok()) return r.status();
    if (r->ranked.empty()) {
      return absl::OutOfRangeError(
          r->rejected.empty()
              ? "its setup has no layout that runs"
              : absl::StrCat("its setup does not fit: ", DescribeRejection(r->rejected.front(), cluster.gpu)));
    }
    const ParallelConfig& layout = r->ranked.front().parallel;
    if (round > 0 && layout.tp == last.tp && layout.pp == last.pp && layout.dp == last.dp && layout.cp == last.cp &&
        layout.vpp == last.vpp && layout.ep == last.ep && layout.zero_stage == last.zero_stage &&
        layout.shard_group == last.shard_group && layout.offload == last.offload &&
        layout.recompute == last.recompute && layout.micro_batch == last.micro_batch) {
      break;
    }
    last = layout;
    Prepared bench = *p;
    SetGlobalBatch(&bench, run.job.global_batch_tokens);
    Eval ev;
    Evaluate(bench, layout, &ev);
    const double tokens_per_step = ev.micro_batches * layout.dp * layout.micro_batch * run.job.sequence_length;
    solved = Bisect(bench, layout, MeasuredStep(b, tokens_per_step));
    if (!solved.ok()) return solved;
    eff = *solved;
  }
  return solved;
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
    const double width = CalibrationWidth(cand.params / target->total, b.precision != job.precision);
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
