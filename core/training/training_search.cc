// The training parallelism search: for each GPU count, every tensor / context / pipeline /
// data / expert split the cluster's fabric allows, interleaved pipeline stages, ZeRO stage,
// recompute and micro-batch; and, when the caller leaves it open, the global batch.
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "core/assumptions.h"
#include "core/training/training.h"
#include "core/training/training_internal.h"
#include "core/units.h"
#include "core/validate.h"

namespace capplan::core {

using training_internal::Eval;
using training_internal::Evaluate;
using training_internal::LayoutProblem;
using training_internal::Materialize;
using training_internal::Prepare;
using training_internal::Prepared;
using training_internal::SetGlobalBatch;
using training_internal::Step;

namespace {

// Context parallelism pays off only for long sequences (Dubey et al. 2024, Sec. 3.3.2: Llama
// 3 turns it on for the 128k-token stage); shorter ones are not split.
constexpr int64_t kMinSequenceForContextParallel = 16384;

// A pipeline idle for more than half of its compute is a layout nobody runs when a larger
// batch or another split avoids it: such layouts rank after every other (Narayanan et al.
// 2021, Sec. 2.2: the flush costs (p-1)/(m·v) of the ideal step).
constexpr double kMaxBubbleFraction = 0.5;

// One batch size's search: candidate GPU counts, the layouts of each, the best few kept
// sorted and the closest misses noted.
class LayoutSearch {
  struct Candidate {
    ParallelConfig par;
    double duration;
    double gpu_hours;
    bool high_bubble;  // idle more than kMaxBubbleFraction of compute
  };
  struct LessBy {
    const LayoutSearch* search;
    bool operator()(const Candidate& a, const Candidate& b) const { return search->Better(a, b); }
  };
  LessBy Less() const { return LessBy{this}; }
  double Key(const Candidate& c) const { return deadline_ ? c.gpu_hours : c.duration; }

 public:
  LayoutSearch(const Prepared& p, const Efficiency& efficiency, const SearchOptions& options)
      : p_(p),
        job_(*p.job),
        gpu_(p.cluster->gpu),
        efficiency_(efficiency),
        options_(options),
        bounded_(options.top_k <= 16),
        deadline_(options.deadline_seconds > 0) {
    if (bounded_) feasible_.reserve(static_cast<size_t>(options.top_k) + 1);
  }

  // The best objective value found (duration, or GPU-hours under a deadline); +inf if none.
  double BestKey() const {
    if (feasible_.empty()) return INFINITY;
    return Key(Best());
  }
  // Whether even the best layout idles more than kMaxBubbleFraction in its pipeline.
  bool BestHighBubble() const { return !feasible_.empty() && Best().high_bubble; }

  SearchResult Run() {
    for (int n : Counts()) Splits(n);
    return Finish();
  }

 private:
  // Powers of two, whole nodes up to 16 of them, and the largest count allowed.
  std::vector<int> Counts() const {
    std::vector<int> counts;
    for (int n = 1; n <= options_.max_gpus; n *= 2) {
      if (n >= options_.min_gpus) counts.push_back(n);
      if (n > options_.max_gpus / 2) break;
    }
    const int node = p_.fabric.gpus_per_node;
    for (int n = node; n <= options_.max_gpus && n <= 16 * node; n += node) {
      if (n >= options_.min_gpus) counts.push_back(n);
    }
    counts.push_back(options_.max_gpus);
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    return counts;
  }

