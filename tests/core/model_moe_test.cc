// Parameter counts of shared-expert, dense-first-layer, narrow-expert and latent-attention
// models against their published totals. Architectures from each model's config.json
// (tests/data/hf_configs/, sources in its README).
#include <gtest/gtest.h>

#include "core/model.h"
#include "fixtures.h"

namespace capplan::core {
namespace {

ModelArchitecture Qwen3_30B_A3B() {
  // Qwen/Qwen3-30B-A3B config.json: head_dim 128 (not 2048 / 32).
  ModelArchitecture m;
  m.num_layers = 48;
  m.hidden_size = 2048;
  m.num_attention_heads = 32;
  m.num_kv_heads = 4;
  m.head_dim = 128;
  m.ffn_hidden_size = 6144;
  m.num_experts = 128;
  m.experts_per_token = 8;
  m.expert_ffn_hidden_size = 768;
  m.vocab_size = 151936;
  return m;
}

ModelArchitecture GptOss(int64_t layers, int64_t experts) {
  // openai/gpt-oss-120b (36 layers, 128 experts) and gpt-oss-20b (24, 32) config.json.
  ModelArchitecture m;
  m.num_layers = layers;
  m.hidden_size = 2880;
  m.num_attention_heads = 64;
  m.num_kv_heads = 8;
  m.head_dim = 64;
  m.ffn_hidden_size = 2880;
  m.num_experts = experts;
  m.experts_per_token = 4;
  m.vocab_size = 201088;
  return m;
}

void ExpectWithin(double actual, double published, double fraction) {
  EXPECT_NEAR(actual / published, 1.0, fraction) << actual << " vs published " << published;
}

TEST(CountParametersMoeTest, DeepSeekV3MatchesTechnicalReport) {
  // DeepSeek-V3 Technical Report (arXiv 2412.19437), abstract: 671B total, 37B activated per
  // token (the main model; the 14B multi-token-prediction module is not part of it).
  absl::StatusOr<ParameterCounts> c = CountParameters(testing::DeepSeekV3());
  ASSERT_TRUE(c.ok()) << c.status();
  ExpectWithin(c->total, 671e9, 0.01);
  ExpectWithin(c->active, 37e9, 0.02);
}

TEST(CountParametersMoeTest, DeepSeekV3WithoutItsStructureIsFarOff) {
  // Read as Mixtral-style (every layer 256 experts of the dense width, full attention), the
  // same config would be several trillion parameters: each new field carries weight.
  ModelArchitecture m = testing::DeepSeekV3();
  m.num_dense_layers = 0;
  m.expert_ffn_hidden_size = 0;
  absl::StatusOr<ParameterCounts> c = CountParameters(m);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_GT(c->total, 5.0 * 671e9);
}

TEST(CountParametersMoeTest, MlaAttentionMatchesDeepSeekV2Formula) {
  // DeepSeek-V2 (arXiv 2405.04434) Sec. 2.1: W_DQ h x d_c', W_UQ d_c' x n_h(d_h + d_h^R),
  // W_DKV h x d_c, W_KR h x d_h^R, W_UK and W_UV d_c x n_h d_h, W_O n_h d_h x h, plus the two
  // latent RMSNorm weights; DeepSeek-V3's sizes.
  const double h = 7168, heads = 128, q_lora = 1536, kv_lora = 512, rope = 64, nope = 128, v = 128;
  const double expected = h * q_lora + q_lora * heads * (nope + rope) + h * (kv_lora + rope) +
                          kv_lora * heads * (nope + v) + heads * v * h + q_lora + kv_lora;
  absl::StatusOr<ParameterCounts> c = CountParameters(testing::DeepSeekV3());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_DOUBLE_EQ(c->attention_per_layer, expected);
}

TEST(CountParametersMoeTest, Qwen3MoeMatchesModelCard) {
  // Qwen3-30B-A3B model card: 30.5B total, 3.3B activated.
  absl::StatusOr<ParameterCounts> c = CountParameters(Qwen3_30B_A3B());
  ASSERT_TRUE(c.ok()) << c.status();
  ExpectWithin(c->total, 30.5e9, 0.01);
  ExpectWithin(c->active, 3.3e9, 0.03);
}

TEST(CountParametersMoeTest, GptOssMatchesModelCard) {
  // gpt-oss-120b & gpt-oss-20b model card (OpenAI 2025), Table 1: 116.83B total / 5.13B
  // active and 20.91B / 3.61B. The card's active count includes the unembedding but not the
  // embedding table (a lookup); capplan counts both, so the table (vocab x hidden) is added.
  const double embedding_table = 201088.0 * 2880.0;
  absl::StatusOr<ParameterCounts> big = CountParameters(GptOss(36, 128));
  ASSERT_TRUE(big.ok()) << big.status();
  ExpectWithin(big->total, 116.83e9, 0.01);
  ExpectWithin(big->active, 5.13e9 + embedding_table, 0.02);
  absl::StatusOr<ParameterCounts> small = CountParameters(GptOss(24, 32));
  ASSERT_TRUE(small.ok()) << small.status();
  ExpectWithin(small->total, 20.91e9, 0.01);
  ExpectWithin(small->active, 3.61e9 + embedding_table, 0.02);
}

TEST(CountParametersMoeTest, RoutedExpertsAveragedOverAllLayers) {
  // expert_per_layer x num_experts x num_layers is every routed expert's parameters, however
  // many leading layers are dense: the estimators scale it that way.
  absl::StatusOr<ParameterCounts> c = CountParameters(testing::DeepSeekV3());
  ASSERT_TRUE(c.ok()) << c.status();
  const double routed = 58.0 * 256.0 * 3.0 * 7168.0 * 2048.0;  // 58 MoE layers, SwiGLU experts
  EXPECT_NEAR(c->expert_per_layer * 256.0 * 61.0 / routed, 1.0, 1e-12);
}

TEST(CountParametersMoeTest, ActiveFfnWidthCountsRoutedSharedAndDense) {
  // DeepSeek-V3: 3 dense layers of 18432, 58 MoE layers of 8 routed + 1 shared expert of 2048.
  EXPECT_DOUBLE_EQ(testing::DeepSeekV3().ActiveFfnWidth(), (3.0 * 18432.0 + 58.0 * 9.0 * 2048.0) / 61.0);
  ModelArchitecture dense;
  dense.ffn_hidden_size = 11008;
  EXPECT_DOUBLE_EQ(dense.ActiveFfnWidth(), 11008.0);
}

TEST(ValidateModelMoeTest, RejectsMoeFieldsOnDenseModel) {
  ModelArchitecture m = Qwen3_30B_A3B();
  m.num_experts = 0;
  m.experts_per_token = 0;
  absl::Status s = ValidateModel(m);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("expert_ffn_hidden_size: must be 0 for a dense model"), std::string::npos) << s;
}

TEST(ValidateModelMoeTest, RejectsAllLayersDense) {
  ModelArchitecture m = testing::DeepSeekV3();
  m.num_dense_layers = 61;
  absl::Status s = ValidateModel(m);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("num_dense_layers: must be in [0, 60]"), std::string::npos) << s;
}

