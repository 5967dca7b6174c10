// The finance layer of own versus rent (core/tco_finance.h): discounting, financing,
// resale, whole-system power, the use ramp, the ways to rent and the tornado. Each figure
// is worked by hand from the inputs and sources named beside it.
#include "core/tco/tco_finance.h"

#include <gtest/gtest.h>

#include <cmath>

#include "fixtures.h"

namespace capplan::core {
namespace {

using testing::ReadmeOwnOrRentFleet;

// Finance options set by field name: discounting at `rate_fraction_per_year`, with or without
// the sensitivity tornado.
TcoFinance DiscountedAt(double rate_fraction_per_year, bool sensitivity) {
  TcoFinance f;
  f.discount_rate_fraction_per_year = rate_fraction_per_year;
  f.sensitivity = sensitivity;
  return f;
}

// Finance options set by field name: a cost of capital, its timing and basis, a tax rate.
TcoFinance FinanceAt(double rate_fraction_per_year, CashTiming timing, RateBasis basis, double tax_rate_fraction = 0,
                     bool sensitivity = false) {
  TcoFinance f;
  f.discount_rate_fraction_per_year = rate_fraction_per_year;
  f.timing = timing;
  f.rate_basis = basis;
  f.tax_rate_fraction = tax_rate_fraction;
  f.sensitivity = sensitivity;
  return f;
}

TEST(TcoFinanceTest, AnnuityPaymentIsTheTextbookMortgage) {
  // Ordinary annuity (Brealey, Myers & Allen, ch. 2): $200,000 at 6% a year over 30 years,
  // monthly: 200,000 x 0.005 / (1 - 1.005^-360) = $1,199.10 a month.
  EXPECT_NEAR(AnnuityPaymentUsd(200000, 0.06, 360), 1199.10, 0.01);
  EXPECT_NEAR(AnnuityBalanceUsd(200000, 0.06, 360, 0), 200000, 1e-6);
  EXPECT_NEAR(AnnuityBalanceUsd(200000, 0.06, 360, 359), 1199.10 / 1.005, 0.01);  // one payment left
  EXPECT_DOUBLE_EQ(AnnuityPaymentUsd(360, 0, 36), 10);                            // no interest: capex / n
}

TEST(TcoFinanceTest, StartOfMonthNominalIsTheAnnuityDue) {
  // A $1,000 monthly payment for 12 months, first one now, at 12% a year nominal (1% a
  // month): an annuity due, 1,000 x (1 - 1.01^-12) / 0.01 x 1.01 = $11,367.63.
  TcoFleet f = ReadmeOwnOrRentFleet();
  f.rent_flat_usd_per_month = 1000;
  const TcoFinance fin = FinanceAt(0.12, CashTiming::kStartOfMonth, RateBasis::kNominalMonthly);
  absl::StatusOr<TcoResult> r = ComputeTco({f}, 12, fin);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NEAR(r->npv_rent_usd, 11367.63, 0.01);
  EXPECT_NEAR(r->series[11].rent_discounted_cumulative_usd, 11367.63, 0.01);
  EXPECT_DOUBLE_EQ(r->series[11].rent_cumulative_usd, 12000);
}

TEST(TcoFinanceTest, DefaultIsEndOfMonthAtTheEffectiveRate) {
  // The same payments in arrears at 12% a year effective: i = 1.12^(1/12) - 1 = 0.948879% a
  // month, an ordinary annuity 1,000 x (1 - (1 + i)^-12) / i = $11,291.52 (Brealey, Myers &
  // Allen, ch. 2). Paid a month later and at a lower monthly rate than 1%.
  TcoFleet f = ReadmeOwnOrRentFleet();
  f.rent_flat_usd_per_month = 1000;
  absl::StatusOr<TcoResult> r = ComputeTco({f}, 12, DiscountedAt(0.12, /*sensitivity=*/false));
  ASSERT_TRUE(r.ok()) << r.status();
  const double i = std::pow(1.12, 1.0 / 12) - 1;
  EXPECT_NEAR(i, 0.00948879, 1e-8);
  EXPECT_NEAR(r->npv_rent_usd, 1000 * (1 - std::pow(1 + i, -12)) / i, 1e-6);
  EXPECT_NEAR(r->npv_rent_usd, 11291.52, 0.01);
  // Twelve payments of $1,000 a year after their month: the effective rate discounts the
  // last one by exactly 1.12.
  EXPECT_NEAR(PresentValueFactor(DiscountedAt(0.12, false), 12), 1 / 1.12, 1e-12);
  // Nominal, in arrears: 1,000 x (1 - 1.01^-12) / 0.01 = $11,255.08.
  r = ComputeTco({f}, 12, FinanceAt(0.12, CashTiming::kEndOfMonth, RateBasis::kNominalMonthly));
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->npv_rent_usd, 11255.08, 0.01);
}

TEST(TcoFinanceTest, ReadmeOwnOrRentFleetStaysMonth25OnCashAndMovesLaterWhenDiscounted) {
  // The old convention: every month paid at its start, 10% nominal.
  absl::StatusOr<TcoResult> r =
      ComputeTco({ReadmeOwnOrRentFleet()}, 36,
                 FinanceAt(0.10, CashTiming::kStartOfMonth, RateBasis::kNominalMonthly, 0, /*sensitivity=*/true));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->break_even_month, 25);  // 250,000 + 5,000 m <= 15,000 m
  EXPECT_FALSE(r->break_even_month_never);
  // Discounted at 10% a year (v = 1 / (1 + 0.1/12)): owning saves $10,000 a month, so it
  // breaks even when 10,000 x (1 - v^M) / (1 - v) >= 250,000, i.e. v^M <= 0.79339,
  // M >= ln(0.79339) / ln(v) = 27.9: month 28.
  EXPECT_EQ(r->discounted_break_even_month, 28);
  EXPECT_FALSE(r->discounted_break_even_never);
  // In arrears at 10% effective: capex now, $10,000 saved at the end of each month, so
  // 10,000 x (1 - v^M) / i >= 250,000 with i = 1.1^(1/12) - 1: v^M <= 1 - 25 i.
  r = ComputeTco({ReadmeOwnOrRentFleet()}, 36, DiscountedAt(0.10, /*sensitivity=*/true));
  ASSERT_TRUE(r.ok());
  const double i = std::pow(1.1, 1.0 / 12) - 1;
  const int m = static_cast<int>(std::ceil(std::log(1 - 25 * i) / -std::log(1 + i)));
  EXPECT_EQ(m, 28);
  EXPECT_EQ(r->discounted_break_even_month, m);
  // No discounting: NPV is the cash sum, 250,000 + 36 x 5,000 and 36 x 15,000.
  absl::StatusOr<TcoResult> cash = ComputeTco({ReadmeOwnOrRentFleet()}, 36);
  ASSERT_TRUE(cash.ok());
  EXPECT_DOUBLE_EQ(cash->npv_own_usd, 430000);
  EXPECT_DOUBLE_EQ(cash->npv_rent_usd, 540000);
  EXPECT_EQ(cash->discounted_break_even_month, 25);
}

