// Standing TCO scenarios between the API and the store: a TcoScenario's request is checked
// exactly as the Tco RPC checks it and kept as protobuf JSON; a stored one is priced with the
// Tco RPC's own code.
#pragma once

#include "absl/status/statusor.h"
#include "capplan/v1/planner.pb.h"
#include "core/catalog.h"
#include "server/store/catalog.h"

namespace capplan::server {

// Prices `req` as the Tco RPC does (generic request limits, server::Tco, a finite answer).
// Errors name the TcoRequest field ("fleets[0].gpu_name: ...").
absl::Status PriceTco(const core::CatalogView& catalog, const capplan::v1::TcoRequest& req,
                      capplan::v1::TcoResponse* resp);

// The store row for an upsert by `caller`. A request that Tco would refuse against `catalog`
// is InvalidArgument naming the field under "scenario.request." (an unknown GPU or instance
// too: a scenario must price when it is written).
absl::StatusOr<store::TcoScenarioRow> TcoScenarioFromProto(const core::CatalogView& catalog,
                                                           const capplan::v1::TcoScenario& scenario);

// The stored request back as a message; Internal if the JSON no longer parses.
absl::StatusOr<capplan::v1::TcoRequest> TcoScenarioRequest(const store::TcoScenarioRow& row);

// The row as the API shows it.
absl::Status TcoScenarioToProto(const store::TcoScenarioRow& row, capplan::v1::TcoScenario* out);

}  // namespace capplan::server
