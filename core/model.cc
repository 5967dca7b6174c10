// Parameter counting for dense and MoE decoder-only transformers, with grouped-query or
// multi-head latent attention.
#include "core/model.h"

#include <algorithm>
#include <cmath>

#include "core/validate.h"

namespace capplan::core {

namespace {
// Magnitude guards: the largest published dense models have ~1e3 layers at most, hidden sizes
// below 1e5 and vocabularies below 1e6; anything larger is a typo, not a model.
constexpr int64_t kMaxLayers = 1000;
constexpr int64_t kMaxHidden = 262144;
constexpr int64_t kMaxHeads = 4096;
constexpr int64_t kMaxVocab = 4000000;
constexpr int64_t kMaxExperts = 4096;
constexpr double kMaxParameters = 1e14;

// Fields that only mean something for a mixture of experts must be 0 on a dense model: a value
// there means the caller described another model.
absl::Status ValidateMoeFields(const ModelArchitecture& m) {
  CAPPLAN_RETURN_IF_ERROR(CheckRange("expert_ffn_hidden_size", m.expert_ffn_hidden_size, 0, 16 * kMaxHidden));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("num_shared_experts", m.num_shared_experts, 0, kMaxExperts));
  CAPPLAN_RETURN_IF_ERROR(
      CheckRange("shared_expert_ffn_hidden_size", m.shared_expert_ffn_hidden_size, 0, 16 * kMaxHidden));
  if (m.IsMoe()) {
    CAPPLAN_RETURN_IF_ERROR(CheckRange("experts_per_token", m.experts_per_token, 1, m.num_experts));
    return CheckRange("num_dense_layers", m.num_dense_layers, 0, m.num_layers - 1);
  }
  const struct {
    const char* field;
    int64_t value;
  } moe_only[] = {{"experts_per_token", m.experts_per_token},
                  {"expert_ffn_hidden_size", m.expert_ffn_hidden_size},
                  {"num_shared_experts", m.num_shared_experts},
                  {"shared_expert_ffn_hidden_size", m.shared_expert_ffn_hidden_size},
                  {"num_dense_layers", m.num_dense_layers}};
  for (const auto& f : moe_only) {
    if (f.value != 0) {
      return FieldError(f.field,
                        absl::StrCat("must be 0 for a dense model (num_experts ", m.num_experts, "), got ", f.value));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateAttention(const ModelArchitecture& m) {
  CAPPLAN_RETURN_IF_ERROR(CheckRange("head_dim", m.head_dim, 0, kMaxHidden));
  if (m.head_dim == 0 && m.hidden_size % m.num_attention_heads != 0) {
    return FieldError("num_attention_heads", absl::StrCat("must divide hidden_size ", m.hidden_size, ", got ",
                                                          m.num_attention_heads, " (or set head_dim)"));
  }
  CAPPLAN_RETURN_IF_ERROR(CheckRange("num_kv_heads", m.num_kv_heads, 0, m.num_attention_heads));
  if (m.num_kv_heads > 0 && m.num_attention_heads % m.num_kv_heads != 0) {
    return FieldError("num_kv_heads", absl::StrCat("must divide num_attention_heads ", m.num_attention_heads, ", got ",
                                                   m.num_kv_heads));
  }
  CAPPLAN_RETURN_IF_ERROR(CheckRange("kv_lora_rank", m.kv_lora_rank, 0, kMaxHidden));
  if (!m.IsMla()) {
    const struct {
      const char* field;
      int64_t value;
    } mla_only[] = {{"q_lora_rank", m.q_lora_rank},
                    {"qk_rope_head_dim", m.qk_rope_head_dim},
                    {"qk_nope_head_dim", m.qk_nope_head_dim},
                    {"v_head_dim", m.v_head_dim}};
    for (const auto& f : mla_only) {
      if (f.value != 0) {
        return FieldError(f.field, absl::StrCat("is for latent attention and needs kv_lora_rank > 0, got ", f.value));
      }
    }
    return absl::OkStatus();
  }
  CAPPLAN_RETURN_IF_ERROR(CheckRange("q_lora_rank", m.q_lora_rank, 0, kMaxHidden));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("qk_rope_head_dim", m.qk_rope_head_dim, 0, kMaxHidden));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("qk_nope_head_dim", m.qk_nope_head_dim, 1, kMaxHidden));
  return CheckRange("v_head_dim", m.v_head_dim, 1, kMaxHidden);
}

// Attention weights of one layer.
double AttentionParameters(const ModelArchitecture& m) {
  const double h = static_cast<double>(m.hidden_size);
  const double heads = static_cast<double>(m.num_attention_heads);
  if (!m.IsMla()) {
    // Q and O are h x (heads * head_dim) (h x h when head_dim is implied); K and V are
    // h x (kv_heads * head_dim) (GQA/MQA).
    const double q_dim = heads * static_cast<double>(m.HeadDim());
    const double kv_dim = static_cast<double>(m.KvHeads() * m.HeadDim());
    return 2.0 * h * q_dim + 2.0 * h * kv_dim;
  }
  // DeepSeek-V2 (arXiv 2405.04434) Sec. 2.1, eqs. 9-18: queries through a rank-q_lora
  // down/up projection (with an RMSNorm on the latent), keys and values from a kv_lora latent
  // plus one shared rotary key, per-head no-rope keys and values up-projected from the latent,
  // and the output projection from heads x v_head_dim.
  const double q_lora = static_cast<double>(m.q_lora_rank);
  const double kv_lora = static_cast<double>(m.kv_lora_rank);
  const double rope = static_cast<double>(m.qk_rope_head_dim);
  const double nope = static_cast<double>(m.qk_nope_head_dim);
  const double v = static_cast<double>(m.v_head_dim);
  const double q_out = heads * (nope + rope);
  const double q = m.q_lora_rank > 0 ? h * q_lora + q_lora + q_lora * q_out : h * q_out;
  const double kv = h * (kv_lora + rope) + kv_lora + kv_lora * heads * (nope + v);
  return q + kv + heads * v * h;
}
}  // namespace

double ModelArchitecture::ActiveFfnWidth() const {
  if (!IsMoe()) return static_cast<double>(ffn_hidden_size);
  const double moe = static_cast<double>(experts_per_token * ExpertFfnHiddenSize()) +
                     static_cast<double>(num_shared_experts * SharedExpertFfnHiddenSize());
  if (num_dense_layers == 0) return moe;
  return (static_cast<double>(num_dense_layers * ffn_hidden_size) + static_cast<double>(MoeLayers()) * moe) /
         static_cast<double>(num_layers);
}

absl::Status ValidateModel(const ModelArchitecture& m) {
  if (!m.HasArchitecture()) {
    if (m.num_layers < 0) return CheckRange("num_layers", m.num_layers, 1, kMaxLayers);
    return CheckRange("parameter_count", m.parameter_count, 1e6, kMaxParameters);
  }
  CAPPLAN_RETURN_IF_ERROR(CheckRange("num_layers", m.num_layers, 1, kMaxLayers));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("hidden_size", m.hidden_size, 1, kMaxHidden));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("num_attention_heads", m.num_attention_heads, 1, kMaxHeads));
  CAPPLAN_RETURN_IF_ERROR(ValidateAttention(m));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("ffn_hidden_size", m.ffn_hidden_size, 1, 16 * kMaxHidden));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("vocab_size", m.vocab_size, 1, kMaxVocab));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("num_experts", m.num_experts, 0, kMaxExperts));
  return ValidateMoeFields(m);
}

