// Spot training overhead: the checkpoint interval and the wall time lost to checkpoints,
// interruptions and restarts, against Young's optimum (J. W. Young 1974, "A first order
// approximation to the optimum checkpoint interval", CACM 17(9): sqrt(2 x checkpoint time x
// mean time between interruptions)) with Daly's first-order correction (J. T. Daly 2006, "A
// higher order estimate of the optimum checkpoint interval for restart dumps", FGCS 22(3):
// minus one checkpoint time while it is under half that mean time).
#include "core/planner/spot.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/units.h"

namespace capplan::core::planner {
namespace {

// A run whose GPUs each write 60 GB of weights and optimizer state per checkpoint: 60 s at
// the 1 GB/s per GPU spot.h assumes.
TrainingEstimate SixtyGbPerGpu() {
  TrainingEstimate e;
  e.memory_per_gpu.weights_bytes = 20e9;
  e.memory_per_gpu.optimizer_bytes = 40e9;
  return e;
}

constexpr double kMonthSeconds = units::kHoursPerMonth * units::kSecondsPerHour;

TEST(SpotOverheadTest, IntervalIsYoungsOptimumLessOneCheckpoint) {
  // 4 instances each interrupted 0.3 times a month: one interruption every month / 1.2.
  const SpotOverhead o = SpotTrainingOverhead(SixtyGbPerGpu(), 4, 0.3);
  const double d = 60, m = kMonthSeconds / 1.2;
  EXPECT_DOUBLE_EQ(o.checkpoint_seconds, d);
  EXPECT_DOUBLE_EQ(o.mtbi_seconds, m);
  EXPECT_NEAR(o.interval_seconds, std::sqrt(2 * d * m) - d, 1e-6);
  // At Young's optimum the time lost to checkpoints and rework is ~sqrt(2 d / M); each
  // interruption also costs its 10-minute restart (spot.h).
  EXPECT_NEAR(o.fraction, std::sqrt(2 * d / m) + kSpotRestartSeconds / m, 0.05 * std::sqrt(2 * d / m));
  EXPECT_NE(o.note.find("the request's"), std::string::npos) << o.note;
}

TEST(SpotOverheadTest, MoreInstancesAreInterruptedMoreOften) {
  const SpotOverhead few = SpotTrainingOverhead(SixtyGbPerGpu(), 1, 0.15);
  const SpotOverhead many = SpotTrainingOverhead(SixtyGbPerGpu(), 64, 0.15);
  EXPECT_NEAR(few.mtbi_seconds / many.mtbi_seconds, 64, 1e-9);
  EXPECT_LT(many.interval_seconds, few.interval_seconds);
  EXPECT_GT(many.fraction, few.fraction);
}

TEST(SpotOverheadTest, NoRateGivenUsesTheAdvisorBandsUpperEdge) {
  const SpotOverhead o = SpotTrainingOverhead(SixtyGbPerGpu(), 1, 0);
  EXPECT_DOUBLE_EQ(o.mtbi_seconds, kMonthSeconds / kDefaultSpotInterruptionsPerMonth);
  EXPECT_NE(o.note.find("assumed"), std::string::npos) << o.note;
}

TEST(SpotOverheadTest, CheckpointsLongerThanHalfTheMeanTimeCheckpointOncePerInterruption) {
  // 1 TB per GPU (1000 s) on 10,000 instances at 15% a month: an interruption every ~1750 s,
  // under twice the checkpoint, where Daly's first-order form no longer applies.
  TrainingEstimate e;
  e.memory_per_gpu.weights_bytes = 1e12;
  const SpotOverhead o = SpotTrainingOverhead(e, 10000, 0.15);
  EXPECT_DOUBLE_EQ(o.interval_seconds, o.mtbi_seconds);
  EXPECT_GT(o.fraction, 0.5);  // most of the wall time is lost: spot is a poor fit
  EXPECT_TRUE(std::isfinite(o.fraction));
}

}  // namespace
}  // namespace capplan::core::planner
