// Plan, Compare and Tco over one catalog snapshot: the logic behind the planner's handlers,
// kept apart from the gRPC wiring so it can be tested on its own. Each function validates
// its request (InvalidArgument naming the field path), resolves catalog names (NotFound),
// and fills the response; FailedPrecondition when nothing can run the workload.
#pragma once

#include "absl/status/status.h"
#include "capplan/v1/planner.pb.h"
#include "server/store/catalog.h"

namespace capplan::server {

// Largest fleet a Plan considers when the caller sets no max_gpus.
inline constexpr int kDefaultMaxGpus = 64;
inline constexpr int kDefaultTopK = 5;

// The time prices are read at: the caller's, or now when it gave 0. The effective-date filter
// always applies, so a price that takes effect next year is never today's price.
int64_t PricesAsOf(int64_t requested_unix_seconds);

absl::Status Plan(const store::CatalogSnapshot& snap, const capplan::v1::PlanRequest& req,
                  capplan::v1::PlanResponse* resp);
absl::Status Compare(const store::CatalogSnapshot& snap, const capplan::v1::CompareRequest& req,
                     capplan::v1::CompareResponse* resp);
absl::Status Tco(const store::CatalogSnapshot& snap, const capplan::v1::TcoRequest& req,
                 capplan::v1::TcoResponse* resp);

}  // namespace capplan::server
