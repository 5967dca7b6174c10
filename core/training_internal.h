// Internals shared by the training estimator's files (training.cc, training_calibration.cc):
// a job prepared for one GPU type, and the per-layout evaluation. Not part of core's API.
#pragma once

#include "absl/status/statusor.h"
#include "core/training.h"

namespace capplan::core::training_internal {

// Everything about a job on a GPU type that does not depend on the parallel layout.
struct Prepared {
  ParameterCounts counts;
  ModelArchitecture shape;
  bool shape_inferred = false;
  double trainable = 0;                                          // parameters with gradients and optimizer state
  double frozen_base_bytes = 0;                                  // LoRA/QLoRA base weights
  double weight_bytes = 0, grad_bytes = 0, optimizer_bytes = 0;  // per trainable parameter
  double hw_flops_per_token_base = 0;                            // before recompute
  double model_flops_per_token = 0;
  double dense_flops_per_token = 0;
  double attention_fwd_flops_per_token = 0;
  double peak_flops = 0;
  double global_sequences = 0;
  double activation_scale = 1;
  double act_elem_bytes = 2;
  const TrainingJob* job = nullptr;
  const ClusterSpec* cluster = nullptr;
  Fabric fabric;  // the cluster's, or FallbackFabric when it has none
};

// Per-step figures at compute efficiency 1, from which any efficiency's step is derived.
struct Eval {
  MemoryBreakdown memory;
  bool fits = false;
  double micro_batches = 0;
  double steps = 0;
  double compute1 = 0;  // compute seconds per step at efficiency 1
  double tp_comm = 0, pp_comm = 0, dp_raw = 0;
  bool dp_over_network = false, pp_over_network = false;
  double hw_flops_per_token = 0;
};

struct StepParts {
  double compute, bubble, dp_exposed, total;
};

absl::StatusOr<Prepared> Prepare(const TrainingJob& job, const ClusterSpec& cluster);
// Memory and time of one layout at compute efficiency 1, into `e`.
void Evaluate(const Prepared& p, const ParallelConfig& par, Eval* e);
// One step's parts at `efficiency`.
StepParts Step(const Eval& e, const ParallelConfig& par, double efficiency);
// The estimate a caller sees, at `efficiency`.
TrainingEstimate Materialize(const Prepared& p, const ParallelConfig& par, const Eval& e, const Efficiency& efficiency);

}  // namespace capplan::core::training_internal
