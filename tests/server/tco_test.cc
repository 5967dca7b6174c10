// Tco end to end over the shipped catalog (a real store on a temporary file): a 64 x H100
// cluster over 36 months with every line item given, shown and sourced. The owning inputs
// are passed explicitly so that the test does not depend on the catalog's owning rows.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "server/planning/planning.h"
#include "tests/server/shipped_catalog_test.h"

namespace capplan::server {
namespace {

namespace v1 = capplan::v1;

using TcoTest = testing::ShippedCatalogTest;

// 64 x H100-SXM5-80GB (8 servers) owned for 36 months, against renting p5.48xlarge.
v1::TcoRequest H100Cluster() {
  v1::TcoRequest r;
  r.set_horizon_months(36);
  r.set_discount_rate_fraction_per_year(0.08);  // an assumed cost of capital
  // Priced as of 2025-01-01, before the June 2025 P5 cut: the rent below is the June 2024 list.
  r.set_prices_as_of_unix_seconds(1735689600);
  v1::TcoFleet* f = r.add_fleets();
  f->set_role("training");
  f->set_gpu_name("H100-SXM5-80GB");
  f->set_gpu_count(64);
  v1::OwnCosts* own = f->mutable_own();
  // Assumed prices, not quotes: $25,000 a GPU (the low end of 2023-24 press reports of
  // $25,000-$40,000), $50,000 of host per 8-GPU server, $3,000 a GPU of InfiniBand NICs,
  // switches and cables, $100,000 of storage, $50,000 to install: $2,342,000 in all.
  own->mutable_capex_breakdown()->set_gpus_usd(64 * 25000);
  own->mutable_capex_breakdown()->set_host_usd(8 * 50000);
  own->mutable_capex_breakdown()->set_network_usd(64 * 3000);
  own->mutable_capex_breakdown()->set_storage_usd(100000);
  own->mutable_capex_breakdown()->set_installation_usd(50000);
  own->set_power_watts(8 * 10200);                       // NVIDIA DGX H100 datasheet: 10.2 kW max per 8-GPU system
  own->set_idle_power_fraction(0.3);                     // an assumption, not a datasheet figure
  own->set_pue(1.2);                                     // capplan's default
  own->set_electricity_usd_per_kwh(0.13);                // EIA 2024 US commercial average
  own->set_ops_usd_per_month(20000);                     // assumed colocation and staff share
  own->set_maintenance_fraction_per_year(0.05);          // assumed support contract
  own->set_failure_replacement_fraction_per_year(0.02);  // assumed spares
  own->set_residual_decline_fraction_per_year(0.4);      // MACRS 5-year 200% DB (IRS Pub. 946)
  f->mutable_utilization()->set_start_fraction(0.3);     // ramp 30% -> 80% over 3 months
  f->mutable_utilization()->set_steady_fraction(0.8);
  f->mutable_utilization()->set_ramp_months(3);
  v1::RentCosts* rent = f->mutable_rent();
  rent->set_provider("aws");
  rent->set_instance_type("p5.48xlarge");
  rent->set_region("us-east-1");
  // On-demand: the shipped AWS row as of 2025-01-01, $98.32/h for 8 GPUs = $12.29. The other kinds are
  // round assumptions (about 30%, 52% and 59% off), not AWS quotes.
  rent->set_on_demand_usd_per_gpu_hour(12.29);
  rent->set_reserved_1y_usd_per_gpu_hour(8.60);
  rent->set_reserved_3y_usd_per_gpu_hour(5.90);
  rent->set_spot_usd_per_gpu_hour(5.00);
  rent->set_spot_overhead_fraction(0.1);
  return r;
}

// The month-by-month own and rent cash of H100Cluster, derived here from its inputs: use
// ramps 30% -> 80% of 46,720 GPU-hours in 3 steps; power 81.6 kW x (0.3 + 0.7 x use) x 730 h
// x 1.2 x $0.13; fixed $20,000 + 7% of capex a year; capex in month 1; resale 0.6^3 x capex
// in month 36; rent $12.29 x use.
struct HandMonth {
  double own, rent;
};
std::vector<HandMonth> HandSeries() {
  const double capex = 2342000, full = 46720, power_full = 81600 * 730 * 1.2 * 0.13 / 1000;
  std::vector<HandMonth> out;
  for (int m = 1; m <= 36; ++m) {
    const double use = m <= 3 ? full * (0.3 + (0.8 - 0.3) / 3 * (m - 1)) : 0.8 * full;
    double own = 20000 + capex * 0.07 / 12 + power_full * (0.3 + 0.7 * use / full);
    if (m == 1) own += capex;
    if (m == 36) own -= capex * std::pow(0.6, 3);
    out.push_back({own, 12.29 * use});
  }
  return out;
}

// First month the discounted cumulative own cost is at most rent's; capex is paid at time 0,
// month m's other cash at time m (arrears) or m - 1 (in advance).
int HandDiscountedBreakEven(double monthly_rate, bool arrears) {
  const std::vector<HandMonth> h = HandSeries();
  double own = 0, rent = 0;
  for (int m = 1; m <= 36; ++m) {
    const double v = std::pow(1 + monthly_rate, -(arrears ? m : m - 1));
    const double capex = m == 1 ? 2342000 : 0;
    own += capex + (h[m - 1].own - capex) * v;
    rent += h[m - 1].rent * v;
    if (own <= rent) return m;
  }
  return 0;
}

TEST_F(TcoTest, StartOfMonthReproducesTheMonthByMonthDerivation) {
  // Every month paid at its start, 8% nominal (8% / 12 a month): the convention before the
  // timing option; the series and both break-even months are unchanged.
  v1::TcoRequest req = H100Cluster();
  req.set_cash_timing(v1::CASH_TIMING_START_OF_MONTH);
  req.set_rate_basis(v1::RATE_BASIS_NOMINAL_MONTHLY);
  v1::TcoResponse resp;
  ASSERT_TRUE(Tco(snap(), req, &resp).ok());
  const std::vector<HandMonth> h = HandSeries();
  ASSERT_EQ(resp.series_size(), 36);
  for (int m = 0; m < 36; ++m) {
    EXPECT_NEAR(resp.series(m).own_usd(), h[m].own, 0.005) << m;
    EXPECT_NEAR(resp.series(m).rent_usd(), h[m].rent, 0.005) << m;
  }
  EXPECT_EQ(resp.break_even_month(), 7);
  EXPECT_EQ(HandDiscountedBreakEven(0.08 / 12, false), 8);
  EXPECT_EQ(resp.discounted_break_even_month(), 8);
  EXPECT_EQ(resp.cash_timing(), v1::CASH_TIMING_START_OF_MONTH);
}

TEST_F(TcoTest, SixtyFourH100sOverThirtySixMonthsShowEveryLine) {
  v1::TcoResponse resp;
  absl::Status s = Tco(snap(), H100Cluster(), &resp);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(resp.fleets_size(), 1);
  const v1::TcoFleetResult& f = resp.fleets(0);
  // Capex: every line named, with its source.
  EXPECT_DOUBLE_EQ(f.own_capex_usd(), 2342000);
  std::map<std::string, double> lines;
  for (const v1::CapexLine& l : f.capex_lines()) {
    EXPECT_FALSE(l.source().empty()) << l.name();
    lines[l.name()] = l.usd();
  }
  EXPECT_EQ(lines, (std::map<std::string, double>{{"GPUs", 1600000},
                                                  {"host share", 400000},
                                                  {"network", 192000},
                                                  {"storage", 100000},
                                                  {"installation", 50000}}));
  // Power at 80% use: 81.6 kW x (0.3 + 0.7 x 0.8) = 70.176 kW; x 730 h x 1.2 x $0.13/kWh
  // = $7,991.64 a month.
  EXPECT_NEAR(f.power_watts_at_steady_use(), 70176, 1e-6);
  EXPECT_NEAR(f.own_power_usd_per_month(), 7991.64, 0.01);
  // 5% and 2% of $2,342,000 a year: $9,758.33 and $3,903.33 a month.
  EXPECT_NEAR(f.maintenance_usd_per_month(), 9758.33, 0.01);
  EXPECT_NEAR(f.failure_replacement_usd_per_month(), 3903.33, 0.01);
  // Resale after 3 years at 40% declining balance: 0.6^3 x 2,342,000 = $505,872.
  EXPECT_NEAR(f.residual_value_usd(), 505872, 1e-6);
  // Simple (labelled): 2,342,000 / 36 + 20,000 + 9,758.33 + 3,903.33 + 7,991.64 = $106,708.87.
  EXPECT_NEAR(f.own_usd_per_month(), 106708.87, 0.01);
  // Break-even use, NPV-consistent (in arrears at 8% effective, i = 1.08^(1/12) - 1, A = the
  // 36-month annuity factor (1 - 1.08^-3) / i): capex + (fixed 33,661.67 + idle power 0.3 x
  // 9,292.61) x A - resale 505,872 x 1.08^-3 = (12.29 - 0.7 x 9,292.61 / 46,720) x A x U*.
  const double i = std::pow(1.08, 1.0 / 12) - 1, a = (1 - std::pow(1.08, -3)) / i;
  const double power_full = 81600 * 730 * 1.2 * 0.13 / 1000, fixed = 20000 + 2342000 * 0.07 / 12;
  const double u_star = (2342000 + (fixed + 0.3 * power_full) * a - 505872 * std::pow(1.08, -3)) /
                        ((12.29 - 0.7 * power_full / 46720) * a);
  EXPECT_NEAR(f.break_even_gpu_hours_per_month(), u_star, 0.005);
  EXPECT_NEAR(resp.break_even_utilization_fraction(), u_star / 46720, 1e-9);
  EXPECT_TRUE(resp.break_even_usage_applies());
  EXPECT_FALSE(resp.break_even_usage_never());
  // Month by month (use 14,016 -> 37,376 GPU-hours over the ramp), own pays 2,342,000 up
  // front and catches up in month 7 on cash; discounted in arrears at 8% effective, in the
  // month HandDiscountedBreakEven finds.
  ASSERT_EQ(resp.series_size(), 36);
  EXPECT_DOUBLE_EQ(resp.series(0).used_gpu_hours(), 0.3 * 46720);
  EXPECT_DOUBLE_EQ(resp.series(35).used_gpu_hours(), 0.8 * 46720);
  EXPECT_EQ(resp.break_even_month(), 7);
  EXPECT_EQ(resp.discounted_break_even_month(), HandDiscountedBreakEven(i, true));
  EXPECT_EQ(resp.cash_timing(), v1::CASH_TIMING_END_OF_MONTH);
  EXPECT_EQ(resp.rate_basis(), v1::RATE_BASIS_EFFECTIVE_ANNUAL);
  EXPECT_FALSE(resp.break_even_month_never());
  EXPECT_LT(resp.npv_own_usd(), resp.npv_rent_usd());
  // Explicit inputs: no default was needed for the owning side.
  EXPECT_EQ(f.assumptions_size(), 0);
  // Rent kinds: all five, cheapest first; the mix reserves the least monthly use,
  // floor(14,016 / 730) = 19 GPUs.
  ASSERT_EQ(resp.rent_options_size(), 5);
  for (int i = 1; i < 5; ++i) EXPECT_LE(resp.rent_options(i - 1).total_usd(), resp.rent_options(i).total_usd());
  for (const v1::RentOption& o : resp.rent_options()) {
    if (o.kind() == "mix") {
      EXPECT_DOUBLE_EQ(o.reserved_gpu_count(), 19);
    }
  }
  // Tornado: rent price and use move the answer most, then capex, the discount rate and
  // power (from an independent recomputation of the 36-month series from the same inputs).
  ASSERT_EQ(resp.sensitivity_size(), 5);
  const char* order[] = {"rent_price", "utilization", "capex", "discount_rate", "electricity_price"};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(resp.sensitivity(i).input(), order[i]) << i;
}

TEST_F(TcoTest, DefaultsAreRecordedWithTheirSource) {
  v1::TcoRequest r = H100Cluster();
  v1::OwnCosts* own = r.mutable_fleets(0)->mutable_own();
  own->clear_power_watts();
  own->clear_electricity_usd_per_kwh();
  own->set_pue(0);
  v1::TcoResponse resp;
  ASSERT_TRUE(Tco(snap(), r, &resp).ok());
  std::map<std::string, std::string> sources;
  for (const v1::TcoAssumption& a : resp.fleets(0).assumptions()) {
    EXPECT_GT(a.value(), 0) << a.field();
    sources[a.field()] = a.source();
  }
  EXPECT_FALSE(sources["own.power_watts"].empty());  // system power per GPU, else TDP
  EXPECT_FALSE(sources["own.electricity_usd_per_kwh"].empty());
  EXPECT_FALSE(sources["own.pue"].empty());
}

TEST_F(TcoTest, BadFinanceInputsNameTheField) {
  struct Case {
    const char* field;
    void (*spoil)(v1::TcoRequest&);
  };
  const Case cases[] = {
      {"discount_rate_fraction_per_year", [](v1::TcoRequest& r) { r.set_discount_rate_fraction_per_year(-0.1); }},
      {"fleets[0].utilization.steady_fraction",
       [](v1::TcoRequest& r) { r.mutable_fleets(0)->mutable_utilization()->set_steady_fraction(1.5); }},
      {"fleets[0].own.capex_breakdown.network_usd",
       [](v1::TcoRequest& r) { r.mutable_fleets(0)->mutable_own()->mutable_capex_breakdown()->set_network_usd(-1); }},
      {"fleets[0].own.lease_term_months",
       [](v1::TcoRequest& r) { r.mutable_fleets(0)->mutable_own()->set_lease_term_months(1000); }},
      {"fleets[0].rent.spot_overhead_fraction",
       [](v1::TcoRequest& r) { r.mutable_fleets(0)->mutable_rent()->set_spot_overhead_fraction(-1); }},
  };
  for (const Case& c : cases) {
    v1::TcoRequest r = H100Cluster();
    c.spoil(r);
    v1::TcoResponse resp;
    absl::Status s = Tco(snap(), r, &resp);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << c.field << ": " << s;
    EXPECT_NE(s.message().find(c.field), std::string::npos) << s;
  }
}

}  // namespace
}  // namespace capplan::server
