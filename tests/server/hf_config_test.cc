// Hugging Face config.json files as published (tests/data/hf_configs/, sources in its README)
// through the API's reader: the mapped architecture, its parameter counts against each model
// card, and the errors a caller sees for a file capplan cannot use.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "core/catalog.h"
#include "core/model.h"
#include "core/serving/serving.h"
#include "server/api/hf_config_json.h"
#include "server/api/request_proto.h"
#include "server/rpc/request_limits.h"

namespace capplan::server {
namespace {

namespace v1 = capplan::v1;

const char kField[] = "workload.hf_config_json";

std::string ReadConfig(const std::string& name) {
  std::ifstream in(std::string(CAPPLAN_SOURCE_DIR) + "/tests/data/hf_configs/" + name + ".json");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << name;
  return text.str();
}

core::HfModel Mapped(const std::string& name) {
  absl::StatusOr<core::HfModel> m = ModelFromHfConfigJson(ReadConfig(name), kField);
  EXPECT_TRUE(m.ok()) << name << ": " << m.status();
  return m.ok() ? *m : core::HfModel{};
}

core::ParameterCounts Counts(const core::ModelArchitecture& a) {
  absl::StatusOr<core::ParameterCounts> c = core::CountParameters(a);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : core::ParameterCounts{};
}

void ExpectWithin(double actual, double published, double fraction) {
  EXPECT_NEAR(actual / published, 1.0, fraction) << actual << " vs published " << published;
}

TEST(HfConfigTest, DeepSeekV3MapsSharedExpertsDenseLayersAndLatentAttention) {
  core::HfModel m = Mapped("deepseek-ai--DeepSeek-V3");
  EXPECT_EQ(m.model_type, "deepseek_v3");
  EXPECT_EQ(m.arch.num_layers, 61);
  EXPECT_EQ(m.arch.num_dense_layers, 3);           // first_k_dense_replace
  EXPECT_EQ(m.arch.ffn_hidden_size, 18432);        // intermediate_size
  EXPECT_EQ(m.arch.expert_ffn_hidden_size, 2048);  // moe_intermediate_size
  EXPECT_EQ(m.arch.num_experts, 256);              // n_routed_experts
  EXPECT_EQ(m.arch.num_shared_experts, 1);         // n_shared_experts
  EXPECT_EQ(m.arch.experts_per_token, 8);
  EXPECT_EQ(m.arch.q_lora_rank, 1536);
  EXPECT_EQ(m.arch.kv_lora_rank, 512);
  EXPECT_EQ(m.arch.qk_rope_head_dim, 64);
  EXPECT_EQ(m.arch.qk_nope_head_dim, 128);
  EXPECT_EQ(m.arch.v_head_dim, 128);
  EXPECT_FALSE(m.arch.tied_embeddings);
  EXPECT_EQ(m.max_context_tokens, 163840);
  // DeepSeek-V3 Technical Report (arXiv 2412.19437): 671B total, 37B activated.
  const core::ParameterCounts c = Counts(m.arch);
  ExpectWithin(c.total, 671e9, 0.01);
  ExpectWithin(c.active, 37e9, 0.02);
  // DeepSeek-V2 (arXiv 2405.04434) Sec. 2.1: MLA caches (d_c + d_h^R) elements per token and
  // layer: 61 x (512 + 64) x 2 bytes at BF16, not 61 x 2 x 128 heads x 128 x 2.
  EXPECT_DOUBLE_EQ(core::KvBytesPerToken(m.arch, core::Precision::kBf16), 61.0 * (512 + 64) * 2.0);
}

TEST(HfConfigTest, Qwen3MoeMapsNarrowExpertsAndHeadDim) {
  core::HfModel m = Mapped("Qwen--Qwen3-30B-A3B");
  EXPECT_EQ(m.arch.head_dim, 128);
  EXPECT_EQ(m.arch.expert_ffn_hidden_size, 768);
  EXPECT_EQ(m.arch.num_experts, 128);
  EXPECT_EQ(m.arch.experts_per_token, 8);
  EXPECT_EQ(m.arch.num_kv_heads, 4);
  // Qwen3-30B-A3B model card: 30.5B total, 3.3B activated.
  const core::ParameterCounts c = Counts(m.arch);
  ExpectWithin(c.total, 30.5e9, 0.01);
  ExpectWithin(c.active, 3.3e9, 0.03);
}

TEST(HfConfigTest, GptOssMapsLocalExpertsAndHeadDim) {
  // gpt-oss model card (OpenAI 2025), Table 1: 116.83B / 5.13B active and 20.91B / 3.61B; the
  // card's active count leaves out the embedding table, which capplan counts (vocab x hidden).
  const double embedding_table = 201088.0 * 2880.0;
  core::HfModel big = Mapped("openai--gpt-oss-120b");
  EXPECT_EQ(big.arch.num_experts, 128);
  EXPECT_EQ(big.arch.experts_per_token, 4);
  EXPECT_EQ(big.arch.head_dim, 64);
  const core::ParameterCounts c = Counts(big.arch);
  ExpectWithin(c.total, 116.83e9, 0.01);
  ExpectWithin(c.active, 5.13e9 + embedding_table, 0.02);
  core::HfModel small = Mapped("openai--gpt-oss-20b");
  EXPECT_EQ(small.arch.num_experts, 32);
  const core::ParameterCounts s = Counts(small.arch);
  ExpectWithin(s.total, 20.91e9, 0.01);
  ExpectWithin(s.active, 3.61e9 + embedding_table, 0.02);
}

TEST(HfConfigTest, MixtralAndDenseModelsMatchTheirCards) {
  // Mixtral of Experts (Jiang et al. 2024): 46.7B total, 12.9B active.
  core::HfModel mixtral = Mapped("mistralai--Mixtral-8x7B-v0.1");
  EXPECT_EQ(mixtral.arch.num_experts, 8);
  EXPECT_EQ(mixtral.arch.experts_per_token, 2);
  const core::ParameterCounts c = Counts(mixtral.arch);
  ExpectWithin(c.total, 46.7e9, 0.02);
  ExpectWithin(c.active, 12.9e9, 0.02);
  // Llama 3.1 model card: 8B (8.03B); Qwen3-8B model card: 8.2B.
  ExpectWithin(Counts(Mapped("meta-llama--Meta-Llama-3.1-8B").arch).total, 8.03e9, 0.01);
  ExpectWithin(Counts(Mapped("Qwen--Qwen3-8B").arch).total, 8.2e9, 0.01);
}

TEST(HfConfigTest, TiedEmbeddingsDropTheOutputProjection) {
  const std::string untied = ReadConfig("meta-llama--Meta-Llama-3.1-8B");
  const std::string tied =
      absl::StrReplaceAll(untied, {{"\"tie_word_embeddings\": false", "\"tie_word_embeddings\": true"}});
  ASSERT_NE(tied, untied);
  absl::StatusOr<core::HfModel> a = ModelFromHfConfigJson(untied, kField);
  absl::StatusOr<core::HfModel> b = ModelFromHfConfigJson(tied, kField);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(b->arch.tied_embeddings);
  EXPECT_DOUBLE_EQ(Counts(a->arch).total - Counts(b->arch).total, 128256.0 * 4096.0);
}

TEST(HfConfigTest, GemmaTiesEmbeddingsByDefaultAndReadsTextConfig) {
  // Gemma 7B as its config.json gives it (Gemma report, arXiv 2403.08295, Table 1: 28 layers,
  // d_model 3072, 16 heads of 256, feedforward 49152 = GeGLU's gate and up of 24576 each;
  // Table 2: 786M embedding + 7,751M other parameters). Gemma configs carry no
  // tie_word_embeddings: Gemma ties input and output embeddings by default.
  const std::string gemma =
      R"({"model_type": "gemma", "hidden_size": 3072, "num_hidden_layers": 28, "num_attention_heads": 16,
          "num_key_value_heads": 16, "head_dim": 256, "intermediate_size": 24576, "vocab_size": 256000,
          "max_position_embeddings": 8192})";
  absl::StatusOr<core::HfModel> m = ModelFromHfConfigJson(gemma, kField);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(m->arch.tied_embeddings);
  ExpectWithin(Counts(m->arch).total, 8.54e9, 0.01);
  // Gemma 3's multimodal checkpoints hold the language model under text_config.
  const std::string gemma3 = R"({"model_type": "gemma3", "text_config": {"model_type": "gemma3_text",
      "hidden_size": 2560, "intermediate_size": 10240, "num_hidden_layers": 34}})";
  absl::StatusOr<core::HfModel> g3 = ModelFromHfConfigJson(gemma3, kField);
  ASSERT_TRUE(g3.ok()) << g3.status();
  EXPECT_EQ(g3->arch.num_layers, 34);
  EXPECT_EQ(g3->arch.head_dim, 256);  // Gemma3TextConfig default
  absl::Status missing = ModelFromHfConfigJson(R"({"model_type": "gemma3"})", kField).status();
  EXPECT_EQ(missing.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(missing.message().find("workload.hf_config_json.text_config"), std::string::npos) << missing;
}