TEST(TcoFinanceTest, NeverIsSaidAsNever) {
  TcoFleet f = ReadmeOwnOrRentFleet();
  f.rent_flat_usd_per_month = 1000;  // cheaper than running the owned fleet
  absl::StatusOr<TcoResult> r = ComputeTco({f}, 36, DiscountedAt(0.08, /*sensitivity=*/true));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->break_even_month_never);
  EXPECT_TRUE(r->discounted_break_even_never);
  EXPECT_EQ(r->break_even_month, 0);
  // Hourly rent below the marginal power cost: no use level makes owning cheaper.
  f.rent_flat_usd_per_month = 0;
  f.rent_usd_per_gpu_hour = 0.01;
  f.power_watts = 8 * 700;  // H100 SXM TDP 700 W (NVIDIA H100 datasheet)
  f.electricity_usd_per_kwh = 0.13;
  r = ComputeTco({f}, 36);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->break_even_usage_never);
  EXPECT_TRUE(r->fleets[0].break_even_never);
}

TEST(TcoFinanceTest, WholeSystemPowerWithIdleShare) {
  // NVIDIA DGX H100 datasheet: 10.2 kW maximum for 8 GPUs; 64 GPUs = 8 systems = 81.6 kW.
  // Idle share 30% (an assumption for the test, not a datasheet figure), half use, PUE 1.2,
  // $0.13/kWh (EIA 2024): 81.6 kW x (0.3 + 0.7 x 0.5) x 730 h x 1.2 x 0.13 = $6,040.20.
  TcoFleet f = ReadmeOwnOrRentFleet();
  f.gpu_count = 64;
  f.usage_gpu_hours_per_month = 32 * 730;
  f.power_watts = 8 * 10200;
  f.idle_power_fraction = 0.3;
  f.pue = 1.2;
  f.electricity_usd_per_kwh = 0.13;
  absl::StatusOr<TcoResult> r = ComputeTco({f}, 36);
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->fleets[0].own_power_usd_per_month, 6040.20, 0.01);
  EXPECT_NEAR(r->fleets[0].power_watts_at_steady_use, 81600 * 0.65, 1e-6);
  // Idle 0 keeps today's rule: power in proportion to use (half of 81.6 kW).
  f.idle_power_fraction = 0;
  r = ComputeTco({f}, 36);
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->fleets[0].power_watts_at_steady_use, 40800, 1e-6);
}

