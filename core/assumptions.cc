// The list of registered assumptions and how provenance quotes them.
#include "core/assumptions.h"

#include "absl/strings/str_format.h"

namespace capplan::core {

namespace assumptions {

const Assumption kRangeServingNvidia{
    "range.serving_nvidia",
    {1.0, 0.750, 1.187},
    "published over estimated speed (throughput, or estimated over published latency)",
    "development-set residuals, docs/validation/README.md: 10th-90th percentile (linear between "
    "ranks) over the 32 out-of-sample serving comparisons of tests/core/published_serving_results.h "
    "(all on NVIDIA parts); the slow end applies to the pessimistic schedule and links, the fast "
    "end to the point"};
const Assumption kRangeServingOther{
    "range.serving_other",
    {1.0, 0.577, 1.552},
    "published over estimated speed (throughput, or estimated over published latency)",
    "heuristic: the development set has no serving row on another vendor's part, so the NVIDIA "
    "band times the widest relative spread of the AMD Instinct vendor factors "
    "(serving.vendor.amd_instinct_*: compute 0.50/0.65 low, 0.85/0.65 high)"};

}  // namespace assumptions

const std::vector<const Assumption*>& AllAssumptions() {
  namespace a = assumptions;
  static const std::vector<const Assumption*> kAll = {
      &a::kContextBytes,
      &a::kFragmentationFraction,
      &a::kQloraBytesPerParameter,
      &a::kAdapterLogitBytes,
      &a::kServingUsableMemoryFraction,
      &a::kServingRuntimeReservedBytes,
      &a::kServingUnreportedMemoryFraction,
      &a::kServingTpCommunicationBufferBytes,
      &a::kNvlinkCollectiveLatency,
      &a::kPcieCollectiveLatency,
      &a::kPcieCrossSocketStepLatency,
      &a::kUnoverlappedDpFraction,
      &a::kHostLinkAchievedFraction,
      &a::kCpuOptimizerParametersPerSecond,
      &a::kHostMemoryBytesPerGpu,
      &a::kMoeRoutingImbalance,
      &a::kMoeAllToAllHidden,
      &a::kMoePermutePasses,
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
      &a::kVllmLegacyStepOverhead,
      &a::kVllmStepOverhead,
      &a::kVllmV1StepOverhead,
      &a::kCppEngineStepOverhead,
      &a::kLlamaCppStepOverhead,
      &a::kAmdInstinctBandwidthFactor,
      &a::kAmdInstinctComputeFactor,
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
      &a::kImportPriceBandFactor,
      &a::kTargetUtilization,
      &a::kServingPpActivationTensors,
      &a::kServingPpMicroBatchesPerStage,
      &a::kServingMaxPipelineStages,
      &a::kRangeTrainingDense,
      &a::kRangeTrainingMoe,
      &a::kRangeTrainingSharded,
      &a::kRangeServingNvidia,
      &a::kRangeServingOther,
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
