// Training plans: the fastest layout of each (GPU type, GPU count) shape is estimated once
// per request and priced per supply with that shape; candidates are ranked by the
// objective, options that differ only by region are merged, and the closest misses are kept
// with typed reasons.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/catalog.h"
#include "core/planner/frontier.h"
#include "core/planner/query.h"
#include "core/planner/rejection.h"
#include "core/planner/supply.h"
#include "core/training/layout_cache.h"
#include "core/training/training.h"

namespace capplan::core::planner {

// The best layout of one shape, or why there is none.
struct TrainingPick {
  bool ok = false;
  TrainingEstimate estimate;
  std::string reason;
  RejectionReason code = RejectionReason::kInvalid;
  double distance = 1;
};

// Estimates for one training job over one catalog, computed once per shape and kept for
// the request (a Plan or a Compare). With a cache, layout searches and calibrations are
// also remembered across requests on the same catalog version (core/training/layout_cache.h).
class TrainingEvaluator {
 public:
  TrainingEvaluator(const CatalogView& catalog, const TrainingJob& job, LayoutCacheRef cache = {})
      : catalog_(catalog), job_(job), cache_(cache) {
    if (cache_.cache != nullptr) {
      job_key_ = JobKey(job_);
      cache_.job_key = &job_key_;
    }
  }
  TrainingEvaluator(const TrainingEvaluator&) = delete;
  TrainingEvaluator& operator=(const TrainingEvaluator&) = delete;

  // The efficiency for this GPU type: cited defaults, or calibrated on its benchmarks.
  const Efficiency& EfficiencyFor(const GpuRow& gpu);
  // The best layout of exactly `gpus` GPUs of this supply's GPU type on its fabric.
  const TrainingPick& Pick(const Supply& supply, int gpus);
  // The best layout with the parts the caller fixed (SearchOptions::pinned; not cached).
  TrainingPick PickPinned(const Supply& supply, int gpus, const SearchOptions& pinned);

 private:
  // GPU type, fabric figures, GPU count.
  using PickKey = std::tuple<const GpuRow*, int, int, int, double, double, double, int>;
  TrainingPick Search(const Supply& supply, const SearchOptions& o);

  const CatalogView& catalog_;
  const TrainingJob& job_;
  LayoutCacheRef cache_;
  std::string job_key_;  // the job's part of every cache key, made once
  std::map<std::string, Efficiency, std::less<>> efficiency_;
  std::map<PickKey, TrainingPick> picks_;
};

struct TrainingChoice {
  size_t supply = 0;  // into TrainingPlan::supplies
  int units = 0;      // instances, or GPUs of an owned pool
  TrainingEstimate estimate;
  Efficiency efficiency;
  double cost_usd = 0;
  std::vector<std::string> same_offer_regions;  // the same offer, same price, elsewhere
  // Set when the option sits at a GPU ceiling (the caller's max_gpus or the API's limit):
  // the ceiling and what the next size would give.
  std::string ceiling_note;
  // Set for spot prices: the interruption rate, checkpoint interval and restart overhead
  // priced into the duration and cost (core/planner/spot.h).
  std::string spot_note;
};

struct TrainingPlan {
  std::vector<Supply> supplies;
  std::vector<TrainingChoice> options;  // best first, at most top_k
  std::vector<Rejection> rejected;      // closest first, at most max_rejected
  // Cost against end-to-end time over every candidate within the limits; the top option marked.
  std::vector<FrontierPoint> frontier;
  std::string selection_rule;  // which rule picked the top option, in words
};

// FailedPrecondition naming the closest miss, and the limit it breaks by how much, when
// nothing fits. Without a deadline, options finish within kDefaultTrainingBoundSeconds.
// `cache` (optional, for `catalog`'s version) remembers layout searches across requests;
// the answer is the same with or without it.
absl::StatusOr<TrainingPlan> PlanTraining(const CatalogView& catalog, const TrainingJob& job, const PlanQuery& q,
                                          LayoutCacheRef cache = {});

}  // namespace capplan::core::planner
