#include "core/tco/tco.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "core/tco/tco_finance.h"
#include "core/units.h"
#include "core/validate.h"

namespace capplan::core {

namespace {

// Cost per used GPU-hour: 0 with no use, and 0 where the use is so small (a denormal fraction
// of the fleet's hours) that the quotient overflows: no finite figure describes it.
double PerUsedHour(double usd, double hours) {
  if (!(hours > 0)) return 0;
  const double r = usd / hours;
  return std::isfinite(r) ? r : 0;
}

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
  CAPPLAN_RETURN_IF_ERROR(CheckRange("own.resale_haircut_fraction", f.resale_haircut_fraction, 0, 1));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("own.colocation_usd_per_kw_month", f.colocation_usd_per_kw_month, 0, 1e4));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("own.support_usd_per_month", f.support_usd_per_month, 0, 1e10));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("own.software_usd_per_gpu_month", f.software_usd_per_gpu_month, 0, 1e5));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("own.staff_usd_per_month", f.staff_usd_per_month, 0, 1e10));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("own.lead_time_months", int64_t{f.lead_time_months}, 0, kMaxHorizonMonths));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("own.lease_down_payment_fraction", f.lease_down_payment_fraction, 0, 1));
  CAPPLAN_RETURN_IF_ERROR(
      CheckRange("own.lease_balloon_fraction", f.lease_balloon_fraction, 0, 1 - f.lease_down_payment_fraction));
  CAPPLAN_RETURN_IF_ERROR(
      CheckRange("rent.price_decline_fraction_per_year", f.rent_price_decline_fraction_per_year, 0, 0.99));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("rent.use_overhead_fraction", f.rent_use_overhead_fraction, 0, 10));
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
  // 0 is allowed: an idle fleet (the per-hour figures are then 0 and say so).
  CAPPLAN_RETURN_IF_ERROR(CheckRange("usage_gpu_hours_per_month", f.usage_gpu_hours_per_month, 0, full_hours));
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

double ColocationUsd(const TcoFleet& f) { return f.colocation_usd_per_kw_month * f.power_watts / 1000; }

// Monthly running costs that do not depend on use.
double FixedRunningUsd(const TcoFleet& f) {
  return f.ops_usd_per_month + ColocationUsd(f) + f.support_usd_per_month + f.software_usd_per_gpu_month * f.gpu_count +
         f.staff_usd_per_month +
         f.capex_usd * (f.maintenance_fraction_per_year + f.failure_replacement_fraction_per_year) / 12;
}

// Rent for `used_gpu_hours` in `month`: flat, or per used hour with the use overhead; both
// after the discount and the yearly price decline.
double RentInMonthUsd(const TcoFleet& f, int month, double used_gpu_hours) {
  const double keep = (1 - f.discount_fraction) * RentPriceFactor(f, month);
  if (f.rent_flat_usd_per_month > 0) return f.rent_flat_usd_per_month * keep;
  return f.rent_usd_per_gpu_hour * keep * (1 + f.rent_use_overhead_fraction) * used_gpu_hours;
}

