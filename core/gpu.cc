// Validation of GPU figures before any estimator divides by them.
#include "core/gpu.h"

#include "core/validate.h"

namespace capplan::core {

absl::Status ValidateGpu(const GpuSpec& gpu) {
  // Ranges cover every part from a 2016 P40 to 2025 parts with margin; outside them the
  // figure is a unit slip (GB for bytes, TFLOPS for FLOP/s).
  CAPPLAN_RETURN_IF_ERROR(CheckRange("gpu.memory_bytes", gpu.memory_bytes, 1e9, 1e13));
  CAPPLAN_RETURN_IF_ERROR(
      CheckRange("gpu.memory_bandwidth_bytes_per_second", gpu.memory_bandwidth_bytes_per_second, 1e10, 1e14));
  bool any = false;
  for (int i = 0; i < kNumPrecisions; ++i) {
    const double f = gpu.peak_flops_per_second[i];
    if (!(f >= 0 && f <= 1e17)) {
      return CheckRange(absl::StrCat("gpu.peak_flops_per_second[", PrecisionName(static_cast<Precision>(i)), "]"), f,
                        0.0, 1e17);
    }
    any = any || f > 0;
  }
  if (!any) return FieldError("gpu.peak_flops_per_second", "needs at least one precision > 0");
  CAPPLAN_RETURN_IF_ERROR(CheckRange("gpu.tdp_watts", gpu.tdp_watts, 1.0, 5000.0));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("gpu.interconnect_bandwidth_bytes_per_second",
                                     gpu.interconnect_bandwidth_bytes_per_second, 1e8, 1e13));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("gpu.gpus_per_node", static_cast<int64_t>(gpu.gpus_per_node), 1, 64));
  return absl::OkStatus();
}

}  // namespace capplan::core