  // Every tp (inside a node, dividing the heads) x cp x pp (any divisor: stages may be
  // uneven) split of n GPUs.
  void Splits(int n) {
    const int64_t heads = p_.shape.num_attention_heads;
    const int64_t layers = p_.shape.num_layers;
    const int64_t seq = job_.sequence_length;
    const ParallelConfig& pin = options_.pinned;
    for (int tp = 1; tp <= std::min(n, p_.fabric.gpus_per_node); tp *= 2) {
      if (n % tp != 0 || heads % tp != 0 || (pin.tp > 0 && tp != pin.tp)) continue;
      for (int cp = pin.cp > 0 ? pin.cp : 1; cp * tp <= n; cp *= 2) {
        if (pin.cp > 0 && cp != pin.cp) break;
        if (pin.cp == 0 && cp > 1 && seq < kMinSequenceForContextParallel) break;
        if (cp > 1 && seq % (2 * cp) != 0) break;
        const int rest = n / (tp * cp);
        if (rest * tp * cp != n) continue;
        for (int pp = 1; pp <= rest && pp <= layers; ++pp) {
          if (rest % pp != 0 || (pin.pp > 0 && pp != pin.pp) || (pin.dp > 0 && rest / pp != pin.dp)) continue;
          Stages(n, tp, cp, pp);
        }
      }
    }
  }

  // Interleaving (virtual stages, powers of two while every chunk keeps a layer) and expert
  // parallelism (MoE) of one split.
  void Stages(int n, int tp, int cp, int pp) {
    const int dp = n / (tp * cp * pp);
    if (dp > p_.global_sequences) {
      NoteBatchMiss(tp, pp, dp, cp);
      return;
    }
    const ParallelConfig& pin = options_.pinned;
    // Pinned values are taken as given (a published vpp of 3 or 6 is not a power of two).
    for (int vpp = pin.vpp > 0 ? pin.vpp : 1; vpp == 1 || (pp > 1 && vpp * pp <= p_.shape.num_layers + 2); vpp *= 2) {
      for (int ep = pin.ep > 0 ? pin.ep : 1; ep == 1 || (p_.shape.IsMoe() && ep <= p_.shape.num_experts); ep *= 2) {
        if (ep > 1 && (p_.shape.num_experts % ep != 0 || (dp * cp) % ep != 0)) break;
        // ZeRO stage, recompute and micro-batch at their defaults: Layouts() searches them.
        ParallelConfig par;
        par.tp = tp;
        par.pp = pp;
        par.dp = dp;
        par.sequence_parallel = tp > 1;
        par.vpp = vpp;
        par.cp = cp;
        par.ep = ep;
        if (!LayoutProblem(p_, par).empty()) continue;
        Layouts(par);
        if (pin.ep > 0) break;
      }
      if (pin.vpp > 0) break;
    }
  }

  void NoteBatchMiss(int tp, int pp, int dp, int cp) {
    if (!misses_.empty()) return;
    LayoutRejection r;
    r.parallel.tp = tp;
    r.parallel.pp = pp;
    r.parallel.dp = dp;
    r.parallel.cp = cp;
    r.reason = LayoutRejectReason::kBatch;
    r.global_batch_sequences = p_.global_sequences;
    misses_.push_back(r);
  }

  const Candidate& Best() const {
    return bounded_ ? feasible_.front() : *std::min_element(feasible_.begin(), feasible_.end(), Less());
  }

  bool Better(const Candidate& a, const Candidate& b) const {
    if (a.high_bubble != b.high_bubble) return b.high_bubble;
    const double ka = Key(a), kb = Key(b);
    if (ka != kb) return ka < kb;
    const ParallelConfig &x = a.par, &y = b.par;
    return std::make_tuple(x.NumGpus(), x.tp, x.pp, x.cp, x.ep, x.vpp, x.zero_stage, x.recompute, x.micro_batch) <
           std::make_tuple(y.NumGpus(), y.tp, y.pp, y.cp, y.ep, y.vpp, y.zero_stage, y.recompute, y.micro_batch);
  }

  // Keep the closest misses: smallest memory overshoot, or smallest deadline overrun.
  static double Badness(const LayoutRejection& x) {
    switch (x.reason) {
      case LayoutRejectReason::kMemory:
        return 1.0 + x.needed_bytes / x.capacity_bytes;
      case LayoutRejectReason::kDeadline:
        return x.duration_seconds / x.deadline_seconds;
      case LayoutRejectReason::kBatch:
        break;
    }
    return 1e9;  // any memory or deadline miss is closer
  }

