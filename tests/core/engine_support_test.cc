// Which engine runs on which GPU: the architecture read from datasheet figures, each engine's
// documented hardware floor, and the planner rejecting (not ranking) a GPU the engine cannot
// run on. Sources of the floors are in core/serving/engine_support.cc.
#include "core/serving/engine_support.h"

#include <gtest/gtest.h>

#include "core/planner/serving_plan.h"
#include "fake_catalog.h"
#include "fixtures.h"

namespace capplan::core {
namespace {

using namespace capplan::core::testing;  // NOLINT(build/namespaces): datasheet fixtures

// NVIDIA Tesla P40 datasheet: 24 GB GDDR5 at 346 GB/s, FP32 11.76 TFLOP/s, FP16 at 1/64 of
// FP32 (0.18), INT8 47 TOPS (DP4A), 250 W; no tensor cores.
GpuSpec P40() { return MakeGpu("P40", 24, 346, 11.76, 0, 0.18, 0, 0, 47, 250, Interconnect::kPcie, 16, 8, true); }

// AMD Instinct MI250X data sheet: 128 GB HBM2e at 3.2 TB/s, FP32 matrix 95.7, FP16/BF16 383,
// INT8 383 TOPS, no FP8; 560 W; Infinity Fabric.
GpuSpec Mi250x() {
  return MakeGpu("MI250X", 128, 3277, 47.9, 0, 383, 383, 0, 383, 560, Interconnect::kInfinityFabric, 400, 8, true);
}

// AMD Instinct MI300X data sheet: FP8 2,614.9 TFLOP/s dense.
GpuSpec Mi300x() {
  return MakeGpu("MI300X", 192, 5300, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 2614.9, 750, Interconnect::kInfinityFabric,
                 448, 8, true);
}

TEST(GpuGenerationTest, DatasheetFiguresNameTheArchitecture) {
  EXPECT_EQ(GpuGenerationOf(P40()), GpuGeneration::kNvidiaPreVolta);
  EXPECT_EQ(GpuGenerationOf(V100()), GpuGeneration::kNvidiaVolta);  // sm70
  EXPECT_EQ(GpuGenerationOf(T4()), GpuGeneration::kNvidiaTuring);   // sm75
  EXPECT_EQ(GpuGenerationOf(A100_80GB()), GpuGeneration::kNvidiaAmpere);
  EXPECT_EQ(GpuGenerationOf(A10G()), GpuGeneration::kNvidiaAmpere);  // sm86
  EXPECT_EQ(GpuGenerationOf(Rtx4090()), GpuGeneration::kNvidiaAdaOrNewer);
  EXPECT_EQ(GpuGenerationOf(H100_SXM()), GpuGeneration::kNvidiaAdaOrNewer);
  EXPECT_EQ(GpuGenerationOf(Mi250x()), GpuGeneration::kAmdCdna2);
  EXPECT_EQ(GpuGenerationOf(Mi300x()), GpuGeneration::kAmdCdna3OrNewer);
}

TEST(EngineSupportTest, VllmFloorRoseFromVoltaToTuring) {
  const EngineVersion unstated;
  const EngineVersion v0_14{0, 14};
  const EngineVersion v0_20{0, 20};
  // Current vLLM: compute capability 7.5 or higher.
  EXPECT_NE(EngineSupportProblem(ServingEngine::kVllm, unstated, V100(), Precision::kFp16), "");
  EXPECT_NE(EngineSupportProblem(ServingEngine::kVllm, v0_20, V100(), Precision::kFp16), "");
  EXPECT_EQ(EngineSupportProblem(ServingEngine::kVllm, unstated, T4(), Precision::kFp16), "");
  // Through v0.14.0: 7.0 or higher, so a pinned older release plans Volta.
  EXPECT_EQ(EngineSupportProblem(ServingEngine::kVllm, v0_14, V100(), Precision::kFp16), "");
  // Never below 7.0.
  EXPECT_NE(EngineSupportProblem(ServingEngine::kVllm, v0_14, P40(), Precision::kFp16), "");
  // ROCm: MI200s and MI300.
  EXPECT_EQ(EngineSupportProblem(ServingEngine::kVllm, unstated, Mi250x(), Precision::kBf16), "");
  EXPECT_EQ(EngineSupportProblem(ServingEngine::kVllm, unstated, Mi300x(), Precision::kFp8), "");
}

TEST(EngineSupportTest, Fp8WeightsNeedAmpereWeightOnlyOrAdaForW8a8) {
  const EngineVersion unstated;
  EXPECT_NE(EngineSupportProblem(ServingEngine::kVllm, unstated, T4(), Precision::kFp8), "");
  EXPECT_EQ(EngineSupportProblem(ServingEngine::kVllm, unstated, A100_80GB(), Precision::kFp8), "");  // Marlin
  EXPECT_NE(EngineSupportProblem(ServingEngine::kTensorRtLlm, unstated, A100_80GB(), Precision::kFp8), "");
  EXPECT_EQ(EngineSupportProblem(ServingEngine::kTensorRtLlm, unstated, H100_SXM(), Precision::kFp8), "");
  EXPECT_NE(EngineSupportProblem(ServingEngine::kVllm, unstated, Mi250x(), Precision::kFp8), "");
}

TEST(EngineSupportTest, EachEngineHasItsOwnFloor) {
  const EngineVersion unstated;
  EXPECT_NE(EngineSupportProblem(ServingEngine::kTensorRtLlm, unstated, T4(), Precision::kFp16), "");
  EXPECT_EQ(EngineSupportProblem(ServingEngine::kTensorRtLlm, unstated, A10G(), Precision::kFp16), "");
  EXPECT_NE(EngineSupportProblem(ServingEngine::kTensorRtLlm, unstated, Mi300x(), Precision::kBf16), "");
  EXPECT_NE(EngineSupportProblem(ServingEngine::kSglang, unstated, V100(), Precision::kFp16), "");
  EXPECT_EQ(EngineSupportProblem(ServingEngine::kSglang, unstated, T4(), Precision::kFp16), "");
  EXPECT_NE(EngineSupportProblem(ServingEngine::kSglang, unstated, Mi250x(), Precision::kBf16), "");
  EXPECT_EQ(EngineSupportProblem(ServingEngine::kSglang, unstated, Mi300x(), Precision::kBf16), "");
  // llama.cpp's CUDA backend runs on every part listed, Pascal included.
  EXPECT_EQ(EngineSupportProblem(ServingEngine::kLlamaCpp, unstated, P40(), Precision::kInt4), "");
}

ServingWorkload Llama2Serving() {
  ServingWorkload w;
  w.model = Llama2_7B();
  w.prompt_tokens = 512;
  w.output_tokens = 128;
  w.requests_per_second = 35;
  return w;
}

// A cheap V100 offer is rejected with the engine's reason, not ranked first; a pinned vLLM
// release that supports Volta brings it back.
TEST(EngineSupportTest, PlanRejectsTheGpuTheEngineCannotRunOn) {
  planner::FakeCatalog c;
  c.AddGpu(V100());
  c.AddOffer("cloud", "v100x8", "east", "V100-SXM2-32GB", 8, 1.0);
  c.AddOffer("cloud", "a100x8", "east", "A100-SXM4-80GB", 8, 20.0);
  planner::PlanQuery q;
  q.prices_as_of_unix_seconds = 1764547200;  // 2025-12-01
  q.max_rejected = 20;
  ServingWorkload w = Llama2Serving();
  absl::StatusOr<planner::ServingPlan> p = planner::PlanServing(c, w, q);
  ASSERT_TRUE(p.ok()) << p.status();
  for (const planner::ServingChoice& o : p->options) {
    EXPECT_NE(p->supplies[o.supply].gpu->spec.name, "V100-SXM2-32GB");
  }
  bool named = false;
  for (const planner::Rejection& r : p->rejected) {
    if (r.gpu_name == "V100-SXM2-32GB" && r.reason.find("compute capability 7.5") != std::string::npos) named = true;
  }
  EXPECT_TRUE(named) << "the V100 rejection should say why";

  w.engine_version = {0, 14};
  p = planner::PlanServing(c, w, q);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_FALSE(p->options.empty());
  EXPECT_EQ(p->supplies[p->options.front().supply].gpu->spec.name, "V100-SXM2-32GB");
}

}  // namespace
}  // namespace capplan::core
