// Serving plans: each GPU type's tensor-parallel layouts and SLO batch are searched once per
// request; each supply then packs the replicas the load needs into its instances (or its
// pool's GPUs) and is priced; the cheapest (or lowest-latency) supplies rank first.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/catalog.h"
#include "core/planner/query.h"
#include "core/planner/rejection.h"
#include "core/planner/supply.h"
#include "core/serving.h"

namespace capplan::core::planner {

// How one supply carries the load, or why it cannot.
struct ServingFit {
  const ServingEstimate* estimate = nullptr;  // into the evaluator's options; null: no fit
  int units = 0;                              // instances or pool GPUs used
  std::string reason;
  RejectionReason code = RejectionReason::kInvalid;
  double distance = 1;
};

class ServingEvaluator {
 public:
  ServingEvaluator(const CatalogView& catalog, const ServingWorkload& w) : catalog_(catalog), w_(w) {}

  const ServingEfficiency& EfficiencyFor(const GpuRow& gpu);
  // Every tensor-parallel layout of this GPU type with its SLO batch, computed once.
  const std::vector<ServingOption>& Options(const GpuRow& gpu);
  // The cheapest way to carry the load on this supply within `max_units`; the reason for a
  // miss is formatted only when nothing fits.
  ServingFit Fit(const Supply& s, int max_units);

 private:
  const CatalogView& catalog_;
  const ServingWorkload& w_;
  std::map<std::string, ServingEfficiency, std::less<>> efficiency_;
  std::map<std::string, std::vector<ServingOption>, std::less<>> options_;
};

struct ServingChoice {
  size_t supply = 0;  // into ServingPlan::supplies
  ServingEstimate estimate;
  int units = 0;  // instances or pool GPUs used
  ServingEfficiency efficiency;
  double usd_per_hour = 0;
  double offered_requests_per_second = 0;  // the load the option is priced at
  std::vector<std::string> same_offer_regions;
};

struct ServingPlan {
  std::vector<Supply> supplies;
  std::vector<ServingChoice> options;
  std::vector<Rejection> rejected;
};

// The query's budget is per month. FailedPrecondition naming the closest miss when nothing
// fits; InvalidArgument for a deadline objective (serving has SLOs) or no offered load.
absl::StatusOr<ServingPlan> PlanServing(const CatalogView& catalog, const ServingWorkload& w, const PlanQuery& q);

}  // namespace capplan::core::planner
