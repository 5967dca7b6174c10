// The planner's converters (server/request_proto, server/option_proto): API defaults become
// core values, and every core enum value has its own API value (the tables are explicit
// switches; these tests catch a value added on one side only).
#include <gtest/gtest.h>

#include <set>

#include "server/option_proto.h"
#include "server/request_proto.h"

namespace capplan::server {
namespace {

namespace v1 = capplan::v1;
namespace planner = core::planner;

TEST(ConvertPlannerTest, EveryRejectionReasonHasItsOwnApiValue) {
  std::set<int> seen;
  for (int r = static_cast<int>(planner::RejectionReason::kOverDeadline);
       r <= static_cast<int>(planner::RejectionReason::kRankedLower); ++r) {
    const v1::RejectionReason p = RejectionReasonToProto(static_cast<planner::RejectionReason>(r));
    EXPECT_NE(p, v1::REJECTION_REASON_UNSPECIFIED) << r;
    EXPECT_TRUE(seen.insert(p).second) << r;
  }
  // Every API value but UNSPECIFIED is reached.
  EXPECT_EQ(seen.size(), static_cast<size_t>(v1::RejectionReason_descriptor()->value_count() - 1));
}

TEST(ConvertPlannerTest, EveryBottleneckAndRecomputeHasItsOwnApiValue) {
  std::set<int> bottlenecks;
  for (int b = static_cast<int>(core::Bottleneck::kCompute); b <= static_cast<int>(core::Bottleneck::kMemoryCapacity);
       ++b) {
    const v1::Bottleneck p = BottleneckToProto(static_cast<core::Bottleneck>(b));
    EXPECT_NE(p, v1::BOTTLENECK_UNSPECIFIED);
    EXPECT_TRUE(bottlenecks.insert(p).second);
  }
  EXPECT_EQ(bottlenecks.size(), static_cast<size_t>(v1::Bottleneck_descriptor()->value_count() - 1));
  EXPECT_EQ(RecomputeToProto(core::Recompute::kNone), v1::RECOMPUTE_NONE);
  EXPECT_EQ(RecomputeToProto(core::Recompute::kSelective), v1::RECOMPUTE_SELECTIVE);
  EXPECT_EQ(RecomputeToProto(core::Recompute::kFull), v1::RECOMPUTE_FULL);
}

TEST(ConvertPlannerTest, PlanQueryDefaultsAndViews) {
  v1::PlanRequest r;
  absl::StatusOr<planner::PlanQuery> q = PlanQueryFrom(r);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->objective, planner::Objective::kCheapest);
  EXPECT_EQ(q->top_k, planner::kDefaultTopK);
  EXPECT_EQ(q->max_rejected, planner::kDefaultMaxRejected);  // VIEW_UNSPECIFIED is FULL
  // No caller limit: serving deployments default to 64 GPUs, training to the API's limit.
  EXPECT_EQ(q->constraints.ServingMaxGpus(), planner::kDefaultMaxGpus);
  EXPECT_EQ(q->constraints.TrainingMaxGpus(), planner::kMaxGpus);
  EXPECT_GT(q->prices_as_of_unix_seconds, 1700000000);  // 0 means now

  r.set_view(v1::VIEW_BASIC);
  r.set_max_rejected(7);
  r.set_objective(v1::OBJECTIVE_FASTEST_WITHIN_BUDGET);
  r.set_prices_as_of_unix_seconds(1717200000);
  r.mutable_constraints()->add_owned_pools()->set_name("lab");
  q = PlanQueryFrom(r);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->max_rejected, 0);  // BASIC asks for no rejections, whatever max_rejected says
  EXPECT_EQ(q->objective, planner::Objective::kFastestWithinBudget);
  EXPECT_EQ(q->prices_as_of_unix_seconds, 1717200000);
  ASSERT_EQ(q->constraints.owned_pools.size(), 1u);
  EXPECT_EQ(q->constraints.owned_pools[0].name, "lab");

  r.set_view(v1::VIEW_FULL);
  q = PlanQueryFrom(r);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->max_rejected, 7);

  r.set_max_rejected(201);
  EXPECT_NE(PlanQueryFrom(r).status().message().find("max_rejected: must be in [0, 200]"), absl::string_view::npos);
}

TEST(ConvertPlannerTest, CompareTargetsKeepTheirPins) {
  v1::CompareRequest r;
  v1::CompareTarget* t = r.add_targets();
  t->set_instance_type("p5.48xlarge");
  t->set_region("us-east-1");
  t->set_count(2);
  t->mutable_pinned_parallelism()->set_tensor_parallel(8);
  t->mutable_pinned_parallelism()->set_data_parallel(2);
  t->mutable_pinned_parallelism()->set_recompute(v1::RECOMPUTE_SELECTIVE);
  const std::vector<planner::CompareTarget> out = CompareTargetsFrom(r);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].instance_type, "p5.48xlarge");
  EXPECT_EQ(out[0].count, 2);
  EXPECT_EQ(out[0].pin.tensor_parallel, 8);
  EXPECT_EQ(out[0].pin.data_parallel, 2);
  EXPECT_EQ(out[0].pin.recompute, core::Recompute::kSelective);
  EXPECT_TRUE(out[0].pin.TrainingPinned());
}

}  // namespace
}  // namespace capplan::server
