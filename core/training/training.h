// Training and fine-tuning estimator: memory per GPU, time, parallelism search and
// calibration. Formulas: Kaplan et al. 2020 (6ND), Narayanan et al. 2021 (Megatron-LM
// 3D parallelism, pipeline bubble), Korthikanti et al. 2022 (activation memory),
// Rajbhandari et al. 2020 (ZeRO), Dettmers et al. 2023 (QLoRA).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/assumptions.h"
#include "core/bottleneck.h"
#include "core/efficiency.h"
#include "core/fabric.h"
#include "core/gpu.h"
#include "core/model.h"
#include "core/precision.h"

namespace capplan::core {

enum class TrainingMethod { kFull = 0, kLora, kQlora };
// The stored names, in enum order (core/enum_names.h).
inline constexpr std::array<const char*, 3> kTrainingMethodNames = {"full", "lora", "qlora"};
enum class Optimizer { kAdamW = 0, kAdamW8bit, kSgdMomentum };
enum class Recompute { kNone = 0, kSelective, kFull };
const char* RecomputeName(Recompute r);
// What lives in host memory instead of the GPU's (ZeRO-Offload, Ren et al. 2021; ZeRO-Infinity,
// Rajbhandari et al. 2021; PyTorch FSDP CPUOffload): the optimizer state and gradients, with
// the optimizer step on the CPU; or also the 16-bit parameters, copied in per use.
enum class Offload { kNone = 0, kOptimizer, kOptimizerAndParameters };
const char* OffloadName(Offload o);

// Defaults, named in the assumptions registry (core/assumptions.h) with their sources.
inline constexpr double kDefaultGlobalBatchTokens = assumptions::kDefaultGlobalBatchTokens.value.point;
inline constexpr double kDefaultGoodput = assumptions::kGoodput.value.point;
inline constexpr double kDefaultPue = assumptions::kPue.value.point;

struct TrainingJob {
  ModelArchitecture model;
  double tokens = 0;  // D
  int64_t sequence_length = 4096;
  // Tokens per optimizer step. 0: searched over a sensible range (SearchParallelism);
  // EstimateTraining then uses kDefaultGlobalBatchTokens.
  double global_batch_tokens = kDefaultGlobalBatchTokens;
  Precision precision = Precision::kBf16;  // kFp32, or kBf16/kFp16/kFp8 mixed precision
  TrainingMethod method = TrainingMethod::kFull;
  Optimizer optimizer = Optimizer::kAdamW;
  int lora_rank = 16;  // LoRA/QLoRA adapters on every linear layer
  bool flash_attention = true;
  double goodput = kDefaultGoodput;
  double pue = kDefaultPue;
};

struct ParallelConfig {
  int tp = 1;  // tensor parallel (inside a node)
  int pp = 1;  // pipeline parallel
  int dp = 1;  // data parallel
  int zero_stage = 0;
  Recompute recompute = Recompute::kNone;
  bool sequence_parallel = true;  // with tp > 1 (Korthikanti et al. 2022)
  int64_t micro_batch = 1;        // sequences per micro-batch
  int vpp = 1;                    // virtual pipeline stages per GPU (interleaved 1F1B); 1: plain 1F1B
  int cp = 1;                     // context parallel: each sequence split over cp GPUs
  int ep = 1;                     // expert parallel (MoE): experts spread over ep of the dp x cp ranks
  // ZeRO/FSDP shard group (HSDP, MiCS): state sharded over this many of the dp x cp ranks and
  // replicated across the groups; 0: one group of all dp x cp ranks (plain ZeRO / FSDP).
  int shard_group = 0;
  Offload offload = Offload::kNone;
  int NumGpus() const { return tp * pp * cp * dp; }
  // The ranks ZeRO shards over.
  int ShardRanks() const { return shard_group > 0 ? shard_group : dp * cp; }