  void NoteMiss(const LayoutRejection& r) {
    if (static_cast<int>(misses_.size()) < options_.max_rejections) {
      misses_.push_back(r);
      return;
    }
    auto worst =
        std::max_element(misses_.begin(), misses_.end(),
                         [](const LayoutRejection& a, const LayoutRejection& b) { return Badness(a) < Badness(b); });
    if (Badness(r) < Badness(*worst)) *worst = r;
  }

  void Keep(const Candidate& c) {
    if (!bounded_) {
      feasible_.push_back(c);
    } else if (static_cast<int>(feasible_.size()) < options_.top_k || Better(c, feasible_.back())) {
      feasible_.insert(std::upper_bound(feasible_.begin(), feasible_.end(), c, Less()), c);
      if (static_cast<int>(feasible_.size()) > options_.top_k) feasible_.pop_back();
    }
  }

  // Every ZeRO stage and recompute policy of one split.
  void Layouts(ParallelConfig par) {
    // A distributed optimizer (ZeRO-1/2) shards state at the communication cost of a plain
    // all-reduce, so stage 2 dominates 0 and 1; stage 3 trades gathers for sharded weights.
    const bool sharded = par.dp * par.cp > 1;
    int zero_options[2] = {sharded ? 2 : 0, 3};
    int num_zero = sharded ? 2 : 1;
    if (options_.pin_zero) {
      zero_options[0] = options_.pinned.zero_stage;
      num_zero = 1;
    }
    for (int zi = 0; zi < num_zero; ++zi) {
      par.zero_stage = zero_options[zi];
      for (Recompute rc : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
        if (options_.pin_recompute ? rc != options_.pinned.recompute
                                   : rc == Recompute::kSelective && job_.flash_attention) {
          continue;  // with FlashAttention, selective recompute saves nothing more than none
        }
        par.recompute = rc;
        if (MicroBatches(par)) break;  // more recompute only adds time
      }
    }
  }

  // Micro-batches 1, 2, 4, 8 of one layout until one does not fit; true if any fit.
  bool MicroBatches(ParallelConfig par) {
    bool any_fit = false;
    const int n = par.NumGpus();
    const int64_t pin_mb = options_.pinned.micro_batch;
    for (int64_t mb = pin_mb > 0 ? pin_mb : 1;
         mb <= std::max<int64_t>(8, pin_mb) && static_cast<double>(mb) * par.dp <= p_.global_sequences; mb *= 2) {
      if (pin_mb > 0 && mb != pin_mb) break;
      par.micro_batch = mb;
      Evaluate(p_, par, &eval_);
      ++result_.configurations_evaluated;
      if (!eval_.fits) {
        NoteMiss({par, LayoutRejectReason::kMemory, eval_.memory.TotalBytes(), gpu_.memory_bytes, 0, 0});
        break;  // larger micro-batches need more memory
      }
      any_fit = true;
      Candidate c{par, 0, 0, false};
      const training_internal::StepParts step = Step(eval_, par, efficiency_.point);
      c.high_bubble = step.bubble > kMaxBubbleFraction * step.compute;
      c.duration = eval_.steps * step.total / job_.goodput;
      c.gpu_hours = c.duration * n / units::kSecondsPerHour;
      if (deadline_ && c.duration > options_.deadline_seconds) {
        NoteMiss({par, LayoutRejectReason::kDeadline, 0, 0, c.duration, options_.deadline_seconds});
        continue;
      }
      Keep(c);
    }
    return any_fit;
  }

  SearchResult Finish() {
    const size_t k = std::min<size_t>(options_.top_k, feasible_.size());
    if (!bounded_) std::partial_sort(feasible_.begin(), feasible_.begin() + k, feasible_.end(), Less());
    for (size_t i = 0; i < k; ++i) {
      Evaluate(p_, feasible_[i].par, &eval_);
      result_.ranked.push_back(Materialize(p_, feasible_[i].par, eval_, efficiency_));
    }
    std::sort(misses_.begin(), misses_.end(),
              [](const LayoutRejection& a, const LayoutRejection& b) { return Badness(a) < Badness(b); });
    result_.rejected = std::move(misses_);
    return std::move(result_);
  }

