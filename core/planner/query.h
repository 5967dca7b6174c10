// What a Plan asks: the objective, its limits and the constraints on where GPUs may come
// from. Plain values, resolved and checked by the caller's converter; ValidatePlanQuery
// checks the ranges every caller must respect.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/catalog.h"

namespace capplan::core::planner {

inline constexpr int kDefaultMaxGpus = 64;      // the largest fleet considered unless asked
inline constexpr int kMaxGpus = 65536;          // the largest fleet any request may describe
inline constexpr int kMaxGpusPerInstance = 64;  // as the store validates instance rows
inline constexpr int kDefaultTopK = 5;
inline constexpr int kMaxTopK = 100;
inline constexpr int kDefaultMaxRejected = 40;
inline constexpr int kMaxRejected = 200;
inline constexpr int kMaxFilterNames = 64;  // providers, regions, allowed or excluded GPUs
inline constexpr int kMaxOwnedPools = 64;
inline constexpr double kMinDeadlineSeconds = 1;  // a positive deadline at least this long
inline constexpr double kMinBudgetUsd = 0.01;     // a positive budget at least a cent
inline constexpr double kMaxSpotInterruptionsPerMonth = 100;
// A training run longer than this is one nobody starts: without a deadline from the caller,
// every training objective is ranked among the runs that finish within it (and the answer
// says so). 90 days is about the longest published pre-training run (Llama 3 405B: 54 days
// of a 16k-GPU cluster in Dubey et al. 2024, Sec. 3.3.4); a caller sets deadline_seconds
// for longer.
inline constexpr double kDefaultTrainingBoundSeconds = 90 * 86400.0;

enum class Objective { kCheapest, kFastest, kCheapestWithinDeadline, kFastestWithinBudget };

// GPUs the caller owns, priced per GPU-hour.
struct OwnedPool {
  std::string name;
  std::string gpu_name;
  int gpu_count = 0;
  double cost_usd_per_gpu_hour = 0;
  FabricOverride fabric;  // a catalog fabric and/or fields; empty: the GPU's default fabric
};

struct Constraints {
  std::set<std::string, std::less<>> providers, regions, allowed_gpus, excluded_gpus;
  bool spot_allowed = false;
  // The price every offer is planned at; offers without one of this kind are left out. With
  // kOnDemand, spot_allowed adds each offer's spot price as a second supply.
  PriceKind price_kind = PriceKind::kOnDemand;
  // The largest fleet considered; 0: not limited by the caller. Serving plans then use
  // kDefaultMaxGpus per deployment; training plans go to kMaxGpus (and say when a limit binds).
  int max_gpus = 0;
  int ServingMaxGpus() const { return max_gpus > 0 ? max_gpus : kDefaultMaxGpus; }
  int TrainingMaxGpus() const { return max_gpus > 0 ? max_gpus : kMaxGpus; }
  std::vector<OwnedPool> owned_pools;
  // Offers whose network is not sold as a cluster (plain Ethernet VMs: no placement group,
  // EFA, InfiniBand or RoCE) are planned one instance at a time unless the caller opts in.
  bool allow_ethernet_clusters = false;
  // Spot interruptions per instance per month for training on spot prices (0: the default
  // band, core/planner/spot.h); at most kMaxSpotInterruptionsPerMonth.
  double spot_interruptions_per_month = 0;

  bool GpuOk(absl::string_view gpu) const;
  bool InstanceOk(const InstanceRow& i) const;
};

// The objective ranks; the deadline and the budget, whenever given (> 0), are limits every
// option meets whatever the objective.
struct PlanQuery {
  Objective objective = Objective::kCheapest;
  double deadline_seconds = 0;  // training; required by kCheapestWithinDeadline
  double budget_usd = 0;        // training per run, serving per month; required by kFastestWithinBudget
  int top_k = kDefaultTopK;
  int max_rejected = kDefaultMaxRejected;  // rejected candidates to describe; 0: none
  int64_t prices_as_of_unix_seconds = 0;   // resolved by the caller (0: now)
  Constraints constraints;
};

// InvalidArgument naming the field (as the API spells it) and its range; NotFound for a
// GPU name the catalog does not have.
absl::Status ValidatePlanQuery(const CatalogView& catalog, const PlanQuery& q);

// The longest a training option may take: the caller's deadline, else the default bound.
inline double TrainingBoundSeconds(const PlanQuery& q) {
  return q.deadline_seconds > 0 ? q.deadline_seconds : kDefaultTrainingBoundSeconds;
}

}  // namespace capplan::core::planner
