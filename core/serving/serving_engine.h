// The serving engine as an input: how much memory each engine plans over, its per-step token
// budget (chunked prefill), its fixed per-step overhead, and the default efficiencies it
// reaches per GPU class and weight precision, each with its source.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "core/efficiency.h"
#include "core/gpu.h"
#include "core/precision.h"

namespace capplan::core {

enum class ServingEngine { kVllm = 0, kTensorRtLlm, kSglang, kLlamaCpp };
inline constexpr int kNumServingEngines = 4;
// The stored names, in enum order (core/enum_names.h).
inline constexpr std::array<const char*, kNumServingEngines> kServingEngineNames = {"vllm", "tensorrt_llm", "sglang",
                                                                                    "llama_cpp"};

// vllm, tensorrt_llm, sglang, llama_cpp.
const char* ServingEngineName(ServingEngine e);
constexpr bool IsValidServingEngine(int value) { return value >= 0 && value < kNumServingEngines; }

// An engine release as major.minor (0.0: not given, the profile of the engine's current
// defaults as documented here). Matters to vLLM, whose host overhead and chunked-prefill default
// changed with v0.6 (multi-step scheduling) and v0.8 (the V1 engine by default).
struct EngineVersion {
  int major = 0;
  int minor = 0;
  bool Known() const { return major > 0 || minor > 0; }
  bool AtLeast(int maj, int min) const { return major > maj || (major == maj && minor >= min); }
};
inline constexpr int kMaxEngineVersionComponent = 999;

// The vLLM generation a version selects: before v0.6, v0.6-v0.7 (V0 with multi-step scheduling),
// v0.8 and later (V1). Unknown versions read as v0.6-v0.7, the profile capplan has always used.
enum class VllmGeneration { kLegacy, kV0, kV1 };
VllmGeneration VllmGenerationOf(EngineVersion v);

// The accelerator vendors whose kernels the efficiencies distinguish. The catalog's AMD Instinct
// parts are its Infinity Fabric parts (migrations/0002), so the interconnect names the vendor.
enum class ServingVendor { kNvidiaOrOther, kAmdInstinct };
ServingVendor ServingVendorOf(const GpuSpec& gpu);

// How an engine sizes its KV cache: a fraction of the whole device (vLLM, SGLang), a fraction
// of what is free after weights and activations (TensorRT-LLM), or exactly what it needs
// (llama.cpp allocates the context it is given).
struct EngineProfile {
  double memory_fraction = 0.9;
  bool fraction_of_free = false;
  int64_t max_batched_tokens = 8192;  // tokens one iteration may carry (prefill chunks + decodes)
  double step_overhead_seconds = 0;   // fixed per iteration: scheduling, sampling, launches
  // Static text: the profile is built for every layout an estimate evaluates, so nothing here
  // is formatted or allocated.
  const char* source = "";
};

// `tp` matters only to SGLang, whose static memory fraction falls as TP grows; `version` only to
// vLLM (its per-step overhead by generation).
EngineProfile EngineProfileFor(ServingEngine e, const GpuSpec& gpu, int tp, EngineVersion version = {});

// Whether the engine at this version may run prefills as iterations of their own (unchunked),
// stalling decodes: vLLM before V1 and TensorRT-LLM (core/serving/serving.cc, MayRunUnchunked).
bool MayRunUnchunked(ServingEngine e, EngineVersion version);

struct ServingEfficiency {
  Efficiency bandwidth;  // achieved / peak memory bandwidth while decoding
  Efficiency compute;    // achieved / peak dense FLOP/s of the math the weights use
};

// vLLM with 16-bit weights: the original default.
ServingEfficiency DefaultServingEfficiency(const GpuSpec& gpu);
// The efficiency applied for this engine and weight precision on this GPU class: the engine's
// base figures times the precision kernel's factors; the sources name every factor and the
// resulting value, so the provenance prints what the estimate applies. On AMD Instinct parts the
// tensor-core engines' figures carry the vendor factors (serving.vendor.amd_instinct_*).
ServingEfficiency DefaultServingEfficiency(const GpuSpec& gpu, ServingEngine engine, Precision weights);

// Peak FLOP/s for the math the weights are served with: FP8 on parts with FP8 tensor cores,
// otherwise 16-bit GEMMs (weight-only INT8/INT4 and FP8 on older parts dequantise).
double ServingComputePeak(const GpuSpec& gpu, Precision weights);
// The same for `engine`'s GEMMs. The catalog's 16-bit tensor peak of a consumer (GeForce) part
// is the FP32-accumulate rate, half the FP16-accumulate rate on those parts (NVIDIA Ampere GA102
// and Ada Lovelace whitepapers: RTX 3090 71 vs 142, RTX 4090 165.2 vs 330.3 TFLOP/s dense;
// migrations/0002 notes). llama.cpp's cuBLAS path converts the weights and activations to FP16
// and multiplies with CUBLAS_COMPUTE_16F ("convert src0 and src1 to fp16, multiply as fp16",
// ggml-cuda ggml_cuda_op_mul_mat_cublas), so on a consumer part it runs against the 2x peak.
double ServingComputePeak(const GpuSpec& gpu, Precision weights, ServingEngine engine);

}  // namespace capplan::core
