// A GPU type as the estimators see it: datasheet figures, dense (not sparse) throughput.
#pragma once

#include <array>
#include <string>

#include "absl/status/status.h"
#include "core/precision.h"

namespace capplan::core {

enum class Interconnect { kPcie = 0, kNvlink, kInfinityFabric, kXeLink };
// The stored names, in enum order (core/enum_names.h).
inline constexpr std::array<const char*, 4> kInterconnectNames = {"pcie", "nvlink", "infinity_fabric", "xe_link"};

struct GpuSpec {
  std::string name;
  double memory_bytes = 0;
  double memory_bandwidth_bytes_per_second = 0;
  // Dense peak FLOP/s per precision; 0 where the part has no such math path.
  std::array<double, kNumPrecisions> peak_flops_per_second{};
  double tdp_watts = 0;
  Interconnect interconnect = Interconnect::kPcie;
  // Per GPU, one direction, inside a node.
  double interconnect_bandwidth_bytes_per_second = 0;
  int gpus_per_node = 1;
  bool datacenter = true;

  double PeakFlops(Precision p) const { return peak_flops_per_second[static_cast<int>(p)]; }
};

// Checks the figures an estimator divides by or compares against.
absl::Status ValidateGpu(const GpuSpec& gpu);

}  // namespace capplan::core
