// The training parallelism search: for each GPU count, every tensor / context / pipeline /
// data / expert split the cluster's fabric allows, interleaved pipeline stages, ZeRO stage,
// recompute and micro-batch; and, when the caller leaves it open, the global batch.
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "core/assumptions.h"
#include "core/training/layout_cache.h"
#include "core/training/training.h"
#include "core/training/training_internal.h"
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
  // Ranked per token (seconds, or GPU-seconds under a deadline): the duration is that
  // times the token count over the goodput, the same factor for every layout, so the ranking
  // and the batch choice do not depend on the token count (core/training/layout_cache.h).
  struct Candidate {
    ParallelConfig par;
    double seconds_per_token;
    double gpu_seconds_per_token;
    bool high_bubble;  // idle more than kMaxBubbleFraction of compute
  };
  struct LessBy {
    const LayoutSearch* search;
    bool operator()(const Candidate& a, const Candidate& b) const { return search->Better(a, b); }
  };
  LessBy Less() const { return LessBy{this}; }
  double Key(const Candidate& c) const { return deadline_ ? c.gpu_seconds_per_token : c.seconds_per_token; }

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

  // The best objective value found (seconds, or GPU-seconds under a deadline, per token);
  // +inf if none.
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
    return std::make_tuple(x.NumGpus(), x.tp, x.pp, x.cp, x.ep, x.vpp, x.zero_stage, x.shard_group, x.offload,
                           x.recompute, x.micro_batch) < std::make_tuple(y.NumGpus(), y.tp, y.pp, y.cp, y.ep, y.vpp,
                                                                         y.zero_stage, y.shard_group, y.offload,
                                                                         y.recompute, y.micro_batch);
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

  // Every ZeRO stage, shard group, offload and recompute policy of one split. Offload is tried
  // only when nothing on the GPUs alone fits (it trades the host link for memory), unless pinned.
  void Layouts(ParallelConfig par) {
    const ParallelConfig& pin = options_.pinned;
    if (options_.pin_offload) {
      par.offload = pin.offload;
      ZeroStages(par);
      return;
    }
    for (Offload o : {Offload::kNone, Offload::kOptimizer, Offload::kOptimizerAndParameters}) {
      par.offload = o;
      if (ZeroStages(par)) return;
    }
  }

  // The shard groups of a ZeRO stage: the caller's, or every rank and, for ZeRO-3 across
  // nodes, one node's ranks (HSDP: gathers on the fast link, one all-reduce across nodes).
  std::vector<int> ShardGroups(const ParallelConfig& par) const {
    if (options_.pin_shard_group || options_.pinned.shard_group > 0) return {options_.pinned.shard_group};
    std::vector<int> out = {0};
    const int d = par.dp * par.cp, in_node = std::max(1, p_.fabric.gpus_per_node / par.tp);
    if (par.zero_stage >= 3 && d > in_node && d % in_node == 0) out.push_back(in_node);
    return out;
  }

  // Every ZeRO stage and recompute policy of one split at one offload; true if any fit.
  bool ZeroStages(ParallelConfig par) {
    // A distributed optimizer (ZeRO-1/2) shards state at the communication cost of a plain
    // all-reduce, so stage 2 dominates 0 and 1; stage 3 trades gathers for sharded weights.
    const bool sharded = par.dp * par.cp > 1;
    int zero_options[2] = {sharded ? 2 : 0, 3};
    int num_zero = sharded ? 2 : 1;
    if (options_.pin_zero) {
      zero_options[0] = options_.pinned.zero_stage;
      num_zero = 1;
    }
    bool any = false;
    for (int zi = 0; zi < num_zero; ++zi) {
      par.zero_stage = zero_options[zi];
      for (int shard : ShardGroups(par)) {
        par.shard_group = shard;
        if (!LayoutProblem(p_, par).empty()) continue;
        for (Recompute rc : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
          if (options_.pin_recompute ? rc != options_.pinned.recompute
                                     : rc == Recompute::kSelective && job_.flash_attention) {
            continue;  // with FlashAttention, selective recompute saves nothing more than none
          }
          par.recompute = rc;
          if (MicroBatches(par)) {
            any = true;
            break;  // more recompute only adds time
          }
        }
      }
    }
    return any;
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
      const double tokens_per_step = eval_.micro_batches * par.dp * static_cast<double>(mb) * job_.sequence_length;
      c.seconds_per_token = step.total / tokens_per_step;
      c.gpu_seconds_per_token = c.seconds_per_token * n;
      if (deadline_) {
        const double duration = eval_.steps * step.total / job_.goodput;
        if (duration > options_.deadline_seconds) {
          NoteMiss({par, LayoutRejectReason::kDeadline, 0, 0, duration, options_.deadline_seconds});
          continue;
        }
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

namespace {

absl::Status CheckSearch(const Efficiency& efficiency, const SearchOptions& options) {
  CAPPLAN_RETURN_IF_ERROR(CheckRange("max_gpus", static_cast<int64_t>(options.max_gpus), 1, 65536));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("min_gpus", static_cast<int64_t>(options.min_gpus), 1, options.max_gpus));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("deadline_seconds", options.deadline_seconds, 0.0, 1e10));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("top_k", static_cast<int64_t>(options.top_k), 1, 1000));
  return CheckRange("efficiency.point", efficiency.point, 0.01, 1.0);
}

