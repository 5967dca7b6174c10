// Shared by the serving estimator's files (serving.cc, serving_memory.cc,
// serving_calibration.cc); not part of the public API.
#pragma once

#include "absl/status/statusor.h"
#include "core/serving/serving.h"

namespace capplan::core::serving_internal {

struct Shape {
  ParameterCounts counts;
  ModelArchitecture arch;
  bool inferred = false;
};

absl::StatusOr<Shape> ShapeOf(const ModelArchitecture& m);

// Input checks shared by every public entry point.
absl::Status Prechecks(const ServingWorkload& w, const GpuSpec& gpu, int tp);

ServingMemory MemoryOf(const ServingWorkload& w, const Shape& s, const GpuSpec& gpu, int tp);

// FailedPrecondition naming what does not fit (the weights, or one sequence's KV cache).
absl::Status DoesNotFit(const ServingWorkload& w, const ServingMemory& mem, const GpuSpec& gpu, int tp);

}  // namespace capplan::core::serving_internal
