// Whether a serving engine runs on a GPU at all, as each engine documents it. The planner
// rejects a GPU type an engine cannot run on (with the reason) instead of ranking it, and
// Deploy refuses to render such an option.
#pragma once

#include <string>

#include "core/gpu.h"
#include "core/precision.h"
#include "core/serving/serving_engine.h"

namespace capplan::core {

// The architecture a part's datasheet figures imply. The catalog stores no compute capability,
// so it is read from which math paths the part has (a stated heuristic, exact for every part
// the shipped catalog lists): no tensor cores (16-bit peak under 4x FP32: Pascal and older),
// 16-bit tensor cores without BF16 and with INT8 only at the DP4A rate (Volta, sm70), INT8
// tensor cores without BF16 (Turing, sm75), BF16 without FP8 (Ampere, sm80/86), FP8 (Ada
// sm89, Hopper sm90, Blackwell). AMD Instinct parts (Infinity Fabric) are CDNA2 (gfx90a)
// without FP8 and CDNA3 or newer (gfx942+) with it; Xe Link parts are Intel Data Center GPUs.
enum class GpuGeneration {
  kNvidiaPreVolta,
  kNvidiaVolta,
  kNvidiaTuring,
  kNvidiaAmpere,
  kNvidiaAdaOrNewer,
  kAmdCdna2,
  kAmdCdna3OrNewer,
  kIntelDataCenter,
};
GpuGeneration GpuGenerationOf(const GpuSpec& gpu);
// "Volta (compute capability 7.0)" and the like, for reasons.
const char* GpuGenerationLabel(GpuGeneration g);

// Why `engine` at `version` cannot serve weights of `weights` on `gpu`, per the engine's
// published hardware requirements (sources in engine_support.cc); empty when it can.
std::string EngineSupportProblem(ServingEngine engine, EngineVersion version, const GpuSpec& gpu, Precision weights);

}  // namespace capplan::core
