// Own versus rent (core/tco.h), with figures worked by hand from the inputs named in each test.
#include "core/tco/tco.h"

#include <gtest/gtest.h>

#include <cmath>

#include "fixtures.h"

namespace capplan::core {
namespace {

using testing::ReadmeOwnOrRentFleet;

TEST(TcoTest, ReadmeOwnOrRentBreaksEvenInMonth25) {
  absl::StatusOr<TcoResult> r = ComputeTco({ReadmeOwnOrRentFleet()}, 36);
  ASSERT_TRUE(r.ok()) << r.status();
  // Cash: 250,000 + 5,000 m <= 15,000 m  <=>  m >= 25.
  EXPECT_EQ(r->break_even_month, 25);
  ASSERT_EQ(r->series.size(), 36u);
  EXPECT_DOUBLE_EQ(r->series[0].own_usd, 255000);
  EXPECT_DOUBLE_EQ(r->series[24].own_cumulative_usd, 375000);
  EXPECT_DOUBLE_EQ(r->series[24].rent_cumulative_usd, 375000);
  // Simple (amortised): 250,000 / 36 + 5,000 = 11,944.44 a month; rent is 15,000 / 5,840
  // GPU-hours = $2.568 per GPU-hour.
  EXPECT_NEAR(r->fleets[0].own_usd_per_month, 11944.44, 0.01);
  EXPECT_NEAR(r->fleets[0].rent_usd_per_gpu_hour, 2.5685, 1e-4);
  EXPECT_NEAR(r->own_usd_per_used_gpu_hour, 11944.44 / 5840, 1e-4);
  // The rent is flat, so no use level makes it cheaper or dearer: a break-even use does not
  // apply (owning costs 430,000 against 540,000 at any use).
  EXPECT_FALSE(r->break_even_usage_applies);
  EXPECT_FALSE(r->fleets[0].break_even_applies);
  EXPECT_FALSE(r->break_even_usage_never);
  EXPECT_DOUBLE_EQ(r->break_even_gpu_hours_per_month, 0);
  EXPECT_DOUBLE_EQ(r->break_even_utilization_fraction, 0);
  // Levelised, undiscounted: 430,000 and 540,000 over 36 x 5,840 used GPU-hours.
  EXPECT_NEAR(r->own_levelised_usd_per_gpu_hour, 430000.0 / (36 * 5840), 1e-9);
  EXPECT_NEAR(r->rent_levelised_usd_per_gpu_hour, 540000.0 / (36 * 5840), 1e-9);
}

TEST(TcoTest, PowerFollowsUseAndTariff) {
  TcoFleet f = ReadmeOwnOrRentFleet();
  // 8 x 400 W (NVIDIA A100 SXM4 datasheet TDP), PUE 1.2, $0.13/kWh (EIA 2024 commercial):
  // 3,200 W x 730 h x 1.2 x 0.13 / 1,000 = $364.42 a month at full use; half at half use.
  f.power_watts = 3200;
  f.pue = 1.2;
  f.electricity_usd_per_kwh = 0.13;
  absl::StatusOr<TcoResult> full = ComputeTco({f}, 12);
  ASSERT_TRUE(full.ok());
  EXPECT_NEAR(full->fleets[0].own_power_usd_per_month, 364.42, 0.01);
  f.usage_gpu_hours_per_month = 4 * 730;
  absl::StatusOr<TcoResult> half = ComputeTco({f}, 12);
  ASSERT_TRUE(half.ok());
  EXPECT_NEAR(half->fleets[0].own_power_usd_per_month, 182.21, 0.01);
  // A flat rent costs the same whatever the use, so each used hour costs twice as much.
  EXPECT_NEAR(half->fleets[0].rent_usd_per_gpu_hour, 2 * full->fleets[0].rent_usd_per_gpu_hour, 1e-9);
}

TEST(TcoTest, HourlyRentWithDiscountAndMaintenance) {
  TcoFleet f = ReadmeOwnOrRentFleet();
  f.rent_flat_usd_per_month = 0;
  f.rent_usd_per_gpu_hour = 4.0;
  f.discount_fraction = 0.25;
  f.maintenance_fraction_per_year = 0.12;  // 12% of capex a year = $2,500 a month here
  absl::StatusOr<TcoResult> r = ComputeTco({f}, 36);
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->fleets[0].rent_usd_per_gpu_hour, 3.0);
  EXPECT_DOUBLE_EQ(r->fleets[0].rent_usd_per_month, 3.0 * 5840);
  EXPECT_NEAR(r->fleets[0].own_running_usd_per_month, 5000 + 2500, 1e-9);
}

TEST(TcoTest, NeverIsSaidAsZero) {
  TcoFleet f = ReadmeOwnOrRentFleet();
  f.rent_flat_usd_per_month = 1000;  // renting is cheaper than running the owned fleet
  absl::StatusOr<TcoResult> r = ComputeTco({f}, 36);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->break_even_month, 0);
}

