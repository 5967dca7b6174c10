// TcoFleetFrom: a request's fleet part to core, its defaults resolved and cited (see the header).
#include "server/api/tco_request.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "core/planner/query.h"
#include "core/planner/supply.h"
#include "core/tco/tco_finance.h"
#include "core/units.h"
#include "server/api/catalog_proto.h"
#include "server/api/request_proto.h"

namespace capplan::server {

namespace v1 = capplan::v1;

namespace {

using Assumptions = std::vector<v1::TcoAssumption>;

void Assume(Assumptions* out, const std::string& field, double value, const std::string& source) {
  v1::TcoAssumption& a = out->emplace_back();
  a.set_field(field);
  a.set_value(value);
  a.set_source(source);
}

std::string Cite(const core::Source& s) {
  return s.as_of_date.empty() ? s.citation : absl::StrCat(s.citation, " (", s.as_of_date, ")");
}

// A GPU row's owning figures (system power, idle share, prices) are cited in its note, not in
// its datasheet citation (migration 0005).
std::string CiteOwning(const core::Source& s) {
  return s.note.empty() ? Cite(s) : absl::StrCat(s.note, " [catalog row ", Cite(s), "]");
}

absl::Status RangeError(const std::string& field, double lo, double hi, double got) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": must be in [", lo, ", ", hi, "], got ", got));
}

bool InRange(double v, double lo, double hi) { return std::isfinite(v) && v >= lo && v <= hi; }

void Dated(std::vector<v1::StalePrice>* dated, const std::string& field, const std::string& source,
           const std::string& as_of_date) {
  if (dated == nullptr || as_of_date.empty()) return;
  v1::StalePrice& p = dated->emplace_back();
  p.set_field(field);
  p.set_source(source);
  p.set_as_of_date(as_of_date);
}

// When a price row was last known to hold: its source's date, else its effective date.
std::string DateOf(const core::PriceRow& p) {
  if (!p.source.as_of_date.empty()) return p.source.as_of_date;
  return absl::FormatTime("%Y-%m-%d", absl::FromUnixSeconds(p.effective_unix_seconds), absl::UTCTimeZone());
}

// The caller's capex lines, checked; their sum in `*sum`.
absl::Status BreakdownLines(const v1::CapexBreakdown& b, const std::string& field, std::vector<core::CapexItem>* lines,
                            double* sum) {
  const std::pair<const char*, double> parts[] = {{"gpus_usd", b.gpus_usd()},
                                                  {"host_usd", b.host_usd()},
                                                  {"network_usd", b.network_usd()},
                                                  {"storage_usd", b.storage_usd()},
                                                  {"installation_usd", b.installation_usd()}};
  const char* names[] = {"GPUs", "host share", "network", "storage", "installation"};
  *sum = 0;
  for (size_t i = 0; i < 5; ++i) {
    const std::string name = absl::StrCat(field, ".own.capex_breakdown.", parts[i].first);
    if (!InRange(parts[i].second, 0, 1e11)) return RangeError(name, 0, 1e11, parts[i].second);
    *sum += parts[i].second;
    lines->push_back(
        {names[i], parts[i].second, parts[i].second > 0 ? "given by the caller" : "not included (0): give " + name});
  }
  return absl::OkStatus();
}

// Lines of a catalog default: the priced part, then the parts the catalog does not know.
void CatalogLines(const char* priced, double usd, const std::string& source, bool host_included,
                  std::vector<core::CapexItem>* lines) {
  lines->push_back({priced, usd, source});
  if (!host_included) lines->push_back({"host share", 0, "not included: not in the catalog"});
  for (const char* name : {"network", "storage", "installation"}) {
    lines->push_back({name, 0, "not included: not in the catalog; give own.capex_breakdown"});
  }
}