TEST(HfConfigTest, MissingFieldIsNamedAsConfigJsonSpellsIt) {
  const std::string llama = ReadConfig("meta-llama--Meta-Llama-3.1-8B");
  const std::string without = absl::StrReplaceAll(llama, {{"\"intermediate_size\": 14336,", ""}});
  ASSERT_NE(without, llama);
  absl::Status s = ModelFromHfConfigJson(without, kField).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("workload.hf_config_json.intermediate_size: required for model_type llama"),
            std::string::npos)
      << s;
}

TEST(HfConfigTest, UnknownModelTypeAndBadJsonAreInvalidArgument) {
  absl::Status unknown = ModelFromHfConfigJson(R"({"model_type": "mamba", "hidden_size": 768})", kField).status();
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.message().find("workload.hf_config_json.model_type: \"mamba\" is not supported"), std::string::npos)
      << unknown;
  absl::Status none = ModelFromHfConfigJson(R"({"hidden_size": 768})", kField).status();
  EXPECT_NE(none.message().find("workload.hf_config_json.model_type: required"), std::string::npos) << none;
  absl::Status bad = ModelFromHfConfigJson("{not json", kField).status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  absl::Status fractional =
      ModelFromHfConfigJson(absl::StrReplaceAll(ReadConfig("Qwen--Qwen3-8B"),
                                                {{"\"num_hidden_layers\": 36", "\"num_hidden_layers\": 36.5"}}),
                            kField)
          .status();
  EXPECT_NE(fractional.message().find("workload.hf_config_json.num_hidden_layers: must be a non-negative integer"),
            std::string::npos)
      << fractional;
}

TEST(HfConfigTest, InterleavedMoeLayersAreRefusedNotMisread) {
  const std::string qwen = ReadConfig("Qwen--Qwen3-30B-A3B");
  const std::string interleaved =
      absl::StrReplaceAll(qwen, {{"\"decoder_sparse_step\": 1", "\"decoder_sparse_step\": 2"}});
  ASSERT_NE(interleaved, qwen);
  absl::Status s = ModelFromHfConfigJson(interleaved, kField).status();
  EXPECT_NE(s.message().find("workload.hf_config_json.decoder_sparse_step"), std::string::npos) << s;
}

TEST(HfConfigTest, RequestLimitsBoundTheJsonAt64KiB) {
  v1::ServingWorkload w;
  w.set_hf_config_json(ReadConfig("deepseek-ai--DeepSeek-V3"));
  EXPECT_TRUE(CheckRequest(w).ok());  // 1.7 KB: above the 1 KiB default for strings
  w.set_hf_config_json(std::string(65 * 1024, ' '));
  absl::Status s = CheckRequest(w);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("hf_config_json: at most 65536 bytes"), std::string::npos) << s;
}

}  // namespace
}  // namespace capplan::server