absl::StatusOr<ParameterCounts> CountParameters(const ModelArchitecture& m) {
  CAPPLAN_RETURN_IF_ERROR(ValidateModel(m));
  return CountValidParameters(m);
}

ParameterCounts CountValidParameters(const ModelArchitecture& m) {
  ParameterCounts c;
  if (!m.HasArchitecture()) {
    c.total = c.active = m.parameter_count;
    return c;
  }
  const double h = static_cast<double>(m.hidden_size);
  const double attention = AttentionParameters(m);
  const double ffn_matrices = m.gated_mlp ? 3.0 : 2.0;
  const double dense_ffn = ffn_matrices * h * static_cast<double>(m.ffn_hidden_size);
  const double norms = 2.0 * h;  // pre-attention and pre-FFN norm weights
  const double layers = static_cast<double>(m.num_layers);
  c.embedding = static_cast<double>(m.vocab_size) * h * (m.tied_embeddings ? 1.0 : 2.0);
  c.attention_per_layer = attention;
  if (!m.IsMoe()) {
    c.per_layer_total = attention + dense_ffn + norms;
    c.total = layers * c.per_layer_total + c.embedding + h;  // + final norm
    c.active = c.total;
    return c;
  }
  // MoE layers: E routed experts and a router (h x E); each token passes through top-k routed
  // experts and every shared one. The leading num_dense_layers have the dense FFN instead.
  const double expert = ffn_matrices * h * static_cast<double>(m.ExpertFfnHiddenSize());
  const double shared =
      static_cast<double>(m.num_shared_experts) * ffn_matrices * h * static_cast<double>(m.SharedExpertFfnHiddenSize());
  const double router = h * static_cast<double>(m.num_experts);
  const double moe_layers = static_cast<double>(m.MoeLayers());
  const double dense_layers = static_cast<double>(m.num_dense_layers);
  const double moe_total = expert * static_cast<double>(m.num_experts) + shared + router;
  const double moe_active = expert * static_cast<double>(m.experts_per_token) + shared + router;
  const double body = layers * (attention + norms) + dense_layers * dense_ffn;
  c.expert = expert;
  c.expert_per_layer = expert * moe_layers / layers;
  c.total = body + moe_layers * moe_total + c.embedding + h;
  c.active = body + moe_layers * moe_active + c.embedding + h;
  c.per_layer_total = (c.total - c.embedding - h) / layers;
  return c;
}

ModelArchitecture EffectiveShape(const ModelArchitecture& model) {
  if (model.HasArchitecture()) return model;
  ModelArchitecture s = model;
  // N ~ 12·L·h² with h = 128·L  =>  h = (128·N/12)^(1/3), rounded to a multiple of 128.
  double h = std::cbrt(128.0 * model.parameter_count / 12.0);
  h = std::max(128.0, std::round(h / 128.0) * 128.0);
  s.hidden_size = static_cast<int64_t>(h);
  s.num_layers = std::max<int64_t>(1, static_cast<int64_t>(std::llround(h / 128.0)));
  s.num_attention_heads = s.hidden_size / 128;
  s.num_kv_heads = s.num_attention_heads;
  s.ffn_hidden_size = 4 * s.hidden_size;
  s.gated_mlp = false;
  s.vocab_size = 32000;
  return s;
}

}  // namespace capplan::core