TcoFleetResult OneFleet(const TcoFleet& f, int horizon_months) {
  TcoFleetResult r;
  const double power_full_month = PowerFullMonthUsd(f);
  r.power_watts_at_steady_use = f.power_watts * PowerShare(f, f.usage_gpu_hours_per_month);
  r.own_power_usd_per_month = power_full_month * PowerShare(f, f.usage_gpu_hours_per_month);
  r.maintenance_usd_per_month = f.capex_usd * f.maintenance_fraction_per_year / 12;
  r.failure_replacement_usd_per_month = f.capex_usd * f.failure_replacement_fraction_per_year / 12;
  r.colocation_usd_per_month = ColocationUsd(f);
  r.support_usd_per_month = f.support_usd_per_month;
  r.software_usd_per_month = f.software_usd_per_gpu_month * f.gpu_count;
  r.staff_usd_per_month = f.staff_usd_per_month;
  r.own_capex_usd = f.capex_usd;
  r.capex_items = f.capex_items;
  if (r.capex_items.empty()) r.capex_items.push_back({"total", f.capex_usd, "given by the caller"});
  r.own_running_usd_per_month = FixedRunningUsd(f) + r.own_power_usd_per_month;
  r.own_usd_per_month = f.capex_usd / f.depreciation_months + r.own_running_usd_per_month;
  if (f.lease_term_months > 0) {
    r.lease_usd_per_month =
        AnnuityPaymentUsd(f.capex_usd * (1 - f.lease_down_payment_fraction), f.lease_rate_fraction_per_year,
                          f.lease_term_months, f.capex_usd * f.lease_balloon_fraction);
  }
  if (f.residual_value_usd > 0) {
    r.residual_value_usd = f.residual_value_usd;
  } else if (f.residual_decline_fraction_per_year > 0) {
    r.residual_value_usd = DecliningBalanceUsd(f.capex_usd, f.residual_decline_fraction_per_year, horizon_months);
  }
  r.residual_value_usd *= 1 - f.resale_haircut_fraction;
  r.rent_usd_per_month = RentInMonthUsd(f, 1, f.usage_gpu_hours_per_month);
  if (f.rent_flat_usd_per_month > 0) {
    r.rent_usd_per_gpu_hour = f.usage_gpu_hours_per_month > 0 ? r.rent_usd_per_month / f.usage_gpu_hours_per_month : 0;
  } else {
    r.rent_usd_per_gpu_hour = RentInMonthUsd(f, 1, 1);
  }
  r.break_even_applies = f.rent_flat_usd_per_month == 0;
  return r;
}

// One fleet's cash in one month, own and rent, after tax when the finance has a tax rate.
struct MonthCash {
  double own_upfront_usd = 0;  // paid at time 0 (order): capex or the down payment
  double own_usd = 0;          // paid in the month (its start or end)
  double rent_usd = 0;
};

double LeaseRateMonthly(const TcoFleet& f) { return f.lease_rate_fraction_per_year / 12; }

double FinancedUsd(const TcoFleet& f) { return f.capex_usd * (1 - f.lease_down_payment_fraction); }

// Owed on the lease after `paid` payments.
double LeaseBalanceUsd(const TcoFleet& f, int paid) {
  return AnnuityBalanceUsd(FinancedUsd(f), f.lease_rate_fraction_per_year, f.lease_term_months, paid,
                           f.capex_usd * f.lease_balloon_fraction);
}

// The lease's cash and deductible interest in `month`, the payoff of what is owed at the horizon included.
void LeaseInMonth(const TcoFleet& f, const TcoFleetResult& r, int month, int horizon, double* cash, double* interest) {
  if (f.lease_term_months == 0 || month > f.lease_term_months) return;
  *interest = LeaseBalanceUsd(f, month - 1) * LeaseRateMonthly(f);
  *cash = r.lease_usd_per_month;
  if (month == f.lease_term_months) *cash += f.capex_usd * f.lease_balloon_fraction;
  if (month == horizon && f.lease_term_months > horizon) *cash += LeaseBalanceUsd(f, horizon);
}

// Tax depreciation taken by the end of `month`.
double DepreciationToDateUsd(const TcoFleet& f, int month) {
  double sum = 0;
  for (int k = 1; k <= month - f.lead_time_months; ++k) sum += TaxDepreciationUsd(f, k);
  return sum;
}

MonthCash CashInMonth(const TcoFleet& f, const TcoFleetResult& r, int month, int horizon, double tax,
                      double used_gpu_hours) {
  MonthCash c;
  if (month == 1)
    c.own_upfront_usd = f.lease_term_months > 0 ? f.capex_usd * f.lease_down_payment_fraction : f.capex_usd;
  const double rent = RentInMonthUsd(f, month, used_gpu_hours);
  c.rent_usd = rent * (1 - tax);
  // Before the fleet is usable the own path rents what it uses and runs nothing.
  const double running =
      month <= f.lead_time_months ? rent : FixedRunningUsd(f) + PowerFullMonthUsd(f) * PowerShare(f, used_gpu_hours);
  double lease = 0, interest = 0;
  LeaseInMonth(f, r, month, horizon, &lease, &interest);
  const double depreciation = TaxDepreciationUsd(f, month - f.lead_time_months);
  c.own_usd = running + lease - tax * (running + interest + depreciation);
  if (month == horizon) {
    const double book = f.capex_usd - DepreciationToDateUsd(f, horizon);
    c.own_usd -= r.residual_value_usd - tax * (r.residual_value_usd - book);
  }
  return c;
}