absl::Status ResolveCapex(const core::GpuRow& gpu, const v1::TcoFleet& f, const std::string& field, core::TcoFleet* out,
                          Assumptions* assumptions, std::vector<v1::StalePrice>* dated) {
  const v1::OwnCosts& own = f.own();
  if (own.capex_usd() < 0) return absl::InvalidArgumentError(absl::StrCat(field, ".own.capex_usd: must be >= 0"));
  std::vector<core::CapexItem> given;
  double given_sum = 0;
  absl::Status lines = BreakdownLines(own.capex_breakdown(), field, &given, &given_sum);
  if (!lines.ok()) return lines;
  const double count = f.gpu_count();
  const std::string uncertainty =
      gpu.price_uncertainty_fraction > 0 ? absl::StrCat(", +-", gpu.price_uncertainty_fraction * 100, "%") : "";
  if (own.capex_usd() > 0) {
    out->capex_usd = own.capex_usd();
    if (given_sum > 0) {
      out->capex_items = std::move(given);
    } else {
      out->capex_items.push_back({"total", own.capex_usd(), "given by the caller (own.capex_usd)"});
    }
  } else if (given_sum > 0) {
    out->capex_usd = given_sum;
    out->capex_items = std::move(given);
  } else if (gpu.system_price_usd_per_gpu > 0) {
    out->capex_usd = gpu.system_price_usd_per_gpu * count;
    const std::string src = absl::StrCat("catalog system price per GPU ", gpu.system_price_usd_per_gpu, " x ",
                                         f.gpu_count(), ": ", CiteOwning(gpu.source), uncertainty);
    CatalogLines("system (GPUs+host)", out->capex_usd, src, true, &out->capex_items);
    Assume(assumptions, "own.capex_usd", out->capex_usd, src);
    Dated(dated, field + ".own.capex_usd", src, gpu.source.as_of_date);
  } else if (gpu.list_price_usd > 0) {
    out->capex_usd = gpu.list_price_usd * count;
    const std::string src = absl::StrCat("catalog GPU list price ", gpu.list_price_usd, " x ", f.gpu_count(), ": ",
                                         CiteOwning(gpu.source), uncertainty);
    CatalogLines("GPUs", out->capex_usd, src, false, &out->capex_items);
    Assume(assumptions, "own.capex_usd", out->capex_usd, src);
    Dated(dated, field + ".own.capex_usd", src, gpu.source.as_of_date);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".own.capex_usd: required: the catalog has no list price for ", f.gpu_name()));
  }
  return absl::OkStatus();
}

// Power at load, idle share, PUE and tariff.
void ResolvePower(const core::CatalogView& catalog, const core::GpuRow& gpu, const v1::TcoFleet& f, core::TcoFleet* out,
                  Assumptions* assumptions) {
  const v1::OwnCosts& own = f.own();
  if (own.has_power_watts()) {
    out->power_watts = own.power_watts();
  } else if (gpu.system_power_watts_per_gpu > 0) {
    out->power_watts = gpu.system_power_watts_per_gpu * f.gpu_count();
    Assume(assumptions, "own.power_watts", out->power_watts,
           absl::StrCat("catalog whole-system power per GPU ", gpu.system_power_watts_per_gpu, " W x ", f.gpu_count(),
                        ": ", CiteOwning(gpu.source)));
  } else {
    out->power_watts = gpu.spec.tdp_watts * f.gpu_count();
    Assume(assumptions, "own.power_watts", out->power_watts,
           absl::StrCat("GPU TDP ", gpu.spec.tdp_watts, " W x ", f.gpu_count(),
                        " (GPUs only: no host, network or fans; the catalog has no system power)"));
  }
  if (own.has_idle_power_fraction()) {
    out->idle_power_fraction = own.idle_power_fraction();
  } else if (gpu.idle_power_fraction > 0) {
    out->idle_power_fraction = gpu.idle_power_fraction;
    Assume(assumptions, "own.idle_power_fraction", out->idle_power_fraction,
           "catalog idle share of system power: " + CiteOwning(gpu.source));
  } else {
    Assume(assumptions, "own.idle_power_fraction", 0, "not in the catalog: power follows use");
  }
  out->pue = own.pue() != 0 ? own.pue() : kDefaultPue;
  if (own.pue() == 0) {
    Assume(assumptions, "own.pue", kDefaultPue, "capplan default (Uptime Institute 2023 survey average ~1.58)");
  }
  const core::ElectricityRow* tariff = catalog.FindElectricity(f.rent().region());
  if (own.has_electricity_usd_per_kwh()) {
    out->electricity_usd_per_kwh = own.electricity_usd_per_kwh();
  } else if (tariff != nullptr && tariff->usd_per_kwh > 0) {
    out->electricity_usd_per_kwh = tariff->usd_per_kwh;
    Assume(assumptions, "own.electricity_usd_per_kwh", tariff->usd_per_kwh,
           absl::StrCat("catalog tariff for ", tariff->region, ": ", Cite(tariff->source)));
  } else {
    out->electricity_usd_per_kwh = core::kDefaultElectricityUsdPerKwh;
    Assume(assumptions, "own.electricity_usd_per_kwh", out->electricity_usd_per_kwh,
           "US commercial average 2024 (EIA Electric Power Monthly, Table 5.3); no catalog tariff for the region");
  }
}

