#include "core/tco/tco.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "core/tco/tco_finance.h"
#include "core/units.h"
#include "core/validate.h"

namespace capplan::core {

namespace {

absl::Status ValidateFinance(const TcoFleet& f) {
  const double full_hours = f.gpu_count * units::kHoursPerMonth;
  CAPPLAN_RETURN_IF_ERROR(CheckRange("usage.ramp_months", int64_t{f.ramp_months}, 0, kMaxHorizonMonths));
  CAPPLAN_RETURN_IF_ERROR(
      CheckRange("usage.ramp_start_gpu_hours_per_month", f.ramp_start_gpu_hours_per_month, 0, full_hours));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("own.idle_power_fraction", f.idle_power_fraction, 0, 1));
  CAPPLAN_RETURN_IF_ERROR(
      CheckRange("own.failure_replacement_fraction_per_year", f.failure_replacement_fraction_per_year, 0, 1));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("own.lease_term_months", int64_t{f.lease_term_months}, 0, 240));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("own.lease_rate_fraction_per_year", f.lease_rate_fraction_per_year, 0, 1));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("own.residual_value_usd", f.residual_value_usd, 0, f.capex_usd));
  CAPPLAN_RETURN_IF_ERROR(
      CheckRange("own.residual_decline_fraction_per_year", f.residual_decline_fraction_per_year, 0, 1));
  if (f.capex_items.size() > static_cast<size_t>(kMaxCapexItems)) {
    return FieldError("own.capex_breakdown", absl::StrCat("at most ", kMaxCapexItems, " lines"));
  }
  double sum = 0;
  for (const CapexItem& i : f.capex_items) {
    CAPPLAN_RETURN_IF_ERROR(CheckRange("own.capex_breakdown", i.usd, 0, 1e11));
    sum += i.usd;
  }
  if (!f.capex_items.empty() && std::fabs(sum - f.capex_usd) > 1e-6 * f.capex_usd) {
    return FieldError("own.capex_breakdown",
                      absl::StrCat("the lines must add up to own.capex_usd ", f.capex_usd, ", got ", sum));
  }
  const RentKindPrices& k = f.rent_kinds;
  for (const auto& [name, v] :
       {std::pair<const char*, double>{"rent.on_demand_usd_per_gpu_hour", k.on_demand_usd_per_gpu_hour},
        {"rent.spot_usd_per_gpu_hour", k.spot_usd_per_gpu_hour},
        {"rent.reserved_1y_usd_per_gpu_hour", k.reserved_1y_usd_per_gpu_hour},
        {"rent.reserved_3y_usd_per_gpu_hour", k.reserved_3y_usd_per_gpu_hour}}) {
    CAPPLAN_RETURN_IF_ERROR(CheckRange(name, v, 0, 1e5));
  }
  if (f.spot_overhead_fraction >= 0 || std::isnan(f.spot_overhead_fraction)) {
    CAPPLAN_RETURN_IF_ERROR(CheckRange("rent.spot_overhead_fraction", f.spot_overhead_fraction, 0, 10));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateTcoFleet(const TcoFleet& f) {
  CAPPLAN_RETURN_IF_ERROR(CheckRange("gpu_count", int64_t{f.gpu_count}, 1, 65536));
  const double full_hours = f.gpu_count * units::kHoursPerMonth;
  // At least one GPU-hour a month: costs are divided by the usage.
  CAPPLAN_RETURN_IF_ERROR(CheckRange("usage_gpu_hours_per_month", f.usage_gpu_hours_per_month, 1, full_hours));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("own.capex_usd", f.capex_usd, 1, 1e11));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("own.depreciation_months", int64_t{f.depreciation_months}, 1, 240));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("own.power_watts", f.power_watts, 0, 1e8));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("own.pue", f.pue, 1, 3));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("own.electricity_usd_per_kwh", f.electricity_usd_per_kwh, 0, 10));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("own.ops_usd_per_month", f.ops_usd_per_month, 0, 1e10));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("own.maintenance_fraction_per_year", f.maintenance_fraction_per_year, 0, 1));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("rent.price_usd_per_month", f.rent_flat_usd_per_month, 0, 1e11));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("rent.usd_per_gpu_hour", f.rent_usd_per_gpu_hour, 0, 1e5));
  if (!(f.discount_fraction >= 0 && f.discount_fraction < 1)) {
    return FieldError("rent.discount_fraction", absl::StrCat("must be in [0, 1), got ", f.discount_fraction));
  }
  return ValidateFinance(f);
}

