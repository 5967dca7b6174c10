// Parameter counts derived from architecture vs. the published sizes (config.json of the
// public checkpoints; docs/estimator.md lists them).
#include "core/model.h"

#include <gtest/gtest.h>

namespace capplan::core {
namespace {

ModelArchitecture Llama2_7B() {
  // meta-llama/Llama-2-7b-hf config.json
  ModelArchitecture m;
  m.name = "Llama-2-7B";
  m.num_layers = 32;
  m.hidden_size = 4096;
  m.num_attention_heads = 32;
  m.num_kv_heads = 32;
  m.ffn_hidden_size = 11008;
  m.vocab_size = 32000;
  return m;
}

ModelArchitecture Llama2_70B() {
  // meta-llama/Llama-2-70b-hf config.json
  ModelArchitecture m;
  m.name = "Llama-2-70B";
  m.num_layers = 80;
  m.hidden_size = 8192;
  m.num_attention_heads = 64;
  m.num_kv_heads = 8;
  m.ffn_hidden_size = 28672;
  m.vocab_size = 32000;
  return m;
}

ModelArchitecture Llama3_8B() {
  // meta-llama/Meta-Llama-3-8B config.json
  ModelArchitecture m;
  m.num_layers = 32;
  m.hidden_size = 4096;
  m.num_attention_heads = 32;
  m.num_kv_heads = 8;
  m.ffn_hidden_size = 14336;
  m.vocab_size = 128256;
  return m;
}

ModelArchitecture Mixtral8x7B() {
  // mistralai/Mixtral-8x7B-v0.1 config.json
  ModelArchitecture m;
  m.num_layers = 32;
  m.hidden_size = 4096;
  m.num_attention_heads = 32;
  m.num_kv_heads = 8;
  m.ffn_hidden_size = 14336;
  m.vocab_size = 32000;
  m.num_experts = 8;
  m.experts_per_token = 2;
  return m;
}

ModelArchitecture Bloom7B1() {
  // bigscience/bloom-7b1 config.json: 30 layers, hidden 4096, 32 heads, 4h GELU MLP, tied
  // embeddings, vocabulary 250880; published size 7.07B (model card).
  ModelArchitecture m;
  m.num_layers = 30;
  m.hidden_size = 4096;
  m.num_attention_heads = 32;
  m.ffn_hidden_size = 16384;
  m.gated_mlp = false;
  m.vocab_size = 250880;
  m.tied_embeddings = true;
  return m;
}

void ExpectWithin(double actual, double published, double fraction) {
  EXPECT_NEAR(actual / published, 1.0, fraction) << actual << " vs published " << published;
}

TEST(CountParametersTest, PublishedDenseModelsWithinTwoPercent) {
  ExpectWithin(CountParameters(Llama2_7B())->total, 6.74e9, 0.02);    // model card: 6.74B
  ExpectWithin(CountParameters(Llama2_70B())->total, 68.98e9, 0.02);  // ~69.0B
  ExpectWithin(CountParameters(Llama3_8B())->total, 8.03e9, 0.02);    // 8.03B
  ExpectWithin(CountParameters(Bloom7B1())->total, 7.07e9, 0.02);     // 7.07B
}

TEST(CountParametersTest, MixtralTotalAndActive) {
  // Mixtral of Experts (Jiang et al. 2024): 46.7B total, 12.9B active per token.
  absl::StatusOr<ParameterCounts> c = CountParameters(Mixtral8x7B());
  ASSERT_TRUE(c.ok()) << c.status();
  ExpectWithin(c->total, 46.7e9, 0.02);
  ExpectWithin(c->active, 12.9e9, 0.02);
}

TEST(CountParametersTest, DenseActiveEqualsTotal) {
  absl::StatusOr<ParameterCounts> c = CountParameters(Llama2_7B());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->active, c->total);
}

TEST(CountParametersTest, BareParameterCount) {
  ModelArchitecture m;
  m.parameter_count = 175e9;
  absl::StatusOr<ParameterCounts> c = CountParameters(m);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->total, 175e9);
}

TEST(ValidateModelTest, RejectsHeadsNotDividingHidden) {
  ModelArchitecture m = Llama2_7B();
  m.num_attention_heads = 30;
  absl::Status s = ValidateModel(m);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("num_attention_heads"), std::string::npos) << s;
}

TEST(ValidateModelTest, RejectsKvHeadsNotDividingHeads) {
  ModelArchitecture m = Llama2_7B();
  m.num_kv_heads = 5;
  absl::Status s = ValidateModel(m);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("num_kv_heads"), std::string::npos) << s;
}

TEST(ValidateModelTest, RejectsAbsurdMagnitudesNamingRange) {
  ModelArchitecture m = Llama2_7B();
  m.num_layers = 1000000;
  absl::Status s = ValidateModel(m);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("num_layers: must be in [1, 1000]"), std::string::npos) << s;
}

TEST(ValidateModelTest, RejectsMissingParameterCount) {
  ModelArchitecture m;  // neither architecture nor count
  absl::Status s = ValidateModel(m);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("parameter_count"), std::string::npos) << s;
}

TEST(ValidateModelTest, RejectsTopKAboveExperts) {
  ModelArchitecture m = Mixtral8x7B();
  m.experts_per_token = 9;
  absl::Status s = ValidateModel(m);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("experts_per_token"), std::string::npos) << s;
}

}  // namespace
}  // namespace capplan::core

#include "core/format.h"

namespace capplan::core {
namespace {

TEST(FixedTest, MatchesPrintfOnOrdinaryValues) {
  EXPECT_EQ(Fixed(3.14159, 2), "3.14");
  EXPECT_EQ(Fixed(0.0455, 4), "0.0455");
  EXPECT_EQ(Fixed(-2.5, 1), "-2.5");
  EXPECT_EQ(Fixed(121.4, 0), "121");
  EXPECT_EQ(Fixed(9.999, 2), "10.00");
  EXPECT_EQ(Fixed(-0.0001, 2), "0.00");
  EXPECT_EQ(Fixed(2e15, 1), "2000000000000000.0");  // snprintf fallback
}

}  // namespace
}  // namespace capplan::core
