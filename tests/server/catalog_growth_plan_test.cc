// What a user notices of the grown catalog (migration 0008): Plan ranks the new H200 and B200
// offers in the regions their price lists give, at the cited price.
#include <gtest/gtest.h>

#include <string>

#include "server/planning/planning.h"
#include "tests/server/shipped_catalog_test.h"

namespace capplan::server {
namespace {

namespace v1 = capplan::v1;

using CatalogGrowthPlanTest = testing::ShippedCatalogTest;

v1::PlanRequest Serve70B(const std::string& gpu, const std::string& region) {
  // Llama-3-70B (config.json: 80 layers, hidden 8192, 8 KV heads) at 10 req/s, 1,024-token
  // prompts and 256-token answers, on one GPU type in one AWS region.
  v1::PlanRequest r;
  v1::ServingWorkload* w = r.mutable_serving();
  w->set_model_name("Llama-3-70B");
  w->set_prompt_tokens(1024);
  w->set_output_tokens(256);
  w->set_requests_per_second(10);
  r.mutable_constraints()->add_providers("aws");
  r.mutable_constraints()->add_regions(region);
  r.mutable_constraints()->add_allowed_gpus(gpu);
  return r;
}

TEST_F(CatalogGrowthPlanTest, Llama3On70BRanksAnAwsP5enOfferAtItsCitedPrice) {
  v1::PlanResponse resp;
  absl::Status s = Plan(snap(), Serve70B("H200-SXM-141GB", "us-east-2"), &resp);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_GT(resp.options_size(), 0);
  const v1::PlanOption& o = resp.options(0);
  EXPECT_EQ(o.provider(), "aws");
  EXPECT_EQ(o.instance_type(), "p5en.48xlarge");
  EXPECT_EQ(o.region(), "us-east-2");
  EXPECT_EQ(o.gpu_name(), "H200-SXM-141GB");
  ASSERT_GT(o.provenance().prices_size(), 0);
  // AWS price list via instances.vantage.sh (tsaol/aws-gpu data/p5en_instances.js,
  // 2026-08-26): p5en.48xlarge in us-east-2, Linux on-demand, $63.296/h.
  const v1::Price& p = o.provenance().prices(0);
  EXPECT_DOUBLE_EQ(p.price_usd_per_hour(), 63.296);
  EXPECT_NE(p.source().citation().find("p5en_instances.js"), std::string::npos) << p.source().citation();
  EXPECT_NEAR(o.cost_usd_per_hour(), 63.296 * o.instance_count(), 1e-6);
  EXPECT_EQ(o.fabric().name(), "aws-p5en-efa");
}

TEST_F(CatalogGrowthPlanTest, RegionsWithoutAListedPriceOfferNothing) {
  // The p6-b200 price list names no European region, so none is offered there.
  v1::PlanResponse resp;
  absl::Status s = Plan(snap(), Serve70B("B200-SXM-180GB", "eu-north-1"), &resp);
  EXPECT_FALSE(s.ok());
  for (const v1::PlanOption& o : resp.options()) EXPECT_NE(o.gpu_name(), "B200-SXM-180GB");
  // Where it is listed, a B200 offer serves the load at its listed price: p6-b200.48xlarge in
  // us-east-1, $113.9328/h (tsaol/aws-gpu data/p6-b200_instances.js, 2026-08-26).
  v1::PlanResponse b200;
  ASSERT_TRUE(Plan(snap(), Serve70B("B200-SXM-180GB", "us-east-1"), &b200).ok());
  ASSERT_GT(b200.options_size(), 0);
  EXPECT_EQ(b200.options(0).instance_type(), "p6-b200.48xlarge");
  EXPECT_NEAR(b200.options(0).cost_usd_per_hour(), 113.9328 * b200.options(0).instance_count(), 1e-6);
  EXPECT_EQ(b200.options(0).fabric().name(), "aws-p6-b200-efa");
}

}  // namespace
}  // namespace capplan::server
