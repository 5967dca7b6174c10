#include "core/tco.h"

#include "absl/strings/str_cat.h"
#include "core/units.h"
#include "core/validate.h"

namespace capplan::core {

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
  return absl::OkStatus();
}

namespace {

TcoFleetResult OneFleet(const TcoFleet& f) {
  TcoFleetResult r;
  const double full_hours = f.gpu_count * units::kHoursPerMonth;
  // Power is drawn in proportion to use (idle draw not modelled).
  const double power_full_month =
      f.power_watts * units::kHoursPerMonth * f.pue * f.electricity_usd_per_kwh / units::kWattHoursPerKilowattHour;
  r.own_power_usd_per_month = power_full_month * f.usage_gpu_hours_per_month / full_hours;
  const double fixed_running = f.ops_usd_per_month + f.capex_usd * f.maintenance_fraction_per_year / 12;
  r.own_capex_usd = f.capex_usd;
  r.own_running_usd_per_month = fixed_running + r.own_power_usd_per_month;
  r.own_usd_per_month = f.capex_usd / f.depreciation_months + r.own_running_usd_per_month;
  const double keep = 1 - f.discount_fraction;
  if (f.rent_flat_usd_per_month > 0) {
    r.rent_usd_per_month = f.rent_flat_usd_per_month * keep;
    r.rent_usd_per_gpu_hour = r.rent_usd_per_month / f.usage_gpu_hours_per_month;
  } else {
    r.rent_usd_per_gpu_hour = f.rent_usd_per_gpu_hour * keep;
    r.rent_usd_per_month = r.rent_usd_per_gpu_hour * f.usage_gpu_hours_per_month;
  }
  // own(U) = capex/depreciation + fixed running + power_full x U/full_hours; rent(U) = r x U.
  const double denominator = r.rent_usd_per_gpu_hour - power_full_month / full_hours;
  const double fixed = f.capex_usd / f.depreciation_months + fixed_running;
  r.break_even_gpu_hours_per_month = denominator > 0 ? fixed / denominator : 0;
  return r;
}

}  // namespace

absl::StatusOr<TcoResult> ComputeTco(const std::vector<TcoFleet>& fleets, int horizon_months) {
  CAPPLAN_RETURN_IF_ERROR(CheckRange("horizon_months", int64_t{horizon_months}, 1, kMaxHorizonMonths));
  if (fleets.empty() || fleets.size() > static_cast<size_t>(kMaxTcoFleets)) {
    return FieldError("fleets", absl::StrCat("give 1 to ", kMaxTcoFleets, " fleet parts, got ", fleets.size()));
  }
  TcoResult out;
  double own_month_total = 0, rent_month_total = 0, usage_total = 0;
  for (size_t i = 0; i < fleets.size(); ++i) {
    absl::Status s = ValidateTcoFleet(fleets[i]);
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat("fleets[", i, "].", s.message()));
    const TcoFleetResult& r = out.fleets.emplace_back(OneFleet(fleets[i]));
    out.break_even_gpu_hours_per_month += r.break_even_gpu_hours_per_month;
    own_month_total += r.own_usd_per_month;
    rent_month_total += r.rent_usd_per_month;
    usage_total += fleets[i].usage_gpu_hours_per_month;
  }
  double own_cum = 0, rent_cum = 0;
  out.series.reserve(static_cast<size_t>(horizon_months));
  for (int m = 1; m <= horizon_months; ++m) {
    TcoMonth pt;
    pt.month = m;
    for (const TcoFleetResult& r : out.fleets) {
      pt.own_usd += (m == 1 ? r.own_capex_usd : 0.0) + r.own_running_usd_per_month;
      pt.rent_usd += r.rent_usd_per_month;
    }
    own_cum += pt.own_usd;
    rent_cum += pt.rent_usd;
    pt.own_cumulative_usd = own_cum;
    pt.rent_cumulative_usd = rent_cum;
    if (out.break_even_month == 0 && own_cum <= rent_cum) out.break_even_month = m;
    out.series.push_back(pt);
  }
  out.own_usd_per_used_gpu_hour = own_month_total / usage_total;
  out.rent_usd_per_used_gpu_hour = rent_month_total / usage_total;
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
      "power = watts x (used / available GPU-hours) x 730 h x PUE x USD/kWh",
      "rent per month = USD per GPU-hour x used GPU-hours (or a flat monthly rent)",
      "break-even usage = fixed own cost / (rent per GPU-hour - power per GPU-hour)",
      "cash series: capex in month 1; break-even month: cumulative own <= cumulative rent"};
  return *k;
}

}  // namespace capplan::core
