// Price kinds and dates in Plan, Compare and Tco over the shipped catalog plus a few price
// rows: the kind the caller asks for prices every option and is named in its provenance; spot
// carries its interruption note; Timestamp and Unix-seconds fields name one instant.
#include <google/protobuf/util/time_util.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "server/planning/planning.h"
#include "server/store/catalog_store.h"

namespace capplan::server {
namespace {

namespace v1 = capplan::v1;
using google::protobuf::util::TimeUtil;

// AWS p5.48xlarge, us-east-1 (8 x H100). On-demand $55.04/h: the shipped row after the June
// 2025 P5 price cut (migration 0015). The reserved and spot figures are test inputs, round
// fractions of it (reserved 1 year about 30% off, spot about 60% off), not AWS quotes.
constexpr double kOnDemand = 55.04;
constexpr double kReserved1y = 38.50;
constexpr double kSpot = 22.00;
constexpr int64_t k20250101 = 1735689600;  // 2025-01-01T00:00:00Z

class PriceKindTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/capplan-price-kind-XXXXXX";
    dir_ = mkdtemp(tmpl);
    store_ = std::move(*store::CatalogStore::Open({dir_ + "/c.db"}));
    for (auto [kind, usd] :
         {std::pair{store::PriceKind::kReserved1y, kReserved1y}, std::pair{store::PriceKind::kSpot, kSpot}}) {
      store::PriceRow p;
      p.provider = "aws";
      p.instance_type = "p5.48xlarge";
      p.region = "us-east-1";
      p.kind = kind;
      p.price_usd_per_hour = usd;
      p.effective_unix_seconds = k20250101;
      p.source = {"test input, a round fraction of the on-demand price", "2025-01-01", ""};
      ASSERT_TRUE(store_->SetPrice({"test", "SetPrice"}, p).ok());
    }
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::string dir_;
  std::unique_ptr<store::CatalogStore> store_;
};

v1::PlanRequest ServeOnH100(v1::PriceKind kind) {
  // The README's serving example: Llama-2-7B at 35 req/s, 512-token prompts, 128-token answers.
  v1::PlanRequest r;
  v1::ServingWorkload* w = r.mutable_serving();
  w->set_model_name("Llama-2-7B");
  w->set_prompt_tokens(512);
  w->set_output_tokens(128);
  w->set_requests_per_second(35);
  r.mutable_constraints()->add_providers("aws");
  // The two regions of the 2024 list (migration 0002); the other regions carry the 2026 list's
  // lower prices (migration 0008) and have no reserved rows here.
  r.mutable_constraints()->add_regions("us-east-1");
  r.mutable_constraints()->add_regions("us-west-2");
  r.mutable_constraints()->add_allowed_gpus("H100-SXM5-80GB");
  r.mutable_constraints()->set_price_kind(kind);
  return r;
}

TEST_F(PriceKindTest, PlanPricesEveryOptionAtTheAskedKind) {
  v1::PlanResponse on_demand, reserved;
  ASSERT_TRUE(Plan(*store_->Snapshot(), ServeOnH100(v1::PRICE_KIND_UNSPECIFIED), &on_demand).ok());
  absl::Status s = Plan(*store_->Snapshot(), ServeOnH100(v1::PRICE_KIND_RESERVED_1Y), &reserved);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_GT(on_demand.options_size(), 0);
  ASSERT_GT(reserved.options_size(), 0);
  EXPECT_EQ(on_demand.options(0).provenance().price_kind(), "on_demand");
  EXPECT_TRUE(on_demand.options(0).provenance().price_note().empty());
  EXPECT_DOUBLE_EQ(on_demand.options(0).cost_usd_per_hour(), kOnDemand * on_demand.options(0).instance_count());
  for (const v1::PlanOption& o : reserved.options()) {
    // Only us-east-1 has a reserved row: us-west-2 is left out, not priced on-demand.
    EXPECT_EQ(o.region(), "us-east-1");
    EXPECT_EQ(o.provenance().price_kind(), "reserved_1y");
    ASSERT_EQ(o.provenance().prices_size(), 1);
    EXPECT_EQ(o.provenance().prices(0).kind(), v1::PRICE_KIND_RESERVED_1Y);
    EXPECT_DOUBLE_EQ(o.cost_usd_per_hour(), kReserved1y * o.instance_count());
    EXPECT_NE(o.provenance().price_note().find("commitment"), std::string::npos);
  }
  EXPECT_LT(reserved.options(0).usd_per_million_requests(), on_demand.options(0).usd_per_million_requests());
}

TEST_F(PriceKindTest, SpotOptionsCarryAnIndicativeInterruptionNote) {
  v1::PlanResponse resp;
  ASSERT_TRUE(Plan(*store_->Snapshot(), ServeOnH100(v1::PRICE_KIND_SPOT), &resp).ok());
  ASSERT_GT(resp.options_size(), 0);
  const v1::Provenance& p = resp.options(0).provenance();
  EXPECT_EQ(p.price_kind(), "spot");
  EXPECT_DOUBLE_EQ(resp.options(0).cost_usd_per_hour(), kSpot * resp.options(0).instance_count());
  EXPECT_NE(p.price_note().find("Spot Instance Advisor"), std::string::npos) << p.price_note();
  EXPECT_NE(p.price_note().find("Indicative"), std::string::npos) << p.price_note();
}

TEST_F(PriceKindTest, ShippedSpotRowsPriceAnL4Plan) {
  // The shipped spot rows (migration 0016): g6.xlarge (1 x L4) at $0.3879/h in us-east-1, the
  // cheapest zone (use1-az2) of SkyPilot's aws/vms.csv v7 @ 001367d; on-demand $0.8048/h.
  v1::PlanRequest r = ServeOnH100(v1::PRICE_KIND_SPOT);
  r.mutable_constraints()->clear_allowed_gpus();
  r.mutable_constraints()->add_allowed_gpus("L4");
  r.mutable_serving()->set_requests_per_second(1);
  v1::PlanResponse resp;
  absl::Status s = Plan(*store_->Snapshot(), r, &resp);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_GT(resp.options_size(), 0);
  bool g6_east = false;
  for (const v1::PlanOption& o : resp.options()) {
    EXPECT_EQ(o.provenance().price_kind(), "spot");
    if (o.instance_type() != "g6.xlarge" || o.region() != "us-east-1") continue;
    g6_east = true;
    EXPECT_DOUBLE_EQ(o.cost_usd_per_hour(), 0.3879 * o.instance_count());
    EXPECT_LT(o.cost_usd_per_hour(), 0.8048 * o.instance_count());
  }
  EXPECT_TRUE(g6_east);
}

TEST_F(PriceKindTest, CompareTargetsTakeAPriceKind) {
  v1::CompareRequest r;
  *r.mutable_serving() = ServeOnH100(v1::PRICE_KIND_UNSPECIFIED).serving();
  v1::CompareTarget* t = r.add_targets();
  t->set_instance_type("p5.48xlarge");
  t->set_region("us-east-1");
  t->set_price_kind(v1::PRICE_KIND_RESERVED_1Y);
  v1::CompareResponse resp;
  absl::Status s = Compare(*store_->Snapshot(), r, &resp);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_DOUBLE_EQ(resp.rows(0).option().cost_usd_per_hour(), kReserved1y);
  EXPECT_EQ(resp.rows(0).option().provenance().price_kind(), "reserved_1y");
  // No 3-year row: said, not priced on-demand instead.
  t->set_price_kind(v1::PRICE_KIND_RESERVED_3Y);
  resp.Clear();
  s = Compare(*store_->Snapshot(), r, &resp);
  ASSERT_TRUE(s.ok()) << s;  // answered on the target's row, so other targets still compare
  EXPECT_NE(resp.rows(0).infeasible_reason().find("targets[0].price_kind"), std::string::npos)
      << resp.rows(0).infeasible_reason();
  EXPECT_FALSE(resp.rows(0).has_option());
  t->clear_instance_type();
  t->set_gpu_name("H100-SXM5-80GB");
  t->set_count(8);
  s = Compare(*store_->Snapshot(), r, &resp);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(PriceKindTest, TcoRentsAtTheAskedKindWithoutANamedInstance) {
  v1::TcoRequest r;
  r.set_horizon_months(12);
  v1::TcoFleet* f = r.add_fleets();
  f->set_gpu_name("H100-SXM5-80GB");
  f->set_gpu_count(8);
  f->mutable_own()->set_capex_usd(300000);  // a round test input
  f->mutable_rent()->set_price_kind(v1::PRICE_KIND_SPOT);
  f->mutable_rent()->set_spot_overhead_fraction(0);  // the price alone, without interruptions
  v1::TcoResponse resp;
  absl::Status s = Tco(*store_->Snapshot(), r, &resp);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_DOUBLE_EQ(resp.fleets(0).rent_usd_per_gpu_hour(), kSpot / 8);
  EXPECT_EQ(resp.provenance().price_kind(), "spot");
  EXPECT_NE(resp.provenance().price_note().find("Spot Instance Advisor"), std::string::npos);
}

TEST_F(PriceKindTest, TimestampAndUnixSecondsNameOneInstant) {
  // As of 2024-12-31 there was no reserved row yet (it takes effect 2025-01-01).
  v1::PlanRequest r = ServeOnH100(v1::PRICE_KIND_RESERVED_1Y);
  *r.mutable_prices_as_of_time() = TimeUtil::SecondsToTimestamp(k20250101 - 86400);
  v1::PlanResponse resp;
  EXPECT_EQ(Plan(*store_->Snapshot(), r, &resp).code(), absl::StatusCode::kFailedPrecondition);
  *r.mutable_prices_as_of_time() = TimeUtil::SecondsToTimestamp(k20250101);
  resp.Clear();
  ASSERT_TRUE(Plan(*store_->Snapshot(), r, &resp).ok());
  // Both set: the same instant is fine, another is INVALID_ARGUMENT naming both.
  r.set_prices_as_of_unix_seconds(k20250101);
  resp.Clear();
  EXPECT_TRUE(Plan(*store_->Snapshot(), r, &resp).ok());
  r.set_prices_as_of_unix_seconds(k20250101 + 1);
  absl::Status s = Plan(*store_->Snapshot(), r, &resp);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("prices_as_of_unix_seconds"), std::string::npos) << s;
  EXPECT_NE(s.message().find("prices_as_of_time"), std::string::npos) << s;
}

}  // namespace
}  // namespace capplan::server
