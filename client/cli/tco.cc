// capplan tco: own vs rent over a horizon for one fleet (flags) or several
// (--fleet), with an optional serving workload for cost per request; prints every
// line item with its source, the finance view (NPV, discounted break-even), the rent
// options and the sensitivity ranking.
#include <cstdint>
#include <functional>
#include <iostream>
#include <limits>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "client/cli/commands.h"
#include "client/cli/workload.h"

namespace capplan::cli {
namespace {

const CommandInfo kTco = {"tco", "own vs rent over a horizon, for one fleet or several",
                          "(--gpu=NAME --count=N [fleet flags] | --fleet=KEY=VALUE,... "
                          "[--fleet=...]) [flags]\n"
                          "The model and serving flags are optional: with --model or --model_file "
                          "they add cost per 1M requests and output tokens.",
                          "  capplan tco --gpu=A100-SXM4-80GB --count=8 --months=36 "
                          "--capex_usd=250000 \\\n"
                          "    --ops_usd_per_month=5000 --power_watts=0 --rent_usd_per_month=15000\n"
                          "  capplan tco --months=36 \\\n"
                          "    --fleet=role=training,gpu=H100-SXM5-80GB,count=64,capex_usd=2400000,"
                          "rent_instance=p5.48xlarge,rent_region=us-east-1,discount=0.3 \\\n"
                          "    --fleet=role=serving,gpu=L4,count=16,capex_usd=60000,power_watts=1200,"
                          "rent_instance=g6.xlarge,rent_region=us-east-1\n"
                          "  capplan tco --gpu=H100-SXM5-80GB --count=64 --capex_usd=2342000 --power_watts=81600 \\\n"
                          "    --idle_power_fraction=0.3 --start_utilization_fraction=0.3 "
                          "--steady_utilization_fraction=0.8 \\\n"
                          "    --ramp_months=3 --residual_decline_fraction_per_year=0.4 "
                          "--discount_rate_fraction_per_year=0.08 \\\n"
                          "    --rent_instance=p5.48xlarge --rent_region=us-east-1"};

using FleetSetter = std::function<absl::Status(const std::string&, v1::TcoFleet*)>;

FleetSetter Number(std::function<void(v1::TcoFleet*, double)> set) {
  return [set = std::move(set)](const std::string& v, v1::TcoFleet* f) {
    double d = 0;
    if (!absl::SimpleAtod(v, &d) || !(d >= 0) || d > 1e15) {
      return absl::InvalidArgumentError("want a number >= 0");
    }
    set(f, d);
    return absl::OkStatus();
  };
}

FleetSetter Whole(std::function<void(v1::TcoFleet*, int32_t)> set) {
  return [set = std::move(set)](const std::string& v, v1::TcoFleet* f) {
    int64_t n = 0;
    if (!absl::SimpleAtoi(v, &n) || n < 0 || n > std::numeric_limits<int32_t>::max()) {
      return absl::InvalidArgumentError("want a whole number >= 0");
    }
    set(f, static_cast<int32_t>(n));
    return absl::OkStatus();
  };
}

FleetSetter Text(std::function<void(v1::TcoFleet*, const std::string&)> set) {
  return [set = std::move(set)](const std::string& v, v1::TcoFleet* f) {
    set(f, v);
    return absl::OkStatus();
  };
}

struct FleetKey {
  const char* key;
  const char* value_name;
  const char* help;
  FleetSetter set;
};

// The finance keys (docs/estimator.md, TCO): capex lines, idle power, spares, lease, resale, the use ramp
// and the per-GPU-hour price of each rent kind.
std::vector<FleetKey> FinanceKeys() {
  return {{"idle_power_fraction", "F", "share of full-load power drawn with no use (unset: catalog, else 0)",
           Number([](v1::TcoFleet* f, double d) { f->mutable_own()->set_idle_power_fraction(d); })},
          {"gpus_usd", "USD", "capex line: GPUs",
           Number([](v1::TcoFleet* f, double d) { f->mutable_own()->mutable_capex_breakdown()->set_gpus_usd(d); })},
          {"host_usd", "USD", "capex line: host share (servers' CPUs, memory, chassis)",
           Number([](v1::TcoFleet* f, double d) { f->mutable_own()->mutable_capex_breakdown()->set_host_usd(d); })},
          {"network_usd", "USD", "capex line: network",
           Number([](v1::TcoFleet* f, double d) { f->mutable_own()->mutable_capex_breakdown()->set_network_usd(d); })},
          {"storage_usd", "USD", "capex line: storage",
           Number([](v1::TcoFleet* f, double d) { f->mutable_own()->mutable_capex_breakdown()->set_storage_usd(d); })},
          {"installation_usd", "USD", "capex line: installation", Number([](v1::TcoFleet* f, double d) {
             f->mutable_own()->mutable_capex_breakdown()->set_installation_usd(d);
           })},
          {"failure_replacement_fraction_per_year", "F", "spares replacing failures per year, fraction of capex",
           Number([](v1::TcoFleet* f, double d) { f->mutable_own()->set_failure_replacement_fraction_per_year(d); })},
          {"lease_term_months", "MONTHS", "finance the capex over this many months (0: cash)",
           Whole([](v1::TcoFleet* f, int32_t n) { f->mutable_own()->set_lease_term_months(n); })},
          {"lease_rate_fraction_per_year", "F", "lease or loan interest rate per year",
           Number([](v1::TcoFleet* f, double d) { f->mutable_own()->set_lease_rate_fraction_per_year(d); })},
          {"residual_value_usd", "USD", "resale value at the horizon",
           Number([](v1::TcoFleet* f, double d) { f->mutable_own()->set_residual_value_usd(d); })},
          {"residual_decline_fraction_per_year", "F",
           "resale value by declining balance (0.4: 200% over 5 years, 21.6% left after 3; 0: no resale)",
           Number([](v1::TcoFleet* f, double d) { f->mutable_own()->set_residual_decline_fraction_per_year(d); })},
          {"start_utilization_fraction", "F", "use in month 1, fraction of every GPU all month",
           Number([](v1::TcoFleet* f, double d) { f->mutable_utilization()->set_start_fraction(d); })},
          {"steady_utilization_fraction", "F", "steady use after the ramp (0: usage_gpu_hours)",
           Number([](v1::TcoFleet* f, double d) { f->mutable_utilization()->set_steady_fraction(d); })},
          {"ramp_months", "MONTHS", "months to ramp from the start use to the steady use",
           Whole([](v1::TcoFleet* f, int32_t n) { f->mutable_utilization()->set_ramp_months(n); })},
          {"on_demand_usd_per_gpu_hour", "USD", "on-demand price for the rent options (0: catalog)",
           Number([](v1::TcoFleet* f, double d) { f->mutable_rent()->set_on_demand_usd_per_gpu_hour(d); })},
          {"spot_usd_per_gpu_hour", "USD", "spot price for the rent options (0: catalog)",
           Number([](v1::TcoFleet* f, double d) { f->mutable_rent()->set_spot_usd_per_gpu_hour(d); })},
          {"reserved_1y_usd_per_gpu_hour", "USD", "1-year committed price (0: catalog)",
           Number([](v1::TcoFleet* f, double d) { f->mutable_rent()->set_reserved_1y_usd_per_gpu_hour(d); })},
          {"reserved_3y_usd_per_gpu_hour", "USD", "3-year committed price (0: catalog)",
           Number([](v1::TcoFleet* f, double d) { f->mutable_rent()->set_reserved_3y_usd_per_gpu_hour(d); })},
          {"spot_overhead_fraction", "F", "extra GPU-hours on spot for interruptions (unset: 0.083)",
           Number([](v1::TcoFleet* f, double d) { f->mutable_rent()->set_spot_overhead_fraction(d); })}};
}

FleetSetter Fraction(std::function<void(v1::TcoFleet*, double)> set) {
  return [set = std::move(set)](const std::string& v, v1::TcoFleet* f) {
    double d = 0;
    if (!absl::SimpleAtod(v, &d) || !(d >= 0) || d > 1) return absl::InvalidArgumentError("want a fraction in [0, 1]");
    set(f, d);
    return absl::OkStatus();
  };
}

// The cost lines public TCO studies include beyond capex, power and ops; each 0: not included.
std::vector<FleetKey> CostLineKeys() {
  return {
      {"use_fraction", "F", "steady use, fraction of every GPU all month; 0 is an idle fleet (unset: usage_gpu_hours)",
       Fraction([](v1::TcoFleet* f, double d) { f->set_use_fraction(d); })},
      {"colocation_usd_per_kw_month", "USD", "space and cooling per kW of full-load power per month",
       Number([](v1::TcoFleet* f, double d) { f->mutable_own()->set_colocation_usd_per_kw_month(d); })},
      {"support_usd_per_month", "USD", "support contracts per month",
       Number([](v1::TcoFleet* f, double d) { f->mutable_own()->set_support_usd_per_month(d); })},
      {"software_usd_per_gpu_month", "USD", "software licences per owned GPU per month",
       Number([](v1::TcoFleet* f, double d) { f->mutable_own()->set_software_usd_per_gpu_month(d); })},
      {"staff_usd_per_month", "USD", "staff cost per month",
       Number([](v1::TcoFleet* f, double d) { f->mutable_own()->set_staff_usd_per_month(d); })},
      {"depreciation_method", "straight_line|macrs_5y", "tax depreciation (with --tax_rate_fraction)",
       [](const std::string& v, v1::TcoFleet* f) {
         if (v != "straight_line" && v != "macrs_5y") return absl::InvalidArgumentError("straight_line or macrs_5y");
         f->mutable_own()->set_depreciation_method(v == "macrs_5y" ? v1::DEPRECIATION_METHOD_MACRS_5Y
                                                                   : v1::DEPRECIATION_METHOD_STRAIGHT_LINE);
         return absl::OkStatus();
       }},
      {"lead_time_months", "MONTHS", "months from order until the fleet is usable (rented meanwhile)",
       Whole([](v1::TcoFleet* f, int32_t n) { f->mutable_own()->set_lead_time_months(n); })},
      {"lease_down_payment_fraction", "F", "share of capex paid at order when leasing",
       Fraction([](v1::TcoFleet* f, double d) { f->mutable_own()->set_lease_down_payment_fraction(d); })},
      {"lease_balloon_fraction", "F", "share of capex due with the last lease payment",
       Fraction([](v1::TcoFleet* f, double d) { f->mutable_own()->set_lease_balloon_fraction(d); })},
      {"resale_haircut_fraction", "F", "share of the resale value lost (dealer margin, decommissioning)",
       Fraction([](v1::TcoFleet* f, double d) { f->mutable_own()->set_resale_haircut_fraction(d); })},
      {"rent_price_decline_fraction_per_year", "F", "every rent falls by this share each year",
       Fraction([](v1::TcoFleet* f, double d) { f->mutable_rent()->set_price_decline_fraction_per_year(d); })}};
}

// The fleet's size, use, owning and renting keys.
std::vector<FleetKey> BasicKeys() {
  return {
      {"gpu", "NAME", "GPU type", Text([](v1::TcoFleet* f, const std::string& v) { f->set_gpu_name(v); })},
      {"count", "N", "GPUs in the fleet", Whole([](v1::TcoFleet* f, int32_t n) { f->set_gpu_count(n); })},
      {"role", "TEXT", "free-text label, e.g. training or serving",
       Text([](v1::TcoFleet* f, const std::string& v) { f->set_role(v); })},
      {"usage_gpu_hours", "GPU_HOURS", "GPU-hours used per month (0: every GPU all month, 730 h)",
       Number([](v1::TcoFleet* f, double d) { f->set_usage_gpu_hours_per_month(d); })},
      {"capex_usd", "USD",
       "purchase cost of the fleet (0: the capex lines' sum, else the catalog's system price per GPU x count, "
       "else its GPU list price x count)",
       Number([](v1::TcoFleet* f, double d) { f->mutable_own()->set_capex_usd(d); })},
      {"depreciation_months", "MONTHS", "straight-line depreciation (0: 36)",
       Whole([](v1::TcoFleet* f, int32_t n) { f->mutable_own()->set_depreciation_months(n); })},
      {"power_watts", "WATTS",
       "whole-fleet power at full load (unset: the catalog's whole-system power per GPU x count, else GPU TDP x "
       "count)",
       Number([](v1::TcoFleet* f, double d) { f->mutable_own()->set_power_watts(d); })},
      {"pue", "RATIO", "data-centre power usage effectiveness (0: 1.2)",
       Number([](v1::TcoFleet* f, double d) { f->mutable_own()->set_pue(d); })},
      {"electricity_usd_per_kwh", "USD_PER_KWH",
       "tariff (unset: the catalog's tariff for rent_region, else 0.13, the US commercial average)",
       Number([](v1::TcoFleet* f, double d) { f->mutable_own()->set_electricity_usd_per_kwh(d); })},
      {"ops_usd_per_month", "USD", "other running costs per month (0: not included)",
       Number([](v1::TcoFleet* f, double d) { f->mutable_own()->set_ops_usd_per_month(d); })},
      {"maintenance_fraction_per_year", "F", "maintenance per year, as a fraction of capex",
       Number([](v1::TcoFleet* f, double d) { f->mutable_own()->set_maintenance_fraction_per_year(d); })},
      {"rent_usd_per_month", "USD", "flat monthly rent to compare against",
       Number([](v1::TcoFleet* f, double d) { f->mutable_rent()->set_price_usd_per_month(d); })},
      {"rent_provider", "NAME", "provider of the instance to rent",
       Text([](v1::TcoFleet* f, const std::string& v) { f->mutable_rent()->set_provider(v); })},
      {"rent_instance", "TYPE", "instance type to rent instead (catalog price)",
       Text([](v1::TcoFleet* f, const std::string& v) { f->mutable_rent()->set_instance_type(v); })},
      {"rent_region", "REGION", "region of the instance to rent",
       Text([](v1::TcoFleet* f, const std::string& v) { f->mutable_rent()->set_region(v); })},
      {"price_kind", "on_demand|spot|reserved_1y|reserved_3y", "which catalog price to rent at",
       [](const std::string& v, v1::TcoFleet* f) {
         absl::StatusOr<v1::PriceKind> k = ParsePriceKind(v);
         if (!k.ok()) return k.status();
         f->mutable_rent()->set_price_kind(*k);
         return absl::OkStatus();
       }},
      {"discount", "F", "discount off the rent price, fraction in [0, 1)", [](const std::string& v, v1::TcoFleet* f) {
         double d = 0;
         if (!absl::SimpleAtod(v, &d) || !(d >= 0) || !(d < 1)) {
           return absl::InvalidArgumentError("want a fraction in [0, 1)");
         }
         f->mutable_rent()->set_discount_fraction(d);
         return absl::OkStatus();
       }}};
}

// One table serves both the single-fleet flags (--KEY=VALUE) and
// --fleet=KEY=VALUE,...
const std::vector<FleetKey>& FleetKeys() {
  static const auto* keys = [] {
    auto* k = new std::vector<FleetKey>(BasicKeys());
    std::vector<FleetKey> more = FinanceKeys();
    k->insert(k->end(), more.begin(), more.end());
    more = CostLineKeys();
    k->insert(k->end(), more.begin(), more.end());
    return k;
  }();
  return *keys;
}

const FleetKey* FindFleetKey(const std::string& key) {
  for (const FleetKey& k : FleetKeys()) {
    if (key == k.key) return &k;
  }
  return nullptr;
}

// --fleet=KEY=VALUE,KEY=VALUE,...
absl::Status ParseFleet(const std::string& spec, v1::TcoFleet* fleet) {
  for (absl::string_view item : absl::StrSplit(spec, ',', absl::SkipEmpty())) {
    std::pair<std::string, std::string> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
    const FleetKey* k = FindFleetKey(kv.first);
    if (k == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("--fleet: unknown key \"", kv.first, "\" (the keys are the fleet flags' names)"));
    }
    absl::Status s = k->set(kv.second, fleet);
    if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat("--fleet ", kv.first, ": ", s.message()));
  }
  return absl::OkStatus();
}

