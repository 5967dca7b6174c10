// Internals shared by the training estimator's files (training.cc, training_search.cc,
// training_calibration.cc): a job prepared for one cluster, and the per-layout evaluation.
// Not part of core's API.
#pragma once

#include "absl/status/statusor.h"
#include "core/assumptions.h"
#include "core/training/training.h"

namespace capplan::core::training_internal {

// Bytes the cross-entropy keeps per token and vocabulary entry. Full training: Megatron's fused
// fp32 cross-entropy, 4 (Korthikanti et al. 2022, Sec. 4.3; MosaicML llm-foundry's fused loss runs
// the published MPT micro-batches within it). Adapters (LoRA, QLoRA) are trained on the Hugging
// Face stack (PEFT with Transformers' models), whose fp32 logits copies cost more
// (memory.adapter_logit_bytes_per_vocab_entry).
inline double LogitBytesPerVocabEntry(TrainingMethod method) {
  return method == TrainingMethod::kFull ? 4.0 : assumptions::kAdapterLogitBytes.value.point;
}

// Everything about a job on a cluster that does not depend on the parallel layout.
struct Prepared {
  ParameterCounts counts;
  ModelArchitecture shape;
  bool shape_inferred = false;
  double trainable = 0;                                          // parameters with gradients and optimizer state
  double frozen_bytes_per_parameter = 0;                         // LoRA/QLoRA frozen base weights (0 for full training)
  double weight_bytes = 0, grad_bytes = 0, optimizer_bytes = 0;  // per trainable parameter
  // Parameters of one layer without its experts, one layer's experts (all of them), the
  // input embedding and the output head (0 when tied to the embedding).
  double layer_dense_params = 0, layer_expert_params = 0, embedding_params = 0, head_params = 0;
  double expert_active_params = 0;     // routed-expert parameters one token passes through, all layers
  double hw_flops_per_token_base = 0;  // before recompute
  double model_flops_per_token = 0;
  double dense_flops_per_token = 0;
  double attention_fwd_flops_per_token = 0;  // all layers
  double head_layer_equivalents = 0;         // the output head's compute in units of one layer's
  double peak_flops = 0;
  double global_sequences = 0;
  double activation_scale = 1;
  double act_elem_bytes = 2;
  const TrainingJob* job = nullptr;
  const ClusterSpec* cluster = nullptr;
  Fabric fabric;  // the cluster's, or FallbackFabric when it has none
};

// How layers are placed on pipeline stages: the busiest GPU's work in layer-equivalents
// (the output head counted on the last stage), and the layers of the first and last stage.
struct StageSplit {
  double slowest_load = 0;
  double first_layers = 0, last_layers = 0;
  double imbalance = 1;  // slowest load over the mean load
};

// Per-step figures at compute efficiency 1, from which any efficiency's step is derived.
struct Eval {
  MemoryBreakdown memory;
  bool fits = false;
  double micro_batches = 0;
  double steps = 0;
  double compute1 = 0;      // compute seconds per step at efficiency 1, slowest stage
  double kernel_scale = 1;  // GEMM efficiency of this micro-batch size relative to large ones
  double expert_scale = 1;  // MoE: the routed experts' grouped GEMM efficiency, same basis
  double permute = 0;       // MoE: memory-bound token permutation, seconds per step
  double tp_comm = 0, cp_comm_raw = 0, ep_comm = 0;
  double pp_send = 0;                   // one point-to-point send
  double dp_reduce = 0, dp_gather = 0;  // gradient reduce, parameter gather (seconds per step)
  // Host-link traffic with offload: gradients down (behind backward), parameters in per
  // micro-batch (ahead of use), and what cannot overlap (updated weights back, CPU step).
  double offload_grads = 0, offload_params = 0, offload_exposed = 0;
  double attention_share = 0;  // attention's share of the compute (for CP overlap)
  bool dp_over_network = false, pp_over_network = false, tp_cp_over_network = false, ep_over_network = false;
  double hw_flops_per_token = 0;
  StageSplit stages;
};

struct StepParts {
  double compute = 0, bubble = 0, tp = 0, cp = 0, ep = 0, pp = 0, dp_exposed = 0, offload = 0, total = 0;
};

absl::StatusOr<Prepared> Prepare(const TrainingJob& job, const ClusterSpec& cluster);
// Sets the global batch (sequences) a prepared job is evaluated at.
void SetGlobalBatch(Prepared* p, double global_batch_tokens);
StageSplit SplitStages(int64_t layers, int pp, double head_layer_equivalents);
// Memory and time of one layout at compute efficiency 1, into `e`.
// One step's communication (tensor, context, expert, pipeline, data parallel) and the host
// link traffic of offloaded state (training_comm.cc).
void CommFor(const Prepared& p, const ParallelConfig& par, Eval* e);
void Evaluate(const Prepared& p, const ParallelConfig& par, Eval* e);
// One step's parts at `efficiency`.
StepParts Step(const Eval& e, const ParallelConfig& par, double efficiency);
// The estimate a caller sees, at `efficiency`.
TrainingEstimate Materialize(const Prepared& p, const ParallelConfig& par, const Eval& e, const Efficiency& efficiency);
// The layout reasons a configuration cannot run on this cluster (tp beyond a node, a
// network needed where there is none); empty when it can.
std::string LayoutProblem(const Prepared& p, const ParallelConfig& par);

}  // namespace capplan::core::training_internal
