// Discounting, financing, resale, use profile, rent options and the sensitivity tornado.
#include "core/tco/tco_finance.h"

#include <algorithm>
#include <functional>
#include <map>

#include "core/units.h"

namespace capplan::core {

double AnnuityPaymentUsd(double principal_usd, double rate_fraction_per_year, int months) {
  if (months < 1) return 0;
  const double i = rate_fraction_per_year / 12;
  if (i == 0) return principal_usd / months;
  return principal_usd * i / (1 - std::pow(1 + i, -months));
}

double AnnuityBalanceUsd(double principal_usd, double rate_fraction_per_year, int months, int paid_months) {
  if (paid_months >= months) return 0;
  const double payment = AnnuityPaymentUsd(principal_usd, rate_fraction_per_year, months);
  const double i = rate_fraction_per_year / 12;
  if (i == 0) return principal_usd - payment * paid_months;
  const double grow = std::pow(1 + i, paid_months);
  return principal_usd * grow - payment * (grow - 1) / i;
}

double DiscountFactor(double rate_fraction_per_year, int month) {
  return std::pow(1 + rate_fraction_per_year / 12, -(month - 1));
}

double DecliningBalanceUsd(double value_usd, double rate_fraction_per_year, int months) {
  return value_usd * std::pow(1 - rate_fraction_per_year, months / 12.0);
}

double UsageInMonth(const TcoFleet& f, int month) {
  if (month > f.ramp_months || f.ramp_months < 1) return f.usage_gpu_hours_per_month;
  const double step = (f.usage_gpu_hours_per_month - f.ramp_start_gpu_hours_per_month) / f.ramp_months;
  return f.ramp_start_gpu_hours_per_month + step * (month - 1);
}

namespace {

struct Priced {
  double total_usd = 0, npv_usd = 0, reserved_gpus = 0;
};

// Hourly renting: price x use (x (1 + overhead)) every month of the horizon.
Priced Hourly(const TcoFleet& f, int horizon, double rate, double usd_per_gpu_hour, double extra) {
  Priced p;
  for (int m = 1; m <= horizon; ++m) {
    const double usd = usd_per_gpu_hour * UsageInMonth(f, m) * (1 + extra);
    p.total_usd += usd;
    p.npv_usd += usd * DiscountFactor(rate, m);
  }
  return p;
}

// `gpus` committed for whole terms of `term` months covering the horizon, paid monthly.
Priced Reserved(int horizon, double rate, double usd_per_gpu_hour, double gpus, int term) {
  Priced p;
  p.reserved_gpus = gpus;
  const int months = (horizon + term - 1) / term * term;
  for (int m = 1; m <= months; ++m) {
    const double usd = usd_per_gpu_hour * gpus * units::kHoursPerMonth;
    p.total_usd += usd;
    p.npv_usd += usd * DiscountFactor(rate, m);
  }
  return p;
}

// Every priced way to rent one part, by kind name.
std::map<std::string, Priced> PartOptions(const TcoFleet& f, int horizon, double rate) {
  const double keep = 1 - f.discount_fraction;
  const RentKindPrices& k = f.rent_kinds;
  const double overhead = f.spot_overhead_fraction >= 0 ? f.spot_overhead_fraction : kDefaultSpotOverheadFraction;
  std::map<std::string, Priced> out;
  if (k.on_demand_usd_per_gpu_hour > 0) {
    out["on_demand"] = Hourly(f, horizon, rate, k.on_demand_usd_per_gpu_hour * keep, 0);
  }
  if (k.spot_usd_per_gpu_hour > 0) out["spot"] = Hourly(f, horizon, rate, k.spot_usd_per_gpu_hour * keep, overhead);
  const std::pair<const char*, std::pair<double, int>> reserved[] = {
      {"reserved_1y", {k.reserved_1y_usd_per_gpu_hour, 12}}, {"reserved_3y", {k.reserved_3y_usd_per_gpu_hour, 36}}};
  double least_use = f.usage_gpu_hours_per_month;
  for (int m = 1; m <= horizon; ++m) least_use = std::min(least_use, UsageInMonth(f, m));
  const double base_gpus = std::floor(least_use / units::kHoursPerMonth);
  // The peak above the base at the cheaper hourly kind.
  double peak_usd_per_gpu_hour = k.on_demand_usd_per_gpu_hour * keep;
  double peak_extra = 0;
  if (k.spot_usd_per_gpu_hour > 0 &&
      (peak_usd_per_gpu_hour == 0 || k.spot_usd_per_gpu_hour * (1 + overhead) < k.on_demand_usd_per_gpu_hour)) {
    peak_usd_per_gpu_hour = k.spot_usd_per_gpu_hour * keep;
    peak_extra = overhead;
  }
  for (const auto& [name, price_term] : reserved) {
    if (price_term.first <= 0) continue;
    out[name] = Reserved(horizon, rate, price_term.first * keep, f.gpu_count, price_term.second);
    if (peak_usd_per_gpu_hour <= 0) continue;
    Priced mix = Reserved(horizon, rate, price_term.first * keep, base_gpus, price_term.second);
    for (int m = 1; m <= horizon; ++m) {
      const double above = std::max(0.0, UsageInMonth(f, m) - base_gpus * units::kHoursPerMonth);
      const double usd = peak_usd_per_gpu_hour * above * (1 + peak_extra);
      mix.total_usd += usd;
      mix.npv_usd += usd * DiscountFactor(rate, m);
    }
    auto it = out.find("mix");
    if (it == out.end() || mix.total_usd < it->second.total_usd) out["mix"] = mix;
  }
  return out;
}

}  // namespace

std::vector<RentOption> RentOptions(const std::vector<TcoFleet>& fleets, int horizon_months,
                                    double discount_rate_fraction_per_year) {
  std::map<std::string, std::pair<Priced, size_t>> sum;  // kind -> (sum, parts priced)
  for (const TcoFleet& f : fleets) {
    for (const auto& [kind, p] : PartOptions(f, horizon_months, discount_rate_fraction_per_year)) {
      auto& s = sum[kind];
      s.first.total_usd += p.total_usd;
      s.first.npv_usd += p.npv_usd;
      s.first.reserved_gpus += p.reserved_gpus;
      ++s.second;
    }
  }
  std::vector<RentOption> out;
  for (const auto& [kind, s] : sum) {
    if (s.second != fleets.size()) continue;
    RentOption o{kind, s.first.total_usd, s.first.npv_usd, s.first.reserved_gpus, ""};
    if (kind == "spot") o.note = "use x (1 + interruption/checkpoint overhead)";
    if (kind.rfind("reserved", 0) == 0) o.note = "every GPU committed for whole terms, used or not";
    if (kind == "mix") o.note = "reserved base of the least monthly use, cheapest hourly kind above it";
    out.push_back(std::move(o));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const RentOption& a, const RentOption& b) { return a.total_usd < b.total_usd; });
  return out;
}