// Every line item of one part, with its source.
void PrintBreakdown(const v1::TcoFleetResult& fr) {
  Table t({"item", "amount", "source"});
  for (const v1::CapexLine& l : fr.capex_lines()) t.Add({"capex: " + l.name(), Usd(l.usd()), l.source()});
  t.Add({"power at steady use",
         absl::StrFormat("%.0f W, %s/month", fr.power_watts_at_steady_use(), Usd(fr.own_power_usd_per_month())),
         "x PUE x tariff"});
  t.Add({"maintenance", Usd(fr.maintenance_usd_per_month()) + "/month", "rate x capex"});
  t.Add({"failure replacement", Usd(fr.failure_replacement_usd_per_month()) + "/month", "rate x capex"});
  if (fr.lease_usd_per_month() > 0) t.Add({"lease payment", Usd(fr.lease_usd_per_month()) + "/month", "annuity"});
  t.Add({"resale at the horizon", Usd(fr.residual_value_usd()), "declining balance or given"});
  for (const v1::TcoAssumption& a : fr.assumptions()) {
    t.Add({"default " + a.field(), absl::StrFormat("%g", a.value()), a.source()});
  }
  t.Print();
}

void PrintFleets(const v1::TcoResponse& resp) {
  for (const v1::TcoFleetResult& fr : resp.fleets()) {
    if (resp.fleets_size() > 1) {
      std::cout << absl::StrFormat("fleet %s%d x %s:\n", fr.role().empty() ? "" : fr.role() + " ", fr.gpu_count(),
                                   fr.gpu_name());
    }
    std::cout << absl::StrFormat(
        "own:  %s up front, %s/month simple: straight line (power %s/month)\n"
        "rent: %s/month (%s per GPU-hour)\n",
        Usd(fr.own_capex_usd()), Usd(fr.own_usd_per_month()), Usd(fr.own_power_usd_per_month()),
        Usd(fr.rent_usd_per_month()), Usd(fr.rent_usd_per_gpu_hour()));
    PrintBreakdown(fr);
  }
}

