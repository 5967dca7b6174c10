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
// rent region, else core::kDefaultElectricityUsdPerKwh. Use: use_fraction when set (0: idle),
// else usage_gpu_hours_per_month (0: all month). A spot headline price pays the spot overhead
// on every used hour. The rent is priced from the catalog unless flat (the price row used is added to `prov`); each
// default lands in `assumptions`. Each catalog price used (rent rows of every kind, the capex row) is added to `dated`,
// when given, with its date; the caller keeps those older than its limit (TcoStalePrices).
absl::StatusOr<core::TcoFleet> TcoFleetFrom(const core::CatalogView& catalog, const capplan::v1::TcoFleet& f,
                                            int64_t as_of, const std::string& field, capplan::v1::Provenance* prov,
                                            std::vector<capplan::v1::TcoAssumption>* assumptions,
                                            std::vector<capplan::v1::StalePrice>* dated = nullptr);

// Fills age_days of each `dated` price at `as_of` and keeps those older than `max_age_days`.
std::vector<capplan::v1::StalePrice> TcoStalePrices(std::vector<capplan::v1::StalePrice> dated, int64_t as_of,
                                                    int max_age_days);

// The request-wide finance options (timing, rate basis, tax) checked, naming the field.
absl::Status TcoFinanceFrom(const capplan::v1::TcoRequest& req, core::TcoFinance* out);

}  // namespace capplan::server