absl::Status ResolveUsage(const v1::TcoFleet& f, const std::string& field, core::TcoFleet* out) {
  const double full = f.gpu_count() * units::kHoursPerMonth;
  out->usage_gpu_hours_per_month = f.usage_gpu_hours_per_month() != 0 ? f.usage_gpu_hours_per_month() : full;
  if (f.has_use_fraction()) {
    if (!InRange(f.use_fraction(), 0, 1)) return RangeError(field + ".use_fraction", 0, 1, f.use_fraction());
    out->usage_gpu_hours_per_month = f.use_fraction() * full;
  }
  if (!f.has_utilization()) return absl::OkStatus();
  const v1::UtilizationProfile& u = f.utilization();
  const std::string name = field + ".utilization.";
  if (!InRange(u.start_fraction(), 0, 1)) return RangeError(name + "start_fraction", 0, 1, u.start_fraction());
  if (!InRange(u.steady_fraction(), 0, 1)) return RangeError(name + "steady_fraction", 0, 1, u.steady_fraction());
  if (u.ramp_months() < 0 || u.ramp_months() > core::kMaxHorizonMonths) {
    return RangeError(name + "ramp_months", 0, core::kMaxHorizonMonths, u.ramp_months());
  }
  if (u.steady_fraction() > 0) out->usage_gpu_hours_per_month = u.steady_fraction() * full;
  out->ramp_months = u.ramp_months();
  out->ramp_start_gpu_hours_per_month = u.start_fraction() * full;
  return absl::OkStatus();
}

// The named instance (or the cheapest per GPU at the asked kind) and its price of that kind.
absl::Status FindRent(const core::CatalogView& catalog, const v1::TcoFleet& f, int64_t as_of, const std::string& field,
                      const core::InstanceRow** inst, const core::PriceRow** price) {
  const v1::RentCosts& rent = f.rent();
  core::PriceKind kind = core::PriceKind::kOnDemand;
  if (rent.price_kind() != v1::PRICE_KIND_UNSPECIFIED) {
    absl::StatusOr<core::PriceKind> k = PriceKindFromProto(rent.price_kind(), field + ".rent.price_kind");
    if (!k.ok()) return k.status();
    kind = *k;
  }
  if (rent.instance_type().empty()) {
    for (const core::InstanceRow& i : catalog.Instances()) {
      if (i.gpu_name != f.gpu_name() || i.gpu_count < 1) continue;
      const core::PriceRow* p = catalog.PriceAt(i, kind, as_of);
      if (p != nullptr && (*price == nullptr ||
                           p->price_usd_per_hour / i.gpu_count < (*price)->price_usd_per_hour / (*inst)->gpu_count)) {
        *price = p;
        *inst = &i;
      }
    }
    if (*price == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(field, ".rent: the catalog has no ", core::PriceKindName(kind),
                                                        " price for ", f.gpu_name(),
                                                        "; give rent.price_usd_per_month or rent.instance_type"));
    }
    return absl::OkStatus();
  }
  for (const core::InstanceRow& i : catalog.Instances()) {
    if (i.instance_type == rent.instance_type() && (rent.provider().empty() || i.provider == rent.provider()) &&
        (rent.region().empty() || i.region == rent.region())) {
      *inst = &i;
      break;
    }
  }
  if (*inst == nullptr) {
    return absl::NotFoundError(
        absl::StrCat(field, ".rent.instance_type: no instance type \"", rent.instance_type(), "\""));
  }
  if ((*inst)->gpu_name != f.gpu_name()) {
    return absl::InvalidArgumentError(absl::StrCat(field, ".rent.instance_type: ", rent.instance_type(), " carries ",
                                                   (*inst)->gpu_name, ", not ", f.gpu_name()));
  }
  *price = catalog.PriceAt(**inst, kind, as_of);
  if (*price == nullptr) {
    return absl::NotFoundError(
        absl::StrCat(field, ".rent: no ", core::PriceKindName(kind), " price for ", rent.instance_type()));
  }
  return absl::OkStatus();
}

