// Own versus rent over a horizon: one or more fleet parts, each either bought (capex spread
// over a depreciation period, plus power, operations and maintenance) or rented (per used
// GPU-hour or a flat monthly amount). Plain structs in, series and break-even out; catalog
// look-ups (list prices, rent prices, system power, tariffs) are resolved by the caller.
// The finance layer (cost of capital, lease, residual value, usage ramp, rent kinds and
// sensitivity) is in core/tco_finance.h; every new input defaults to today's cash model.
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
inline constexpr int kMaxCapexItems = 8;

// One line of the purchase price, with where the figure came from.
struct CapexItem {
  std::string name;  // "GPUs", "host share", "network", "storage", "installation", "system (GPUs+host)"
  double usd = 0;
  std::string source;
};

// Per-GPU-hour prices of each way to rent the same GPU; 0: not known. Reserved kinds are
// committed: every hour of the term is paid whether used or not.
struct RentKindPrices {
  double on_demand_usd_per_gpu_hour = 0;
  double spot_usd_per_gpu_hour = 0;
  double reserved_1y_usd_per_gpu_hour = 0;
  double reserved_3y_usd_per_gpu_hour = 0;
};

// How the purchase is written off for tax (TcoFinance::tax_rate_fraction > 0).
enum class DepreciationMethod {
  kStraightLine,  // capex / depreciation_months a month
  kMacrs5y,       // IRS Publication 946, Table A-1, 5-year property: 20, 32, 19.2, 11.52, 11.52, 5.76%
};

struct TcoFleet {
  std::string role;  // free text; "serving" parts carry a serving workload's costs
  int gpu_count = 0;
  // Steady use: in [0, gpu_count x 730] (0: the fleet stands idle). During the first
  // ramp_months the use rises in equal steps from ramp_start_gpu_hours_per_month (month 1).
  double usage_gpu_hours_per_month = 0;
  int ramp_months = 0;  // 0: steady from month 1
  double ramp_start_gpu_hours_per_month = 0;

  // Owning.
  double capex_usd = 0;                // resolved: > 0
  std::vector<CapexItem> capex_items;  // empty, or lines that sum to capex_usd
  int depreciation_months = kDefaultDepreciationMonths;
  double power_watts = 0;          // whole fleet at full load
  double idle_power_fraction = 0;  // of power_watts drawn with no use; 0: power follows use
  double pue = 1.2;
  double electricity_usd_per_kwh = kDefaultElectricityUsdPerKwh;
  double ops_usd_per_month = 0;
  double maintenance_fraction_per_year = 0;          // of capex
  double failure_replacement_fraction_per_year = 0;  // of capex: parts bought to replace failures
  // Further running costs; each 0 means "not included".
  double colocation_usd_per_kw_month = 0;  // space and cooling, per kW of full-load power_watts
  double support_usd_per_month = 0;        // support contracts beyond maintenance_fraction_per_year
  double software_usd_per_gpu_month = 0;   // licences per owned GPU
  double staff_usd_per_month = 0;
  DepreciationMethod depreciation_method = DepreciationMethod::kStraightLine;  // for the tax shield
  // Months from order (capex paid) until the owned fleet is usable; meanwhile the own path
  // rents the use it needs at the rent price and pays no running costs.
  int lead_time_months = 0;
  // Financing instead of cash: 0 months: cash. Level monthly payments (annuity) on capex less
  // the down payment, with an optional balloon (a share of capex) due with the last payment.
  int lease_term_months = 0;
  double lease_rate_fraction_per_year = 0;
  double lease_down_payment_fraction = 0;  // of capex, paid at order
  double lease_balloon_fraction = 0;       // of capex, due at the end of the term
  // Resale value at the horizon: residual_value_usd when > 0, else capex x (1 - rate)^years
  // when residual_decline_fraction_per_year > 0 (declining balance), else none.
  double residual_value_usd = 0;
  double residual_decline_fraction_per_year = 0;
  double resale_haircut_fraction = 0;  // of the resale value: dealer margin, decommissioning

  // Renting: a flat monthly amount when > 0, else a price per GPU-hour of use.
  double rent_flat_usd_per_month = 0;
  double rent_usd_per_gpu_hour = 0;
  double discount_fraction = 0;        // off every rent
  RentKindPrices rent_kinds;           // for the rent options; before the discount
  double spot_overhead_fraction = -1;  // extra GPU-hours on spot; < 0: kDefaultSpotOverheadFraction
  // Extra GPU-hours the headline hourly rent pays per used hour (the spot overhead when the
  // headline price is spot), so the headline and the spot rent option agree.
  double rent_use_overhead_fraction = 0;
  double rent_price_decline_fraction_per_year = 0;  // every rent falls by this each year (step)
};