struct Npv {
  double own_usd = 0, rent_usd = 0, hours = 0;
};

// NPVs over the horizon with every part at `fraction` of every GPU all month (steady).
Npv NpvAtSteadyUse(const std::vector<TcoFleet>& fleets, const std::vector<TcoFleetResult>& results, int horizon,
                   const TcoFinance& fin, double fraction) {
  Npv n;
  for (size_t i = 0; i < fleets.size(); ++i) {
    const double used = fraction * fleets[i].gpu_count * units::kHoursPerMonth;
    for (int m = 1; m <= horizon; ++m) {
      const MonthCash c = CashInMonth(fleets[i], results[i], m, horizon, fin.tax_rate_fraction, used);
      const double v = PresentValueFactor(fin, m);
      n.own_usd += c.own_upfront_usd + c.own_usd * v;
      n.rent_usd += c.rent_usd * v;
    }
  }
  return n;
}

// The steady use fraction at which NPV(own) = NPV(rent). Both are linear in the use, so two
// evaluations fix the lines. Sets *never when no use up to every GPU all month makes owning
// cheaper; 0 when owning is cheaper even idle.
double BreakEvenFraction(const std::vector<TcoFleet>& fleets, const std::vector<TcoFleetResult>& results, int horizon,
                         const TcoFinance& fin, bool* never) {
  const Npv idle = NpvAtSteadyUse(fleets, results, horizon, fin, 0);
  const Npv busy = NpvAtSteadyUse(fleets, results, horizon, fin, 1);
  const double gap = idle.own_usd - idle.rent_usd;  // > 0: renting cheaper when idle
  const double gain = (busy.rent_usd - idle.rent_usd) - (busy.own_usd - idle.own_usd);
  *never = false;
  if (gap <= 0) return 0;
  if (!(gain > 0)) {
    *never = true;
    return 0;
  }
  const double u = gap / gain;
  *never = u > 1;
  return u;
}

void FillSeries(const std::vector<TcoFleet>& fleets, int horizon, const TcoFinance& fin, TcoResult* out) {
  double own_cum = 0, rent_cum = 0, own_disc = 0, rent_disc = 0, hours_disc = 0;
  out->series.reserve(static_cast<size_t>(horizon));
  for (int m = 1; m <= horizon; ++m) {
    TcoMonth pt;
    pt.month = m;
    const double v = PresentValueFactor(fin, m);
    for (size_t i = 0; i < fleets.size(); ++i) {
      const double used = UsageInMonth(fleets[i], m);
      const MonthCash c = CashInMonth(fleets[i], out->fleets[i], m, horizon, fin.tax_rate_fraction, used);
      pt.used_gpu_hours += used;
      pt.own_usd += c.own_upfront_usd + c.own_usd;
      pt.rent_usd += c.rent_usd;
      own_disc += c.own_upfront_usd + c.own_usd * v;
      rent_disc += c.rent_usd * v;
    }
    hours_disc += pt.used_gpu_hours * v;
    own_cum += pt.own_usd;
    rent_cum += pt.rent_usd;
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
  out->own_levelised_usd_per_gpu_hour = PerUsedHour(own_disc, hours_disc);
  out->rent_levelised_usd_per_gpu_hour = PerUsedHour(rent_disc, hours_disc);
  out->break_even_month_never = out->break_even_month == 0;
  out->discounted_break_even_never = out->discounted_break_even_month == 0;
}

// Per part and whole fleet: the NPV-consistent break-even use, where rent scales with use.
void FillBreakEven(const std::vector<TcoFleet>& fleets, int horizon, const TcoFinance& fin, TcoResult* out) {
  double full_total = 0;
  for (size_t i = 0; i < fleets.size(); ++i) {
    TcoFleetResult& r = out->fleets[i];
    const double full = fleets[i].gpu_count * units::kHoursPerMonth;
    full_total += full;
    out->break_even_usage_applies = out->break_even_usage_applies && r.break_even_applies;
    if (!r.break_even_applies) continue;
    const double u = BreakEvenFraction({fleets[i]}, {r}, horizon, fin, &r.break_even_never);
    r.break_even_utilization_fraction = r.break_even_never ? 0 : u;
    r.break_even_gpu_hours_per_month = r.break_even_never ? 0 : u * full;
    out->break_even_usage_never = out->break_even_usage_never || r.break_even_never;
  }
  if (!out->break_even_usage_applies) {
    out->break_even_usage_never = false;
    return;
  }
  bool never = false;
  const double u = BreakEvenFraction(fleets, out->fleets, horizon, fin, &never);
  out->break_even_usage_never = never;
  out->break_even_utilization_fraction = never ? 0 : u;
  out->break_even_gpu_hours_per_month = never ? 0 : u * full_total;
}

}  // namespace

