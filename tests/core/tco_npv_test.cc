// Own versus rent as a finance reviewer checks it (core/tco/tco.h): NPV-consistent break-even
// use and levelised costs over the horizon, tax, MACRS, financing, lead time, price decline,
// spot and the tornado's bounds. Every expected figure is computed here from textbook
// formulas (ordinary annuity a(n) = (1 - v^n) / i, v = 1 / (1 + i): Brealey, Myers & Allen,
// Principles of Corporate Finance, ch. 2) or worked by hand beside the assertion.
#include <gtest/gtest.h>

#include <cmath>

#include "core/tco/tco.h"
#include "core/tco/tco_finance.h"
#include "fixtures.h"

namespace capplan::core {
namespace {

using testing::ReadmeOwnOrRentFleet;

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

// Present value of 1 a month for n months in arrears at monthly rate i.
double Annuity(double i, int n) { return i == 0 ? n : (1 - std::pow(1 + i, -n)) / i; }

// 8 GPUs bought for $240,000 (a round assumed price), $4,000 a month to run, no metered
// power, rented at $3.00 per GPU-hour (assumed), used 75% (4,380 of 5,840 GPU-hours).
TcoFleet HourlyFleet() {
  TcoFleet f = ReadmeOwnOrRentFleet();
  f.capex_usd = 240000;
  f.ops_usd_per_month = 4000;
  f.rent_flat_usd_per_month = 0;
  f.rent_usd_per_gpu_hour = 3.0;
  f.usage_gpu_hours_per_month = 4380;
  f.depreciation_months = 60;
  f.residual_value_usd = 20000;
  return f;
}

// The 120-month case, after tax: capex now; (1 - t) x ops in arrears every month; the
// straight-line tax shield t x D for 60 months; at the horizon the resale R less tax on its
// gain over book value C - D x min(H, 60); rent (1 - t) x p x U in arrears.
struct HandNpv {
  double own, rent, hours;
};
HandNpv Hand(int horizon, double rate, double tax) {
  const double i = std::pow(1 + rate, 1.0 / 12) - 1;  // effective annual rate, monthly
  const double c = 240000, ops = 4000, d = 240000.0 / 60, resale = 20000, p = 3.0, use = 4380;
  const int dep_months = std::min(horizon, 60);
  const double book = c - d * dep_months;
  const double v_h = std::pow(1 + i, -horizon);
  HandNpv n;
  n.own = c + (1 - tax) * ops * Annuity(i, horizon) - tax * d * Annuity(i, dep_months) -
          (resale - tax * (resale - book)) * v_h;
  n.rent = (1 - tax) * p * use * Annuity(i, horizon);
  n.hours = use * Annuity(i, horizon);
  return n;
}

TEST(TcoNpvTest, TenYearsWithResaleDiscountAndTaxMatchTheTextbook) {
  const TcoFinance fin = FinanceAt(0.08, CashTiming::kEndOfMonth, RateBasis::kEffectiveAnnual, 0.25);
  absl::StatusOr<TcoResult> r = ComputeTco({HourlyFleet()}, 120, fin);
  ASSERT_TRUE(r.ok()) << r.status();
  const HandNpv h = Hand(120, 0.08, 0.25);
  EXPECT_NEAR(r->npv_own_usd, h.own, 0.005);
  EXPECT_NEAR(r->npv_rent_usd, h.rent, 0.005);
  // Levelised: NPV over the discounted used GPU-hours; renting is (1 - t) x $3 an hour.
  EXPECT_NEAR(r->own_levelised_usd_per_gpu_hour, h.own / h.hours, 1e-9);
  EXPECT_NEAR(r->rent_levelised_usd_per_gpu_hour, 0.75 * 3.0, 1e-9);
  // Break-even use U*: NPV(own) does not depend on use here (no metered power), NPV(rent) is
  // (1 - t) p U a(120), so U* = NPV(own) / ((1 - t) p a(120)).
  const double i = std::pow(1.08, 1.0 / 12) - 1;
  const double u_star = h.own / (0.75 * 3.0 * Annuity(i, 120));
  EXPECT_NEAR(r->break_even_gpu_hours_per_month, u_star, 1e-6);
  EXPECT_NEAR(r->break_even_utilization_fraction, u_star / 5840, 1e-9);
  EXPECT_FALSE(r->break_even_usage_never);
  // Cash: the last month carries the resale less the tax on its gain (book value 0 after 60
  // months): 0.75 x 4,000 - 0.75 x 20,000 = -12,000.
  EXPECT_NEAR(r->series[119].own_usd, 0.75 * 4000 - 0.75 * 20000, 1e-6);
}

TEST(TcoNpvTest, BreakEvenAndLevelisedMoveWithTheHorizon) {
  // The same fleet over 1, 36 and 120 months: longer horizons spread the purchase over more
  // used hours, so the break-even use and the levelised own cost fall; the simple figures
  // (straight line, undiscounted) cannot see the horizon.
  const TcoFinance fin = FinanceAt(0.08, CashTiming::kEndOfMonth, RateBasis::kEffectiveAnnual, 0.25);
  const double i = std::pow(1.08, 1.0 / 12) - 1;
  double previous = 1e300, simple = -1;
  for (int horizon : {1, 36, 120}) {
    absl::StatusOr<TcoResult> r = ComputeTco({HourlyFleet()}, horizon, fin);
    ASSERT_TRUE(r.ok()) << r.status();
    const HandNpv h = Hand(horizon, 0.08, 0.25);
    const double u_star = h.own / (0.75 * 3.0 * Annuity(i, horizon));
    EXPECT_NEAR(r->fleets[0].break_even_gpu_hours_per_month, horizon == 1 ? 0 : u_star, 1e-6) << horizon;
    EXPECT_EQ(r->fleets[0].break_even_never, u_star > 5840) << horizon;
    EXPECT_NEAR(r->own_levelised_usd_per_gpu_hour, h.own / h.hours, 1e-9) << horizon;
    EXPECT_LT(r->own_levelised_usd_per_gpu_hour, previous) << horizon;
    previous = r->own_levelised_usd_per_gpu_hour;
    if (simple >= 0) {
      EXPECT_DOUBLE_EQ(r->own_usd_per_used_gpu_hour, simple);  // the labelled simple figure
    }
    simple = r->own_usd_per_used_gpu_hour;
  }
}

TEST(TcoNpvTest, FlatRentHasNoBreakEvenUse) {
  // A fixed monthly rent does not change with use, so "owning wins above X% use" is
  // meaningless: the answer says it does not apply instead of printing a percentage.
  TcoFleet f = ReadmeOwnOrRentFleet();
  f.power_watts = 8 * 400;  // A100 SXM4 TDP 400 W (NVIDIA datasheet), so use moves own power
  for (double use : {730.0, 5840.0}) {
    f.usage_gpu_hours_per_month = use;
    absl::StatusOr<TcoResult> r =
        ComputeTco({f}, 36, FinanceAt(0.08, CashTiming::kEndOfMonth, RateBasis::kEffectiveAnnual, 0, true));
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->break_even_usage_applies);
    EXPECT_DOUBLE_EQ(r->break_even_utilization_fraction, 0);
    EXPECT_LT(r->npv_own_usd, r->npv_rent_usd) << use;  // owning wins at any use here
    bool noted = false;
    for (const SensitivityEntry& e : r->sensitivity) {
      if (e.input == "utilization") noted = e.note.find("flat rent") != std::string::npos;
    }
    EXPECT_TRUE(noted);
  }
}

TEST(TcoNpvTest, SpotHeadlineCarriesTheSpotOverhead) {
  // Renting on spot at $2 per GPU-hour with 10% extra hours: the headline rent and the spot
  // rent option are the same 2 x 1.1 x use every month.
  TcoFleet f = HourlyFleet();
  f.rent_usd_per_gpu_hour = 2.0;
  f.rent_use_overhead_fraction = 0.1;
  f.rent_kinds.spot_usd_per_gpu_hour = 2.0;
  f.spot_overhead_fraction = 0.1;
  absl::StatusOr<TcoResult> r =
      ComputeTco({f}, 36, FinanceAt(0.08, CashTiming::kEndOfMonth, RateBasis::kEffectiveAnnual));
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->rent_options.size(), 1u);
  EXPECT_EQ(r->rent_options[0].kind, "spot");
  EXPECT_NEAR(r->npv_rent_usd, r->rent_options[0].npv_usd, 1e-6);
  EXPECT_NEAR(r->series[0].rent_usd, 2.0 * 1.1 * 4380, 1e-9);
  EXPECT_NEAR(r->fleets[0].rent_usd_per_gpu_hour, 2.2, 1e-12);
}

