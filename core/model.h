// Transformer model description shared by the training and serving estimators: dense or
// mixture-of-experts, by architecture or by a bare parameter count.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace capplan::core {

struct ModelArchitecture {
  std::string name;
  int64_t num_layers = 0;
  int64_t hidden_size = 0;
  int64_t num_attention_heads = 0;
  int64_t num_kv_heads = 0;  // 0: same as num_attention_heads (MHA)
  int64_t ffn_hidden_size = 0;
  bool gated_mlp = true;  // SwiGLU/GeGLU: three FFN matrices instead of two
  int64_t vocab_size = 0;
  bool tied_embeddings = false;
  int64_t num_experts = 0;        // 0 or 1: dense
  int64_t experts_per_token = 0;  // top-k routing, MoE only
  // When the architecture is unknown: total parameters. The estimators then fall back to
  // parameter-only formulas (no KV-cache or activation detail).
  double parameter_count = 0;

  bool HasArchitecture() const { return num_layers > 0; }
  bool IsMoe() const { return num_experts > 1; }
  int64_t KvHeads() const { return num_kv_heads > 0 ? num_kv_heads : num_attention_heads; }
  int64_t HeadDim() const { return hidden_size / num_attention_heads; }
};

struct ParameterCounts {
  double total = 0;      // all parameters held in memory
  double active = 0;     // parameters touched per token (MoE: top-k experts)
  double embedding = 0;  // input embedding plus untied output projection
  double per_layer_total = 0;
  double expert_per_layer = 0;  // one expert's FFN parameters (MoE)
};

// Validates the architecture (InvalidArgument naming the field and range).
absl::Status ValidateModel(const ModelArchitecture& model);

// Derives parameter counts. Biases and norm weights are counted as in Llama-style
// checkpoints (RMSNorm weights, no biases); models with biases differ by well under 1%.
absl::StatusOr<ParameterCounts> CountParameters(const ModelArchitecture& model);

// The architecture used for activation and adapter sizing. A bare parameter count gets a
// GPT-3-like shape: d_model / n_layers ~ 128 and N ~ 12·L·h² (Kaplan et al. 2020, Sec. 2.1;
// Brown et al. 2020, Table 2.1).
ModelArchitecture EffectiveShape(const ModelArchitecture& model);

}  // namespace capplan::core