TEST(TcoFinanceTest, LeaseResidualMaintenanceAndFailures) {
  TcoFleet f = ReadmeOwnOrRentFleet();
  f.lease_term_months = 36;
  f.lease_rate_fraction_per_year = 0.06;
  // 200% declining balance over 5 years: 40% a year, so after 3 years 0.6^3 = 21.6% of
  // $250,000 = $54,000 is left (a resale curve, not the MACRS tax table).
  f.residual_decline_fraction_per_year = kDecliningBalance200Pct5yFractionPerYear;
  f.maintenance_fraction_per_year = 0.06;
  f.failure_replacement_fraction_per_year = 0.024;
  absl::StatusOr<TcoResult> r = ComputeTco({f}, 36);
  ASSERT_TRUE(r.ok()) << r.status();
  // $250,000 at 6% over 36 months: 250,000 x 0.005 / (1 - 1.005^-36) = $7,605.48.
  EXPECT_NEAR(r->fleets[0].lease_usd_per_month, 7605.48, 0.01);
  EXPECT_NEAR(r->fleets[0].residual_value_usd, 54000, 1e-6);
  // 6% and 2.4% of $250,000 a year: $1,250 and $500 a month.
  EXPECT_NEAR(r->fleets[0].maintenance_usd_per_month, 1250, 1e-9);
  EXPECT_NEAR(r->fleets[0].failure_replacement_usd_per_month, 500, 1e-9);
  EXPECT_NEAR(r->series[0].own_usd, 5000 + 1250 + 500 + 7605.48, 0.01);  // no capex in month 1
  EXPECT_NEAR(r->series[35].own_usd, 5000 + 1250 + 500 + 7605.48 - 54000, 0.01);
  // A 36-month lease over a 12-month horizon pays off what is still owed in month 12.
  r = ComputeTco({f}, 12);
  ASSERT_TRUE(r.ok());
  const double owed = AnnuityBalanceUsd(250000, 0.06, 36, 12);
  EXPECT_NEAR(r->series[11].own_usd, 6750 + 7605.48 + owed - 250000 * std::pow(0.6, 1.0), 0.01);
}

