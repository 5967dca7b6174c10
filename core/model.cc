// Parameter counting for dense and MoE decoder-only transformers.
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
}  // namespace

absl::Status ValidateModel(const ModelArchitecture& m) {
  if (!m.HasArchitecture()) {
    if (m.num_layers < 0) return CheckRange("num_layers", m.num_layers, 1, kMaxLayers);
    return CheckRange("parameter_count", m.parameter_count, 1e6, kMaxParameters);
  }
  CAPPLAN_RETURN_IF_ERROR(CheckRange("num_layers", m.num_layers, 1, kMaxLayers));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("hidden_size", m.hidden_size, 1, kMaxHidden));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("num_attention_heads", m.num_attention_heads, 1, kMaxHeads));
  if (m.hidden_size % m.num_attention_heads != 0) {
    return FieldError("num_attention_heads",
                      absl::StrCat("must divide hidden_size ", m.hidden_size, ", got ", m.num_attention_heads));
  }
  CAPPLAN_RETURN_IF_ERROR(CheckRange("num_kv_heads", m.num_kv_heads, 0, m.num_attention_heads));
  if (m.num_kv_heads > 0 && m.num_attention_heads % m.num_kv_heads != 0) {
    return FieldError("num_kv_heads", absl::StrCat("must divide num_attention_heads ", m.num_attention_heads, ", got ",
                                                   m.num_kv_heads));
  }
  CAPPLAN_RETURN_IF_ERROR(CheckRange("ffn_hidden_size", m.ffn_hidden_size, 1, 16 * kMaxHidden));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("vocab_size", m.vocab_size, 1, kMaxVocab));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("num_experts", m.num_experts, 0, kMaxExperts));
  if (m.IsMoe()) {
    CAPPLAN_RETURN_IF_ERROR(CheckRange("experts_per_token", m.experts_per_token, 1, m.num_experts));
  } else if (m.experts_per_token != 0) {
    // A dense model routes nothing; a value here means the caller described another model.
    return FieldError("experts_per_token", absl::StrCat("must be 0 for a dense model (num_experts ", m.num_experts,
                                                        "), got ", m.experts_per_token));
  }
  return absl::OkStatus();
}

absl::StatusOr<ParameterCounts> CountParameters(const ModelArchitecture& m) {
  CAPPLAN_RETURN_IF_ERROR(ValidateModel(m));
  ParameterCounts c;
  if (!m.HasArchitecture()) {
    c.total = c.active = m.parameter_count;
    return c;
  }
  const double h = static_cast<double>(m.hidden_size);
  const double kv_dim = static_cast<double>(m.KvHeads() * m.HeadDim());
  // Attention: Q and O are h x h; K and V are h x (kv_heads * head_dim) (GQA/MQA).
  const double attention = 2.0 * h * h + 2.0 * h * kv_dim;
  const double ffn_matrices = m.gated_mlp ? 3.0 : 2.0;
  const double expert = ffn_matrices * h * static_cast<double>(m.ffn_hidden_size);
  const double norms = 2.0 * h;  // pre-attention and pre-FFN norm weights
  double ffn_total = expert;
  double ffn_active = expert;
  if (m.IsMoe()) {
    const double router = h * static_cast<double>(m.num_experts);
    ffn_total = expert * static_cast<double>(m.num_experts) + router;
    ffn_active = expert * static_cast<double>(m.experts_per_token) + router;
  }
  const double layers = static_cast<double>(m.num_layers);
  c.embedding = static_cast<double>(m.vocab_size) * h * (m.tied_embeddings ? 1.0 : 2.0);
  c.per_layer_total = attention + ffn_total + norms;
  c.expert_per_layer = m.IsMoe() ? expert : 0.0;
  c.total = layers * c.per_layer_total + c.embedding + h;  // + final norm
  c.active = layers * (attention + ffn_active + norms) + c.embedding + h;
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
