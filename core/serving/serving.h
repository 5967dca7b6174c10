// Serving estimator: weights and KV-cache memory, prefill and decode latency from a roofline,
// the batch that maximises throughput under SLOs, replicas for an offered load, and cost.
// Formulas: Pope et al. 2022 ("Efficiently Scaling Transformer Inference"), kipply's
// "Transformer Inference Arithmetic" (2022), Kwon et al. 2023 (vLLM, paged KV cache),
// Agrawal et al. 2024 (Sarathi-Serve: chunked prefills share iterations with decodes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/assumptions.h"
#include "core/bottleneck.h"
#include "core/efficiency.h"
#include "core/fabric.h"
#include "core/gpu.h"
#include "core/model.h"
#include "core/precision.h"
#include "core/serving/serving_engine.h"

namespace capplan::core {

// Defaults, named in the assumptions registry (core/assumptions.h) with their sources: the
// share of replica capacity planned for (the rest absorbs bursts), the share of device memory
// an engine takes (vLLM's gpu_memory_utilization), and what the runtime holds outside it.
inline constexpr double kDefaultTargetUtilization = assumptions::kTargetUtilization.value.point;
// The smallest positive offered load (requests per second) a workload may state.
inline constexpr double kMinRequestsPerSecond = 1e-6;
inline constexpr double kUsableMemoryFraction = assumptions::kServingUsableMemoryFraction.value.point;
inline constexpr double kRuntimeReservedBytes = assumptions::kServingRuntimeReservedBytes.value.point;
// The most sequences one replica may hold in flight: engines run 2,000-8,000 and more when the
// KV cache allows (vLLM max_num_seqs and TensorRT-LLM max_batch_size are user-set; TensorRT-LLM's
// perf-overview captures CUDA graphs up to 8,192), so the KV cache, not this, binds in practice.
inline constexpr int64_t kMaxServingBatch = 16384;

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
  ServingEngine engine = ServingEngine::kVllm;
  EngineVersion engine_version;  // 0.0: not given (serving_engine.h)
  // Closed-loop load: this many requests in flight at all times across the deployment (vLLM
  // benchmark_serving --max-concurrency, SGLang bench_serving, genai-perf --concurrency), each
  // client sending its next request when the last completes; 0: open loop at
  // requests_per_second. Throughput then follows from Little's law, N / (TTFT + (OSL-1) x TPOT).
  int64_t concurrent_requests = 0;
  // True when a batch's requests arrive together (a static batch, an offline benchmark, a
  // burst): the i-th waits for the prefills queued ahead of it, and the at-batch estimate
  // reports the batch's mean first-token time and serial prefill-then-decode throughput.
  // False: requests arrive spread out and continuous batching overlaps chunked prefills
  // with decodes (Sarathi-Serve).
  bool batch_arrives_at_once = false;
};

// The default efficiencies for the workload's engine and weight precision on this GPU.
ServingEfficiency DefaultServingEfficiency(const ServingWorkload& w, const GpuSpec& gpu);

// Bytes per weight parameter: INT4 carries group-wise FP16 scale and zero point per 128
// weights (AWQ, Lin et al. 2023; GPTQ, Frantar et al. 2023), +0.03 bytes.
double WeightBytesPerParameter(Precision p);

struct ServingMemory {
  double weights_bytes = 0;          // per GPU
  double kv_bytes_per_token = 0;     // per GPU
  double kv_bytes_per_sequence = 0;  // per GPU, prompt + output tokens
  double overhead_bytes = 0;         // per GPU: the engine's unused share plus the runtime's reserve
  double activation_bytes = 0;       // per GPU: one iteration of max_batched_tokens (the engine's profile run)
  double kv_budget_bytes = 0;        // per GPU: what the engine gives the KV cache
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
  // The all-reduces at the pessimistic end (PCIe rings crossing CPU sockets; = comm_seconds
  // on NVLink-class parts and at tp=1). core/serving.cc, kAllReduceStepCrossSocketSeconds.
  double comm_seconds_high = 0;
  double overhead_seconds = 0;  // the engine's fixed per-iteration cost
  Bottleneck bound = Bottleneck::kMemoryBandwidth;
};

// One decode iteration for `batch` sequences whose mean context is `context_tokens`: weight
// reads (MoE: the experts the batch touches), KV reads at that context, the engine overhead.
absl::StatusOr<DecodeStep> EstimateDecodeStep(const ServingWorkload& w, const GpuSpec& gpu, int tp, int64_t batch,
                                              double context_tokens, const ServingEfficiency& eff);

struct PrefillEstimate {
  double seconds = 0;            // the prompt alone on an idle replica, to its first token
  double compute_seconds = 0;    // 2·N_active·P + causal attention FLOPs at the compute efficiency
  double memory_seconds = 0;     // one weight read per chunk
  double comm_seconds = 0;       // tensor-parallel all-reduces
  double comm_seconds_high = 0;  // the same at the pessimistic end (as DecodeStep's)
  double overhead_seconds = 0;
  int64_t chunks = 0;  // iterations of the engine's max_batched_tokens
  Bottleneck bound = Bottleneck::kCompute;
};

// The prefill of one `prompt_tokens` prompt at tp on an idle replica, chunked by the
// workload's engine token budget.
absl::StatusOr<PrefillEstimate> EstimatePrefill(const ServingWorkload& w, const GpuSpec& gpu, int tp,
                                                int64_t prompt_tokens, const ServingEfficiency& eff);