  // Every size a search chooses unset (0): tp, pp, dp, micro_batch, vpp, cp and ep; the rest
  // (zero_stage 0, no recompute, sequence parallel) as declared above. A published layout and
  // a caller's pins start from this and set what they know.
  static ParallelConfig Unset() {
    ParallelConfig p;
    p.tp = 0;
    p.pp = 0;
    p.dp = 0;
    p.micro_batch = 0;
    p.vpp = 0;
    p.cp = 0;
    p.ep = 0;
    return p;
  }
};

// The GPUs and how they are connected. A fabric that is not Known() is replaced by
// FallbackFabric(gpu).
struct ClusterSpec {
  ClusterSpec() = default;
  ClusterSpec(GpuSpec g, Fabric f = {}) : gpu(std::move(g)), fabric(f) {}  // NOLINT(google-explicit-constructor)
  GpuSpec gpu;
  Fabric fabric;
};

struct MemoryBreakdown {
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;
  double activations_bytes = 0;
  double kv_cache_bytes = 0;  // serving only
  double overhead_bytes = 0;
  double TotalBytes() const {
    return weights_bytes + gradients_bytes + optimizer_bytes + activations_bytes + kv_cache_bytes + overhead_bytes;
  }
};

struct TrainingEstimate {
  ParallelConfig parallel;
  MemoryBreakdown memory_per_gpu;
  double capacity_bytes = 0;
  bool fits = false;

  double dense_flops = 0;     // 6·N·D (4·N·D for adapters), N active parameters
  double model_flops = 0;     // dense_flops + attention 12·L·h·s·D; the MFU numerator
  double hardware_flops = 0;  // what the GPUs execute, recompute included
  double steps = 0;
  double micro_batches_per_step = 0;
  // Per step, at the point efficiency.
  double compute_seconds_per_step = 0;
  double bubble_seconds_per_step = 0;
  double tp_comm_seconds_per_step = 0;
  double pp_comm_seconds_per_step = 0;
  double dp_comm_exposed_seconds_per_step = 0;
  double offload_seconds_per_step = 0;  // host-link copies and the CPU optimizer step not hidden
  // MoE: the routed experts' grouped GEMMs relative to a large GEMM (roofline at the tokens each
  // expert receives; 1 for dense models) and the routing imbalance applied to them.
  double expert_gemm_efficiency = 1;
  double step_seconds = 0;

