// Discounting, financing, resale, use profile, rent options and the sensitivity tornado.
#include "core/tco/tco_finance.h"

#include <algorithm>
#include <functional>
#include <map>

#include "absl/strings/str_cat.h"
#include "core/units.h"

namespace capplan::core {

double AnnuityPaymentUsd(double principal_usd, double rate_fraction_per_year, int months, double balloon_usd) {
  if (months < 1) return 0;
  const double i = rate_fraction_per_year / 12;
  if (i == 0) return (principal_usd - balloon_usd) / months;
  return (principal_usd - balloon_usd * std::pow(1 + i, -months)) * i / (1 - std::pow(1 + i, -months));
}

double AnnuityBalanceUsd(double principal_usd, double rate_fraction_per_year, int months, int paid_months,
                         double balloon_usd) {
  if (paid_months >= months) return 0;
  const double payment = AnnuityPaymentUsd(principal_usd, rate_fraction_per_year, months, balloon_usd);
  const double i = rate_fraction_per_year / 12;
  if (i == 0) return principal_usd - payment * paid_months;
  const double grow = std::pow(1 + i, paid_months);
  return principal_usd * grow - payment * (grow - 1) / i;
}

double DiscountFactor(double rate_fraction_per_year, int month) {
  return std::pow(1 + rate_fraction_per_year / 12, -(month - 1));
}

double MonthlyRate(const TcoFinance& fin) {
  const double r = fin.discount_rate_fraction_per_year;
  return fin.rate_basis == RateBasis::kNominalMonthly ? r / 12 : std::pow(1 + r, 1.0 / 12) - 1;
}

double FlowTimeMonths(const TcoFinance& fin, int month) {
  return fin.timing == CashTiming::kEndOfMonth ? month : month - 1;
}

double PresentValueFactor(const TcoFinance& fin, int month) {
  return std::pow(1 + MonthlyRate(fin), -FlowTimeMonths(fin, month));
}

double TaxDepreciationUsd(const TcoFleet& f, int service_month) {
  if (service_month < 1) return 0;
  if (f.depreciation_method == DepreciationMethod::kMacrs5y) {
    const int year = (service_month - 1) / 12;
    return year < 6 ? f.capex_usd * kMacrs5yFractions[year] / 12 : 0;
  }
  return service_month <= f.depreciation_months ? f.capex_usd / f.depreciation_months : 0;
}

double RentPriceFactor(const TcoFleet& f, int month) {
  return std::pow(1 - f.rent_price_decline_fraction_per_year, (month - 1) / 12);
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

// Adds one month's rent (before tax) to `p`, after tax when the finance asks.
void AddMonth(Priced* p, const TcoFinance& fin, int month, double usd) {
  usd *= 1 - fin.tax_rate_fraction;
  p->total_usd += usd;
  p->npv_usd += usd * PresentValueFactor(fin, month);
}

// Hourly renting: price x use (x (1 + overhead)) every month of the horizon.
Priced Hourly(const TcoFleet& f, int horizon, const TcoFinance& fin, double usd_per_gpu_hour, double extra) {
  Priced p;
  for (int m = 1; m <= horizon; ++m) {
    AddMonth(&p, fin, m, usd_per_gpu_hour * RentPriceFactor(f, m) * UsageInMonth(f, m) * (1 + extra));
  }
  return p;
}

// `gpus` committed for whole terms of `term` months covering the horizon, paid monthly; each
// term at the price of the month it starts in.
Priced Reserved(const TcoFleet& f, int horizon, const TcoFinance& fin, double usd_per_gpu_hour, double gpus, int term) {
  Priced p;
  p.reserved_gpus = gpus;
  const int months = (horizon + term - 1) / term * term;
  for (int m = 1; m <= months; ++m) {
    const int term_start = (m - 1) / term * term + 1;
    AddMonth(&p, fin, m, usd_per_gpu_hour * RentPriceFactor(f, term_start) * gpus * units::kHoursPerMonth);
  }
  return p;
}

// Every priced way to rent one part, by kind name.
std::map<std::string, Priced> PartOptions(const TcoFleet& f, int horizon, const TcoFinance& fin) {
  const double keep = 1 - f.discount_fraction;
  const RentKindPrices& k = f.rent_kinds;
  const double overhead = f.spot_overhead_fraction >= 0 ? f.spot_overhead_fraction : kDefaultSpotOverheadFraction;
  std::map<std::string, Priced> out;
  if (k.on_demand_usd_per_gpu_hour > 0) {
    out["on_demand"] = Hourly(f, horizon, fin, k.on_demand_usd_per_gpu_hour * keep, 0);
  }
  if (k.spot_usd_per_gpu_hour > 0) out["spot"] = Hourly(f, horizon, fin, k.spot_usd_per_gpu_hour * keep, overhead);
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
    out[name] = Reserved(f, horizon, fin, price_term.first * keep, f.gpu_count, price_term.second);
    if (peak_usd_per_gpu_hour <= 0) continue;
    Priced mix = Reserved(f, horizon, fin, price_term.first * keep, base_gpus, price_term.second);
    for (int m = 1; m <= horizon; ++m) {
      const double above = std::max(0.0, UsageInMonth(f, m) - base_gpus * units::kHoursPerMonth);
      AddMonth(&mix, fin, m, peak_usd_per_gpu_hour * RentPriceFactor(f, m) * above * (1 + peak_extra));
    }
    auto it = out.find("mix");
    if (it == out.end() || mix.total_usd < it->second.total_usd) out["mix"] = mix;
  }
  return out;
}

}  // namespace