void PrintFinance(const v1::TcoResponse& resp) {
  std::cout << (resp.break_even_month_never()
                    ? std::string("break-even: never within the horizon (cash)")
                    : absl::StrFormat("break-even: month %d (cash)", resp.break_even_month()));
  if (!resp.break_even_usage_applies()) {
    std::cout << "; break-even use does not apply (flat rent: use does not change it)\n";
  } else if (resp.break_even_usage_never()) {
    std::cout << "; owning never wins at any steady use over the horizon\n";
  } else {
    std::cout << absl::StrFormat("; owning wins above %.0f GPU-hours/month (%.1f%% steady use, NPV over the horizon)\n",
                                 resp.break_even_gpu_hours_per_month(), resp.break_even_utilization_fraction() * 100);
  }
  const double rate = resp.discount_rate_fraction_per_year() * 100;
  if (resp.discounted_break_even_never()) {
    std::cout << absl::StrFormat("discounted at %.1f%%/year: never within the horizon", rate);
  } else {
    std::cout << absl::StrFormat("discounted at %.1f%%/year: month %d", rate, resp.discounted_break_even_month());
  }
  std::cout << absl::StrFormat("; NPV own %s, rent %s\n", Usd(resp.npv_own_usd()), Usd(resp.npv_rent_usd()));
  if (resp.rent_options_size() > 0) {
    Table t({"rent option", "total", "NPV", "reserved GPUs", "note"});
    for (const v1::RentOption& o : resp.rent_options()) {
      t.Add(
          {o.kind(), Usd(o.total_usd()), Usd(o.npv_usd()), absl::StrFormat("%.0f", o.reserved_gpu_count()), o.note()});
    }
    t.Print();
  }
  Table t({"sensitivity (+-20%)", "NPV own-rent at -20%", "at +20%", "swing"});
  for (const v1::SensitivityEntry& e : resp.sensitivity()) {
    t.Add({e.input(), Usd(e.npv_difference_low_usd()) + (e.low_clamped() ? " (clamped)" : ""),
           Usd(e.npv_difference_high_usd()) + (e.high_clamped() ? " (clamped)" : ""), Usd(e.swing_usd())});
  }
  t.Print();
}