// A search's answer and the global batch its ranked layouts are for.
struct Chosen {
  double batch_tokens = 0;
  SearchResult r;
};

// One search per batch size; the smallest batch within 5% of the best one's objective,
// among the batches whose best layout keeps the pipeline bubble at most half of compute
// when any does (a larger batch has more micro-batches to fill the pipeline).
Chosen SearchBatches(const Prepared& prepared, const std::vector<double>& batches, const Efficiency& efficiency,
                     const SearchOptions& options) {
  struct BatchResult {
    double batch_tokens;
    double key;
    bool high_bubble;
    SearchResult r;
  };
  std::vector<BatchResult> per_batch;
  int64_t evaluated = 0;
  double best = INFINITY;
  bool any_low_bubble = false;
  for (double b : batches) {
    Prepared p = prepared;
    SetGlobalBatch(&p, b);
    LayoutSearch search(p, efficiency, options);
    SearchResult r = search.Run();
    evaluated += r.configurations_evaluated;
    const bool low = std::isfinite(search.BestKey()) && !search.BestHighBubble();
    if (low && !any_low_bubble) best = INFINITY;  // the first low-bubble batch resets the bar
    any_low_bubble = any_low_bubble || low;
    if (low || !any_low_bubble) best = std::min(best, search.BestKey());
    per_batch.push_back({b, search.BestKey(), search.BestHighBubble(), std::move(r)});
  }
  for (BatchResult& x : per_batch) {
    if (any_low_bubble && x.high_bubble) continue;
    if (std::isfinite(best) && x.key <= best * (1.0 + kBatchSpeedupWorthIt)) {
      x.r.configurations_evaluated = evaluated;
      return {x.batch_tokens, std::move(x.r)};
    }
  }
  // Nothing fits at any batch: the largest batch's misses (fewest batch-limited layouts).
  Chosen out{per_batch.back().batch_tokens, std::move(per_batch.back().r)};
  out.r.configurations_evaluated = evaluated;
  return out;
}

// A remembered search's answer for this job: its layouts evaluated at the job's token count.
SearchResult Rebuild(Prepared p, const CachedLayouts& c, const Efficiency& efficiency) {
  SetGlobalBatch(&p, c.batch_tokens);
  SearchResult r;
  r.ranked.reserve(c.ranked.size());
  Eval e;
  for (const ParallelConfig& par : c.ranked) {
    Evaluate(p, par, &e);
    r.ranked.push_back(Materialize(p, par, e, efficiency));
  }
  r.rejected = c.rejected;
  r.configurations_evaluated = c.configurations_evaluated;
  return r;
}

}  // namespace

absl::StatusOr<SearchResult> SearchParallelism(const TrainingJob& job, const ClusterSpec& cluster,
                                               const Efficiency& efficiency, const SearchOptions& options) {
  return SearchParallelism(job, cluster, efficiency, options, LayoutCacheRef{});
}

absl::StatusOr<SearchResult> SearchParallelism(const TrainingJob& job, const ClusterSpec& cluster,
                                               const Efficiency& efficiency, const SearchOptions& options,
                                               LayoutCacheRef cache) {
  absl::StatusOr<Prepared> prepared = Prepare(job, cluster);
  if (!prepared.ok()) return prepared.status();
  CAPPLAN_RETURN_IF_ERROR(CheckSearch(efficiency, options));
  const std::vector<double> batches = BatchCandidates(job);
  // A deadline filters layouts by duration, which the token count scales: not remembered.
  if (cache.cache == nullptr || options.deadline_seconds > 0) {
    return std::move(SearchBatches(*prepared, batches, efficiency, options).r);
  }
  std::string own_job_key;
  const std::string* job_key = cache.job_key;
  if (job_key == nullptr) {
    own_job_key = JobKey(job);
    job_key = &own_job_key;
  }
  const std::string key = LayoutSearchKey(*job_key, cluster, efficiency.point, options, batches);
  if (std::shared_ptr<const CachedLayouts> hit = cache.cache->FindLayouts(cache.version, key)) {
    return Rebuild(*std::move(prepared), *hit, efficiency);
  }
  Chosen chosen = SearchBatches(*prepared, batches, efficiency, options);
  CachedLayouts entry;
  entry.batch_tokens = chosen.batch_tokens;
  for (const TrainingEstimate& e : chosen.r.ranked) entry.ranked.push_back(e.parallel);
  entry.rejected = chosen.r.rejected;
  entry.configurations_evaluated = chosen.r.configurations_evaluated;
  cache.cache->StoreLayouts(cache.version, key, std::move(entry));
  return std::move(chosen.r);
}

}  // namespace capplan::core
