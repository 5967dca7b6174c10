// Deploy: Plan's answer to the request's plan, one option of it converted into a pure spec
// (core/deploy/deploy.h) and rendered. The option is Plan's, field for field: Deploy of rank k
// renders what Plan answers as rank k on the same catalog version.
#pragma once

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "capplan/v1/planner.pb.h"
#include "core/catalog.h"
#include "core/deploy/deploy.h"

namespace capplan::server {

inline constexpr int kMaxModelPathChars = 512;

// Deploy's own fields, before planning: option_rank in [0, 100] (0: 1), a known target,
// model_path at most kMaxModelPathChars of [A-Za-z0-9._/:@-]. InvalidArgument naming the field.
absl::Status CheckDeployRequest(const capplan::v1::DeployRequest& req);

// Renders option req.option_rank of `plan`, Plan's answer to req.plan() on `catalog`:
// InvalidArgument when the rank is beyond the options returned or the target does not fit the
// workload; FailedPrecondition (from core/deploy) when the option cannot be rendered as planned.
absl::Status RenderDeploy(const core::CatalogView& catalog, const capplan::v1::DeployRequest& req,
                          const capplan::v1::PlanResponse& plan, const std::string& capplan_version,
                          capplan::v1::DeployResponse* resp);

// Plan's answer to a request; Deploy's callers pass the service's memoised Plan.
using PlanFn = std::function<absl::Status(const capplan::v1::PlanRequest&, capplan::v1::PlanResponse*)>;

// CheckDeployRequest, `plan` on req.plan() (its errors prefixed "plan."), then RenderDeploy.
absl::Status Deploy(const core::CatalogView& catalog, const capplan::v1::DeployRequest& req,
                    const std::string& capplan_version, const PlanFn& plan, capplan::v1::DeployResponse* resp);

// Edge conversions, for tests: the option and its request as the renderer's specs.
absl::StatusOr<core::deploy::ServingSpec> ServingSpecFrom(const core::CatalogView& catalog,
                                                          const capplan::v1::DeployRequest& req,
                                                          const capplan::v1::PlanOption& option);
absl::StatusOr<core::deploy::TrainingSpec> TrainingSpecFrom(const core::CatalogView& catalog,
                                                            const capplan::v1::DeployRequest& req,
                                                            const capplan::v1::PlanOption& option);

}  // namespace capplan::server