void PrintTco(const v1::TcoResponse& resp) {
  PrintFleets(resp);
  if (!resp.provenance().price_kind().empty()) std::cout << "rent priced at " << resp.provenance().price_kind() << "\n";
  if (!resp.provenance().price_note().empty()) std::cout << "note: " << resp.provenance().price_note() << "\n";
  PrintFinance(resp);
  std::cout << absl::StrFormat("levelised per used GPU-hour (NPV / discounted hours): own %s, rent %s\n",
                               Usd(resp.own_levelised_usd_per_gpu_hour()), Usd(resp.rent_levelised_usd_per_gpu_hour()));
  std::cout << absl::StrFormat("simple per used GPU-hour (straight line, undiscounted): own %s, rent %s\n",
                               Usd(resp.own_usd_per_used_gpu_hour()), Usd(resp.rent_usd_per_used_gpu_hour()));
  for (const std::string& w : resp.warnings()) std::cout << "warning: " << w << "\n";
  for (const std::string& n : resp.not_included()) std::cout << "not included: " << n << "\n";
  if (resp.own_usd_per_million_requests() > 0) {
    std::cout << absl::StrFormat("per 1M requests: own %s, rent %s\n", Usd(resp.own_usd_per_million_requests()),
                                 Usd(resp.rent_usd_per_million_requests()));
  }
  Table t({"month", "own", "rent", "own cumulative", "rent cumulative"});
  for (const v1::TcoPoint& p : resp.series()) {
    if (p.month() != 1 && p.month() % 6 != 0 && p.month() != resp.break_even_month()) continue;
    t.Add({absl::StrCat(p.month()), Usd(p.own_usd()), Usd(p.rent_usd()), Usd(p.own_cumulative_usd()),
           Usd(p.rent_cumulative_usd())});
  }
  t.Print();
}

