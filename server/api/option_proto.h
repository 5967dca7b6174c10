// Core planning results to the API's messages: options, compare rows, rejections and the
// enum tables between core's enums and the API's (explicit switches, so that a value added
// on either side is a compile warning, not a silent off-by-one).
#pragma once

#include <string>
#include <vector>

#include "capplan/v1/planner.pb.h"
#include "core/planner/compare.h"
#include "core/planner/rejection.h"
#include "core/planner/serving_plan.h"
#include "core/planner/training_plan.h"

namespace capplan::server {

capplan::v1::Bottleneck BottleneckToProto(core::Bottleneck b);
capplan::v1::Recompute RecomputeToProto(core::Recompute r);
capplan::v1::Offload OffloadToProto(core::Offload o);
capplan::v1::RejectionReason RejectionReasonToProto(core::planner::RejectionReason r);

const std::vector<std::string>& TrainingFormulas();
const std::vector<std::string>& ServingFormulas();

void FillTrainingOption(int64_t catalog_version, const core::planner::Supply& s, const core::planner::TrainingChoice& c,
                        capplan::v1::PlanOption* o);
void FillServingOption(int64_t catalog_version, const core::planner::Supply& s, const core::planner::ServingChoice& c,
                       const core::ServingWorkload& w, capplan::v1::PlanOption* o);
void RejectionsToProto(const std::vector<core::planner::Rejection>& rejected, capplan::v1::PlanResponse* resp);
// training: duration and cost per run; serving: p99 end to end and cost per month.
void FrontierToProto(const std::vector<core::planner::FrontierPoint>& frontier, bool training,
                     capplan::v1::PlanResponse* resp);

}  // namespace capplan::server