namespace {

// Scales one input of every part by `k`.
using Scale = std::function<void(std::vector<TcoFleet>&, TcoFinance&, double k)>;

void ScaleUse(std::vector<TcoFleet>& fleets, TcoFinance&, double k) {
  for (TcoFleet& f : fleets) {
    const double full = f.gpu_count * units::kHoursPerMonth;
    f.usage_gpu_hours_per_month = std::clamp(f.usage_gpu_hours_per_month * k, 1.0, full);
    f.ramp_start_gpu_hours_per_month = std::clamp(f.ramp_start_gpu_hours_per_month * k, 0.0, full);
  }
}

void ScaleRent(std::vector<TcoFleet>& fleets, TcoFinance&, double k) {
  for (TcoFleet& f : fleets) {
    f.rent_flat_usd_per_month *= k;
    f.rent_usd_per_gpu_hour *= k;
  }
}

void ScaleCapex(std::vector<TcoFleet>& fleets, TcoFinance&, double k) {
  for (TcoFleet& f : fleets) {
    f.capex_usd *= k;
    for (CapexItem& i : f.capex_items) i.usd *= k;
    f.residual_value_usd *= k;
  }
}

}  // namespace

std::vector<SensitivityEntry> Tornado(const std::vector<TcoFleet>& fleets, int horizon_months,
                                      const TcoFinance& finance) {
  const std::pair<const char*, Scale> inputs[] = {
      {"rent_price", ScaleRent},
      {"electricity_price",
       [](std::vector<TcoFleet>& fs, TcoFinance&, double k) {
         for (TcoFleet& f : fs) f.electricity_usd_per_kwh *= k;
       }},
      {"utilization", ScaleUse},
      {"capex", ScaleCapex},
      {"discount_rate",
       [](std::vector<TcoFleet>&, TcoFinance& fin, double k) { fin.discount_rate_fraction_per_year *= k; }}};
  std::vector<SensitivityEntry> out;
  for (const auto& [name, scale] : inputs) {
    SensitivityEntry e;
    e.input = name;
    for (double k : {0.8, 1.2}) {
      std::vector<TcoFleet> fs = fleets;
      TcoFinance fin = finance;
      fin.sensitivity = false;
      scale(fs, fin, k);
      absl::StatusOr<TcoResult> r = ComputeTco(fs, horizon_months, fin);
      const double d = r.ok() ? r->npv_own_usd - r->npv_rent_usd : 0;
      (k < 1 ? e.npv_difference_low_usd : e.npv_difference_high_usd) = d;
    }
    e.swing_usd = std::fabs(e.npv_difference_high_usd - e.npv_difference_low_usd);
    out.push_back(std::move(e));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const SensitivityEntry& a, const SensitivityEntry& b) { return a.swing_usd > b.swing_usd; });
  return out;
}

}  // namespace capplan::core
