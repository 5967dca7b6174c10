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
  int64_t num_experts = 0;        // 0 or 1: dense; MoE: routed experts per MoE layer
  int64_t experts_per_token = 0;  // top-k routing, MoE only
  // Per-head width when it is not hidden_size / num_attention_heads (Qwen3, Gemma, GPT-OSS
  // set head_dim in config.json); 0: hidden_size / num_attention_heads.
  int64_t head_dim = 0;
  // Mixture of experts as DeepSeek-V3 and Qwen-MoE build it (all 0 reads as Mixtral: every
  // layer MoE, experts as wide as ffn_hidden_size, no shared expert).
  int64_t expert_ffn_hidden_size = 0;         // each routed expert's FFN width; 0: ffn_hidden_size
  int64_t num_shared_experts = 0;             // experts every token passes through, per MoE layer
  int64_t shared_expert_ffn_hidden_size = 0;  // each shared expert's width; 0: expert width
  int64_t num_dense_layers = 0;               // leading layers with a dense FFN of ffn_hidden_size
  // Multi-head latent attention (DeepSeek-V2, arXiv 2405.04434, Sec. 2.1): keys and values are
  // rebuilt from a cached latent of kv_lora_rank plus a shared rotary key of qk_rope_head_dim.
  // kv_lora_rank 0: ordinary multi-head / grouped-query attention, the others must be 0.
  int64_t q_lora_rank = 0;  // 0: queries projected from the hidden state directly
  int64_t kv_lora_rank = 0;
  int64_t qk_rope_head_dim = 0;
  int64_t qk_nope_head_dim = 0;
  int64_t v_head_dim = 0;
  // When the architecture is unknown: total parameters. The estimators then fall back to
  // parameter-only formulas (no KV-cache or activation detail).
  double parameter_count = 0;

  bool HasArchitecture() const { return num_layers > 0; }
  bool IsMoe() const { return num_experts > 1; }
  int64_t KvHeads() const { return num_kv_heads > 0 ? num_kv_heads : num_attention_heads; }
  int64_t HeadDim() const { return head_dim > 0 ? head_dim : hidden_size / num_attention_heads; }
  bool IsMla() const { return kv_lora_rank > 0; }
  int64_t ExpertFfnHiddenSize() const { return expert_ffn_hidden_size > 0 ? expert_ffn_hidden_size : ffn_hidden_size; }
  int64_t SharedExpertFfnHiddenSize() const {
    return shared_expert_ffn_hidden_size > 0 ? shared_expert_ffn_hidden_size : ExpertFfnHiddenSize();
  }
  int64_t MoeLayers() const { return IsMoe() ? num_layers - num_dense_layers : 0; }
  // FFN width one token passes through, averaged over the layers: ffn_hidden_size for a dense
  // model; for MoE the top-k routed experts plus the shared ones in MoE layers, and the dense
  // FFN in the leading dense layers.
  double ActiveFfnWidth() const;
};

struct ParameterCounts {
  double total = 0;             // all parameters held in memory
  double active = 0;            // parameters touched per token (MoE: top-k experts)
  double embedding = 0;         // input embedding plus untied output projection
  double per_layer_total = 0;   // non-embedding parameters over num_layers (a mean when layers differ)
  double expert_per_layer = 0;  // one routed expert's FFN parameters, averaged over all layers
                                // (layers without routed experts count 0); times num_experts
                                // and num_layers: every routed expert's parameters
  double expert = 0;            // one routed expert's FFN parameters in an MoE layer
  double attention_per_layer = 0;
};

// Validates the architecture (InvalidArgument naming the field and range).
absl::Status ValidateModel(const ModelArchitecture& model);

// Derives parameter counts. Biases and norm weights are counted as in Llama-style
// checkpoints (RMSNorm weights, no biases); models with biases differ by well under 1%.
absl::StatusOr<ParameterCounts> CountParameters(const ModelArchitecture& model);

// The same counts for a model ValidateModel has already accepted (the estimators validate
// once per call and count more than once): no checks, so only for validated input.
ParameterCounts CountValidParameters(const ModelArchitecture& model);

// The architecture used for activation and adapter sizing. A bare parameter count gets a
// GPT-3-like shape: d_model / n_layers ~ 128 and N ~ 12·L·h² (Kaplan et al. 2020, Sec. 2.1;
// Brown et al. 2020, Table 2.1).
ModelArchitecture EffectiveShape(const ModelArchitecture& model);

}  // namespace capplan::core
