#include "core/serving/engine_support.h"

#include "absl/strings/str_cat.h"

namespace capplan::core {

namespace {

// A 16-bit rate at least this multiple of the FP32 rate means tensor cores (V100: 125 vs
// 15.7 TFLOP/s; P100: 21.2 vs 10.6, P40: 0.18 vs 11.8).
constexpr double kTensorCoreRatio = 4.0;
// An INT8 rate above this multiple of FP32 means INT8 tensor cores (T4: 130 vs 8.1 TOPS);
// DP4A gives exactly 4x (V100: 62 vs 15.7).
constexpr double kInt8TensorRatio = 4.5;

bool AtLeast(GpuGeneration g, GpuGeneration floor) { return static_cast<int>(g) >= static_cast<int>(floor); }

bool IsNvidia(GpuGeneration g) { return !AtLeast(g, GpuGeneration::kAmdCdna2); }

// vLLM: "GPU: compute capability 7.0 or higher (e.g., V100, T4, ...)" in the installation
// requirements through v0.14.0 (https://docs.vllm.ai/en/v0.14.0/getting_started/installation/gpu/);
// "compute capability 7.5 or higher (e.g., T4, RTX20xx, A100, L4, H100, B200, etc.)" in
// vllm-project/vllm docs/getting_started/installation/gpu.cuda.inc.md at commit
// 0487d5c235baf6fdfb5ad1e0d97449ba548c68a0. Releases after 0.14 and an unstated version read as
// the later floor. ROCm: MI200s (gfx90a) and MI300 (gfx942) and newer; Intel Data Center GPUs.
// FP8 weights: the quantization hardware table (docs.vllm.ai/en/v0.9.2/features/quantization/
// supported_hardware.html) has FP8 W8A8 from Ada and the weight-only Marlin FP8 path from
// Ampere; neither on Volta or Turing.
std::string VllmProblem(EngineVersion v, GpuGeneration g, Precision weights) {
  if (g == GpuGeneration::kNvidiaPreVolta) return "vLLM needs NVIDIA compute capability 7.0 or newer";
  if (g == GpuGeneration::kNvidiaVolta && !(v.Known() && !v.AtLeast(0, 15))) {
    return "vLLM after v0.14 (and when no version is given) needs compute capability 7.5 or newer; an "
           "engine_version of 0.14 or earlier plans Volta";
  }
  if (weights == Precision::kFp8 && IsNvidia(g) && !AtLeast(g, GpuGeneration::kNvidiaAmpere)) {
    return "vLLM's FP8 weights need Ampere or newer (Marlin weight-only) or Ada or newer (W8A8)";
  }
  if (weights == Precision::kFp8 && g == GpuGeneration::kAmdCdna2) return "vLLM's FP8 weights need MI300 or newer";
  return "";
}

// TensorRT-LLM: NVIDIA only; its supported hardware is Ampere (A100), Ada Lovelace, Hopper and
// Blackwell (https://nvidia.github.io/TensorRT-LLM/supported-hardware.html; the 0.18.2 support
// matrix lists precisions for SM80/86, SM89 and SM90, FP8 from SM89).
std::string TensorRtLlmProblem(GpuGeneration g, Precision weights) {
  if (!IsNvidia(g)) return "TensorRT-LLM runs on NVIDIA GPUs only";
  if (!AtLeast(g, GpuGeneration::kNvidiaAmpere)) return "TensorRT-LLM supports Ampere (sm80) and newer";
  if (weights == Precision::kFp8 && !AtLeast(g, GpuGeneration::kNvidiaAdaOrNewer)) {
    return "TensorRT-LLM's FP8 needs Ada (sm89) or newer";
  }
  return "";
}

// SGLang: refuses NVIDIA parts below sm75 ("SGLang only supports sm 75 and above", as quoted
// in opendatalab/MinerU issue #3416); on AMD its kernels target CDNA3 and newer (gfx942,
// gfx950: docs.sglang.io, "AMD GPUs"). FP8 weights as for vLLM (Ampere weight-only fallback).
std::string SglangProblem(GpuGeneration g, Precision weights) {
  if (IsNvidia(g) && !AtLeast(g, GpuGeneration::kNvidiaTuring)) return "SGLang needs NVIDIA sm75 (Turing) or newer";
  if (g == GpuGeneration::kAmdCdna2) return "SGLang's ROCm kernels need MI300 (gfx942) or newer";
  if (weights == Precision::kFp8 && IsNvidia(g) && !AtLeast(g, GpuGeneration::kNvidiaAmpere)) {
    return "SGLang's FP8 weights need Ampere or newer";
  }
  return "";
}

}  // namespace

GpuGeneration GpuGenerationOf(const GpuSpec& gpu) {
  const bool fp8 = gpu.PeakFlops(Precision::kFp8) > 0;
  if (gpu.interconnect == Interconnect::kInfinityFabric) {
    return fp8 ? GpuGeneration::kAmdCdna3OrNewer : GpuGeneration::kAmdCdna2;
  }
  if (gpu.interconnect == Interconnect::kXeLink) return GpuGeneration::kIntelDataCenter;
  if (fp8) return GpuGeneration::kNvidiaAdaOrNewer;
  if (gpu.PeakFlops(Precision::kBf16) > 0) return GpuGeneration::kNvidiaAmpere;
  const double fp32 = gpu.PeakFlops(Precision::kFp32);
  if (gpu.PeakFlops(Precision::kFp16) < kTensorCoreRatio * fp32) return GpuGeneration::kNvidiaPreVolta;
  return gpu.PeakFlops(Precision::kInt8) > kInt8TensorRatio * fp32 ? GpuGeneration::kNvidiaTuring
                                                                   : GpuGeneration::kNvidiaVolta;
}

const char* GpuGenerationLabel(GpuGeneration g) {
  switch (g) {
    case GpuGeneration::kNvidiaPreVolta:
      return "Pascal or older (no tensor cores)";
    case GpuGeneration::kNvidiaVolta:
      return "Volta (compute capability 7.0)";
    case GpuGeneration::kNvidiaTuring:
      return "Turing (compute capability 7.5)";
    case GpuGeneration::kNvidiaAmpere:
      return "Ampere (compute capability 8.0/8.6)";
    case GpuGeneration::kNvidiaAdaOrNewer:
      return "Ada, Hopper or newer (FP8)";
    case GpuGeneration::kAmdCdna2:
      return "AMD CDNA2 (gfx90a)";
    case GpuGeneration::kAmdCdna3OrNewer:
      return "AMD CDNA3 or newer (gfx942+)";
    case GpuGeneration::kIntelDataCenter:
      return "Intel Data Center GPU";
  }
  return "unknown";
}

std::string EngineSupportProblem(ServingEngine engine, EngineVersion version, const GpuSpec& gpu, Precision weights) {
  const GpuGeneration g = GpuGenerationOf(gpu);
  std::string why;
  switch (engine) {
    case ServingEngine::kVllm:
      why = VllmProblem(version, g, weights);
      break;
    case ServingEngine::kTensorRtLlm:
      why = TensorRtLlmProblem(g, weights);
      break;
    case ServingEngine::kSglang:
      why = SglangProblem(g, weights);
      break;
    case ServingEngine::kLlamaCpp:
      break;  // CUDA, ROCm (HIP) and SYCL backends: every part the catalog lists
  }
  if (why.empty()) return why;
  return absl::StrCat(why, "; ", gpu.name, " reads as ", GpuGenerationLabel(g), " from its datasheet figures");
}

}  // namespace capplan::core