TEST(TcoNpvTest, TornadoClampsABoundOutsideTheRangeAndSaysSo) {
  // At a 100% cost of capital the +20% bound (120%) is outside [0, 1]: it is computed at 100%
  // and flagged, never shown as $0.
  absl::StatusOr<TcoResult> r =
      ComputeTco({HourlyFleet()}, 36, FinanceAt(1.0, CashTiming::kEndOfMonth, RateBasis::kEffectiveAnnual, 0, true));
  ASSERT_TRUE(r.ok()) << r.status();
  const double base = r->npv_own_usd - r->npv_rent_usd;
  bool seen = false;
  for (const SensitivityEntry& e : r->sensitivity) {
    if (e.input != "discount_rate") continue;
    seen = true;
    EXPECT_TRUE(e.high_clamped);
    EXPECT_FALSE(e.low_clamped);
    EXPECT_NEAR(e.npv_difference_high_usd, base, 1e-6);
    EXPECT_NE(e.npv_difference_high_usd, 0);
    EXPECT_NE(e.note.find("clamped"), std::string::npos);
  }
  EXPECT_TRUE(seen);
}

TEST(TcoNpvTest, ZeroUseIsAnswered) {
  // An idle fleet: nothing rented, the owned fleet still costs its capex and running costs.
  TcoFleet f = HourlyFleet();
  f.usage_gpu_hours_per_month = 0;
  f.residual_value_usd = 0;
  absl::StatusOr<TcoResult> r = ComputeTco({f}, 12);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->npv_rent_usd, 0);
  EXPECT_DOUBLE_EQ(r->npv_own_usd, 240000 + 12 * 4000);
  EXPECT_DOUBLE_EQ(r->own_levelised_usd_per_gpu_hour, 0);  // no used hours to divide by
  EXPECT_DOUBLE_EQ(r->own_usd_per_used_gpu_hour, 0);
  EXPECT_TRUE(r->break_even_usage_never);  // 288,000 > 3 x 5,840 x 12 = 210,240
}