  double global_batch_tokens = 0;  // the batch this estimate is for (given or searched)
  // Steady state: steps x step time, what MFU describes. End to end: divided by goodput
  // (failures, restarts, checkpoints, evaluation).
  double steady_duration_seconds = 0;
  double steady_duration_seconds_low = 0;
  double steady_duration_seconds_high = 0;
  double duration_seconds = 0;       // end to end: wall clock, goodput included
  double duration_seconds_low = 0;   // the regime's residual band (range_band), fast end
  double duration_seconds_high = 0;  // its slow end
  double goodput = 0;
  double gpu_hours = 0;
  double model_tflops_per_gpu = 0;  // steady-state model FLOP/s per GPU / 1e12
  double mfu = 0;                   // model_tflops_per_gpu over the dense peak
  double tokens_per_second = 0;     // steady state, whole cluster
  double energy_kwh = 0;            // TDP x GPUs x duration x PUE
  Bottleneck bottleneck = Bottleneck::kCompute;
  bool shape_inferred = false;  // model given as a bare count: shape from aspect ratio
  Fabric fabric;                // the fabric the estimate assumed
  // The development-set regime whose residuals give low-high (assumptions::kRangeTraining*).
  const Assumption* range_band = nullptr;
};

absl::Status ValidateTrainingJob(const TrainingJob& job);
absl::Status ValidateParallelConfig(const ParallelConfig& p, const ModelArchitecture& shape);

// Trainable adapter parameters for LoRA of the given rank on every linear layer of each block
// (Q, K, V, O and the MLP matrices), the QLoRA paper's recommended placement.
double LoraParameters(const ModelArchitecture& shape, int rank);

// Korthikanti et al. 2022, Table 2: activation bytes of one transformer layer for one
// micro-batch, 16-bit activations.
double ActivationBytesPerLayer(const ModelArchitecture& shape, int64_t seq, int64_t micro_batch, int tp,
                               bool sequence_parallel, Recompute recompute, bool flash_attention);

// Memory per GPU for a configuration (no fit decision).
absl::StatusOr<MemoryBreakdown> TrainingMemoryPerGpu(const TrainingJob& job, const ParallelConfig& parallel);

// The host link a GPU copies offloaded state over, bytes per second per direction: PCIe Gen5
// x16 for FP8-capable HBM parts (H100, H200, B200, MI300X datasheets), Gen4 x16 otherwise, at
// the achieved share of nominal (assumptions::kHostLinkAchievedFraction).
double HostLinkBytesPerSecond(const GpuSpec& gpu);

// The development-set regime whose residuals give an answer's low-high: MoE, sharded (ZeRO-3 or
// offload) or dense (docs/validation/README.md).
const Assumption* TrainingRangeBand(const ModelArchitecture& model, const ParallelConfig& par);

// Default compute efficiency for a GPU class, with its sources.
Efficiency DefaultTrainingEfficiency(const GpuSpec& gpu, Precision precision);

// Full estimate of one configuration. Returns an estimate with fits=false when memory does
// not fit; InvalidArgument on bad input; FailedPrecondition when the GPU lacks the precision.
absl::StatusOr<TrainingEstimate> EstimateTraining(const TrainingJob& job, const ClusterSpec& cluster,
                                                  const ParallelConfig& parallel, const Efficiency& efficiency);

// A measured training or fine-tuning benchmark, its model resolved.
struct TrainingBenchmark {
  int64_t id = 0;
  std::string gpu_name;
  ModelArchitecture model;
  Precision precision = Precision::kBf16;
  TrainingMethod method = TrainingMethod::kFull;
  int gpu_count = 1;
  int64_t batch_sequences = 0;  // global batch, for seconds_per_step
  int64_t sequence_length = 0;
  double value = 0;
  MeasuredUnit unit = MeasuredUnit::kTokensPerSecond;  // cluster-wide tokens/s, or s/step
  // The published layout; zero fields were not published and are searched.
  ParallelConfig layout = ParallelConfig::Unset();
  BenchmarkFigure figure = BenchmarkFigure::kSteadyState;
  Fabric fabric;  // the run's cluster fabric; not Known(): the GPU's default
  std::string citation;
};

// The efficiency to use for `job` on `gpu`: calibrated on the closest benchmark for that GPU
// (nearest model size, same precision preferred), else the default. The measured model
// FLOP/s is converted to a compute efficiency by removing the communication the estimator
// itself would add for the benchmark's setup, so that the estimate reproduces it.
Efficiency TrainingEfficiency(const TrainingJob& job, const ClusterSpec& cluster,
                              const std::vector<TrainingBenchmark>& benchmarks);

struct SearchOptions {
  int max_gpus = 8;
  int min_gpus = 1;
  double deadline_seconds = 0;  // > 0: cheapest (fewest GPU-hours) meeting it; else fastest
  int top_k = 5;
  int max_rejections = 5;  // the closest misses kept
  // Parts of the layout fixed by the caller: tp, pp, dp, cp, vpp, ep (0: searched), and
  // zero_stage / micro_batch / offload / shard_group when pin_zero / micro_batch > 0 /
  // pin_offload / pin_shard_group (a pinned shard_group 0 is one group of every rank).
  ParallelConfig pinned = ParallelConfig::Unset();
  bool pin_zero = false;
  bool pin_recompute = false;
  bool pin_offload = false;
  bool pin_shard_group = false;
};

enum class LayoutRejectReason { kMemory, kDeadline, kBatch };

struct LayoutRejection {
  ParallelConfig parallel;
  LayoutRejectReason reason = LayoutRejectReason::kMemory;
  double needed_bytes = 0;
  double capacity_bytes = 0;
  double duration_seconds = 0;
  double deadline_seconds = 0;
  double global_batch_sequences = 0;  // kBatch: more data-parallel ranks than sequences
};

struct SearchResult {
  std::vector<TrainingEstimate> ranked;   // best first
  std::vector<LayoutRejection> rejected;  // closest misses first
  int64_t configurations_evaluated = 0;
};

// The global batches (tokens) a search tries: the job's, or when it is 0 a sensible range
// (0.5M-16M tokens, at least 1,000 steps).
std::vector<double> BatchCandidates(const TrainingJob& job);

// Enumerates GPU counts (powers of two and whole nodes within the budget), tensor parallel
// inside the fabric's node dividing the heads, context parallel for long sequences, any
// number of pipeline stages (uneven stages allowed) with interleaving, expert parallel for
// MoE, ZeRO stages, recompute, micro-batch sizes and, when the job leaves it 0, the global
// batch (BatchCandidates; the smallest batch within 5% of the best); ranks the feasible ones.
absl::StatusOr<SearchResult> SearchParallelism(const TrainingJob& job, const ClusterSpec& cluster,
                                               const Efficiency& efficiency, const SearchOptions& options);

// Why this configuration: the choices and what they buy, for people reading a plan.
std::string ExplainTraining(const TrainingEstimate& e, const GpuSpec& gpu);
// `job`, when given, leaves out levers it already pulls (LoRA for a LoRA or QLoRA run).
std::string DescribeRejection(const LayoutRejection& r, const GpuSpec& gpu, const TrainingJob* job = nullptr);

}  // namespace capplan::core
