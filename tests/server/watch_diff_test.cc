// What a watcher is told (server/watch_diff.h): top options compared by identity, rank and
// cost against the caller's fraction. Prices are the shipped AWS on-demand rows (AWS pricing
// page, 2024-06-01: p4d.24xlarge $32.7726/h, p5.48xlarge $98.32/h) and the June 2025 P5 cut
// ($55.04/h); the option lists are built by hand, not taken from a planner run.
#include "server/watch/watch_diff.h"

#include <gtest/gtest.h>

namespace capplan::server {
namespace {

namespace v1 = capplan::v1;

void AddOption(v1::PlanResponse* plan, const std::string& instance, double usd_per_hour, double hours) {
  v1::PlanOption* o = plan->add_options();
  o->set_rank(plan->options_size());
  o->set_provider("aws");
  o->set_instance_type(instance);
  o->set_instance_count(1);
  o->set_region("us-east-1");
  o->set_gpu_count(8);
  o->set_gpu_name(instance == "p5.48xlarge" ? "H100-SXM5-80GB" : "A100-SXM4-40GB");
  o->set_cost_usd_per_hour(usd_per_hour);
  o->mutable_total_cost_usd()->set_point(usd_per_hour * hours);
}

v1::WatchReason Compare(const v1::PlanResponse& before, const v1::PlanResponse& after, double fraction,
                        google::protobuf::RepeatedPtrField<v1::WatchOptionChange>* changes) {
  return CompareTopOptions(TopOptions(before, 3), TopOptions(after, 3), fraction, changes);
}

TEST(WatchDiffTest, SameAnswerIsNotWorthAMessage) {
  v1::PlanResponse a;
  AddOption(&a, "p5.48xlarge", 98.32, 5);
  AddOption(&a, "p4d.24xlarge", 32.7726, 16);
  google::protobuf::RepeatedPtrField<v1::WatchOptionChange> changes;
  EXPECT_EQ(Compare(a, a, 0.01, &changes), v1::WATCH_REASON_UNSPECIFIED);
  EXPECT_TRUE(changes.empty());
}

TEST(WatchDiffTest, ASwapOfTheTopTwoNamesBothMoves) {
  v1::PlanResponse before;
  AddOption(&before, "p5.48xlarge", 98.32, 5);
  AddOption(&before, "p4d.24xlarge", 32.7726, 16);
  v1::PlanResponse after;
  AddOption(&after, "p4d.24xlarge", 32.7726, 16);
  AddOption(&after, "p5.48xlarge", 98.32, 5);
  google::protobuf::RepeatedPtrField<v1::WatchOptionChange> changes;
  EXPECT_EQ(Compare(before, after, 0.01, &changes), v1::WATCH_REASON_TOP_OPTIONS_CHANGED);
  ASSERT_EQ(changes.size(), 2);
  EXPECT_EQ(changes[0].kind(), v1::WATCH_CHANGE_KIND_MOVED);
  EXPECT_EQ(changes[0].rank_before(), 2);
  EXPECT_EQ(changes[0].rank_after(), 1);
}

TEST(WatchDiffTest, CostMovesCountOnlyAboveTheFraction) {
  v1::PlanResponse before;
  AddOption(&before, "p5.48xlarge", 98.32, 5);
  v1::PlanResponse after;
  AddOption(&after, "p5.48xlarge", 55.04, 5);  // -44%
  google::protobuf::RepeatedPtrField<v1::WatchOptionChange> changes;
  EXPECT_EQ(Compare(before, after, 0.5, &changes), v1::WATCH_REASON_UNSPECIFIED);
  EXPECT_EQ(Compare(before, after, 0.4, &changes), v1::WATCH_REASON_COST_CHANGED);
  ASSERT_EQ(changes.size(), 1);
  EXPECT_NEAR(changes[0].cost_change_fraction(), 55.04 / 98.32 - 1, 1e-12);
  EXPECT_DOUBLE_EQ(changes[0].total_cost_usd_before(), 98.32 * 5);
  EXPECT_DOUBLE_EQ(changes[0].total_cost_usd_after(), 55.04 * 5);
}

TEST(WatchDiffTest, InfeasibleAndBackAgain) {
  v1::PlanResponse a;
  AddOption(&a, "p5.48xlarge", 98.32, 5);
  google::protobuf::RepeatedPtrField<v1::WatchOptionChange> changes;
  EXPECT_EQ(CompareTopOptions(TopOptions(a, 3), Infeasible(), 0.01, &changes), v1::WATCH_REASON_NO_LONGER_FEASIBLE);
  EXPECT_EQ(changes.size(), 1);
  changes.Clear();
  EXPECT_EQ(CompareTopOptions(Infeasible(), Infeasible(), 0.01, &changes), v1::WATCH_REASON_UNSPECIFIED);
  EXPECT_EQ(CompareTopOptions(Infeasible(), TopOptions(a, 3), 0.01, &changes), v1::WATCH_REASON_FEASIBLE_AGAIN);
  EXPECT_EQ(changes[0].kind(), v1::WATCH_CHANGE_KIND_ADDED);
}

TEST(WatchDiffTest, OptionsRequestedBeyondTopNAreOutOfSight) {
  v1::PlanResponse before;
  AddOption(&before, "p5.48xlarge", 98.32, 5);
  AddOption(&before, "p4d.24xlarge", 32.7726, 16);
  v1::PlanResponse after = before;
  after.mutable_options(1)->set_cost_usd_per_hour(55.04);
  after.mutable_options(1)->mutable_total_cost_usd()->set_point(55.04 * 16);
  google::protobuf::RepeatedPtrField<v1::WatchOptionChange> changes;
  EXPECT_EQ(CompareTopOptions(TopOptions(before, 1), TopOptions(after, 1), 0.01, &changes),
            v1::WATCH_REASON_UNSPECIFIED);
}

TEST(WatchDiffTest, RangesAreCheckedNamingTheField) {
  v1::WatchPlanRequest r;
  r.mutable_plan();
  EXPECT_TRUE(CheckWatchOptions(r).ok());
  EXPECT_DOUBLE_EQ(CostChangeFraction(r), kDefaultMinCostChangeFraction);
  EXPECT_EQ(WatchTopN(r), kDefaultWatchTopN);
  r.set_min_cost_change_fraction(1e-7);
  EXPECT_NE(CheckWatchOptions(r).message().find("min_cost_change_fraction"), std::string::npos);
  r.set_min_cost_change_fraction(0.05);
  r.set_top_n(-1);
  EXPECT_NE(CheckWatchOptions(r).message().find("top_n"), std::string::npos);
}

}  // namespace
}  // namespace capplan::server