TEST(TcoNpvTest, MacrsFiveYearBookValueAndTaxShield) {
  // IRS Publication 946, Table A-1, 5-year: 20% + 32% + 19.2% = 71.2% taken in three years,
  // so 28.8% of the cost is still on the books (not 0.6^3 = 21.6%).
  TcoFleet f = ReadmeOwnOrRentFleet();
  f.capex_usd = 100000;
  f.ops_usd_per_month = 0;
  f.depreciation_method = DepreciationMethod::kMacrs5y;
  double taken = 0;
  for (int m = 1; m <= 36; ++m) taken += TaxDepreciationUsd(f, m);
  EXPECT_NEAR(100000 - taken, 28800, 1e-6);
  for (int m = 1; m <= 72; ++m) taken += m > 36 ? TaxDepreciationUsd(f, m) : 0;
  EXPECT_NEAR(taken, 100000, 1e-6);
  // At 21% tax, no resale, undiscounted: the shield is 21% of 71,200 over three years plus
  // 21% of the 28,800 written off at the horizon: the whole 21,000.
  absl::StatusOr<TcoResult> r =
      ComputeTco({f}, 36, FinanceAt(0, CashTiming::kEndOfMonth, RateBasis::kEffectiveAnnual, 0.21));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NEAR(r->npv_own_usd, 100000 - 21000, 1e-6);
  EXPECT_NEAR(r->npv_rent_usd, 0.79 * 15000 * 36, 1e-6);
}

TEST(TcoNpvTest, RunningCostLinesAddUp) {
  // Assumed round figures: colocation $150 per kW-month on 81.6 kW (eight 10.2 kW DGX H100
  // systems, NVIDIA datasheet), $2,000 support, $375 per GPU-month of software for 64 GPUs,
  // $15,000 staff: 12,240 + 2,000 + 24,000 + 15,000 = $53,240 a month.
  TcoFleet f = ReadmeOwnOrRentFleet();
  f.gpu_count = 64;
  f.usage_gpu_hours_per_month = 64 * 730;
  f.ops_usd_per_month = 0;
  f.power_watts = 81600;
  f.electricity_usd_per_kwh = 0;
  f.colocation_usd_per_kw_month = 150;
  f.support_usd_per_month = 2000;
  f.software_usd_per_gpu_month = 375;
  f.staff_usd_per_month = 15000;
  absl::StatusOr<TcoResult> r = ComputeTco({f}, 12);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NEAR(r->fleets[0].colocation_usd_per_month, 12240, 1e-9);
  EXPECT_NEAR(r->fleets[0].software_usd_per_month, 24000, 1e-9);
  EXPECT_NEAR(r->fleets[0].own_running_usd_per_month, 53240, 1e-9);
  EXPECT_NEAR(r->series[1].own_usd, 53240, 1e-9);
}

