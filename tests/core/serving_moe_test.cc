// Serving terms of latent attention and fine-grained MoE: the KV cache MLA keeps and the
// expert weights a decode step reads. Expected values are computed here from the cited
// formulas and DeepSeek-V3's published config.json.
#include <gtest/gtest.h>

#include <cmath>

#include "core/serving/serving.h"
#include "fixtures.h"

namespace capplan::core {
namespace {

ServingWorkload Fp8Workload() {
  ServingWorkload w;
  w.model = testing::DeepSeekV3();
  w.weight_precision = Precision::kFp8;
  w.kv_precision = Precision::kFp8;
  w.prompt_tokens = 1000;
  w.output_tokens = 1000;
  return w;
}

TEST(MlaKvCacheTest, LatentPlusRotaryKeyPerLayerOnEveryRank) {
  // DeepSeek-V2 (arXiv 2405.04434) Sec. 2.1.2 and Table 1: MLA caches (d_c + d_h^R) elements
  // per token and layer; DeepSeek-V3: d_c = kv_lora_rank 512, d_h^R = qk_rope_head_dim 64.
  // The latent is shared by all heads, so tensor parallelism does not split it.
  const double per_token = 61.0 * (512.0 + 64.0) * 1.0;  // FP8: 1 byte
  EXPECT_DOUBLE_EQ(KvBytesPerToken(testing::DeepSeekV3(), Precision::kFp8), per_token);
  absl::StatusOr<ServingMemory> m = ServingMemoryPerGpu(Fp8Workload(), testing::H200(), 8);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_DOUBLE_EQ(m->kv_bytes_per_token, per_token);
  EXPECT_DOUBLE_EQ(m->kv_bytes_per_sequence, per_token * 2000.0);
  // Read as full multi-head attention (128 heads of K and V, 16 per GPU at tp=8) the cache
  // would be 2 x 61 x 16 x 192 bytes per token per GPU: over 10x larger.
  EXPECT_GT(2.0 * 61.0 * 16.0 * 192.0 / m->kv_bytes_per_token, 10.0);
}

TEST(MoeDecodeTest, ReadsTheExpertsTheBatchTouches) {
  // A decode step of b tokens, each routed to k of E experts per layer, touches
  // E·(1-(1-k/E)^b) distinct experts in expectation; it reads those, plus all attention,
  // dense-layer, shared-expert and router weights. DeepSeek-V3: E = 256, k = 8, 58 MoE layers
  // of SwiGLU experts 7168 x 2048 (three matrices), FP8 weights over tp = 8.
  const ServingWorkload w = Fp8Workload();
  const GpuSpec gpu = testing::H200();
  const int tp = 8;
  absl::StatusOr<ServingMemory> mem = ServingMemoryPerGpu(w, gpu, tp);
  ASSERT_TRUE(mem.ok()) << mem.status();
  const double E = 256, k = 8;
  const double routed_bytes = 58.0 * E * 3.0 * 7168.0 * 2048.0 * 1.0 / tp;
  const ServingEfficiency eff = DefaultServingEfficiency(w, gpu);
  const double bandwidth = gpu.memory_bandwidth_bytes_per_second * eff.bandwidth.point;
  for (int64_t batch : {1, 16, 256}) {
    const double touched = E * (1.0 - std::pow(1.0 - k / E, static_cast<double>(batch)));
    const double expected = mem->weights_bytes - routed_bytes * (1.0 - touched / E);
    absl::StatusOr<DecodeStep> d = EstimateDecodeStep(w, gpu, tp, batch, 0, eff);
    ASSERT_TRUE(d.ok()) << d.status();
    EXPECT_NEAR(d->memory_seconds * bandwidth / expected, 1.0, 1e-9) << "batch " << batch;
  }
  // Batch 16 draws 128 experts per layer but touches ~102 distinct ones: fewer than all 256,
  // more than the 8 one token uses.
  absl::StatusOr<DecodeStep> one = EstimateDecodeStep(w, gpu, tp, 1, 0, eff);
  absl::StatusOr<DecodeStep> sixteen = EstimateDecodeStep(w, gpu, tp, 16, 0, eff);
  ASSERT_TRUE(one.ok() && sixteen.ok());
  EXPECT_GT(sixteen->memory_seconds, one->memory_seconds);
  EXPECT_LT(sixteen->memory_seconds * bandwidth, mem->weights_bytes);
}

}  // namespace
}  // namespace capplan::core