// --cash_timing, --rate_basis and --tax_rate_fraction.
void AddFinanceFlags(FlagSet* flags, v1::TcoRequest* r) {
  flags->Custom(
      "cash_timing", "end_of_month|start_of_month",
      "when running costs, rent and lease payments are paid in their month (capex: at the start)", "end_of_month",
      [r](const std::string& v) {
        if (v != "end_of_month" && v != "start_of_month") {
          return absl::InvalidArgumentError("end_of_month or start_of_month");
        }
        r->set_cash_timing(v == "start_of_month" ? v1::CASH_TIMING_START_OF_MONTH : v1::CASH_TIMING_END_OF_MONTH);
        return absl::OkStatus();
      });
  flags->Custom("rate_basis", "effective|nominal",
                "the discount rate as an effective annual rate ((1+r)^(1/12)-1 a month) or nominal (r/12)", "effective",
                [r](const std::string& v) {
                  if (v != "effective" && v != "nominal") return absl::InvalidArgumentError("effective or nominal");
                  r->set_rate_basis(v == "nominal" ? v1::RATE_BASIS_NOMINAL_MONTHLY : v1::RATE_BASIS_EFFECTIVE_ANNUAL);
                  return absl::OkStatus();
                });
  flags->Custom("tax_rate_fraction", "F", "corporate tax rate (0: pre-tax cash, no depreciation tax shield)", "0",
                [r](const std::string& v) {
                  double d = 0;
                  if (!absl::SimpleAtod(v, &d) || !(d >= 0) || d > 0.99) {
                    return absl::InvalidArgumentError("want a fraction in [0, 0.99]");
                  }
                  r->set_tax_rate_fraction(d);
                  return absl::OkStatus();
                });
}

}  // namespace

