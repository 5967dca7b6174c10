// Efficiency assumptions: the fraction of datasheet peak a workload reaches, with the range
// and where the number came from (a default constant with its citation, or a measured
// benchmark row it was calibrated on).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "core/gpu.h"

namespace capplan::core {

struct Efficiency {
  double point = 0;
  double low = 0;
  double high = 0;
  std::string source;        // human-readable: citation or "calibrated on benchmark #id"
  int64_t benchmark_id = 0;  // 0 for a default
};

// A measured figure from the catalog, with the model it was measured on already resolved.
enum class MeasuredUnit { kRequestsPerSecond, kTokensPerSecond, kSecondsPerStep };
enum class WorkloadKind { kTraining, kFineTuning, kServing };
// The stored names, in enum order (core/enum_names.h).
inline constexpr std::array<const char*, 3> kMeasuredUnitNames = {"requests_per_second", "tokens_per_second",
                                                                  "seconds_per_step"};
inline constexpr std::array<const char*, 3> kWorkloadKindNames = {"training", "fine_tuning", "serving"};
// What a training figure measures: steady-state throughput (what MFU describes), or the
// whole run's wall time including failures, restarts, checkpoints and evaluation.
enum class BenchmarkFigure { kSteadyState = 0, kEndToEnd };
inline constexpr std::array<const char*, 2> kBenchmarkFigureNames = {"steady_state", "end_to_end"};
const char* BenchmarkFigureName(BenchmarkFigure f);  // steady_state, end_to_end

}  // namespace capplan::core
