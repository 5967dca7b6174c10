// A TcoRequest's fleet parts to core::TcoFleet: catalog names resolved and every default
// (system power, idle share, capex, tariff, rent prices of each kind) filled in, with the
// value and source of each default recorded as an assumption for the answer.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "capplan/v1/planner.pb.h"
#include "core/catalog.h"
#include "core/tco/tco.h"

namespace capplan::server {

// PUE when the caller gives none: an efficient modern data centre. The Uptime Institute's
// Global Data Center Survey 2023 puts the industry average near 1.58; pass your own.
inline constexpr double kDefaultPue = 1.2;

// One TCO fleet part. Power: the caller's, else the catalog's system power per GPU x count,
// else TDP x count. Capex: the caller's total or lines, else the system price per GPU x
// count, else the GPU list price x count. Tariff: the caller's, else the catalog's for the
// rent region, else core::kDefaultElectricityUsdPerKwh. The rent is priced from the catalog
// unless flat (the price row used is added to `prov`); each default lands in `assumptions`.
absl::StatusOr<core::TcoFleet> TcoFleetFrom(const core::CatalogView& catalog, const capplan::v1::TcoFleet& f,
                                            int64_t as_of, const std::string& field, capplan::v1::Provenance* prov,
                                            std::vector<capplan::v1::TcoAssumption>* assumptions);

}  // namespace capplan::server
