// What a WatchPlan watcher is told: the top options of a Plan answer reduced to what is
// watched (identity, rank, cost), and the comparison of a new answer with what that watcher
// was last sent. Pure functions over the API messages, so they are tested without a server.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "capplan/v1/planner.pb.h"

namespace capplan::server {

// Defaults and ranges of WatchPlanRequest's own fields (planner.proto).
inline constexpr double kDefaultMinCostChangeFraction = 0.01;
inline constexpr double kMinCostChangeFraction = 1e-6;
inline constexpr double kMaxCostChangeFraction = 10;
inline constexpr int kDefaultWatchTopN = 3;
inline constexpr int kMaxWatchTopN = 100;

// InvalidArgument naming min_cost_change_fraction or top_n and the allowed range.
absl::Status CheckWatchOptions(const capplan::v1::WatchPlanRequest& request);
// The request's fraction and top_n with their defaults applied.
double CostChangeFraction(const capplan::v1::WatchPlanRequest& request);
int WatchTopN(const capplan::v1::WatchPlanRequest& request);

// One top option as a watcher sees it.
struct WatchedOption {
  std::string identity;  // see OptionIdentity
  int rank = 0;
  double cost_usd_per_hour = 0;
  double total_cost_usd = 0;  // training: the whole run
  double usd_per_month = 0;   // serving
  // The cost compared against the fraction: usd_per_month for serving, total_cost_usd
  // for training.
  double compared_cost_usd = 0;
};

// What a watcher was last sent: whether the workload fitted, and its top options in order.
struct WatchBaseline {
  bool feasible = false;
  std::vector<WatchedOption> top;
};

// "aws/p5.48xlarge x1 us-east-1: 8x H100-SXM5-80GB on_demand" or "owned:<pool>: ...": what
// stays the same when only a price or an efficiency moves.
std::string OptionIdentity(const capplan::v1::PlanOption& option);

// The first `top_n` options of a feasible answer.
WatchBaseline TopOptions(const capplan::v1::PlanResponse& plan, int top_n);
// A failed answer (the workload fits nowhere).
inline WatchBaseline Infeasible() { return WatchBaseline{}; }

// Why `after` is worth sending to a watcher that was last sent `before`, with the changed
// options appended to `changes`; WATCH_REASON_UNSPECIFIED (and no changes) when it is not:
// same top options in the same order and no compared cost moved by more than `fraction`.
capplan::v1::WatchReason CompareTopOptions(const WatchBaseline& before, const WatchBaseline& after, double fraction,
                                           google::protobuf::RepeatedPtrField<capplan::v1::WatchOptionChange>* changes);

}  // namespace capplan::server