struct TcoFleetResult {
  double own_usd_per_month = 0;  // depreciation + power + ops + maintenance (steady use)
  double own_capex_usd = 0;
  double own_power_usd_per_month = 0;
  double own_running_usd_per_month = 0;  // all but depreciation
  double rent_usd_per_month = 0;         // at steady use, month 1 prices
  double rent_usd_per_gpu_hour = 0;      // per used GPU-hour: after discount, with overhead
  // NPV-consistent: the steady use over the horizon at which NPV(own) = NPV(rent); above it
  // owning is cheaper. 0 with break_even_never or !break_even_applies.
  double break_even_gpu_hours_per_month = 0;
  // Finance view of the part.
  std::vector<CapexItem> capex_items;  // always at least one line
  double power_watts_at_steady_use = 0;
  double maintenance_usd_per_month = 0, failure_replacement_usd_per_month = 0;
  double lease_usd_per_month = 0;  // 0: bought for cash
  double residual_value_usd = 0;   // at the horizon
  bool break_even_never = false;   // no use level at which owning is cheaper
  double break_even_utilization_fraction = 0;
  bool break_even_applies = true;  // false: the rent is flat, use does not change it
  double colocation_usd_per_month = 0, support_usd_per_month = 0, software_usd_per_month = 0, staff_usd_per_month = 0;
};

struct TcoMonth {
  int month = 0;
  double own_usd = 0, rent_usd = 0;
  double own_cumulative_usd = 0, rent_cumulative_usd = 0;
  double used_gpu_hours = 0;
  double own_discounted_cumulative_usd = 0, rent_discounted_cumulative_usd = 0;
};

// One way to rent the whole fleet's use over the horizon.
struct RentOption {
  std::string kind;      // on_demand, spot, reserved_1y, reserved_3y, mix
  double total_usd = 0;  // over the horizon; reserved: whole terms started within it
  double npv_usd = 0;
  double reserved_gpus = 0;  // committed GPUs (reserved, mix)
  std::string note;
};

// NPV(own) - NPV(rent) with one input at 80% and 120% of its value, each bound clamped to
// the input's valid range (then *_clamped is set and note says to what).
struct SensitivityEntry {
  std::string input;  // rent_price, electricity_price, utilization, capex, discount_rate
  double npv_difference_low_usd = 0, npv_difference_high_usd = 0;
  double swing_usd = 0;  // |high - low|
  bool low_clamped = false, high_clamped = false;
  std::string note;
};

struct TcoResult {
  std::vector<TcoFleetResult> fleets;
  std::vector<TcoMonth> series;
  int break_even_month = 0;                   // first month cumulative own <= rent (cash); 0: never
  double break_even_gpu_hours_per_month = 0;  // NPV-consistent, steady use; see TcoFleetResult
  // Simple figures: straight-line depreciation + running costs over steady use, undiscounted,
  // no resale, tax or lead time. For comparison only; the levelised figures decide.
  double own_usd_per_used_gpu_hour = 0;
  double rent_usd_per_used_gpu_hour = 0;
  // Levelised: NPV of costs / present value of the used GPU-hours (each month's hours
  // discounted like that month's cash). 0 with no use over the horizon.
  double own_levelised_usd_per_gpu_hour = 0;
  double rent_levelised_usd_per_gpu_hour = 0;
  bool break_even_usage_applies = true;  // false: some part's rent is flat
  // Finance.
  bool break_even_month_never = false;
  int discounted_break_even_month = 0;  // on discounted cumulative cash; 0 with never
  bool discounted_break_even_never = false;
  double npv_own_usd = 0, npv_rent_usd = 0;
  bool break_even_usage_never = false;
  double break_even_utilization_fraction = 0;  // whole fleet, of every GPU all month
  std::vector<RentOption> rent_options;        // cheapest first; empty when no kind priced
  std::vector<SensitivityEntry> sensitivity;   // largest swing first
};

// When in its month each flow is paid: capex always at the start (time 0); running costs,
// rent and lease payments at the end of the month (in arrears, the default) or its start.
enum class CashTiming { kEndOfMonth, kStartOfMonth };
// What the annual cost of capital means: effective (monthly rate (1 + r)^(1/12) - 1, the
// default) or nominal compounded monthly (r / 12).
enum class RateBasis { kEffectiveAnnual, kNominalMonthly };

// Request-wide finance inputs.
struct TcoFinance {
  double discount_rate_fraction_per_year = 0;  // cost of capital; 0: no discounting
  bool sensitivity = true;                     // compute the tornado
  CashTiming timing = CashTiming::kEndOfMonth;
  RateBasis rate_basis = RateBasis::kEffectiveAnnual;
  // Corporate tax rate: 0 compares pre-tax cash. Else every expense (own and rent) is
  // deducted, the purchase is depreciated (TcoFleet::depreciation_method) for a tax shield,
  // and the resale gain over book value is taxed; all in the month they arise.
  double tax_rate_fraction = 0;
};

// InvalidArgument naming the field ("own.pue", relative to the fleet) and its range.
absl::Status ValidateTcoFleet(const TcoFleet& fleet);

// Validates every fleet (errors prefixed "fleets[i].") and the horizon, then computes.
absl::StatusOr<TcoResult> ComputeTco(const std::vector<TcoFleet>& fleets, int horizon_months,
                                     const TcoFinance& finance = {});

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
