// The Tco RPC's finance options over the shipped catalog: the current p5.48xlarge list price
// as the default rent, price-age warnings, explicit zero use, flat rents without a break-even use, the request-wide
// timing, rate basis and tax, and the new cost lines' bounds. Owning inputs are given explicitly (round assumed
// figures).
#include <google/protobuf/util/time_util.h>
#include <gtest/gtest.h>

#include <string>

#include "server/planning/planning.h"
#include "tests/server/shipped_catalog_test.h"

namespace capplan::server {
namespace {

namespace v1 = capplan::v1;
using google::protobuf::util::TimeUtil;
using TcoFinanceApiTest = testing::ShippedCatalogTest;

constexpr int64_t k20241201 = 1733011200;  // 2024-12-01T00:00:00Z
constexpr int64_t k20261101 = 1793491200;  // 2026-11-01T00:00:00Z

// 64 H100 rented as p5.48xlarge in us-east-1 at the catalog price; $2,000,000 to buy.
v1::TcoRequest P5Fleet(int64_t as_of) {
  v1::TcoRequest r;
  r.set_horizon_months(36);
  r.set_prices_as_of_unix_seconds(as_of);
  v1::TcoFleet* f = r.add_fleets();
  f->set_gpu_name("H100-SXM5-80GB");
  f->set_gpu_count(64);
  f->mutable_own()->set_capex_usd(2000000);
  f->mutable_own()->set_power_watts(81600);
  f->mutable_own()->set_electricity_usd_per_kwh(0.13);
  f->mutable_own()->set_pue(1.2);
  f->mutable_rent()->set_instance_type("p5.48xlarge");
  f->mutable_rent()->set_region("us-east-1");
  return r;
}

bool Stale(const v1::TcoResponse& resp, const std::string& field) {
  for (const v1::StalePrice& p : resp.stale_prices()) {
    if (p.field() == field) return true;
  }
  return false;
}

TEST_F(TcoFinanceApiTest, AListPriceOlderThanTheLimitIsFlaggedWithItsAge) {
  // The shipped p5.48xlarge row is the June 2024 list price, $98.32/h for 8 GPUs (AWS EC2
  // on-demand pricing page as of 2024-06-01, migration 0002).
  v1::TcoResponse before;
  ASSERT_TRUE(Tco(snap(), P5Fleet(k20241201), &before).ok());
  EXPECT_DOUBLE_EQ(before.fleets(0).rent_usd_per_gpu_hour(), 98.32 / 8);
  // 2024-06-01 to 2024-12-01 is 183 days, over the 180-day default: warned, with its age.
  ASSERT_TRUE(Stale(before, "fleets[0].rent.usd_per_gpu_hour"));
  EXPECT_EQ(before.stale_prices(0).age_days(), 183);
  EXPECT_EQ(before.stale_prices(0).as_of_date(), "2024-06-01");
  bool warned = false;
  for (const std::string& w : before.warnings()) warned = warned || w.find("183 days old") != std::string::npos;
  EXPECT_TRUE(warned);
  // The limit is the server's (--tco_price_max_age_days).
  SetTcoPriceMaxAgeDays(200);
  before.Clear();
  ASSERT_TRUE(Tco(snap(), P5Fleet(k20241201), &before).ok());
  SetTcoPriceMaxAgeDays(kDefaultTcoPriceMaxAgeDays);
  EXPECT_EQ(before.stale_prices_size(), 0);
}

TEST_F(TcoFinanceApiTest, ZeroUseIsExplicitAndZeroHoursStillMeansAllMonth) {
  v1::TcoRequest r = P5Fleet(k20261101);
  r.mutable_fleets(0)->set_use_fraction(0);
  v1::TcoResponse idle;
  ASSERT_TRUE(Tco(snap(), r, &idle).ok());
  EXPECT_EQ(idle.series(0).used_gpu_hours(), 0);
  EXPECT_EQ(idle.npv_rent_usd(), 0);
  EXPECT_EQ(idle.own_levelised_usd_per_gpu_hour(), 0);
  bool said = false;
  for (const std::string& w : idle.warnings()) said = said || w.find("no use") != std::string::npos;
  EXPECT_TRUE(said);
  // An existing caller's 0 GPU-hours keeps meaning every GPU all month: 64 x 730.
  v1::TcoResponse full;
  ASSERT_TRUE(Tco(snap(), P5Fleet(k20261101), &full).ok());
  EXPECT_DOUBLE_EQ(full.series(0).used_gpu_hours(), 64 * 730);
  r.mutable_fleets(0)->set_use_fraction(1.5);
  absl::Status s = Tco(snap(), r, &idle);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("fleets[0].use_fraction"), std::string::npos) << s;
}

TEST_F(TcoFinanceApiTest, FlatRentSaysBreakEvenUseDoesNotApply) {
  v1::TcoResponse resp;
  ASSERT_TRUE(Tco(snap(), testing::ReadmeOwnOrRentRequest(), &resp).ok());
  EXPECT_FALSE(resp.break_even_usage_applies());
  EXPECT_FALSE(resp.fleets(0).break_even_applies());
  EXPECT_EQ(resp.break_even_utilization_fraction(), 0);
  // 250,000 + 36 x 5,000 against 36 x 15,000, undiscounted.
  EXPECT_DOUBLE_EQ(resp.npv_own_usd(), 430000);
  EXPECT_DOUBLE_EQ(resp.npv_rent_usd(), 540000);
  bool said = false;
  for (const std::string& w : resp.warnings()) said = said || w.find("does not apply") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST_F(TcoFinanceApiTest, TimingRateBasisAndTaxAreEchoedAndChecked) {
  v1::TcoRequest r = P5Fleet(k20261101);
  r.set_discount_rate_fraction_per_year(0.1);
  r.set_tax_rate_fraction(0.21);
  r.mutable_fleets(0)->mutable_own()->set_depreciation_method(v1::DEPRECIATION_METHOD_MACRS_5Y);
  v1::TcoResponse resp;
  ASSERT_TRUE(Tco(snap(), r, &resp).ok());
  EXPECT_EQ(resp.cash_timing(), v1::CASH_TIMING_END_OF_MONTH);
  EXPECT_EQ(resp.rate_basis(), v1::RATE_BASIS_EFFECTIVE_ANNUAL);
  EXPECT_DOUBLE_EQ(resp.tax_rate_fraction(), 0.21);
  // Rent after tax: 79% of the shipped $55.04 / 8 an hour (the list price since the June 2025
  // P5 cut, migration 0015), levelised.
  EXPECT_NEAR(resp.rent_levelised_usd_per_gpu_hour(), 0.79 * 55.04 / 8, 1e-9);
  struct Case {
    const char* field;
    void (*spoil)(v1::TcoRequest&);
  };
  const Case cases[] = {
      {"tax_rate_fraction", [](v1::TcoRequest& q) { q.set_tax_rate_fraction(1.5); }},
      {"cash_timing", [](v1::TcoRequest& q) { q.set_cash_timing(static_cast<v1::CashTiming>(9)); }},
      {"rate_basis", [](v1::TcoRequest& q) { q.set_rate_basis(static_cast<v1::RateBasis>(9)); }},
      {"fleets[0].own.colocation_usd_per_kw_month",
       [](v1::TcoRequest& q) { q.mutable_fleets(0)->mutable_own()->set_colocation_usd_per_kw_month(-1); }},
      {"fleets[0].own.lead_time_months",
       [](v1::TcoRequest& q) { q.mutable_fleets(0)->mutable_own()->set_lead_time_months(-2); }},
      {"fleets[0].own.resale_haircut_fraction",
       [](v1::TcoRequest& q) { q.mutable_fleets(0)->mutable_own()->set_resale_haircut_fraction(3); }},
      {"fleets[0].rent.price_decline_fraction_per_year",
       [](v1::TcoRequest& q) { q.mutable_fleets(0)->mutable_rent()->set_price_decline_fraction_per_year(1); }},
      {"fleets[0].own.depreciation_method",
       [](v1::TcoRequest& q) {
         q.mutable_fleets(0)->mutable_own()->set_depreciation_method(static_cast<v1::DepreciationMethod>(7));
       }},
  };
  for (const Case& c : cases) {
    v1::TcoRequest bad = P5Fleet(k20261101);
    c.spoil(bad);
    v1::TcoResponse out;
    absl::Status s = Tco(snap(), bad, &out);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << c.field << ": " << s;
    EXPECT_NE(s.message().find(c.field), std::string::npos) << s;
  }
}

TEST_F(TcoFinanceApiTest, CostLinesLeftOutAreListed) {
  v1::TcoResponse resp;
  ASSERT_TRUE(Tco(snap(), P5Fleet(k20261101), &resp).ok());
  std::string all;
  for (const std::string& n : resp.not_included()) all += n + "\n";
  for (const char* line : {"fleets[0].own.colocation_usd_per_kw_month", "fleets[0].own.staff_usd_per_month",
                           "fleets[0].own.software_usd_per_gpu_month", "tax_rate_fraction"}) {
    EXPECT_NE(all.find(line), std::string::npos) << line << "\n" << all;
  }
}

}  // namespace
}  // namespace capplan::server
