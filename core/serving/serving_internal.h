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

// Counts and effective shape of a model ValidateServingWorkload has accepted (Prechecks runs it).
absl::StatusOr<Shape> ShapeOf(const ModelArchitecture& m);

// Input checks shared by every public entry point. `inputs_checked`: the caller has already
// validated the workload and the GPU (ValidateServingWorkload, ValidateGpu) for this call.
absl::Status Prechecks(const ServingWorkload& w, const GpuSpec& gpu, int tp, bool inputs_checked = false);

ServingMemory MemoryOf(const ServingWorkload& w, const Shape& s, const GpuSpec& gpu, int tp);

// FailedPrecondition naming what does not fit (the weights, or one sequence's KV cache).
absl::Status DoesNotFit(const ServingWorkload& w, const ServingMemory& mem, const GpuSpec& gpu, int tp);

// EstimateDecodeStep, EstimatePrefill and EstimateServingAtBatch for one workload, GPU and
// tensor-parallel size, with the input checks, the parameter count and the memory done once:
// the searches over batches (disaggregated decode pools, pipelines across nodes) call them
// dozens of times per layout, and repeating those was a sixth of a distinct serving Plan's
// CPU. Each answers exactly what the public function answers for the same arguments. Holds
// references to its arguments, which must outlive it.
class Stepper {
 public:
  // `inputs_checked`: as Prechecks', for a caller that validated once for many Steppers.
  Stepper(const ServingWorkload& w, const GpuSpec& gpu, int tp, const ServingEfficiency& eff,
          bool inputs_checked = false);
  // Prechecks' and the shape's verdict, and the memory at this tp (when they are OK): what
  // ServingMemoryPerGpu answers.
  const absl::Status& status() const { return status_; }
  const ServingMemory& memory() const { return mem_; }
  absl::StatusOr<DecodeStep> DecodeAt(int64_t batch, double context_tokens) const;
  absl::StatusOr<PrefillEstimate> PrefillOf(int64_t prompt_tokens) const;
  absl::StatusOr<ServingEstimate> AtBatch(int64_t batch) const;

 private:
  const ServingWorkload& w_;
  const GpuSpec& gpu_;
  int tp_;
  const ServingEfficiency& eff_;
  absl::Status status_;  // Prechecks, then the shape
  Shape shape_;
  ServingMemory mem_;
};

}  // namespace capplan::core::serving_internal