// Fills each rent kind the caller left 0 from the instance's catalog prices.
void CatalogKindPrices(const core::CatalogView& catalog, const core::InstanceRow& inst, int64_t as_of,
                       const std::string& field, core::RentKindPrices* k, Assumptions* assumptions,
                       std::vector<v1::StalePrice>* dated) {
  const std::pair<core::PriceKind, double*> kinds[] = {
      {core::PriceKind::kOnDemand, &k->on_demand_usd_per_gpu_hour},
      {core::PriceKind::kSpot, &k->spot_usd_per_gpu_hour},
      {core::PriceKind::kReserved1y, &k->reserved_1y_usd_per_gpu_hour},
      {core::PriceKind::kReserved3y, &k->reserved_3y_usd_per_gpu_hour}};
  for (const auto& [kind, slot] : kinds) {
    if (*slot > 0) continue;
    const core::PriceRow* p = catalog.PriceAt(inst, kind, as_of);
    if (p == nullptr) continue;
    *slot = p->price_usd_per_hour / inst.gpu_count;
    const std::string name = absl::StrCat("rent.", core::PriceKindName(kind), "_usd_per_gpu_hour");
    const std::string src = absl::StrCat(inst.provider, " ", inst.instance_type, " ", inst.region, " price row ", p->id,
                                         ": ", Cite(p->source));
    Assume(assumptions, name, *slot, src);
    Dated(dated, absl::StrCat(field, ".", name), src, DateOf(*p));
  }
}

absl::Status ResolveRent(const core::CatalogView& catalog, const v1::TcoFleet& f, int64_t as_of,
                         const std::string& field, core::TcoFleet* out, v1::Provenance* prov, Assumptions* assumptions,
                         std::vector<v1::StalePrice>* dated) {
  const v1::RentCosts& rent = f.rent();
  out->discount_fraction = rent.discount_fraction();
  out->rent_price_decline_fraction_per_year = rent.price_decline_fraction_per_year();
  out->rent_flat_usd_per_month = rent.price_usd_per_month();
  out->rent_kinds = {rent.on_demand_usd_per_gpu_hour(), rent.spot_usd_per_gpu_hour(),
                     rent.reserved_1y_usd_per_gpu_hour(), rent.reserved_3y_usd_per_gpu_hour()};
  if (rent.has_spot_overhead_fraction() && !InRange(rent.spot_overhead_fraction(), 0, 10)) {
    return RangeError(field + ".rent.spot_overhead_fraction", 0, 10, rent.spot_overhead_fraction());
  }
  if (rent.has_spot_overhead_fraction()) out->spot_overhead_fraction = rent.spot_overhead_fraction();
  absl::Status valid = core::ValidateTcoFleet(*out);  // before the catalog is searched for a price
  if (!valid.ok()) return Prefixed(valid, field + ".");
  if (out->rent_flat_usd_per_month == 0) {
    const core::InstanceRow* inst = nullptr;
    const core::PriceRow* price = nullptr;
    absl::Status found = FindRent(catalog, f, as_of, field, &inst, &price);
    if (!found.ok()) return found;
    if (inst->gpu_count < 1) {
      return absl::FailedPreconditionError(absl::StrCat(field, ".rent.instance_type: the catalog row has no GPUs"));
    }
    out->rent_usd_per_gpu_hour = price->price_usd_per_hour / inst->gpu_count;
    PriceToProto(*price, prov->add_prices());
    if (prov->price_kind().empty()) prov->set_price_kind(core::PriceKindName(price->kind));
    if (prov->price_note().empty()) prov->set_price_note(core::planner::PriceKindNote(price->kind));
    Dated(dated, field + ".rent.usd_per_gpu_hour",
          absl::StrCat(inst->provider, " ", inst->instance_type, " ", inst->region, " price row ", price->id, ": ",
                       Cite(price->source)),
          DateOf(*price));
    CatalogKindPrices(catalog, *inst, as_of, field, &out->rent_kinds, assumptions, dated);
    // A spot headline pays the spot overhead on every used hour, as the spot rent option does.
    if (price->kind == core::PriceKind::kSpot) {
      out->rent_use_overhead_fraction =
          out->spot_overhead_fraction >= 0 ? out->spot_overhead_fraction : core::kDefaultSpotOverheadFraction;
    }
  }
  if (!rent.has_spot_overhead_fraction() && out->rent_kinds.spot_usd_per_gpu_hour > 0) {
    Assume(assumptions, "rent.spot_overhead_fraction", core::kDefaultSpotOverheadFraction,
           "Young 1974 optimum checkpoint interval, 5-minute checkpoint, one interruption a day (an assumption)");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<core::TcoFleet> TcoFleetFrom(const core::CatalogView& catalog, const v1::TcoFleet& f, int64_t as_of,
                                            const std::string& field, v1::Provenance* prov, Assumptions* assumptions,
                                            std::vector<v1::StalePrice>* dated) {
  const core::GpuRow* gpu = catalog.FindGpu(f.gpu_name());
  if (gpu == nullptr) {
    return absl::NotFoundError(absl::StrCat(field, ".gpu_name: no GPU named \"", f.gpu_name(), "\" in the catalog"));
  }
  if (f.gpu_count() < 1 || f.gpu_count() > core::planner::kMaxGpus) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".gpu_count: must be in [1, ", core::planner::kMaxGpus, "], got ", f.gpu_count()));
  }
  core::TcoFleet out;
  out.role = f.role();
  out.gpu_count = f.gpu_count();
  absl::Status s = ResolveUsage(f, field, &out);
  if (s.ok()) s = ResolveCapex(*gpu, f, field, &out, assumptions, dated);
  if (!s.ok()) return s;
  ResolvePower(catalog, *gpu, f, &out, assumptions);
  const v1::OwnCosts& own = f.own();
  if (own.depreciation_months() != 0) out.depreciation_months = own.depreciation_months();
  out.ops_usd_per_month = own.ops_usd_per_month();
  out.maintenance_fraction_per_year = own.maintenance_fraction_per_year();
  out.failure_replacement_fraction_per_year = own.failure_replacement_fraction_per_year();
  out.lease_term_months = own.lease_term_months();
  out.lease_rate_fraction_per_year = own.lease_rate_fraction_per_year();
  out.residual_value_usd = own.residual_value_usd();
  out.residual_decline_fraction_per_year = own.residual_decline_fraction_per_year();
  out.colocation_usd_per_kw_month = own.colocation_usd_per_kw_month();
  out.support_usd_per_month = own.support_usd_per_month();
  out.software_usd_per_gpu_month = own.software_usd_per_gpu_month();
  out.staff_usd_per_month = own.staff_usd_per_month();
  out.lead_time_months = own.lead_time_months();
  out.lease_down_payment_fraction = own.lease_down_payment_fraction();
  out.lease_balloon_fraction = own.lease_balloon_fraction();
  out.resale_haircut_fraction = own.resale_haircut_fraction();
  switch (own.depreciation_method()) {
    case v1::DEPRECIATION_METHOD_UNSPECIFIED:
    case v1::DEPRECIATION_METHOD_STRAIGHT_LINE:
      break;
    case v1::DEPRECIATION_METHOD_MACRS_5Y:
      out.depreciation_method = core::DepreciationMethod::kMacrs5y;
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".own.depreciation_method: unknown value ", own.depreciation_method()));
  }
  s = ResolveRent(catalog, f, as_of, field, &out, prov, assumptions, dated);
  if (!s.ok()) return s;
  return out;
}

