// Standing TCO scenarios between the API and the store: a TcoScenario's request is checked
// exactly as the Tco RPC checks it and kept as protobuf JSON; a stored one is priced with the
// Tco RPC's own code.
#pragma once

#include "absl/status/statusor.h"
#include "capplan/v1/planner.pb.h"
#include "core/catalog.h"
#include "server/store/catalog.h"
#include "server/store/catalog_store.h"

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

// --tco_scenarios_file: a JSON array of {"name": ..., "request": {TcoRequest}} (at most 1 MiB
// and 256 scenarios), each checked like UpsertTcoScenario and written (audited as caller
// "tco_scenarios_file") unless the catalog already holds it unchanged. The first bad entry
// fails with InvalidArgument naming the file and "scenarios[i].<field>"; nothing is written.
// Scenarios not in the file are left alone.
absl::Status LoadTcoScenariosFile(const std::string& path, store::CatalogStore* store);

}  // namespace capplan::server
