// The list of registered assumptions and how provenance quotes them.
#include "core/assumptions.h"

#include "absl/strings/str_format.h"

namespace capplan::core {

const std::vector<const Assumption*>& AllAssumptions() {
  namespace a = assumptions;
  static const std::vector<const Assumption*> kAll = {
      &a::kContextBytes,
      &a::kFragmentationFraction,
      &a::kQloraBytesPerParameter,
      &a::kServingUsableMemoryFraction,
      &a::kServingRuntimeReservedBytes,
      &a::kNvlinkCollectiveLatency,
      &a::kPcieCollectiveLatency,
      &a::kPcieCrossSocketStepLatency,
      &a::kUnoverlappedDpFraction,
      &a::kHostLinkAchievedFraction,
      &a::kCpuOptimizerParametersPerSecond,
      &a::kMoeRoutingImbalance,
      &a::kFp8PeakUtilisation,
      &a::kTrainingEfficiencyNvlink,
      &a::kTrainingEfficiencyPcie,
      &a::kTrainingEfficiencyConsumer,
      &a::kServingDecodeBandwidth,
      &a::kServingPrefillCompute,
      &a::kServingPrefillComputeConsumer,
      &a::kLlamaCppBandwidthDatacenter,
      &a::kLlamaCppComputeDatacenter,
      &a::kLlamaCppBandwidthConsumer,
      &a::kLlamaCppComputeConsumer,
      &a::kCalibrationWidthBase,
      &a::kCalibrationWidthPerDecade,
      &a::kCalibrationWidthPrecisionMismatch,
      &a::kServingBenchmarkPrecisionDistance,
      &a::kServingBenchmarkLengthWeight,
      &a::kDominantShare,
      &a::kGoodput,
      &a::kDefaultGlobalBatchTokens,
      &a::kBatchSpeedupWorthIt,
      &a::kPue,
      &a::kTcoPriceMaxAgeDays,
      &a::kTargetUtilization,
      &a::kServingPpActivationTensors,
      &a::kServingPpMicroBatchesPerStage,
      &a::kServingMaxPipelineStages,
      &a::kRangeTrainingDense,
      &a::kRangeTrainingMoe,
      &a::kRangeTrainingSharded,
  };
  return kAll;
}

std::string Quote(const Assumption& a) {
  if (a.value.low == a.value.point && a.value.high == a.value.point) {
    return absl::StrFormat("%s = %.4g %s", a.id, a.value.point, a.unit);
  }
  return absl::StrFormat("%s = %.4g %s (%.4g-%.4g)", a.id, a.value.point, a.unit, a.value.low, a.value.high);
}

}  // namespace capplan::core