namespace {

// A month of power at full load, USD: W x 730 h x PUE x USD/kWh / 1000.
double PowerFullMonthUsd(const TcoFleet& f) {
  return f.power_watts * units::kHoursPerMonth * f.pue * f.electricity_usd_per_kwh / units::kWattHoursPerKilowattHour;
}

// Share of full-load power drawn at `used_gpu_hours`: idle + (1 - idle) x utilisation.
double PowerShare(const TcoFleet& f, double used_gpu_hours) {
  const double use = used_gpu_hours / (f.gpu_count * units::kHoursPerMonth);
  return f.idle_power_fraction + (1 - f.idle_power_fraction) * use;
}

// Monthly running costs that do not depend on use.
double FixedRunningUsd(const TcoFleet& f) {
  return f.ops_usd_per_month +
         f.capex_usd * (f.maintenance_fraction_per_year + f.failure_replacement_fraction_per_year) / 12;
}

double RentInMonthUsd(const TcoFleetResult& r, const TcoFleet& f, double used_gpu_hours) {
  return f.rent_flat_usd_per_month > 0 ? r.rent_usd_per_month : r.rent_usd_per_gpu_hour * used_gpu_hours;
}

TcoFleetResult OneFleet(const TcoFleet& f, int horizon_months) {
  TcoFleetResult r;
  const double full_hours = f.gpu_count * units::kHoursPerMonth;
  const double power_full_month = PowerFullMonthUsd(f);
  r.power_watts_at_steady_use = f.power_watts * PowerShare(f, f.usage_gpu_hours_per_month);
  r.own_power_usd_per_month = power_full_month * PowerShare(f, f.usage_gpu_hours_per_month);
  r.maintenance_usd_per_month = f.capex_usd * f.maintenance_fraction_per_year / 12;
  r.failure_replacement_usd_per_month = f.capex_usd * f.failure_replacement_fraction_per_year / 12;
  const double fixed_running = FixedRunningUsd(f);
  r.own_capex_usd = f.capex_usd;
  r.capex_items = f.capex_items;
  if (r.capex_items.empty()) r.capex_items.push_back({"total", f.capex_usd, "given by the caller"});
  r.own_running_usd_per_month = fixed_running + r.own_power_usd_per_month;
  r.own_usd_per_month = f.capex_usd / f.depreciation_months + r.own_running_usd_per_month;
  if (f.lease_term_months > 0) {
    r.lease_usd_per_month = AnnuityPaymentUsd(f.capex_usd, f.lease_rate_fraction_per_year, f.lease_term_months);
  }
  r.residual_value_usd = f.residual_value_usd > 0
                             ? f.residual_value_usd
                             : DecliningBalanceUsd(f.capex_usd, f.residual_decline_fraction_per_year, horizon_months);
  if (f.residual_value_usd == 0 && f.residual_decline_fraction_per_year == 0) r.residual_value_usd = 0;
  const double keep = 1 - f.discount_fraction;
  if (f.rent_flat_usd_per_month > 0) {
    r.rent_usd_per_month = f.rent_flat_usd_per_month * keep;
    r.rent_usd_per_gpu_hour = r.rent_usd_per_month / f.usage_gpu_hours_per_month;
  } else {
    r.rent_usd_per_gpu_hour = f.rent_usd_per_gpu_hour * keep;
    r.rent_usd_per_month = r.rent_usd_per_gpu_hour * f.usage_gpu_hours_per_month;
  }
  // own(U) = capex/depreciation + fixed running + power_full x (idle + (1 - idle) U/full);
  // rent(U) = r x U.
  const double denominator = r.rent_usd_per_gpu_hour - power_full_month * (1 - f.idle_power_fraction) / full_hours;
  const double fixed = f.capex_usd / f.depreciation_months + fixed_running + power_full_month * f.idle_power_fraction;
  r.break_even_gpu_hours_per_month = denominator > 0 ? fixed / denominator : 0;
  r.break_even_never = !(denominator > 0) || r.break_even_gpu_hours_per_month > full_hours;
  r.break_even_utilization_fraction = r.break_even_gpu_hours_per_month / full_hours;
  return r;
}

// Own cash out in `month`: capex (or the lease payment), running costs at that month's use,
// the lease payoff and the resale value at the horizon.
double OwnInMonthUsd(const TcoFleet& f, const TcoFleetResult& r, int month, int horizon, double used_gpu_hours) {
  double usd = FixedRunningUsd(f) + PowerFullMonthUsd(f) * PowerShare(f, used_gpu_hours);
  if (f.lease_term_months == 0) {
    usd += month == 1 ? f.capex_usd : 0.0;
  } else if (month <= f.lease_term_months) {
    usd += r.lease_usd_per_month;
  }
  if (month == horizon) {
    if (f.lease_term_months > horizon) {
      usd += AnnuityBalanceUsd(f.capex_usd, f.lease_rate_fraction_per_year, f.lease_term_months, horizon);
    }
    usd -= r.residual_value_usd;
  }
  return usd;
}

void FillSeries(const std::vector<TcoFleet>& fleets, int horizon, double rate, TcoResult* out) {
  double own_cum = 0, rent_cum = 0, own_disc = 0, rent_disc = 0;
  out->series.reserve(static_cast<size_t>(horizon));
  for (int m = 1; m <= horizon; ++m) {
    TcoMonth pt;
    pt.month = m;
    for (size_t i = 0; i < fleets.size(); ++i) {
      const double used = UsageInMonth(fleets[i], m);
      pt.used_gpu_hours += used;
      pt.own_usd += OwnInMonthUsd(fleets[i], out->fleets[i], m, horizon, used);
      pt.rent_usd += RentInMonthUsd(out->fleets[i], fleets[i], used);
    }
    own_cum += pt.own_usd;
    rent_cum += pt.rent_usd;
    own_disc += pt.own_usd * DiscountFactor(rate, m);
    rent_disc += pt.rent_usd * DiscountFactor(rate, m);
    pt.own_cumulative_usd = own_cum;
    pt.rent_cumulative_usd = rent_cum;
    pt.own_discounted_cumulative_usd = own_disc;
    pt.rent_discounted_cumulative_usd = rent_disc;
    if (out->break_even_month == 0 && own_cum <= rent_cum) out->break_even_month = m;
    if (out->discounted_break_even_month == 0 && own_disc <= rent_disc) out->discounted_break_even_month = m;
    out->series.push_back(pt);
  }
  out->npv_own_usd = own_disc;
  out->npv_rent_usd = rent_disc;
  out->break_even_month_never = out->break_even_month == 0;
  out->discounted_break_even_never = out->discounted_break_even_month == 0;
}

}  // namespace

