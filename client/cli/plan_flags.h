// The objective, limits and constraint flags of `capplan plan`, shared with `capplan deploy`
// (which plans the same request again and renders one option).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "capplan/v1/planner.pb.h"
#include "client/cli/flag_parser.h"

namespace capplan::cli {

// Objective, constraints and output flags, shared by both kinds.
struct PlanFlags {
  v1::PlanRequest request;  // all but the workload
  std::string objective = "cheapest";
  double deadline_hours = 0;
  std::vector<std::string> owned_pools;
  bool explain = false;
  bool watch = false;
  v1::WatchPlanRequest watch_request;  // all but the plan
  int64_t watch_updates = 0;           // 0: until interrupted
};

// --objective, --deadline_hours, --budget_usd, the constraints, --top_k, --prices_as_of,
// --view and --max_rejected.
void AddPlanFlags(FlagSet* flags, PlanFlags* p);
// The objective and owned pools into `r` (InvalidArgument naming the flag).
absl::Status FinishRequest(const PlanFlags& p, v1::PlanRequest* r);

}  // namespace capplan::cli