std::vector<RentOption> RentOptions(const std::vector<TcoFleet>& fleets, int horizon_months,
                                    const TcoFinance& finance) {
  std::map<std::string, std::pair<Priced, size_t>> sum;  // kind -> (sum, parts priced)
  for (const TcoFleet& f : fleets) {
    for (const auto& [kind, p] : PartOptions(f, horizon_months, finance)) {
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

// Scales one input of every part by `k`, clamped to its valid range; true when clamped.
using Scale = std::function<bool(std::vector<TcoFleet>&, TcoFinance&, double k)>;

// v x k within [lo, hi]; sets *clamped when it had to be moved.
double Clamped(double v, double k, double lo, double hi, bool* clamped) {
  const double want = v * k;
  const double got = std::clamp(want, lo, hi);
  if (got != want) *clamped = true;
  return got;
}

bool ScaleUse(std::vector<TcoFleet>& fleets, TcoFinance&, double k) {
  bool clamped = false;
  for (TcoFleet& f : fleets) {
    const double full = f.gpu_count * units::kHoursPerMonth;
    f.usage_gpu_hours_per_month = Clamped(f.usage_gpu_hours_per_month, k, 0, full, &clamped);
    f.ramp_start_gpu_hours_per_month = Clamped(f.ramp_start_gpu_hours_per_month, k, 0, full, &clamped);
  }
  return clamped;
}

bool ScaleRent(std::vector<TcoFleet>& fleets, TcoFinance&, double k) {
  bool clamped = false;
  for (TcoFleet& f : fleets) {
    f.rent_flat_usd_per_month = Clamped(f.rent_flat_usd_per_month, k, 0, 1e11, &clamped);
    f.rent_usd_per_gpu_hour = Clamped(f.rent_usd_per_gpu_hour, k, 0, 1e5, &clamped);
  }
  return clamped;
}

bool ScaleCapex(std::vector<TcoFleet>& fleets, TcoFinance&, double k) {
  bool clamped = false;
  for (TcoFleet& f : fleets) {
    const double before = f.capex_usd;
    f.capex_usd = Clamped(f.capex_usd, k, 1, 1e11, &clamped);
    const double applied = f.capex_usd / before;
    for (CapexItem& i : f.capex_items) i.usd *= applied;
    f.residual_value_usd *= applied;
  }
  return clamped;
}

bool ScalePower(std::vector<TcoFleet>& fleets, TcoFinance&, double k) {
  bool clamped = false;
  for (TcoFleet& f : fleets) f.electricity_usd_per_kwh = Clamped(f.electricity_usd_per_kwh, k, 0, 10, &clamped);
  return clamped;
}

bool ScaleRate(std::vector<TcoFleet>&, TcoFinance& fin, double k) {
  bool clamped = false;
  fin.discount_rate_fraction_per_year = Clamped(fin.discount_rate_fraction_per_year, k, 0, 1, &clamped);
  return clamped;
}

bool AnyFlatRent(const std::vector<TcoFleet>& fleets) {
  for (const TcoFleet& f : fleets) {
    if (f.rent_flat_usd_per_month > 0) return true;
  }
  return false;
}

}  // namespace

std::vector<SensitivityEntry> Tornado(const std::vector<TcoFleet>& fleets, int horizon_months,
                                      const TcoFinance& finance) {
  const std::pair<const char*, Scale> inputs[] = {{"rent_price", ScaleRent},
                                                  {"electricity_price", ScalePower},
                                                  {"utilization", ScaleUse},
                                                  {"capex", ScaleCapex},
                                                  {"discount_rate", ScaleRate}};
  std::vector<SensitivityEntry> out;
  for (const auto& [name, scale] : inputs) {
    SensitivityEntry e;
    e.input = name;
    for (double k : {0.8, 1.2}) {
      std::vector<TcoFleet> fs = fleets;
      TcoFinance fin = finance;
      fin.sensitivity = false;
      const bool clamped = scale(fs, fin, k);
      (k < 1 ? e.low_clamped : e.high_clamped) = clamped;
      absl::StatusOr<TcoResult> r = ComputeTco(fs, horizon_months, fin);
      if (!r.ok()) {  // a clamped bound is valid, so this is a defect; say so rather than show 0
        e.note += absl::StrCat(k < 1 ? "low" : "high", " bound not computed: ", r.status().message(), "; ");
        continue;
      }
      (k < 1 ? e.npv_difference_low_usd : e.npv_difference_high_usd) = r->npv_own_usd - r->npv_rent_usd;
    }
    if (e.low_clamped) e.note += "low bound (80%) clamped to the input's valid range; ";
    if (e.high_clamped) e.note += "high bound (120%) clamped to the input's valid range; ";
    if (e.input == "utilization" && AnyFlatRent(fleets)) {
      e.note += "a flat rent does not change with use: only the owned fleet's power moves; ";
    }
    e.swing_usd = std::fabs(e.npv_difference_high_usd - e.npv_difference_low_usd);
    out.push_back(std::move(e));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const SensitivityEntry& a, const SensitivityEntry& b) { return a.swing_usd > b.swing_usd; });
  return out;
}

}  // namespace capplan::core
