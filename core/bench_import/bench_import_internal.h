// Shared by the bench_import readers: numbers on a log line, medians, steady-state steps.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace capplan::core::bench_import::internal {

// A figure no run reaches: tokens, requests or samples per second.
inline constexpr double kMaxThroughput = 1e9;
// A benchmark row's token and batch counts (store::ValidateBenchmarkRow) are at most 2^24.
inline constexpr int64_t kMaxRowCount = int64_t{1} << 24;
// Step and iteration numbers.
inline constexpr int64_t kMaxStepNumber = int64_t{1} << 40;

// The number right after `key` on `line` (spaces skipped; thousands separators, as in
// torchtitan's "tps: 7,034", dropped); nullopt when `key` is absent or no number follows.
std::optional<double> NumberAfter(absl::string_view line, absl::string_view key);

// The median (the mean of the middle two for an even count); `values` is not empty.
double Median(std::vector<double> values);

// One logged training step.
struct StepRecord {
  double value = 0;   // tps (torchtitan) or milliseconds per iteration (Megatron-LM)
  double extra = 0;   // mfu % (torchtitan) or TFLOP/s/GPU (Megatron-LM); 0: not logged
  int64_t batch = 0;  // Megatron-LM's global batch size
};

// The steady-state steps: every logged step after the first one and after `warmup_steps`.
std::vector<std::pair<int64_t, StepRecord>> SteadySteps(const std::map<int64_t, StepRecord>& steps,
                                                        int64_t warmup_steps);

// "first..last" of the steps used, for notes.
std::string StepSpan(const std::vector<std::pair<int64_t, StepRecord>>& steps);

}  // namespace capplan::core::bench_import::internal
