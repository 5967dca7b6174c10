// The registry of assumptions: every number that decides an answer and is not a datasheet
// fact, with its range, unit and source (a publication a reader can open, or "heuristic:"
// and why). The estimators read these constants by name; provenance strings quote their ids;
// docs/estimator.md lists each one (a test keeps the two in step). To add one: a constant
// here, its entry in AllAssumptions() (assumptions.cc) and a row in docs/estimator.md.
#pragma once

#include <string>
#include <vector>

#include "core/range.h"

namespace capplan::core {

struct Assumption {
  const char* id;      // stable dotted name, e.g. "training.efficiency.nvlink"
  Range value;         // point, low and high, in `unit`
  const char* unit;    // "fraction", "bytes", "seconds", ...
  const char* source;  // citation, or "heuristic: why"
};

namespace assumptions {

// ---- Memory -----------------------------------------------------------------------------
inline constexpr Assumption kContextBytes{
    "memory.per_gpu_context_bytes",
    {1.5e9, 1.0e9, 2.0e9},
    "bytes",
    "heuristic: CUDA context (~300-500 MB, PyTorch 'CUDA semantics' notes) plus cuBLAS, cuDNN and "
    "NCCL workspaces; 1-2 GB per training process in practice, midpoint"};
inline constexpr Assumption kFragmentationFraction{
    "memory.allocator_fragmentation_fraction",
    {0.075, 0.05, 0.10},
    "fraction of allocated bytes",
    "heuristic: PyTorch's caching allocator rounds and splits blocks (PyTorch 'CUDA semantics', "
    "memory management); 5-10% is typical of long training runs, midpoint"};
inline constexpr Assumption kQloraBytesPerParameter{
    "memory.qlora_bytes_per_parameter",
    {(4.0 + 0.127) / 8.0, (4.0 + 0.127) / 8.0, (4.0 + 0.127) / 8.0},
    "bytes per parameter",
    "Dettmers et al. 2023, QLoRA, Sec. 3: NF4 at 4 bits plus double-quantised constants at 0.127 "
    "bits per parameter"};
inline constexpr Assumption kAdapterLogitBytes{
    "memory.adapter_logit_bytes_per_vocab_entry",
    {14.0, 4.0, 16.0},
    "bytes per token and vocabulary entry",
    "adapters (LoRA, QLoRA) train on the Hugging Face stack: Transformers' LlamaForCausalLM "
    "(PyTorch eager) upcasts the bf16 logits to fp32 and keeps them in the output, with the "
    "loss's fp32 log-softmax and, in backward, their fp32 gradients: ~14 bytes; fits the "
    "LLaMA-Factory wiki's QLoRA peaks from 2,048 to 32,768 tokens (docs/validation/README.md, "
    "Memory). Low: Megatron's fused fp32 cross-entropy, 4 bytes (Korthikanti et al. 2022, "
    "Sec. 4.3)"};
inline constexpr Assumption kServingUsableMemoryFraction{
    "serving.usable_memory_fraction",
    {0.9, 0.85, 0.95},
    "fraction of device memory",
    "vLLM engine arguments: gpu_memory_utilization defaults to 0.9 (Kwon et al. 2023)"};
inline constexpr Assumption kServingRuntimeReservedBytes{
    "serving.runtime_reserved_bytes",
    {1024.0 * 1024 * 1024, 0.5 * 1024 * 1024 * 1024, 1.5 * 1024 * 1024 * 1024},
    "bytes",
    "heuristic: the driver's reservation (an 80 GiB H100 reports 81,559 MiB in nvidia-smi) plus "
    "the CUDA context and CUDA-graph/NCCL buffers outside the engine's tensors"};
inline constexpr Assumption kServingUnreportedMemoryFraction{
    "serving.unreported_memory_fraction",
    {0.01, 0.0097, 0.018},
    "fraction of the catalog's device memory",
    "memory the driver keeps from CUDA: an 80 GiB H100 reports 79.22 GiB to vLLM (total_gpu_memory, "
    "vLLM PR #10511 comment of 2024-12-14, https://github.com/vllm-project/vllm/pull/10511) and 79.19 "
    "GiB (llm-d-incubation/llm-d-planner accuracy/results/v0.19.0/accuracy_report.md @ fbd68515); a "
    "24 GiB GeForce part 23.58 GiB (log in https://github.com/vllm-project/vllm/pull/14447); ~1% of "
    "the capacity"};
inline constexpr Assumption kServingTpCommunicationBufferBytes{
    "serving.tp_communication_buffer_bytes",
    {1.8 * 1024 * 1024 * 1024, 1.5 * 1024 * 1024 * 1024, 2.2 * 1024 * 1024 * 1024},
    "bytes per GPU at tensor parallelism > 1",
    "NCCL and custom all-reduce buffers outside PyTorch: vLLM's non_torch_memory grows from 1.79 "
    "GiB at tp 1 to 3.58 GiB at tp 2 (Llama-3-8B, H100; comment of 2024-12-14 on "
    "https://github.com/vllm-project/vllm/pull/10511) and "
    "from 0.25 to 2.07-2.13 GiB at tp 2-4 (vLLM v0.19.0, H100; llm-d-planner "
    "accuracy/results/v0.19.0/accuracy_report.md @ fbd68515, 'Sensitivity: Tensor Parallelism')"};

// ---- Communication ----------------------------------------------------------------------
inline constexpr Assumption kNvlinkCollectiveLatency{
    "collective.nvlink_latency_seconds",
    {10e-6, 5e-6, 20e-6},
    "seconds",
    "heuristic: order of magnitude of NCCL small-message all-reduce inside an NVLink node "
    "(NVIDIA nccl-tests); visible only at tiny messages"};
inline constexpr Assumption kPcieCollectiveLatency{
    "collective.pcie_latency_seconds",
    {30e-6, 15e-6, 60e-6},
    "seconds",
    "heuristic: NCCL small-message all-reduce over PCIe, ~3x NVLink (NVIDIA nccl-tests)"};
inline constexpr Assumption kPcieCrossSocketStepLatency{
    "collective.pcie_cross_socket_step_seconds",
    {292e-6 / 14.0, 292e-6 / 14.0, 292e-6 / 14.0},
    "seconds",
    "vLLM pull request #50941: 292 us per decode-sized all-reduce on 8 PCIe ranks across two "
    "sockets, 2(tp-1) = 14 ring steps"};
inline constexpr Assumption kUnoverlappedDpFraction{
    "training.unoverlapped_dp_fraction",
    {0.05, 0.0, 0.10},
    "fraction of the overlapped gradient traffic",
    "Li et al. 2020, 'PyTorch Distributed', Sec. 3.2.3: bucketed reduction overlaps backward "
    "except the last bucket; 5% charged"};
inline constexpr Assumption kHostLinkAchievedFraction{
    "training.host_link_achieved_fraction",
    {0.8, 0.6, 0.9},
    "fraction of the nominal PCIe x16 bandwidth",
    "heuristic: pinned-memory copies reach ~80% of PCIe's nominal rate (NVIDIA CUDA samples "
    "bandwidthTest: ~26 GB/s host-to-device of Gen4 x16's 32 GB/s); GPUs sharing a PCIe switch "
    "get less"};
inline constexpr Assumption kCpuOptimizerParametersPerSecond{
    "training.cpu_optimizer_parameters_per_second",
    {1.0e9, 0.3e9, 2.0e9},
    "parameters per second per GPU's shard",
    "heuristic: a vectorised CPU Adam (ZeRO-Offload, Ren et al. 2021, Sec. 5.1) is bound by host "
    "memory bandwidth: ~32 bytes per parameter (fp32 master, m and v read and written, gradient in, "
    "16-bit weight out) at ~40 GB/s, a two-socket host's ~300-400 GB/s shared by 8 GPUs"};
inline constexpr Assumption kHostMemoryBytesPerGpu{
    "training.host_memory_bytes_per_gpu",
    {250e9, 144e9, 250e9},
    "bytes of host memory per GPU for offloaded state",
    "NVIDIA DGX H100 datasheet: 2 TB of system memory for 8 GPUs (250 GB per GPU); low: AWS "
    "p4d.24xlarge, 1,152 GiB for 8 A100s (~144 GiB per GPU). Offloaded optimizer state, gradients "
    "and parameters must fit in it (ZeRO-Infinity's NVMe tier is not modelled)"};
inline constexpr Assumption kMoeRoutingImbalance{
    "training.moe_routing_imbalance",
    {1.05, 1.0, 1.25},
    "busiest expert's tokens over the mean",
    "yanring/Megatron-MoE-ModelZoo @ e865051, best_practice/mixtral/run_mixtral_8x22B.sh: Mixtral "
    "8x22B on 128 H100 runs dropless at ~445 TFLOP/s and at ~465 with forced load balancing, 4.5% "
    "of the step, with the routed experts ~80% of the FLOPs: ~1.05 on the experts' time. Bounds: "
    "Switch Transformer (Fedus et al. 2022, Sec. 2.2) caps an expert at 1.0-1.25x its even share; "
    "dropless training (Megablocks, Gale et al. 2023, arXiv 2211.15841) runs every token"};
inline constexpr Assumption kMoeAllToAllHidden{
    "training.moe_all_to_all_hidden",
    {0.0, 0.0, 1.0},
    "share of the expert-parallel all-to-all hidden by the interleaved schedule",
    "Megatron-Core MoE README: overlapping the EP all-to-all with another micro-batch's compute "
    "arrived in MCore v0.14 (2025/09) as an opt-in (--overlap-moe-expert-parallel-comm, combined "
    "1F1B); before it, and by default, the dispatch and combine sit on the critical path, as in "
    "the MoE Parallel Folding runs (Liu et al. 2025, arXiv 2504.14960, Sec. 4.4: communication "
    "over 70% of a fine-grained MoE layer's time). High: DeepSeek-V3's DualPipe (arXiv 2412.19437, "
    "Sec. 3.2.1) hides it completely"};
inline constexpr Assumption kMoePermutePasses{
    "training.moe_permute_passes",
    {8.0, 4.0, 12.0},
    "passes over each routed token copy (h elements) per MoE layer, forward and backward",
    "heuristic from Megatron-Core's token dispatcher (megatron/core/transformer/moe/moe_utils.py, "
    "permute and unpermute): the forward gathers each token's hidden state into its k expert "
    "slots (read + write) and scatter-adds the k outputs back (read + write), the backward mirrors "
    "both: 8 memory-bound passes over k x h elements per token, at the HBM bandwidth. Low: fused "
    "permutation (--moe-permute-fusion) saves about half; high: unfused with padding and probs"};

// ---- Compute efficiency -----------------------------------------------------------------
inline constexpr Assumption kFp8PeakUtilisation{
    "precision.fp8_peak_utilisation",
    {0.7, 0.6, 0.8},
    "fraction of the FP8 peak's efficiency",
    "NVIDIA Transformer Engine docs: FP8 training and inference gain ~1.3-1.5x over BF16, not 2x "
    "(attention, norms and casts stay 16-bit); 0.7 gives ~1.4x"};
inline constexpr Assumption kTrainingEfficiencyNvlink{
    "training.efficiency.nvlink",
    {0.55, 0.40, 0.65},
    "fraction of dense peak",
    "end-to-end MFU 38-52% (Narayanan et al. 2021, Table 1; Chowdhery et al. 2022, Table 3; "
    "Dubey et al. 2024, Table 4) with communication modelled separately"};
inline constexpr Assumption kTrainingEfficiencyPcie{
    "training.efficiency.pcie",
    {0.45, 0.30, 0.55},
    "fraction of dense peak",
    "heuristic: power-capped PCIe boards sustain less of peak than SXM parts at 44-52% MFU "
    "(Narayanan et al. 2021, Table 1)"};
inline constexpr Assumption kTrainingEfficiencyConsumer{
    "training.efficiency.consumer",
    {0.40, 0.25, 0.50},
    "fraction of dense peak",
    "heuristic: consumer parts throttle in racks and have smaller caches; no published MFU, so "
    "below datacenter parts (Narayanan et al. 2021, Table 1) with a wide range"};
inline constexpr Assumption kServingDecodeBandwidth{
    "serving.efficiency.decode_bandwidth",
    {0.70, 0.55, 0.85},
    "fraction of peak HBM bandwidth",
    "Databricks 2023, 'LLM Inference Performance Engineering: Best Practices': 60-80% model "
    "bandwidth utilisation for tuned servers"};
inline constexpr Assumption kServingPrefillCompute{
    "serving.efficiency.prefill_compute",
    {0.55, 0.40, 0.70},
    "fraction of dense peak",
    "large-GEMM efficiency of tensor-core engines (Narayanan et al. 2021, Table 1)"};
inline constexpr Assumption kServingPrefillComputeConsumer{
    "serving.efficiency.prefill_compute_consumer",
    {0.45, 0.30, 0.60},
    "fraction of dense peak",
    "heuristic: the datacenter figure lowered for consumer parts, whose clocks throttle in racks"};
inline constexpr Assumption kLlamaCppBandwidthDatacenter{
    "serving.efficiency.llama_cpp_bandwidth_hbm",
    {0.50, 0.35, 0.60},
    "fraction of peak HBM bandwidth",
    "XiongjieDai/GPU-Benchmarks-on-LLM-Inference README @00dd2bde: Llama 2 7B F16 eval on A100 "
    "80GB and H100 PCIe reaches 49-56% of peak bandwidth"};
inline constexpr Assumption kLlamaCppComputeDatacenter{
    "serving.efficiency.llama_cpp_compute_hbm",
    {0.20, 0.10, 0.35},
    "fraction of dense peak",
    "XiongjieDai/GPU-Benchmarks-on-LLM-Inference README @00dd2bde: F16 prompt processing at 22% "
    "of peak on A100 80GB, 13% on H100 PCIe"};
inline constexpr Assumption kLlamaCppBandwidthConsumer{
    "serving.efficiency.llama_cpp_bandwidth_consumer",
    {0.85, 0.70, 0.92},
    "fraction of peak bandwidth",
    "XiongjieDai/GPU-Benchmarks-on-LLM-Inference README @00dd2bde: F16 token generation at 81% "
    "(RTX 3090) and 91% (RTX 4080) of peak bandwidth"};
inline constexpr Assumption kLlamaCppComputeConsumer{
    "serving.efficiency.llama_cpp_compute_consumer",
    {0.45, 0.30, 0.60},
    "fraction of dense peak",
    "XiongjieDai/GPU-Benchmarks-on-LLM-Inference README @00dd2bde: RTX 3090 F16 prompt "
    "processing at 50% of its FP16-accumulate peak"};

// ---- Serving engines and vendors ----------------------------------------------------------
// Per-iteration host cost of each engine (scheduling, sampling, launches) and the vendor factors
// that scale the tensor-core engines' efficiencies on AMD Instinct parts (core/serving/serving_engine.cc).
inline constexpr Assumption kVllmLegacyStepOverhead{
    "serving.step_overhead.vllm_pre_0_6",
    {4.0e-3, 2.0e-3, 10.0e-3},
    "seconds per iteration",
    "vLLM blog 'vLLM v0.6.0: 2.7x Throughput Improvement and 5x Latency Reduction' (2024-09-05): "
    "before v0.6 the API server and scheduler kept the H100 idle for most of a Llama 3 8B step; "
    "heuristic: a few ms of host time per iteration"};
inline constexpr Assumption kVllmStepOverhead{
    "serving.step_overhead.vllm",
    {1.0e-3, 0.5e-3, 2.0e-3},
    "seconds per iteration",
    "vLLM v0.6 release blog (2024-09-05): multi-step scheduling and asynchronous output processing "
    "cut the host share of a step; heuristic: ~1 ms remains (vLLM 0.6-0.7, and when no version is given)"};
inline constexpr Assumption kVllmV1StepOverhead{
    "serving.step_overhead.vllm_v1",
    {0.5e-3, 0.3e-3, 1.0e-3},
    "seconds per iteration",
    "vLLM blog 'vLLM V1: A Major Upgrade to vLLM's Core Architecture' (2025-01-27): an isolated "
    "EngineCore busy loop, a persistent batch and piecewise CUDA graphs overlap host work with the "
    "GPU (up to 1.7x V0 throughput); V1 is the default from v0.8.0 (vLLM release notes)"};
inline constexpr Assumption kCppEngineStepOverhead{
    "serving.step_overhead.tensorrt_llm_sglang",
    {0.5e-3, 0.3e-3, 1.0e-3},
    "seconds per iteration",
    "SGLang v0.4 blog (2024-12-04): the overlap ('zero-overhead') scheduler hides CPU work; "
    "heuristic: TensorRT-LLM's C++ in-flight batching runtime alike"};
inline constexpr Assumption kLlamaCppStepOverhead{
    "serving.step_overhead.llama_cpp",
    {0.2e-3, 0.1e-3, 0.5e-3},
    "seconds per iteration",
    "heuristic: one C++ process with CUDA graphs for batch-1 decode (llama.cpp ggml-cuda)"};
inline constexpr Assumption kAmdInstinctBandwidthFactor{
    "serving.vendor.amd_instinct_bandwidth_factor",
    {0.90, 0.75, 1.0},
    "factor on the decode bandwidth efficiency",
    "AMD Instinct HBM sustains ~81% of the MI300X's 5.3 TB/s in measured streams against ~90% on "
    "H100 (aiweekly.co, 'AMD MI300X hits only 45% of peak FLOPs in practice', summarising a "
    "peer-reviewed measurement); 0.81 / 0.90 = 0.9, widened for less mature ROCm paged-attention kernels"};
inline constexpr Assumption kAmdInstinctComputeFactor{
    "serving.vendor.amd_instinct_compute_factor",
    {0.65, 0.50, 0.85},
    "factor on the prefill compute efficiency",
    "SemiAnalysis, 'MI300X vs H100 vs H200 Benchmark Part 1: Training' (2024-12-22): BF16 GEMMs "
    "reach ~620 of the MI300X's 1,307 TFLOP/s (47%) against ~720 of the H100's 989 (73%): 0.47 / "
    "0.73 = 0.65; AMD's 'Measuring Max-Achievable FLOPs - Part 2' (ROCm blogs) reaches more on "
    "ideal shapes, hence the high end"};

// ---- Calibration ------------------------------------------------------------------------
// Width of a range calibrated on one benchmark: base + per_decade x |log10(size ratio)| +
// precision_mismatch when the benchmark ran another precision.
inline constexpr Assumption kCalibrationWidthBase{
    "calibration.width_base",
    {0.10, 0.10, 0.10},
    "fraction of the calibrated efficiency",
    "heuristic: run-to-run and software-version spread of published throughput, ~10%"};
inline constexpr Assumption kCalibrationWidthPerDecade{
    "calibration.width_per_decade_of_size",
    {0.10, 0.10, 0.10},
    "fraction per decade of model size ratio",
    "heuristic: an efficiency measured on a model 10x smaller or larger transfers less well"};
inline constexpr Assumption kCalibrationWidthPrecisionMismatch{
    "calibration.width_precision_mismatch",
    {0.10, 0.10, 0.10},
    "fraction",
    "heuristic: an efficiency measured at another precision transfers less well"};
inline constexpr Assumption kServingBenchmarkPrecisionDistance{
    "calibration.serving_precision_distance",
    {0.7, 0.7, 0.7},
    "distance (log size-ratio units)",
    "heuristic: choosing a serving benchmark, another weight precision counts like a model ~2x "
    "(e^0.7) the size away"};
inline constexpr Assumption kServingBenchmarkLengthWeight{
    "calibration.serving_length_weight",
    {0.3, 0.3, 0.3},
    "distance per unit of |log length ratio|",
    "heuristic: request length matters less than model size when choosing a serving benchmark"};
inline constexpr Assumption kDominantShare{
    "calibration.serving_dominant_share",
    {0.7, 0.7, 0.7},
    "fraction of the figure's elasticity",
    "heuristic: a serving benchmark calibrates the bandwidth (or compute) efficiency alone when its "
    "figure moves at least 70% with it"};

// ---- Planning defaults ------------------------------------------------------------------
inline constexpr Assumption kGoodput{
    "training.goodput",
    {0.9, 0.8, 0.95},
    "fraction of wall time in useful steps",
    "Dubey et al. 2024 (Llama 3), Sec. 3.3.4: >90% effective training time on 16k H100s"};
inline constexpr Assumption kDefaultGlobalBatchTokens{
    "training.default_global_batch_tokens",
    {4.0 * 1024 * 1024, 4.0 * 1024 * 1024, 4.0 * 1024 * 1024},
    "tokens",
    "Touvron et al. 2023 (Llama 2), Table 1: 4M-token global batches"};
inline constexpr Assumption kBatchSpeedupWorthIt{
    "training.batch_speedup_worth_it",
    {0.05, 0.05, 0.05},
    "fraction of step-time speed-up",
    "McCandlish et al. 2018, Sec. 2: past the critical batch a doubled batch needs nearly twice "
    "the data; the search takes a larger batch only for >5% speed"};
inline constexpr Assumption kPue{
    "power.pue",
    {1.2, 1.1, 1.58},
    "ratio",
    "Uptime Institute Global Data Center Survey 2023: average PUE 1.58; hyperscalers ~1.1; 1.2 "
    "for a well-run colocation site"};
inline constexpr Assumption kTcoPriceMaxAgeDays{
    "tco.price_max_age_days",
    {180, 90, 365},
    "days",
    "heuristic: cloud GPU list prices moved by up to 45% within a year (AWS News Blog, June 2025, "
    "P5 on-demand cut); a TCO answer warns about catalog prices older than half a year"};
inline constexpr Assumption kImportPriceBandFactor{
    "import.price_band_factor",
    {4.0, 4.0, 4.0},
    "multiple of the GPU's reference per-GPU price band",
    "heuristic: the mistakes a price import must catch are a factor of 10 or more away (cents read "
    "as dollars 100x, a monthly price 730x, a per-VM price read per GPU 8x at 8 GPUs), while real "
    "offers of one GPU spread about 3x around the cited bands (AWS g6.16xlarge 4.92637 against "
    "g6.xlarge 0.8048 in aws/vms.csv v7 @ 001367d2); 4x lets the second through and stops the first"};
inline constexpr Assumption kTargetUtilization{
    "serving.target_utilization",
    {0.7, 0.5, 0.85},
    "fraction of replica capacity",
    "heuristic: an M/D/1 queue at 70% load waits ~1.2 service times on average"};

// ---- Multi-node serving (core/serving/serving_multinode.h) ------------------------------
inline constexpr Assumption kServingPpActivationTensors{
    "serving.pp_activation_tensors_per_token",
    {2.0, 2.0, 2.0},
    "hidden-size tensors per token per stage boundary",
    "vLLM vllm/model_executor/models/llama.py at commit e06c9ba2a6ea923a84add30f5dafaea126429b81: a "
    "pipeline stage hands the next IntermediateTensors {hidden_states, residual}"};
inline constexpr Assumption kServingPpMicroBatchesPerStage{
    "serving.pp_micro_batches_per_stage",
    {1.0, 1.0, 1.0},
    "micro-batches in flight per pipeline stage",
    "vLLM vllm/v1/executor/multiproc_executor.py at commit c5c40ab252786c8d25f9336824c6b805973974cd: "
    "max_concurrent_batches = pipeline_parallel_size, one batch per stage keeps every stage busy"};
inline constexpr Assumption kServingMaxPipelineStages{
    "serving.max_pipeline_stages",
    {8.0, 2.0, 8.0},
    "nodes per replica",
    "heuristic: the search's bound. Published deployments span 2 nodes (Llama 3 405B in BF16, "
    "arXiv 2407.21783 Sec. 6.1) to 4 (DeepSeek-V3's prefill unit, arXiv 2412.19437 Sec. 3.4.1); "
    "8 holds a 671B model in BF16 on 40 GB parts"};

// ---- Ranges from development-set residuals ----------------------------------------------
// An answer's low-high is its point times the band of published over estimated throughput
// that the development set shows for its regime (10th-90th percentile), not the product of
// pessimistic assumptions. Re-derived when the model changes (tests/server/published_runs_test.cc
// checks the bands against the residuals).
inline constexpr Assumption kRangeTrainingDense{
    "range.training_dense",
    {1.0, 0.858, 1.146},
    "published over estimated throughput",
    "development-set residuals, docs/validation/README.md: 10th-90th percentile of published over "
    "estimated throughput, 23 dense runs of tests/core/published_training_runs.h (GPU-hour rows "
    "inverted)"};
inline constexpr Assumption kRangeTrainingMoe{
    "range.training_moe",
    {1.0, 0.856, 1.129},
    "published over estimated throughput",
    "development-set residuals, docs/validation/README.md: 10th-90th percentile of published over "
    "estimated throughput, 9 MoE runs (tests/core/published_training_runs.h and "
    "published_moe_runs.h; GPU-hour rows inverted)"};
inline constexpr Assumption kRangeTrainingSharded{
    "range.training_sharded",
    {1.0, 0.757, 1.269},
    "published over estimated throughput",
    "development-set residuals, docs/validation/README.md: 10th-90th percentile of published over "
    "estimated throughput, 31 FSDP runs at 16-128 GPUs of tests/core/published_sharded_runs.h "
    "(mosaicml/llm-foundry benchmark tables)"};
// The serving bands are defined in assumptions.cc: they are re-derived whenever the serving
// model moves (tests/server/published_serving_test.cc checks them), and only that file rebuilds.
extern const Assumption kRangeServingNvidia;
extern const Assumption kRangeServingOther;

}  // namespace assumptions

// Every assumption above, in declaration order.
const std::vector<const Assumption*>& AllAssumptions();

// "id = point unit (low-high)": how provenance strings quote an assumption.
std::string Quote(const Assumption& a);

}  // namespace capplan::core
