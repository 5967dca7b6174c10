// Serving one replica across nodes: tensor parallel inside each node, pipeline parallel across
// nodes, as vLLM runs a model too large for one node (vLLM "Distributed inference and serving":
// tensor_parallel_size = GPUs per node, pipeline_parallel_size = nodes) and as Meta served
// Llama 3 405B in BF16 on two 8 x H100 machines (Llama 3 paper, arXiv 2407.21783, Sec. 6.1).
//
// Each node holds ceil(layers / pp) layers (the heaviest stage bounds memory and time). vLLM
// keeps pp micro-batches in flight (max_concurrent_batches = pipeline_parallel_size, vllm/v1/
// executor/multiproc_executor.py): every stage works on one while the others are elsewhere in
// the pipeline, so a token of one sequence passes every stage and every boundary in turn, and
// the replica's throughput is one micro-batch per (slowest stage + one boundary). Each stage
// boundary carries the hidden states and the residual of every token of the iteration over
// the inter-node network (vllm/model_executor/models/llama.py, IntermediateTensors).
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/fabric.h"
#include "core/gpu.h"
#include "core/serving/serving.h"

namespace capplan::core {

// Pipeline stages (nodes) one replica may span; the search tries 2 up to this.
inline constexpr int kMaxServingPipelineStages = static_cast<int>(assumptions::kServingMaxPipelineStages.value.point);

struct MultiNodeServing {
  int tp = 1;                // GPUs per node: one pipeline stage, tensor parallel inside the node
  int pp = 1;                // nodes, one stage each
  int64_t micro_batch = 0;   // sequences per micro-batch; pp micro-batches in flight
  int64_t stage_layers = 0;  // layers on the heaviest stage
  NetworkKind network = NetworkKind::kNone;
  // One stage boundary of one decode iteration of a micro-batch: its activations, and the
  // latency plus those bytes over the node's share of the network (tp GPUs' NICs).
  double decode_hop_bytes = 0;
  double decode_hop_seconds = 0;
  // A prompt's activations across every boundary and the chunks' round trips, in TTFT.
  double prefill_hops_seconds = 0;
  double stage_step_seconds = 0;  // the heaviest stage's iteration on a micro-batch
  PrefillEstimate stage_prefill;  // one prompt on one stage: the pipeline's prefill rate
  // The whole replica: tp, batch (every micro-batch), memory per GPU of the heaviest stage,
  // latencies with the hops, requests/s, replicas for the load, total_gpus = replicas x tp x pp.
  ServingEstimate estimate;

  int64_t GpusPerReplica() const { return int64_t{tp} * pp; }
};

// A replica of tp GPUs per node on pp nodes of `fabric` at `batch` concurrent sequences (split
// into pp micro-batches; more than the KV cache holds runs at what fits, as
// EstimateServingAtBatch). InvalidArgument for a layout or fabric outside range, or a fabric
// with no network between nodes; FailedPrecondition when a stage's weights or one sequence
// per micro-batch do not fit.
absl::StatusOr<MultiNodeServing> EstimateMultiNodeServingAtBatch(const ServingWorkload& w, const GpuSpec& gpu,
                                                                 const Fabric& fabric, int tp, int pp, int64_t batch,
                                                                 const ServingEfficiency& eff);

// The largest batch within memory and the SLOs at tp x pp; FailedPrecondition naming the
// binding limit when none.
absl::StatusOr<MultiNodeServing> EstimateMultiNodeServing(const ServingWorkload& w, const GpuSpec& gpu,
                                                          const Fabric& fabric, int tp, int pp,
                                                          const ServingEfficiency& eff, const BatchMemoRef& memo = {});

// The tensor-parallel degree a stage takes on nodes of `gpus_per_node` GPUs: the largest power
// of two within the node that divides the heads; 0 when none.
int MultiNodeTensorParallel(const ServingWorkload& w, int gpus_per_node);

struct MultiNodeOption {
  absl::StatusOr<MultiNodeServing> serving;
  int tp = 1;
  int pp = 2;
};

// Every pipeline depth from 2 to kMaxServingPipelineStages (and at most the layers) at the
// node's tensor-parallel degree, fewest nodes first, stopping after `max_fitting` depths that
// fit (0: all). Empty when the fabric has no network.
std::vector<MultiNodeOption> SearchMultiNodeServing(const ServingWorkload& w, const GpuSpec& gpu, const Fabric& fabric,
                                                    const ServingEfficiency& eff, int max_fitting = 0,
                                                    const BatchMemoRef& memo = {});

}  // namespace capplan::core