int RunTco(const std::vector<std::string>& args, GlobalOptions* global) {
  FlagSet flags;
  v1::TcoRequest r;
  r.set_horizon_months(36);
  v1::TcoFleet single;
  bool single_used = false;
  for (const FleetKey& k : FleetKeys()) {
    flags.Custom(k.key, k.value_name, absl::StrCat(k.help, " (single fleet)"), "",
                 [&single, &single_used, &k](const std::string& v) {
                   single_used = true;
                   return k.set(v, &single);
                 });
  }
  std::vector<std::string> fleets;
  flags.Repeated("fleet", "KEY=VALUE,...",
                 "one more fleet; keys are the single-fleet flags' names, e.g. "
                 "gpu=H100-SXM5-80GB,count=64,capex_usd=2e6,role=serving",
                 &fleets);
  IntField(&flags, "months", "horizon in months", "36", 1, 120,
           [&r](int64_t n) { r.set_horizon_months(static_cast<int32_t>(n)); });
  flags.Custom("discount_rate_fraction_per_year", "F", "cost of capital per year for NPV (0: no discounting)", "0",
               [&r](const std::string& v) {
                 double d = 0;
                 if (!absl::SimpleAtod(v, &d) || !(d >= 0) || d > 1) {
                   return absl::InvalidArgumentError("want a fraction in [0, 1]");
                 }
                 r.set_discount_rate_fraction_per_year(d);
                 return absl::OkStatus();
               });
  AddFinanceFlags(&flags, &r);
  v1::PriceKind kind = v1::PRICE_KIND_UNSPECIFIED;
  flags.Custom("kind", "on_demand|spot|reserved_1y|reserved_3y",
               "rent at this catalog price kind (every fleet without its own price_kind)", "on_demand",
               [&kind](const std::string& v) {
                 absl::StatusOr<v1::PriceKind> k = ParsePriceKind(v);
                 if (!k.ok()) return k.status();
                 kind = *k;
                 return absl::OkStatus();
               });
  IsoTimeFlag(&flags, "prices_as_of", "read rent prices as they were at this UTC date or time",
              [&r](int64_t t) { r.set_prices_as_of_unix_seconds(t); });
  ServingFlags serving;
  AddServingFlags(&flags, &serving);  // optional: with --model or --model_file
  const int rc = ParseCommandFlags(kTco, args, &flags, global);
  if (rc >= 0) return rc;
  if (single_used) *r.add_fleets() = single;
  absl::Status s;
  for (const std::string& spec : fleets) {
    if (s.ok()) s = ParseFleet(spec, r.add_fleets());
  }
  if (s.ok() && r.fleets_size() == 0) s = absl::InvalidArgumentError("give --gpu and --count, or --fleet");
  for (v1::TcoFleet& f : *r.mutable_fleets()) {
    if (f.rent().price_kind() == v1::PRICE_KIND_UNSPECIFIED) f.mutable_rent()->set_price_kind(kind);
  }
  if (s.ok() && HasModel(serving.model)) s = BuildServing(serving, r.mutable_serving());
  if (!s.ok()) return UsageError(kTco.path, std::string(s.message()));
  client::Client client(global->client);
  absl::StatusOr<v1::TcoResponse> resp = client.Tco(r);
  if (!resp.ok()) return Fail(resp.status());
  if (global->json) {
    PrintJson(*resp);
  } else {
    PrintTco(*resp);
  }
  return 0;
}

}  // namespace capplan::cli
