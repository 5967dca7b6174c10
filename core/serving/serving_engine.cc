// Engine profiles and default serving efficiencies. Every constant names its source; none is
// fitted to the validation rows in tests/core/published_serving_results.h.
#include "core/serving/serving_engine.h"

#include <algorithm>
#include <array>

#include "absl/strings/str_format.h"
#include "core/assumptions.h"
#include "core/enum_names.h"
#include "core/range.h"
#include "core/units.h"

namespace capplan::core {

namespace {

// 70 GiB: the device size above which vLLM raises its default token budget
// (vllm/engine/arg_utils.py, EngineArgs defaults for max_num_batched_tokens: 8192 for the
// OpenAI server on >= 70 GiB devices, 2048 below).
constexpr double kLargeDeviceBytes = 70.0 * units::kGiB;

// Weight-precision kernel factors, multiplied into the engine's base efficiencies.
struct KernelFactors {
  double bandwidth;
  double compute;
  const char* source;
};

KernelFactors KernelFor(const GpuSpec& gpu, Precision weights) {
  switch (weights) {
    case Precision::kFp8:
      if (gpu.PeakFlops(Precision::kFp8) > 0) {
        // W8A8 FP8 GEMMs run at the FP8 peak, but attention, norms and casts stay 16-bit:
        // published FP8 end-to-end gains are ~1.3-1.5x, not 2x (NVIDIA Transformer Engine
        // docs; the same 0.7 the training estimator applies, core/training.cc).
        return {1.0, assumptions::kFp8PeakUtilisation.value.point,
                "FP8 tensor-core kernels at 0.7 of the FP8 peak's efficiency (precision.fp8_peak_utilisation)"};
      }
      // Weight-only FP8 (Marlin FP8) dequantises into 16-bit GEMMs.
      return {0.9, 0.8, "weight-only FP8 dequantised into 16-bit GEMMs: x0.9 bandwidth, x0.8 compute (Marlin)"};
    case Precision::kInt8:
      // W8A16 weight-only kernels: near-ideal at small batch, dequantisation costs at large
      // batch (Frantar et al. 2024, MARLIN, Sec. 5; TensorRT-LLM weight-only INT8 docs).
      return {0.9, 0.8, "weight-only INT8 (W8A16) kernels: x0.9 bandwidth, x0.8 compute (MARLIN, Frantar 2024)"};
    case Precision::kInt4:
      // AWQ/GPTQ W4A16: Marlin reaches ~3.5-3.9x of FP16 at batch 1-32 against an ideal 4x
      // (bandwidth ~0.85-0.95 of ideal), AWQ GEMV kernels ~3x; at large batch the
      // dequantising GEMMs trail FP16 (Lin et al. 2024, AWQ, Sec. 5; Frantar et al. 2024).
      return {0.8, 0.6, "INT4 W4A16 kernels (AWQ/GPTQ/Marlin): x0.8 bandwidth, x0.6 compute (Lin 2024; Frantar 2024)"};
    default:
      return {1.0, 1.0, "16-bit kernels"};
  }
}

}  // namespace

const char* ServingEngineName(ServingEngine e) { return EnumName(e); }

VllmGeneration VllmGenerationOf(EngineVersion v) {
  if (!v.Known()) return VllmGeneration::kV0;
  // V1 became the default engine in v0.8.0 (vLLM release notes, Mar 2025); multi-step
  // scheduling and asynchronous output processing arrived in v0.6.0 (vLLM blog, 2024-09-05).
  if (v.AtLeast(0, 8)) return VllmGeneration::kV1;
  if (v.AtLeast(0, 6)) return VllmGeneration::kV0;
  return VllmGeneration::kLegacy;
}

ServingVendor ServingVendorOf(const GpuSpec& gpu) {
  return gpu.interconnect == Interconnect::kInfinityFabric ? ServingVendor::kAmdInstinct
                                                           : ServingVendor::kNvidiaOrOther;
}

bool MayRunUnchunked(ServingEngine e, EngineVersion version) {
  // V1 always chunks prefills (vLLM PR #11061, Dec 2024; the default engine from v0.8).
  if (e == ServingEngine::kVllm) return VllmGenerationOf(version) != VllmGeneration::kV1;
  return e == ServingEngine::kTensorRtLlm;
}

EngineProfile EngineProfileFor(ServingEngine e, const GpuSpec& gpu, int tp, EngineVersion version) {
  EngineProfile p;
  const bool large = gpu.memory_bytes >= kLargeDeviceBytes;
  switch (e) {
    case ServingEngine::kTensorRtLlm:
      // KvCacheConfig.free_gpu_memory_fraction = 0.9 of the memory free after the engine
      // loads (TensorRT-LLM docs, "How to Change KV Cache Behavior"); max_num_tokens 8192
      // (trtllm-serve default). In-flight batching in a C++ runtime: ~0.5 ms per iteration.
      p.memory_fraction = 0.9;
      p.fraction_of_free = true;
      p.max_batched_tokens = 8192;
      p.step_overhead_seconds = assumptions::kCppEngineStepOverhead.value.point;
      p.source = "TensorRT-LLM: KV cache 0.9 of free memory (free_gpu_memory_fraction), 8192 tokens per step";
      break;
    case ServingEngine::kSglang:
      // mem_fraction_static: 0.88 at tp=1, 0.87 at 2, 0.85 at 4, 0.81 at 8 and more (SGLang
      // server_args.py defaults); chunked_prefill_size 8192 on large GPUs, smaller below. The
      // overlap ("zero-overhead") scheduler hides most CPU work (SGLang v0.4 blog, Dec 2024).
      p.memory_fraction = tp >= 8 ? 0.81 : tp >= 4 ? 0.85 : tp >= 2 ? 0.87 : 0.88;
      p.max_batched_tokens = large ? 8192 : 2048;
      p.step_overhead_seconds = assumptions::kCppEngineStepOverhead.value.point;
      p.source = "SGLang: mem_fraction_static by tp (server_args.py), 8192-token prefill chunks (2048 under 70 GiB)";
      break;
    case ServingEngine::kLlamaCpp:
      // llama.cpp allocates the KV cache for the context it is given and a compute buffer
      // sized by n_ubatch (default 512 tokens; llama.cpp common/arg.cpp). One process, CUDA
      // graphs for batch-1 decode: small per-token host overhead.
      p.memory_fraction = 1.0;
      p.max_batched_tokens = 512;
      p.step_overhead_seconds = assumptions::kLlamaCppStepOverhead.value.point;
      p.source = "llama.cpp: KV cache sized to the context (no memory fraction), 512-token ubatch";
      break;
    case ServingEngine::kVllm:
    default:
      // gpu_memory_utilization 0.9 of the device (vLLM engine arguments); chunked prefill
      // with max_num_batched_tokens 8192 on >= 70 GiB devices, 2048 below (arg_utils.py).
      // Python scheduling and sampling between steps: the vLLM v0.6 release blog (Sep 2024)
      // measured CPU overhead as a large share of a Llama-3-8B H100 step before multi-step
      // scheduling and async output processing; ~1 ms remains per step.
      // By generation (VllmGenerationOf): before v0.6 the host work between steps was several
      // ms; V1 (v0.8+) overlaps it with the GPU.
      p.memory_fraction = 0.9;
      p.max_batched_tokens = large ? 8192 : 2048;
      switch (VllmGenerationOf(version)) {
        case VllmGeneration::kLegacy:
          p.step_overhead_seconds = assumptions::kVllmLegacyStepOverhead.value.point;
          break;
        case VllmGeneration::kV1:
          p.step_overhead_seconds = assumptions::kVllmV1StepOverhead.value.point;
          break;
        default:
          p.step_overhead_seconds = assumptions::kVllmStepOverhead.value.point;
      }
      p.source =
          "vLLM: gpu_memory_utilization 0.9, 8192-token chunked prefill (2048 under 70 GiB), step overhead by "
          "generation";
      break;
  }
  return p;
}

ServingEfficiency DefaultServingEfficiency(const GpuSpec& gpu) {
  return DefaultServingEfficiency(gpu, ServingEngine::kVllm, Precision::kFp16);
}

ServingEfficiency DefaultServingEfficiency(const GpuSpec& gpu, ServingEngine engine, Precision weights) {
  // Tensor-core engines (vLLM, TensorRT-LLM, SGLang). Decode reads every weight each step:
  // optimised kernels reach 60-80% of peak HBM bandwidth ("model bandwidth utilisation",
  // Databricks, LLM Inference Performance Engineering: Best Practices, 2023). Prefill GEMMs
  // are large; tensor cores sustain 50-70% of dense peak (Narayanan et al. 2021, Table 1);
  // consumer parts are cooled for desktop cases, not racks (heuristic), so 0.45.
  namespace a = assumptions;
  Range bw = a::kServingDecodeBandwidth.value;
  Range fl = a::kServingPrefillCompute.value;
  std::string bw_why = "decode bandwidth: 60-80% MBU of tuned servers (Databricks 2023)";
  std::string fl_why = "prefill compute: large-GEMM efficiency (Narayanan et al. 2021, Table 1)";
  if (!gpu.datacenter) {
    fl = a::kServingPrefillComputeConsumer.value;
    fl_why += ", lowered for a consumer part (clocks throttle in racks)";
  }
  if (engine == ServingEngine::kLlamaCpp) {
    // llama.cpp's own CUDA kernels, from llama.cpp's batch-1 tables in XiongjieDai/
    // GPU-Benchmarks-on-LLM-Inference (README, commit 00dd2bde; llama-bench and main on RunPod,
    // Dec 2023 and May 2024). Token generation, F16 weights: RTX 3090 Llama 3 8B tg512 47.40
    // tok/s x 16.06 GB = 761 GB/s = 81% of 936; RTX 4080 40.58 x 16.06 = 652 GB/s = 91% of
    // 716.8. On HBM parts about 0.6x that fraction: Llama 2 7B F16 eval 73.83 tok/s on an
    // A100 80GB (x 13.5 GB = 1.0 TB/s, 49-51%) and 83.32 on an H100 PCIe (1.12 TB/s, 56%).
    // Prompt processing with F16 weights: RTX 3090 Llama 3 8B pp512 4444.65 tok/s = 71 TFLOP/s
    // = 50% of its 142 TFLOP/s FP16-accumulate peak (ServingComputePeak); A100 80GB Llama 2 7B
    // 5105.77 tok/s = 69 TFLOP/s = 22% of 312, H100 PCIe 7367 = 99 TFLOP/s = 13% of 756.
    bw = gpu.datacenter ? a::kLlamaCppBandwidthDatacenter.value : a::kLlamaCppBandwidthConsumer.value;
    fl = gpu.datacenter ? a::kLlamaCppComputeDatacenter.value : a::kLlamaCppComputeConsumer.value;
    bw_why = "llama.cpp token generation, F16 tg tables (3090 81%, 4080 91%; A100/H100 PCIe 49-56%)";
    fl_why = "llama.cpp prompt processing, F16 pp tables (3090 50% of the FP16-accumulate peak; A100 22%)";
    if (!gpu.datacenter) fl_why += ", of twice the catalog's FP32-accumulate tensor peak (FP16 accumulation)";
  }
  if (engine != ServingEngine::kLlamaCpp && ServingVendorOf(gpu) == ServingVendor::kAmdInstinct) {
    // The tensor-core engines' ROCm builds (vLLM-ROCm, SGLang-ROCm) on AMD Instinct: HBM streams
    // and GEMMs reach a smaller share of the datasheet peaks than on NVIDIA parts.
    const Range vb = a::kAmdInstinctBandwidthFactor.value;
    const Range vc = a::kAmdInstinctComputeFactor.value;
    bw = {bw.point * vb.point, bw.low * vb.low, std::min(1.0, bw.high * vb.high)};
    fl = {fl.point * vc.point, fl.low * vc.low, std::min(1.0, fl.high * vc.high)};
    bw_why += absl::StrFormat(", x%.2f on AMD Instinct (serving.vendor.amd_instinct_bandwidth_factor)", vb.point);
    fl_why += absl::StrFormat(", x%.2f on AMD Instinct (serving.vendor.amd_instinct_compute_factor)", vc.point);
  }
  const KernelFactors k = KernelFor(gpu, weights);
  ServingEfficiency e;
  const std::string tail =
      absl::StrFormat("; %s; engine %s, %s weights", k.source, ServingEngineName(engine), PrecisionName(weights));
  const Range b = bw.Scaled(k.bandwidth);
  const Range f = fl.Scaled(k.compute);
  e.bandwidth = {b.point, b.low, b.high,
                 absl::StrFormat("default decode bandwidth efficiency %.2f (%.2f-%.2f) applied: %s x%.2f kernel",
                                 b.point, b.low, b.high, bw_why, k.bandwidth) +
                     tail};
  e.compute = {f.point, f.low, f.high,
               absl::StrFormat("default compute efficiency %.2f (%.2f-%.2f) applied: %s x%.2f kernel", f.point, f.low,
                               f.high, fl_why, k.compute) +
                   tail};
  return e;
}

double ServingComputePeak(const GpuSpec& gpu, Precision weights) {
  const double fp16 = gpu.PeakFlops(Precision::kFp16);
  switch (weights) {
    case Precision::kFp32:
    case Precision::kTf32:
      return gpu.PeakFlops(Precision::kTf32) > 0 ? gpu.PeakFlops(Precision::kTf32) : gpu.PeakFlops(Precision::kFp32);
    case Precision::kBf16:
      return gpu.PeakFlops(Precision::kBf16) > 0 ? gpu.PeakFlops(Precision::kBf16) : fp16;
    case Precision::kFp8:
      return gpu.PeakFlops(Precision::kFp8) > 0 ? gpu.PeakFlops(Precision::kFp8) : fp16;
    default:
      return fp16;
  }
}

double ServingComputePeak(const GpuSpec& gpu, Precision weights, ServingEngine engine) {
  // llama.cpp has no FP8 tensor-core path: every non-FP32 weight format meets the FP16 GEMM.
  const bool fp16_math = weights != Precision::kFp32 && weights != Precision::kTf32;
  if (engine == ServingEngine::kLlamaCpp && !gpu.datacenter && fp16_math) return 2.0 * gpu.PeakFlops(Precision::kFp16);
  return ServingComputePeak(gpu, weights);
}

}  // namespace capplan::core