TEST(TcoNpvTest, LeaseWithDownPaymentAndBalloon) {
  // $100,000: 20% down, 10% balloon, the rest at 6% a year over 24 months (i = 0.5%):
  // P = (80,000 - 10,000 x 1.005^-24) x 0.005 / (1 - 1.005^-24).
  TcoFleet f = ReadmeOwnOrRentFleet();
  f.capex_usd = 100000;
  f.lease_term_months = 24;
  f.lease_rate_fraction_per_year = 0.06;
  f.lease_down_payment_fraction = 0.2;
  f.lease_balloon_fraction = 0.1;
  const double v = std::pow(1.005, -24);
  const double p = (80000 - 10000 * v) * 0.005 / (1 - v);
  absl::StatusOr<TcoResult> r = ComputeTco({f}, 24);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NEAR(r->fleets[0].lease_usd_per_month, p, 1e-9);
  EXPECT_NEAR(r->series[0].own_usd, 20000 + p + 5000, 1e-6);
  EXPECT_NEAR(r->series[23].own_usd, p + 10000 + 5000, 1e-6);
  // Payments repay the loan: at a 0.5% monthly cost of capital (nominal 6%) in arrears the
  // financing is worth exactly the 80,000 financed.
  r = ComputeTco({f}, 24, FinanceAt(0.06, CashTiming::kEndOfMonth, RateBasis::kNominalMonthly));
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->npv_own_usd, 100000 + 5000 * Annuity(0.005, 24), 1e-6);
}

TEST(TcoNpvTest, LeadTimeRentDeclineAndResaleHaircut) {
  TcoFleet f = HourlyFleet();
  f.lead_time_months = 3;                        // delivered and installed in month 4
  f.rent_price_decline_fraction_per_year = 0.1;  // rent 10% cheaper each year
  f.resale_haircut_fraction = 0.25;              // 25% of the resale value lost to the dealer
  absl::StatusOr<TcoResult> r = ComputeTco({f}, 24);
  ASSERT_TRUE(r.ok()) << r.status();
  // Months 1-3: the own path rents its 4,380 GPU-hours at $3 and runs nothing.
  EXPECT_NEAR(r->series[0].own_usd, 240000 + 3 * 4380, 1e-6);
  EXPECT_NEAR(r->series[2].own_usd, 3 * 4380, 1e-6);
  EXPECT_NEAR(r->series[3].own_usd, 4000, 1e-6);
  // Rent in month 13 is 90% of month 12's.
  EXPECT_NEAR(r->series[12].rent_usd, 0.9 * r->series[11].rent_usd, 1e-6);
  EXPECT_NEAR(r->fleets[0].residual_value_usd, 0.75 * 20000, 1e-9);
}

TEST(TcoNpvTest, NewInputsAreBoundedAndNamed) {
  struct Case {
    const char* field;
    void (*spoil)(TcoFleet&);
  };
  const Case cases[] = {
      {"fleets[0].own.colocation_usd_per_kw_month", [](TcoFleet& f) { f.colocation_usd_per_kw_month = -1; }},
      {"fleets[0].own.software_usd_per_gpu_month", [](TcoFleet& f) { f.software_usd_per_gpu_month = 1e9; }},
      {"fleets[0].own.staff_usd_per_month", [](TcoFleet& f) { f.staff_usd_per_month = std::nan(""); }},
      {"fleets[0].own.support_usd_per_month", [](TcoFleet& f) { f.support_usd_per_month = -5; }},
      {"fleets[0].own.lead_time_months", [](TcoFleet& f) { f.lead_time_months = 500; }},
      {"fleets[0].own.lease_balloon_fraction",
       [](TcoFleet& f) {
         f.lease_down_payment_fraction = 0.5;
         f.lease_balloon_fraction = 0.6;
       }},
      {"fleets[0].own.resale_haircut_fraction", [](TcoFleet& f) { f.resale_haircut_fraction = 2; }},
      {"fleets[0].rent.price_decline_fraction_per_year",
       [](TcoFleet& f) { f.rent_price_decline_fraction_per_year = 1; }},
  };
  for (const Case& c : cases) {
    TcoFleet f = ReadmeOwnOrRentFleet();
    c.spoil(f);
    absl::StatusOr<TcoResult> r = ComputeTco({f}, 36);
    ASSERT_FALSE(r.ok()) << c.field;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(c.field), absl::string_view::npos) << r.status();
  }
  absl::StatusOr<TcoResult> r =
      ComputeTco({ReadmeOwnOrRentFleet()}, 36, FinanceAt(0, CashTiming::kEndOfMonth, RateBasis::kEffectiveAnnual, 1.0));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("tax_rate_fraction"), absl::string_view::npos);
}

}  // namespace
}  // namespace capplan::core
