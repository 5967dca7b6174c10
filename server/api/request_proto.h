// API requests to core's types: catalog names resolved (NotFound), API defaults applied (a
// zero field means "the default"), and each error named by its field path as the caller
// wrote it ("training.precision", "targets[2].pinned_parallelism.zero_stage"). A workload
// must fit its model's context window (catalog max_context_tokens; 0: unknown, unchecked):
// a training sequence, or a serving prompt plus output; an unset training sequence is the
// default capped at the window. A training global batch of 0 reaches core as 0 (searched).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "capplan/v1/planner.pb.h"
#include "core/catalog.h"
#include "core/planner/compare.h"
#include "core/planner/query.h"
#include "core/serving/serving.h"
#include "core/training/training.h"

namespace capplan::server {

// `s` with `prefix` before its message (same code).
absl::Status Prefixed(const absl::Status& s, const std::string& prefix);

absl::StatusOr<core::TrainingJob> TrainingJobFrom(const core::CatalogView& catalog,
                                                  const capplan::v1::TrainingWorkload& w, const std::string& field);
absl::StatusOr<core::ServingWorkload> ServingWorkloadFrom(const core::CatalogView& catalog,
                                                          const capplan::v1::ServingWorkload& w,
                                                          const std::string& field);

// The objective, limits, constraints and view of a Plan. BASIC asks for no rejections. An
// owned pool's fabric is an override (server/fabric_proto.h) checked against the catalog.
absl::StatusOr<core::planner::PlanQuery> PlanQueryFrom(const core::CatalogView& catalog,
                                                       const capplan::v1::PlanRequest& req);

// Compare's targets, their pins and fabric overrides; InvalidArgument naming
// "targets[i]..." for a pinned factor out of range or a fabric the catalog lacks.
absl::StatusOr<std::vector<core::planner::CompareTarget>> CompareTargetsFrom(const core::CatalogView& catalog,
                                                                             const capplan::v1::CompareRequest& req);

// The API's offload and recompute as core's (UNSPECIFIED: none).
core::Offload OffloadFrom(capplan::v1::Offload o);
core::Recompute RecomputeFrom(capplan::v1::Recompute r);

// The time prices are read at: the caller's, or now for 0.
int64_t PricesAsOf(int64_t requested_unix_seconds);

}  // namespace capplan::server