std::vector<v1::StalePrice> TcoStalePrices(std::vector<v1::StalePrice> dated, int64_t as_of, int max_age_days) {
  std::vector<v1::StalePrice> out;
  for (v1::StalePrice& p : dated) {
    absl::Time t;
    std::string err;
    if (!absl::ParseTime("%Y-%m-%d", p.as_of_date(), absl::UTCTimeZone(), &t, &err)) continue;
    const int64_t age = (as_of - absl::ToUnixSeconds(t)) / 86400;
    if (age <= max_age_days) continue;
    p.set_age_days(age);
    out.push_back(std::move(p));
  }
  return out;
}

absl::Status TcoFinanceFrom(const v1::TcoRequest& req, core::TcoFinance* out) {
  out->discount_rate_fraction_per_year = req.discount_rate_fraction_per_year();
  if (!InRange(req.tax_rate_fraction(), 0, 0.99))
    return RangeError("tax_rate_fraction", 0, 0.99, req.tax_rate_fraction());
  out->tax_rate_fraction = req.tax_rate_fraction();
  switch (req.cash_timing()) {
    case v1::CASH_TIMING_UNSPECIFIED:
    case v1::CASH_TIMING_END_OF_MONTH:
      out->timing = core::CashTiming::kEndOfMonth;
      break;
    case v1::CASH_TIMING_START_OF_MONTH:
      out->timing = core::CashTiming::kStartOfMonth;
      break;
    default:
      return absl::InvalidArgumentError(absl::StrCat("cash_timing: unknown value ", req.cash_timing()));
  }
  switch (req.rate_basis()) {
    case v1::RATE_BASIS_UNSPECIFIED:
    case v1::RATE_BASIS_EFFECTIVE_ANNUAL:
      out->rate_basis = core::RateBasis::kEffectiveAnnual;
      break;
    case v1::RATE_BASIS_NOMINAL_MONTHLY:
      out->rate_basis = core::RateBasis::kNominalMonthly;
      break;
    default:
      return absl::InvalidArgumentError(absl::StrCat("rate_basis: unknown value ", req.rate_basis()));
  }
  return absl::OkStatus();
}

}  // namespace capplan::server
