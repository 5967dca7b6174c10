// The assumptions registry is well formed, and what the estimators apply is what it says: a
// change to a registered value shows up in answers, and no estimator keeps a private copy.
#include "core/assumptions.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/calibration_width.h"
#include "core/serving/serving_engine.h"
#include "core/training/training.h"

namespace capplan::core {
namespace {

TEST(AssumptionsTest, EveryEntryHasAUniqueIdAUnitASourceAndAnOrderedRange) {
  std::set<std::string> ids;
  for (const Assumption* a : AllAssumptions()) {
    SCOPED_TRACE(a->id);
    EXPECT_TRUE(ids.insert(a->id).second) << "duplicate id";
    EXPECT_GT(std::string(a->unit).size(), 0u);
    // A citation a reader can open, or a stated heuristic with its reason.
    EXPECT_GT(std::string(a->source).size(), 20u);
    EXPECT_LE(a->value.low, a->value.point);
    EXPECT_LE(a->value.point, a->value.high);
  }
  EXPECT_GE(ids.size(), 30u);
}

TEST(AssumptionsTest, QuoteNamesTheIdValueAndRange) {
  EXPECT_EQ(Quote(assumptions::kTrainingEfficiencyNvlink),
            "training.efficiency.nvlink = 0.55 fraction of dense peak (0.4-0.65)");
  EXPECT_EQ(Quote(assumptions::kCalibrationWidthBase),
            "calibration.width_base = 0.1 fraction of the calibrated efficiency");
}

TEST(AssumptionsTest, DefaultTrainingEfficiencyIsTheRegisteredOneAndSaysSo) {
  GpuSpec sxm;
  sxm.name = "sxm";
  sxm.datacenter = true;
  sxm.interconnect = Interconnect::kNvlink;
  const Efficiency e = DefaultTrainingEfficiency(sxm, Precision::kBf16);
  EXPECT_EQ(e.point, assumptions::kTrainingEfficiencyNvlink.value.point);
  EXPECT_EQ(e.low, assumptions::kTrainingEfficiencyNvlink.value.low);
  EXPECT_EQ(e.high, assumptions::kTrainingEfficiencyNvlink.value.high);
  EXPECT_NE(e.source.find("training.efficiency.nvlink"), std::string::npos) << e.source;

  GpuSpec consumer = sxm;
  consumer.datacenter = false;
  EXPECT_EQ(DefaultTrainingEfficiency(consumer, Precision::kBf16).point,
            assumptions::kTrainingEfficiencyConsumer.value.point);
}

TEST(AssumptionsTest, DefaultServingEfficiencyIsTheRegisteredRangeTimesTheKernelFactor) {
  GpuSpec gpu;
  gpu.name = "hbm";
  gpu.datacenter = true;
  const ServingEfficiency e = DefaultServingEfficiency(gpu, ServingEngine::kVllm, Precision::kFp16);
  // 16-bit weights run at the kernel factor 1.0: the registered ranges as they stand.
  EXPECT_DOUBLE_EQ(e.bandwidth.point, assumptions::kServingDecodeBandwidth.value.point);
  EXPECT_DOUBLE_EQ(e.bandwidth.low, assumptions::kServingDecodeBandwidth.value.low);
  EXPECT_DOUBLE_EQ(e.compute.high, assumptions::kServingPrefillCompute.value.high);
}

TEST(AssumptionsTest, CalibrationWidthGrowsPerDecadeAndOnAPrecisionMismatch) {
  const double base = assumptions::kCalibrationWidthBase.value.point;
  EXPECT_DOUBLE_EQ(CalibrationWidth(1.0, false), base);
  // A benchmark model 10x (or 1/10) the size: one decade.
  EXPECT_DOUBLE_EQ(CalibrationWidth(10.0, false), base + assumptions::kCalibrationWidthPerDecade.value.point);
  EXPECT_DOUBLE_EQ(CalibrationWidth(0.1, false), CalibrationWidth(10.0, false));
  EXPECT_DOUBLE_EQ(CalibrationWidth(1.0, true), base + assumptions::kCalibrationWidthPrecisionMismatch.value.point);
}

}  // namespace
}  // namespace capplan::core