TEST(ValidateModelMoeTest, RejectsLatentFieldsWithoutKvLoraRank) {
  ModelArchitecture m = testing::DeepSeekV3();
  m.kv_lora_rank = 0;
  absl::Status s = ValidateModel(m);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("q_lora_rank"), std::string::npos) << s;
}

TEST(CountParametersMoeTest, HeadDimSetsTheAttentionWidth) {
  // GPT-OSS: 64 query heads and 8 KV heads of head_dim 64 over a 2880-wide residual: Q and O
  // are 2880 x 4096, K and V 2880 x 512; not the 45-wide heads 2880 / 64 would imply.
  absl::StatusOr<ParameterCounts> c = CountParameters(GptOss(36, 128));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_DOUBLE_EQ(c->attention_per_layer, 2.0 * 2880.0 * 4096.0 + 2.0 * 2880.0 * 512.0);
}

TEST(ValidateModelMoeTest, HeadDimLiftsTheDivisibilityRule) {
  ModelArchitecture m = GptOss(36, 128);
  m.num_attention_heads = 7;
  m.num_kv_heads = 7;
  EXPECT_TRUE(ValidateModel(m).ok());  // 2880 / 7 is not whole; head_dim says the width
  m.head_dim = 0;
  EXPECT_EQ(ValidateModel(m).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace capplan::core
