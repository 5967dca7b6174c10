// Serving estimator: weights and KV-cache memory, prefill and decode latency from a roofline,
// the batch that maximises throughput under SLOs, replicas for an offered load, and cost.
// Formulas: Pope et al. 2022 ("Efficiently Scaling Transformer Inference"), kipply's
// "Transformer Inference Arithmetic" (2022), Kwon et al. 2023 (vLLM, paged KV cache).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/efficiency.h"
#include "core/gpu.h"
#include "core/model.h"
#include "core/precision.h"
#include "core/training.h"

namespace capplan::core {

// Share of replica capacity planned for; the rest absorbs bursts and keeps queueing delay
// low (an M/D/1 queue at 70% load waits ~1.2 service times on average). An input.
inline constexpr double kDefaultTargetUtilization = 0.7;
// The smallest positive offered load (requests per second) a workload may state.
inline constexpr double kMinRequestsPerSecond = 1e-6;
// vLLM's default gpu_memory_utilization (Kwon et al. 2023; vLLM engine arguments): 90% of
// device memory for weights, activations and KV cache; the rest is CUDA context and slack.
inline constexpr double kUsableMemoryFraction = 0.9;

struct ServingWorkload {
  ModelArchitecture model;
  Precision weight_precision = Precision::kFp16;
  Precision kv_precision = Precision::kFp16;
  int64_t prompt_tokens = 512;
  int64_t output_tokens = 128;
  double requests_per_second = 1.0;  // offered load
  double ttft_slo_seconds = 0;       // 0: no target
  double tpot_slo_seconds = 0;
  double e2e_slo_seconds = 0;
  double target_utilization = kDefaultTargetUtilization;
};

struct ServingEfficiency {
  Efficiency bandwidth;  // achieved / peak memory bandwidth while decoding
  Efficiency compute;    // achieved / peak dense FLOP/s in prefill and compute-bound decode
};

// Defaults per GPU class, with sources.
ServingEfficiency DefaultServingEfficiency(const GpuSpec& gpu);

// Bytes per weight parameter: INT4 carries group-wise FP16 scale and zero point per 128
// weights (AWQ, Lin et al. 2023; GPTQ, Frantar et al. 2023), +0.03 bytes.
double WeightBytesPerParameter(Precision p);

struct ServingMemory {
  double weights_bytes = 0;          // per GPU
  double kv_bytes_per_token = 0;     // per GPU
  double kv_bytes_per_sequence = 0;  // per GPU, prompt + output tokens
  double overhead_bytes = 0;         // per GPU, reserved (1 - kUsableMemoryFraction)
  double capacity_bytes = 0;
  int64_t max_concurrent_sequences = 0;  // 0: the weights alone do not fit
};

// KV cache per token for the whole model: 2 (K and V) x layers x KV heads x head dim x bytes.
double KvBytesPerToken(const ModelArchitecture& shape, Precision kv_precision);

absl::StatusOr<ServingMemory> ServingMemoryPerGpu(const ServingWorkload& w, const GpuSpec& gpu, int tp);

struct DecodeStep {
  double seconds = 0;
  double memory_seconds = 0;
  double compute_seconds = 0;
  double comm_seconds = 0;
  Bottleneck bound = Bottleneck::kMemoryBandwidth;
};

// One decode iteration for `batch` sequences whose mean context is `context_tokens`.
absl::StatusOr<DecodeStep> EstimateDecodeStep(const ServingWorkload& w, const GpuSpec& gpu, int tp, int64_t batch,
                                              double context_tokens, const ServingEfficiency& eff);

struct ServingEstimate {
  int tp = 1;
  int64_t batch = 0;  // concurrent sequences per replica
  ServingMemory memory;
  double ttft_seconds = 0, ttft_seconds_low = 0, ttft_seconds_high = 0;
  double tpot_seconds = 0, tpot_seconds_low = 0, tpot_seconds_high = 0;
  double e2e_seconds = 0;
  double requests_per_second_per_replica = 0;
  double requests_per_second_low = 0, requests_per_second_high = 0;
  double output_tokens_per_second_per_replica = 0;
  int64_t replicas = 0;
  int64_t total_gpus = 0;
  Bottleneck bottleneck = Bottleneck::kMemoryBandwidth;
  bool shape_inferred = false;
};

// The estimate at a fixed batch (no SLO search). Fails with FailedPrecondition when the
// weights or the batch's KV cache do not fit.
absl::StatusOr<ServingEstimate> EstimateServingAtBatch(const ServingWorkload& w, const GpuSpec& gpu, int tp,
                                                       int64_t batch, const ServingEfficiency& eff);

// The largest batch within memory and the SLOs (throughput rises and latency grows with
// batch, so that is the best one). FailedPrecondition naming the binding limit when even a
// batch of one misses.
absl::StatusOr<ServingEstimate> EstimateServing(const ServingWorkload& w, const GpuSpec& gpu, int tp,
                                                const ServingEfficiency& eff);

struct ServingOption {
  absl::StatusOr<ServingEstimate> estimate;
  int tp = 1;
};

// Tries every tensor-parallel degree inside a node that divides the heads; the feasible
// ones ranked by total GPUs, then TPOT.
std::vector<ServingOption> SearchServing(const ServingWorkload& w, const GpuSpec& gpu, const ServingEfficiency& eff);

// A measured serving benchmark, model resolved.
struct ServingBenchmark {
  int64_t id = 0;
  std::string gpu_name;
  ModelArchitecture model;
  Precision precision = Precision::kFp16;
  int gpu_count = 1;  // tensor-parallel degree
  int64_t batch = 0;  // concurrency; 0 when not reported
  int64_t prompt_tokens = 0;
  int64_t output_tokens = 0;
  double value = 0;
  MeasuredUnit unit = MeasuredUnit::kRequestsPerSecond;  // or output tokens/s
  std::string citation;
};

// Efficiencies for `w` on `gpu`: scaled from the closest plausible benchmark for the GPU, or
// the defaults. A benchmark implying more than 100% of peak is not used, and the provenance
// says so.
ServingEfficiency ServingEfficiencyFor(const ServingWorkload& w, const GpuSpec& gpu,
                                       const std::vector<ServingBenchmark>& benchmarks);

// Price per 1M requests: price_per_hour x 1e6 / (requests_per_second x 3600). seeds/003's
// table divides by 1000 instead of 3600, overstating cost 3.6x.
double CostPerMillionRequests(double price_usd_per_hour, double requests_per_second);
double CostPerMillionTokens(double price_usd_per_hour, double tokens_per_second);

absl::Status ValidateServingWorkload(const ServingWorkload& w);

}  // namespace capplan::core