TEST(TcoTest, AUseTooSmallForAFigurePerHourAnswersZeroNotInfinity) {
  // The smallest positive double as a use fraction (a fuzzer's input): 8 GPUs x 730 h x
  // 4.9e-324 hours is denormal, and $/used GPU-hour would overflow to +Inf.
  TcoFleet f = ReadmeOwnOrRentFleet();
  f.rent_flat_usd_per_month = 0;
  f.rent_usd_per_gpu_hour = 4.0;
  f.usage_gpu_hours_per_month = 5840 * 4.94065645841247e-324;
  absl::StatusOr<TcoResult> r = ComputeTco({f}, 24);
  ASSERT_TRUE(r.ok()) << r.status();
  for (double v : {r->own_usd_per_used_gpu_hour, r->rent_usd_per_used_gpu_hour, r->own_levelised_usd_per_gpu_hour,
                   r->rent_levelised_usd_per_gpu_hour}) {
    EXPECT_TRUE(std::isfinite(v)) << v;
  }
  EXPECT_EQ(r->own_usd_per_used_gpu_hour, 0);
}

TEST(TcoTest, HybridFleetsAddUp) {
  TcoFleet a = ReadmeOwnOrRentFleet(), b = ReadmeOwnOrRentFleet();
  b.capex_usd = 100000;
  absl::StatusOr<TcoResult> r = ComputeTco({a, b}, 36);
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->series[0].own_usd, 255000 + 105000);
  EXPECT_DOUBLE_EQ(r->series[0].rent_usd, 30000);
}

TEST(TcoTest, BadInputsNameTheFieldAndRange) {
  struct Case {
    const char* field;
    void (*spoil)(TcoFleet&);
  };
  const Case cases[] = {
      {"fleets[0].own.pue", [](TcoFleet& f) { f.pue = 0.5; }},
      {"fleets[0].own.pue", [](TcoFleet& f) { f.pue = std::nan(""); }},
      {"fleets[0].usage_gpu_hours_per_month", [](TcoFleet& f) { f.usage_gpu_hours_per_month = -1; }},
      {"fleets[0].usage_gpu_hours_per_month", [](TcoFleet& f) { f.usage_gpu_hours_per_month = 9999; }},
      {"fleets[0].rent.discount_fraction", [](TcoFleet& f) { f.discount_fraction = 1; }},
      {"fleets[0].rent.price_usd_per_month", [](TcoFleet& f) { f.rent_flat_usd_per_month = 1e308; }},
      {"fleets[0].own.capex_usd", [](TcoFleet& f) { f.capex_usd = 0; }},
      {"fleets[0].gpu_count", [](TcoFleet& f) { f.gpu_count = 0; }},
      {"fleets[0].own.depreciation_months", [](TcoFleet& f) { f.depreciation_months = 0; }},
  };
  for (const Case& c : cases) {
    TcoFleet f = ReadmeOwnOrRentFleet();
    c.spoil(f);
    absl::StatusOr<TcoResult> r = ComputeTco({f}, 36);
    ASSERT_FALSE(r.ok()) << c.field;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(c.field), absl::string_view::npos) << r.status();
  }
  EXPECT_FALSE(ComputeTco({ReadmeOwnOrRentFleet()}, 0).ok());
  EXPECT_FALSE(ComputeTco({ReadmeOwnOrRentFleet()}, 121).ok());
  EXPECT_FALSE(ComputeTco({}, 12).ok());
}

}  // namespace
}  // namespace capplan::core
