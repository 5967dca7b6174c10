// Own versus rent over a horizon: one or more fleet parts, each either bought (capex spread
// over a depreciation period, plus power, operations and maintenance) or rented (per used
// GPU-hour or a flat monthly amount). Plain structs in, series and break-even out; catalog
// look-ups (list prices, rent prices) are resolved by the caller.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace capplan::core {

// Defaults a caller may leave unset.
// US average commercial electricity price, 2024 (EIA Electric Power Monthly, Table 5.3:
// ~13 cents/kWh). A default only; TCO callers should pass their own tariff.
inline constexpr double kDefaultElectricityUsdPerKwh = 0.13;
inline constexpr int kDefaultDepreciationMonths = 36;
inline constexpr int kMaxTcoFleets = 16;
inline constexpr int kMaxHorizonMonths = 120;

struct TcoFleet {
  std::string role;  // free text; "serving" parts carry a serving workload's costs
  int gpu_count = 0;
  double usage_gpu_hours_per_month = 0;  // resolved: in [1, gpu_count x 730]

  // Owning.
  double capex_usd = 0;  // resolved: > 0
  int depreciation_months = kDefaultDepreciationMonths;
  double power_watts = 0;  // at full use; drawn in proportion to use
  double pue = 1.2;
  double electricity_usd_per_kwh = kDefaultElectricityUsdPerKwh;
  double ops_usd_per_month = 0;
  double maintenance_fraction_per_year = 0;  // of capex

  // Renting: a flat monthly amount when > 0, else a price per GPU-hour of use.
  double rent_flat_usd_per_month = 0;
  double rent_usd_per_gpu_hour = 0;
  double discount_fraction = 0;  // off either rent
};

struct TcoFleetResult {
  double own_usd_per_month = 0;  // depreciation + power + ops + maintenance
  double own_capex_usd = 0;
  double own_power_usd_per_month = 0;
  double own_running_usd_per_month = 0;  // all but depreciation
  double rent_usd_per_month = 0;
  double rent_usd_per_gpu_hour = 0;           // after discount
  double break_even_gpu_hours_per_month = 0;  // above this use owning is cheaper; 0: never
};

struct TcoMonth {
  int month = 0;
  double own_usd = 0, rent_usd = 0;
  double own_cumulative_usd = 0, rent_cumulative_usd = 0;
};

struct TcoResult {
  std::vector<TcoFleetResult> fleets;
  std::vector<TcoMonth> series;
  int break_even_month = 0;  // first month cumulative own <= rent (cash); 0: never
  double break_even_gpu_hours_per_month = 0;
  double own_usd_per_used_gpu_hour = 0;  // amortised
  double rent_usd_per_used_gpu_hour = 0;
};

// InvalidArgument naming the field ("own.pue", relative to the fleet) and its range.
absl::Status ValidateTcoFleet(const TcoFleet& fleet);

// Validates every fleet (errors prefixed "fleets[i].") and the horizon, then computes.
absl::StatusOr<TcoResult> ComputeTco(const std::vector<TcoFleet>& fleets, int horizon_months);

// Per-request costs of serving fleets at an offered load over a month.
struct ServingCostPerUnit {
  double own_usd_per_million_requests = 0, rent_usd_per_million_requests = 0;
  double own_usd_per_million_output_tokens = 0, rent_usd_per_million_output_tokens = 0;
};
ServingCostPerUnit ServingCosts(double own_usd_per_month, double rent_usd_per_month, double requests_per_second,
                                double output_tokens);

// The formulas behind ComputeTco, for provenance.
const std::vector<std::string>& TcoFormulas();

}  // namespace capplan::core
