// Plan, Compare and Tco over one catalog version: the logic behind the planner's handlers,
// kept apart from the gRPC wiring so it can be tested on its own. Each function converts
// its request (InvalidArgument naming the field path; NotFound for unknown names), runs the
// planner in core/, and fills the response; FailedPrecondition when nothing can run the
// workload.
#pragma once

#include "absl/status/status.h"
#include "capplan/v1/planner.pb.h"
#include "core/assumptions.h"
#include "core/catalog.h"
#include "core/planner/query.h"
#include "core/training/layout_cache.h"
#include "server/api/request_proto.h"

namespace capplan::server {

// API defaults, for callers and tests.
inline constexpr int kDefaultMaxGpus = core::planner::kDefaultMaxGpus;
inline constexpr int kDefaultTopK = core::planner::kDefaultTopK;

// `layouts` (optional): training layout searches remembered across calls, by the owner of
// one catalog store (core/training/layout_cache.h); the answers are the same without it.
absl::Status Plan(const core::CatalogView& catalog, const capplan::v1::PlanRequest& req,
                  capplan::v1::PlanResponse* resp, core::TrainingLayoutCache* layouts = nullptr);
absl::Status Compare(const core::CatalogView& catalog, const capplan::v1::CompareRequest& req,
                     capplan::v1::CompareResponse* resp, core::TrainingLayoutCache* layouts = nullptr);
absl::Status Tco(const core::CatalogView& catalog, const capplan::v1::TcoRequest& req, capplan::v1::TcoResponse* resp);

// Tco warns about every catalog price it uses that is older than this many days at the
// request's prices_as_of (TcoResponse.stale_prices). Process-wide: set once at start-up from
// --tco_price_max_age_days.
inline constexpr int kDefaultTcoPriceMaxAgeDays = static_cast<int>(core::assumptions::kTcoPriceMaxAgeDays.value.point);
void SetTcoPriceMaxAgeDays(int days);
int TcoPriceMaxAgeDays();

}  // namespace capplan::server