TEST(TcoFinanceTest, UtilisationRampsToSteady) {
  TcoFleet f = ReadmeOwnOrRentFleet();
  // From 25% of 8 GPUs (1,460 GPU-hours) to all of them (5,840) in 3 equal steps of 1,460.
  f.ramp_months = 3;
  f.ramp_start_gpu_hours_per_month = 1460;
  f.rent_flat_usd_per_month = 0;
  f.rent_usd_per_gpu_hour = 2;
  absl::StatusOr<TcoResult> r = ComputeTco({f}, 6);
  ASSERT_TRUE(r.ok());
  const double want[] = {1460, 2920, 4380, 5840, 5840, 5840};
  for (int m = 0; m < 6; ++m) {
    EXPECT_DOUBLE_EQ(r->series[m].used_gpu_hours, want[m]) << m;
    EXPECT_DOUBLE_EQ(r->series[m].rent_usd, 2 * want[m]) << m;
  }
  // Break-even as use over the 6 months, undiscounted: own 250,000 + 6 x 5,000 = 280,000;
  // renting every GPU all month costs 2 x 5,840 x 6 = 70,080: never at any use.
  EXPECT_TRUE(r->break_even_usage_never);
  EXPECT_DOUBLE_EQ(r->break_even_gpu_hours_per_month, 0);
  f.rent_usd_per_gpu_hour = 4;  // 4 x 5,840 x 6 = 140,160 < 280,000: still never in 6 months
  r = ComputeTco({f}, 6);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->break_even_usage_never);
  // Over 36 months: own 250,000 + 36 x 5,000 = 430,000 = 4 x U x 36 at U = 2,986.1
  // GPU-hours a month, 51.1% of 5,840 (the same as capex / 36 + 5,000 over $4: with no
  // discounting and the horizon equal to the depreciation period the two views agree).
  r = ComputeTco({f}, 36);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->break_even_usage_never);
  EXPECT_NEAR(r->break_even_gpu_hours_per_month, 430000.0 / (4 * 36), 1e-6);
  EXPECT_NEAR(r->break_even_utilization_fraction, 430000.0 / (4 * 36) / 5840, 1e-9);
}

TEST(TcoFinanceTest, RentKindsAndTheCheapestMix) {
  // Round prices per GPU-hour chosen for hand arithmetic (not a provider's): on-demand $4,
  // spot $1.60 with 25% extra hours, 1-year reserved $2.50, 3-year $2.00. 8 GPUs, use from
  // 1,460 to 5,840 GPU-hours over 2 months, 12 months: 1,460 + 3,650 + 10 x 5,840 = 63,510.
  TcoFleet f = ReadmeOwnOrRentFleet();
  f.ramp_months = 2;
  f.ramp_start_gpu_hours_per_month = 1460;
  f.rent_kinds = {4.0, 1.6, 2.5, 2.0};
  f.spot_overhead_fraction = 0.25;
  std::vector<RentOption> o = RentOptions({f}, 12, TcoFinance{});
  ASSERT_EQ(o.size(), 5u);
  // spot 1.6 x 1.25 x 63,510; mix: 2 GPUs (1,460 h) reserved a year, 2 x 730 x 12 x 2.5 =
  // 43,800, plus the rest on spot, (2,190 + 10 x 4,380) x 2.0 = 91,980; 1-year reserved
  // 8 x 730 x 12 x 2.5; on-demand 4 x 63,510; 3-year reserved: the whole term,
  // 8 x 730 x 36 x 2.0.
  EXPECT_EQ(o[0].kind, "spot");
  EXPECT_NEAR(o[0].total_usd, 127020, 1e-6);
  EXPECT_EQ(o[1].kind, "mix");
  EXPECT_NEAR(o[1].total_usd, 135780, 1e-6);
  EXPECT_DOUBLE_EQ(o[1].reserved_gpus, 2);
  EXPECT_EQ(o[2].kind, "reserved_1y");
  EXPECT_NEAR(o[2].total_usd, 175200, 1e-6);
  EXPECT_EQ(o[3].kind, "on_demand");
  EXPECT_NEAR(o[3].total_usd, 254040, 1e-6);
  EXPECT_EQ(o[4].kind, "reserved_3y");
  EXPECT_NEAR(o[4].total_usd, 420480, 1e-6);
  // A provider discount takes 10% off every kind.
  f.discount_fraction = 0.1;
  EXPECT_NEAR(RentOptions({f}, 12, TcoFinance{})[0].total_usd, 127020 * 0.9, 1e-6);
}