  const Prepared& p_;
  const TrainingJob& job_;
  const GpuSpec& gpu_;
  const Efficiency& efficiency_;
  const SearchOptions& options_;
  const bool bounded_, deadline_;
  std::vector<Candidate> feasible_;  // the best top_k so far, sorted (unsorted when unbounded)
  std::vector<LayoutRejection> misses_;
  Eval eval_;
  SearchResult result_;
};

// A bigger batch that buys less than this much speed is not worth its cost in convergence:
// past the critical batch size, doubling the batch needs nearly twice the data for the
// same loss (McCandlish et al. 2018, "An Empirical Model of Large-Batch Training", Sec. 2).
constexpr double kBatchSpeedupWorthIt = assumptions::kBatchSpeedupWorthIt.value.point;

}  // namespace

std::vector<double> BatchCandidates(const TrainingJob& job) {
  if (job.global_batch_tokens > 0) return {job.global_batch_tokens};
  // Published pre-training batches run from 0.5M tokens (GPT-3 125M, Brown et al. 2020,
  // Table 2.1) to 16M (Llama 3 405B's last stage, Dubey et al. 2024, Sec. 3.4.1); and a run
  // keeps at least 1,000 optimizer steps.
  const double seq = static_cast<double>(job.sequence_length);
  const double hi = std::max(seq, std::min(16.0 * 1024 * 1024, job.tokens / 1000));
  const double lo = std::min(512.0 * 1024, hi);
  std::vector<double> out;
  for (double b = 8192; b <= hi; b *= 2) {
    if (b >= lo && b >= seq) out.push_back(std::floor(b / seq) * seq);
  }
  if (out.empty()) out.push_back(std::floor(hi / seq) * seq);
  return out;
}

absl::StatusOr<SearchResult> SearchParallelism(const TrainingJob& job, const ClusterSpec& cluster,
                                               const Efficiency& efficiency, const SearchOptions& options) {
  absl::StatusOr<Prepared> prepared = Prepare(job, cluster);
  if (!prepared.ok()) return prepared.status();
  CAPPLAN_RETURN_IF_ERROR(CheckRange("max_gpus", static_cast<int64_t>(options.max_gpus), 1, 65536));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("min_gpus", static_cast<int64_t>(options.min_gpus), 1, options.max_gpus));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("deadline_seconds", options.deadline_seconds, 0.0, 1e10));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("top_k", static_cast<int64_t>(options.top_k), 1, 1000));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("efficiency.point", efficiency.point, 0.01, 1.0));
  // One search per batch size; the smallest batch within 5% of the best one's objective,
  // among the batches whose best layout keeps the pipeline bubble at most half of compute
  // when any does (a larger batch has more micro-batches to fill the pipeline).
  struct BatchResult {
    double key;
    bool high_bubble;
    SearchResult r;
  };
  std::vector<BatchResult> per_batch;
  int64_t evaluated = 0;
  double best = INFINITY;
  bool any_low_bubble = false;
  for (double b : BatchCandidates(job)) {
    Prepared p = *prepared;
    SetGlobalBatch(&p, b);
    LayoutSearch search(p, efficiency, options);
    SearchResult r = search.Run();
    evaluated += r.configurations_evaluated;
    const bool low = std::isfinite(search.BestKey()) && !search.BestHighBubble();
    if (low && !any_low_bubble) best = INFINITY;  // the first low-bubble batch resets the bar
    any_low_bubble = any_low_bubble || low;
    if (low || !any_low_bubble) best = std::min(best, search.BestKey());
    per_batch.push_back({search.BestKey(), search.BestHighBubble(), std::move(r)});
  }
  for (auto& [key, high_bubble, r] : per_batch) {
    if (any_low_bubble && high_bubble) continue;
    if (std::isfinite(best) && key <= best * (1.0 + kBatchSpeedupWorthIt)) {
      r.configurations_evaluated = evaluated;
      return std::move(r);
    }
  }
  // Nothing fits at any batch: the largest batch's misses (fewest batch-limited layouts).
  SearchResult r = std::move(per_batch.back().r);
  r.configurations_evaluated = evaluated;
  return r;
}

}  // namespace capplan::core