absl::StatusOr<TcoResult> ComputeTco(const std::vector<TcoFleet>& fleets, int horizon_months,
                                     const TcoFinance& finance) {
  CAPPLAN_RETURN_IF_ERROR(CheckRange("horizon_months", int64_t{horizon_months}, 1, kMaxHorizonMonths));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("discount_rate_fraction_per_year", finance.discount_rate_fraction_per_year, 0, 1));
  if (fleets.empty() || fleets.size() > static_cast<size_t>(kMaxTcoFleets)) {
    return FieldError("fleets", absl::StrCat("give 1 to ", kMaxTcoFleets, " fleet parts, got ", fleets.size()));
  }
  TcoResult out;
  double own_month_total = 0, rent_month_total = 0, usage_total = 0, full_total = 0;
  for (size_t i = 0; i < fleets.size(); ++i) {
    absl::Status s = ValidateTcoFleet(fleets[i]);
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat("fleets[", i, "].", s.message()));
    const TcoFleetResult& r = out.fleets.emplace_back(OneFleet(fleets[i], horizon_months));
    out.break_even_gpu_hours_per_month += r.break_even_gpu_hours_per_month;
    out.break_even_usage_never = out.break_even_usage_never || r.break_even_never;
    own_month_total += r.own_usd_per_month;
    rent_month_total += r.rent_usd_per_month;
    usage_total += fleets[i].usage_gpu_hours_per_month;
    full_total += fleets[i].gpu_count * units::kHoursPerMonth;
  }
  out.break_even_utilization_fraction = out.break_even_gpu_hours_per_month / full_total;
  FillSeries(fleets, horizon_months, finance.discount_rate_fraction_per_year, &out);
  out.own_usd_per_used_gpu_hour = own_month_total / usage_total;
  out.rent_usd_per_used_gpu_hour = rent_month_total / usage_total;
  out.rent_options = RentOptions(fleets, horizon_months, finance.discount_rate_fraction_per_year);
  if (finance.sensitivity) out.sensitivity = Tornado(fleets, horizon_months, finance);
  return out;
}

ServingCostPerUnit ServingCosts(double own_usd_per_month, double rent_usd_per_month, double requests_per_second,
                                double output_tokens) {
  ServingCostPerUnit c;
  const double requests_month = requests_per_second * units::kSecondsPerMonth;
  const double tokens_month = requests_month * output_tokens;
  c.own_usd_per_million_requests = own_usd_per_month * units::kMillion / requests_month;
  c.rent_usd_per_million_requests = rent_usd_per_month * units::kMillion / requests_month;
  c.own_usd_per_million_output_tokens = own_usd_per_month * units::kMillion / tokens_month;
  c.rent_usd_per_million_output_tokens = rent_usd_per_month * units::kMillion / tokens_month;
  return c;
}

const std::vector<std::string>& TcoFormulas() {
  static const std::vector<std::string>* k = new std::vector<std::string>{
      "own per month = capex / depreciation months + power + ops + maintenance (straight line)",
      "power = watts x (idle + (1 - idle) x used / available GPU-hours) x 730 h x PUE x USD/kWh",
      "rent per month = USD per GPU-hour x used GPU-hours (or a flat monthly rent)",
      "break-even usage = fixed own cost (incl. idle power) / (rent per GPU-hour - marginal power per GPU-hour)",
      "cash series: capex in month 1; break-even month: cumulative own <= cumulative rent",
      "NPV: month m's cash x (1 + r/12)^-(m-1), r the annual cost of capital (nominal, monthly compounding)",
      "lease: level payment = capex x i / (1 - (1 + i)^-n), i = rate / 12; balance paid off at the horizon",
      "resale at the horizon = capex x (1 - declining-balance rate)^(months / 12), or as given",
      "maintenance and failure replacement = capex x annual rates / 12",
      "reserved: every committed GPU-hour of whole terms; spot: use x (1 + overhead)",
      "rent mix: reserved base of the least monthly use + the cheapest hourly kind above it",
      "sensitivity: NPV(own) - NPV(rent) with one input at 80% and 120%"};
  return *k;
}

}  // namespace capplan::core
