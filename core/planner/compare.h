// Compare: the same workload on named targets (a GPU type and count, or an instance type and
// count), each searched for its best layout or run at a pinned one, with speed and cost
// relative to the first target.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/catalog.h"
#include "core/planner/serving_plan.h"
#include "core/planner/supply.h"
#include "core/planner/training_plan.h"

namespace capplan::core::planner {

inline constexpr int kMaxCompareTargets = 32;

// A pinned layout: zero sizes are searched; an unset ZeRO stage or recompute policy is
// searched, a set one (ZeRO-0, no recompute included) is pinned.
struct Pin {
  int64_t tensor_parallel = 0, pipeline_parallel = 0, data_parallel = 0;
  std::optional<int64_t> zero_stage;
  std::optional<Recompute> recompute;
  bool sequence_parallel = false;
  int64_t micro_batch_sequences = 0;
  int64_t serving_batch_sequences = 0;
  int64_t virtual_pipeline_stages = 0, context_parallel = 0, expert_parallel = 0;
  std::optional<int64_t> shard_group_gpus;  // set 0: one group of every rank (plain ZeRO / FSDP)
  std::optional<Offload> offload;

  bool TrainingPinned() const {
    return tensor_parallel > 0 || pipeline_parallel > 0 || data_parallel > 0 || virtual_pipeline_stages > 0 ||
           context_parallel > 0 || expert_parallel > 0 || zero_stage.has_value() || micro_batch_sequences > 0 ||
           recompute.has_value() || shard_group_gpus.has_value() || offload.has_value();
  }
};

struct CompareTarget {
  std::string gpu_name;       // a GPU type and a GPU count...
  std::string instance_type;  // ...or an instance type (first match; region narrows it)
  std::string region;
  int count = 0;  // GPUs, or instances (0: 1) of an instance type
  Pin pin;
  FabricOverride fabric;  // replaces or amends the offer's (or the GPU's default) fabric
  // An instance's price of this kind; NotFound when the catalog has none (on-demand: the
  // target is compared unpriced instead).
  PriceKind price_kind = PriceKind::kOnDemand;
};

struct CompareRow {
  Supply supply;
  int units = 0;
  std::optional<TrainingChoice> training;  // set when the target can run a training job
  std::optional<ServingChoice> serving;    // set when it can serve
  std::string infeasible_reason;
  double speed = 0;  // training: 1 / duration; serving: requests per second
  double cost = 0;   // training: USD for the run; serving: USD per hour
  double speed_ratio_vs_first = 0, cost_ratio_vs_first = 0;
};

// InvalidArgument naming "targets[i]..." for a bad target; NotFound for unknown names.
// `cache` as PlanTraining's.
absl::StatusOr<std::vector<CompareRow>> CompareTraining(const CatalogView& catalog, const TrainingJob& job,
                                                        const std::vector<CompareTarget>& targets,
                                                        int64_t prices_as_of_unix_seconds, LayoutCacheRef cache = {});
absl::StatusOr<std::vector<CompareRow>> CompareServing(const CatalogView& catalog, const ServingWorkload& w,
                                                       const std::vector<CompareTarget>& targets,
                                                       int64_t prices_as_of_unix_seconds, LayoutCacheRef cache = {});

}  // namespace capplan::core::planner