TEST(TcoFinanceTest, TornadoRanksRentThenCapex) {
  // The README's template, cash: NPV(own) - NPV(rent) = 430,000 - 540,000 = -110,000. Rent +-20%
  // swings it by 0.4 x 540,000 = 216,000; capex by 0.4 x 250,000 = 100,000; power, use
  // (flat rent, no power) and the discount rate (0) not at all, kept in input order.
  absl::StatusOr<TcoResult> r = ComputeTco({ReadmeOwnOrRentFleet()}, 36);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->sensitivity.size(), 5u);
  EXPECT_EQ(r->sensitivity[0].input, "rent_price");
  EXPECT_NEAR(r->sensitivity[0].swing_usd, 216000, 1e-6);
  EXPECT_NEAR(r->sensitivity[0].npv_difference_low_usd, 430000 - 0.8 * 540000, 1e-6);
  EXPECT_EQ(r->sensitivity[1].input, "capex");
  EXPECT_NEAR(r->sensitivity[1].swing_usd, 100000, 1e-6);
  EXPECT_EQ(r->sensitivity[2].input, "electricity_price");
  EXPECT_EQ(r->sensitivity[3].input, "utilization");
  EXPECT_EQ(r->sensitivity[4].input, "discount_rate");
  EXPECT_DOUBLE_EQ(r->sensitivity[4].swing_usd, 0);
}

TEST(TcoFinanceTest, BadFinanceInputsNameTheField) {
  struct Case {
    const char* field;
    void (*spoil)(TcoFleet&);
  };
  const Case cases[] = {
      {"fleets[0].own.idle_power_fraction", [](TcoFleet& f) { f.idle_power_fraction = 1.5; }},
      {"fleets[0].own.lease_term_months", [](TcoFleet& f) { f.lease_term_months = -1; }},
      {"fleets[0].own.lease_rate_fraction_per_year", [](TcoFleet& f) { f.lease_rate_fraction_per_year = 2; }},
      {"fleets[0].own.residual_value_usd", [](TcoFleet& f) { f.residual_value_usd = 1e9; }},
      {"fleets[0].own.residual_decline_fraction_per_year",
       [](TcoFleet& f) { f.residual_decline_fraction_per_year = std::nan(""); }},
      {"fleets[0].usage.ramp_start_gpu_hours_per_month", [](TcoFleet& f) { f.ramp_start_gpu_hours_per_month = 1e6; }},
      {"fleets[0].usage.ramp_months", [](TcoFleet& f) { f.ramp_months = 500; }},
      {"fleets[0].rent.spot_usd_per_gpu_hour", [](TcoFleet& f) { f.rent_kinds.spot_usd_per_gpu_hour = -1; }},
      {"fleets[0].own.capex_breakdown",
       [](TcoFleet& f) {
         f.capex_items = {{"GPUs", 1, ""}};
       }},
  };
  for (const Case& c : cases) {
    TcoFleet f = ReadmeOwnOrRentFleet();
    c.spoil(f);
    absl::StatusOr<TcoResult> r = ComputeTco({f}, 36);
    ASSERT_FALSE(r.ok()) << c.field;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(c.field), absl::string_view::npos) << r.status();
  }
  absl::StatusOr<TcoResult> r = ComputeTco({ReadmeOwnOrRentFleet()}, 36, DiscountedAt(1.5, /*sensitivity=*/false));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("discount_rate_fraction_per_year"), absl::string_view::npos);
}

}  // namespace
}  // namespace capplan::core