absl::StatusOr<TcoResult> ComputeTco(const std::vector<TcoFleet>& fleets, int horizon_months,
                                     const TcoFinance& finance) {
  CAPPLAN_RETURN_IF_ERROR(CheckRange("horizon_months", int64_t{horizon_months}, 1, kMaxHorizonMonths));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("discount_rate_fraction_per_year", finance.discount_rate_fraction_per_year, 0, 1));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("tax_rate_fraction", finance.tax_rate_fraction, 0, 0.99));
  if (fleets.empty() || fleets.size() > static_cast<size_t>(kMaxTcoFleets)) {
    return FieldError("fleets", absl::StrCat("give 1 to ", kMaxTcoFleets, " fleet parts, got ", fleets.size()));
  }
  TcoResult out;
  double own_month_total = 0, rent_month_total = 0, usage_total = 0;
  for (size_t i = 0; i < fleets.size(); ++i) {
    absl::Status s = ValidateTcoFleet(fleets[i]);
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat("fleets[", i, "].", s.message()));
    const TcoFleetResult& r = out.fleets.emplace_back(OneFleet(fleets[i], horizon_months));
    own_month_total += r.own_usd_per_month;
    rent_month_total += r.rent_usd_per_month;
    usage_total += fleets[i].usage_gpu_hours_per_month;
  }
  FillSeries(fleets, horizon_months, finance, &out);
  FillBreakEven(fleets, horizon_months, finance, &out);
  out.own_usd_per_used_gpu_hour = PerUsedHour(own_month_total, usage_total);
  out.rent_usd_per_used_gpu_hour = PerUsedHour(rent_month_total, usage_total);
  out.rent_options = RentOptions(fleets, horizon_months, finance);
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
      // Long formulas span two literals, not a missing comma.
      // NOLINTNEXTLINE(bugprone-suspicious-missing-comma)
      "simple own per month = capex / depreciation months + running costs (straight line, undiscounted: labelled "
      "simple)",
      "running = power + ops + colocation (USD/kW-month x full-load kW) + support + software (per GPU) + staff + "
      "maintenance + failure replacement",
      "power = watts x (idle + (1 - idle) x used / available GPU-hours) x 730 h x PUE x USD/kWh",
      "rent per month = USD per GPU-hour x (1 + use overhead, spot) x used GPU-hours (or a flat monthly rent), "
      "x (1 - price decline)^whole years",
      "timing: capex at time 0; running costs, rent and lease payments at the end of each month (default) or its "
      "start; resale in the last month",
      "NPV: each flow x (1 + i)^-t, t in months; i = (1 + r)^(1/12) - 1 (effective, default) or r / 12 (nominal)",
      "levelised USD per GPU-hour = NPV of costs / sum of used GPU-hours x (1 + i)^-t",
      "break-even use: the steady use over the horizon with NPV(own) = NPV(rent); both are linear in use; only "
      "where rent scales with use",
      "cash series: capex in month 1; break-even month: cumulative own <= cumulative rent",
      "lease: level payment = (financed - balloon x (1 + i)^-n) x i / (1 - (1 + i)^-n), i = rate / 12; "
      "balance paid off at the horizon",
      "lead time: until the fleet is usable the own path rents its use and runs nothing",
      "tax: every expense x (1 - tax rate), minus tax rate x depreciation (straight line or MACRS 5-year), plus tax "
      "on resale above book value",
      "resale at the horizon = (capex x (1 - declining-balance rate)^(months / 12), or as given) x (1 - haircut)",
      "maintenance and failure replacement = capex x annual rates / 12",
      "reserved: every committed GPU-hour of whole terms; spot: use x (1 + overhead)",
      "rent mix: reserved base of the least monthly use + the cheapest hourly kind above it",
      "sensitivity: NPV(own) - NPV(rent) with one input at 80% and 120%, clamped to its valid range"};
  return *k;
}

}  // namespace capplan::core