// Time to the first token of the `index`-th (0-based) of `burst_size` requests arriving
// together at an idle replica: the prefills queued ahead of it and its own, at the engine's
// token budget per iteration. No queueing before the burst.
absl::StatusOr<double> BurstFirstTokenSeconds(const ServingWorkload& w, const GpuSpec& gpu, int tp, int64_t burst_size,
                                              int64_t index, const ServingEfficiency& eff);

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
  int64_t requested_batch = 0;           // EstimateServingAtBatch: the batch asked for
  bool batch_limited_by_memory = false;  // the KV cache holds fewer; the engine runs `batch`
  double prefill_seconds = 0;            // the prompt alone (EstimatePrefill)
  double step_overhead_seconds = 0;      // the engine's per-iteration cost applied
  // The registered band the low-high came from (range.serving_nvidia or range.serving_other).
  const char* range_id = "";
};

// The development-set band of published over estimated speed that sets a serving estimate's
// low-high on this GPU: NVIDIA parts, or other vendors' (AMD Instinct, Intel).
const Assumption& ServingRangeFor(const GpuSpec& gpu);

// The estimate at a fixed batch (no SLO search). Fails with FailedPrecondition when the
// weights or one sequence's KV cache do not fit; a batch larger than the KV cache holds runs
// at the concurrency that fits, as the engines do (batch_limited_by_memory).
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
  // When the estimate is OK: one prompt alone on an idle replica, EstimatePrefill's answer
  // at this tp and the workload's prompt length (the search has both at hand).
  PrefillEstimate prefill;
};

// Remembers, across requests, the batch a search settled on. The batch searches of
// SearchServing, SearchMultiNodeServing and DisaggregatedStages read every input but the
// offered load (requests_per_second) and target_utilization, which only size the replicas
// once the batch is chosen; a scheduler's next question at another load skips the search.
// The caller keys a memo on the rest (`prefix`: the workload but those two, the whole GPU
// and the efficiencies; core/planner/serving_evaluator.cc) and each search appends its
// own part (kind, tp, pp, fabric). A null memo searches every time.
class BatchMemo {
 public:
  virtual ~BatchMemo() = default;
  virtual int64_t Find(const std::string& key) = 0;  // -1: not known
  virtual void Store(const std::string& key, int64_t batch) = 0;
};

struct BatchMemoRef {
  BatchMemo* memo = nullptr;
  std::string prefix;
  // prefix + the search's part, as raw bytes; `fabric` only for searches across nodes.
  std::string Key(char kind, int tp, int pp = 0, const Fabric* fabric = nullptr) const;
};

// Tries every tensor-parallel degree inside a node that divides the heads; the feasible
// ones ranked by total GPUs, then TPOT.
std::vector<ServingOption> SearchServing(const ServingWorkload& w, const GpuSpec& gpu, const ServingEfficiency& eff,
                                         const BatchMemoRef& memo = {});

// SearchServing in two steps. The options in tensor-parallel order, each estimate's replicas
// sized for w's load: everything else in them reads no load (requests_per_second,
// target_utilization), so a caller may keep them and size them again for another load.
std::vector<ServingOption> SearchServingUnranked(const ServingWorkload& w, const GpuSpec& gpu,
                                                 const ServingEfficiency& eff, const BatchMemoRef& memo = {});
// Sizes each feasible option's replicas for w's load (as the estimate does) and ranks them.
void SizeAndRankServingOptions(const ServingWorkload& w, std::vector<ServingOption>* options);

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
  ServingEngine engine = ServingEngine::kVllm;
  EngineVersion engine_version;  // 0.0: not given (serving_engine.h)
  // Closed-loop load: this many requests in flight at all times across the deployment (vLLM
  // benchmark_serving --max-concurrency, SGLang bench_serving, genai-perf --concurrency), each
  // client sending its next request when the last completes; 0: open loop at
  // requests_per_second. Throughput then follows from Little's law, N / (TTFT + (OSL-1) x TPOT).
  int64_t concurrent_requests = 0;
};

// Efficiencies for `w` on `gpu`: calibrated on the closest plausible benchmarks measured under
// `w.engine` on that GPU, or the defaults. A decode-dominated benchmark sets the bandwidth
// efficiency, a prefill-dominated one the compute efficiency, each solved so the estimate at
// the benchmark's own setup reproduces it; one where neither dominates scales both. A benchmark
// implying more than 100% of peak is not used, and the provenance says so.
ServingEfficiency ServingEfficiencyFor(const ServingWorkload& w, const GpuSpec& gpu,
                                       const std::vector<ServingBenchmark>& benchmarks);

// What the high (pessimistic) latency end of an estimate assumes beyond the low efficiencies,
// for its provenance; empty when nothing. `prefills_share_iterations`: decode iterations also
// carry new prompts (co-located continuous batching; false for a static batch or a
// disaggregated decode pool).
std::string PessimisticEndAssumptions(const ServingWorkload& w, const GpuSpec& gpu, int tp,
                                      bool prefills_share_iterations);

// Price per 1M requests: price_per_hour x 1e6 / (requests_per_second x 3600). A units slip
// seen in published tables divides by 1000 instead of 3600, overstating cost 3.6x.
double CostPerMillionRequests(double price_usd_per_hour, double requests_per_second);
double CostPerMillionTokens(double price_usd_per_hour, double tokens_per_second);

absl::Status ValidateServingWorkload(const ServingWorkload& w);

}  // namespace capplan::core
