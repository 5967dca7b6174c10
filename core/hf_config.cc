// Hugging Face config.json -> ModelArchitecture, field by field, per model_type. Field names
// and defaults are those of the transformers configuration classes
// (src/transformers/models/<type>/configuration_<type>.py).
#include "core/hf_config.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/validate.h"

namespace capplan::core {

namespace {

constexpr double kMaxInteger = 1e12;

// Reads keys under an optional prefix ("text_config." for Gemma 3's multimodal wrapper) and
// names the key as config.json spells it in every error.
class Reader {
 public:
  Reader(const HfConfig& config, std::string prefix, std::string model_type)
      : config_(config), prefix_(std::move(prefix)), model_type_(std::move(model_type)) {}

  std::string Name(const std::string& key) const { return prefix_ + key; }

  // Absent and JSON null read alike: transformers treats both as "use the default".
  const HfConfigValue* Find(const std::string& key) const {
    auto it = config_.find(Name(key));
    if (it == config_.end() || it->second.kind == HfConfigValue::Kind::kNull) return nullptr;
    return &it->second;
  }

  absl::StatusOr<int64_t> Int(const std::string& key) const {
    const HfConfigValue* v = Find(key);
    if (v == nullptr) return FieldError(Name(key), absl::StrCat("required for model_type ", model_type_));
    return AsInt(key, *v);
  }

  absl::StatusOr<int64_t> IntOr(const std::string& key, int64_t fallback) const {
    const HfConfigValue* v = Find(key);
    if (v == nullptr) return fallback;
    return AsInt(key, *v);
  }

  absl::StatusOr<bool> BoolOr(const std::string& key, bool fallback) const {
    const HfConfigValue* v = Find(key);
    if (v == nullptr) return fallback;
    if (v->kind != HfConfigValue::Kind::kBool) return FieldError(Name(key), "must be true or false");
    return v->flag;
  }

 private:
  absl::StatusOr<int64_t> AsInt(const std::string& key, const HfConfigValue& v) const {
    if (v.kind != HfConfigValue::Kind::kNumber || !std::isfinite(v.number) || v.number < 0 || v.number > kMaxInteger ||
        std::floor(v.number) != v.number) {
      return FieldError(Name(key), "must be a non-negative integer");
    }
    return static_cast<int64_t>(v.number);
  }

  const HfConfig& config_;
  std::string prefix_;
  std::string model_type_;
};

#define CAPPLAN_HF_READ(lhs, expr)       \
  do {                                   \
    auto capplan_hf_value_ = (expr);     \
    if (!capplan_hf_value_.ok()) {       \
      return capplan_hf_value_.status(); \
    }                                    \
    (lhs) = *capplan_hf_value_;          \
  } while (0)

// Fields every supported decoder shares. Gemma 3's text config leaves the attention shape and
// vocabulary at the Gemma3TextConfig defaults (8 heads, 4 KV heads, head_dim 256, 262,208
// tokens) when they match, so those are read with those defaults.
absl::Status ReadCommon(const Reader& r, bool gemma3, bool tied_default, HfModel* out) {
  ModelArchitecture& a = out->arch;
  CAPPLAN_HF_READ(a.num_layers, r.Int("num_hidden_layers"));
  CAPPLAN_HF_READ(a.hidden_size, r.Int("hidden_size"));
  CAPPLAN_HF_READ(a.ffn_hidden_size, r.Int("intermediate_size"));
  if (gemma3) {
    CAPPLAN_HF_READ(a.num_attention_heads, r.IntOr("num_attention_heads", 8));
    CAPPLAN_HF_READ(a.num_kv_heads, r.IntOr("num_key_value_heads", 4));
    CAPPLAN_HF_READ(a.head_dim, r.IntOr("head_dim", 256));
    CAPPLAN_HF_READ(a.vocab_size, r.IntOr("vocab_size", 262208));
  } else {
    CAPPLAN_HF_READ(a.num_attention_heads, r.Int("num_attention_heads"));
    CAPPLAN_HF_READ(a.num_kv_heads, r.IntOr("num_key_value_heads", a.num_attention_heads));
    CAPPLAN_HF_READ(a.head_dim, r.IntOr("head_dim", 0));
    CAPPLAN_HF_READ(a.vocab_size, r.Int("vocab_size"));
  }
  CAPPLAN_HF_READ(a.tied_embeddings, r.BoolOr("tie_word_embeddings", tied_default));
  CAPPLAN_HF_READ(out->max_context_tokens, r.IntOr("max_position_embeddings", 0));
  a.gated_mlp = true;  // every supported type: SwiGLU, or GeGLU for Gemma
  return absl::OkStatus();
}

// Qwen2-MoE and Qwen3-MoE: every decoder_sparse_step-th layer is MoE unless listed in
// mlp_only_layers; only "all layers MoE" (step 1, no list) is expressible here.
absl::Status ReadQwenMoe(const Reader& r, bool qwen2, ModelArchitecture* a) {
  CAPPLAN_HF_READ(a->num_experts, r.Int("num_experts"));
  CAPPLAN_HF_READ(a->experts_per_token, r.Int("num_experts_per_tok"));
  CAPPLAN_HF_READ(a->expert_ffn_hidden_size, r.Int("moe_intermediate_size"));
  int64_t step = 1;
  CAPPLAN_HF_READ(step, r.IntOr("decoder_sparse_step", 1));
  if (step != 1) return FieldError(r.Name("decoder_sparse_step"), "only 1 (every layer MoE) is supported");
  const HfConfigValue* dense = r.Find("mlp_only_layers");
  if (dense != nullptr && dense->size > 0) {
    return FieldError(r.Name("mlp_only_layers"), "must be empty: dense layers between MoE layers are not supported");
  }
  if (qwen2) {
    // One shared expert of shared_expert_intermediate_size (Qwen2MoeSparseMoeBlock).
    int64_t shared = 0;
    CAPPLAN_HF_READ(shared, r.Int("shared_expert_intermediate_size"));
    a->num_shared_experts = shared > 0 ? 1 : 0;
    a->shared_expert_ffn_hidden_size = shared;
  }
  return absl::OkStatus();
}

// DeepSeek-V2/V3: the first first_k_dense_replace layers dense (intermediate_size), the rest
// n_routed_experts routed plus n_shared_experts shared experts of moe_intermediate_size, and
// multi-head latent attention.
absl::Status ReadDeepseek(const Reader& r, ModelArchitecture* a) {
  CAPPLAN_HF_READ(a->num_experts, r.Int("n_routed_experts"));
  CAPPLAN_HF_READ(a->experts_per_token, r.Int("num_experts_per_tok"));
  CAPPLAN_HF_READ(a->expert_ffn_hidden_size, r.Int("moe_intermediate_size"));
  CAPPLAN_HF_READ(a->num_shared_experts, r.IntOr("n_shared_experts", 0));
  CAPPLAN_HF_READ(a->num_dense_layers, r.IntOr("first_k_dense_replace", 0));
  int64_t freq = 1;
  CAPPLAN_HF_READ(freq, r.IntOr("moe_layer_freq", 1));
  if (freq != 1)
    return FieldError(r.Name("moe_layer_freq"), "only 1 (every layer after the dense ones MoE) is supported");
  CAPPLAN_HF_READ(a->q_lora_rank, r.IntOr("q_lora_rank", 0));  // null: queries not compressed
  CAPPLAN_HF_READ(a->kv_lora_rank, r.Int("kv_lora_rank"));
  CAPPLAN_HF_READ(a->qk_rope_head_dim, r.Int("qk_rope_head_dim"));
  CAPPLAN_HF_READ(a->qk_nope_head_dim, r.Int("qk_nope_head_dim"));
  CAPPLAN_HF_READ(a->v_head_dim, r.Int("v_head_dim"));
  // The per-head keys attention materialises from the latent: every head, nope + rope wide.
  a->num_kv_heads = a->num_attention_heads;
  a->head_dim = a->qk_nope_head_dim + a->qk_rope_head_dim;
  return absl::OkStatus();
}

absl::Status ReadByType(const HfConfig& config, const std::string& type, HfModel* out) {
  ModelArchitecture& a = out->arch;
  if (type == "llama" || type == "mistral" || type == "qwen2" || type == "qwen3") {
    return ReadCommon(Reader(config, "", type), false, false, out);
  }
  if (type == "gemma" || type == "gemma2" || type == "gemma3_text") {
    return ReadCommon(Reader(config, "", type), type == "gemma3_text", true, out);
  }
  if (type == "gemma3") {
    // The multimodal checkpoint: the language model is under text_config.
    auto it = config.find("text_config");
    if (it == config.end() || it->second.kind != HfConfigValue::Kind::kObject) {
      return FieldError("text_config", "required for model_type gemma3 (the language model's config)");
    }
    return ReadCommon(Reader(config, "text_config.", type), true, true, out);
  }
  const Reader r(config, "", type);
  if (type == "mixtral" || type == "gpt_oss") {
    CAPPLAN_RETURN_IF_ERROR(ReadCommon(r, false, false, out));
    CAPPLAN_HF_READ(a.num_experts, r.Int("num_local_experts"));
    // gpt-oss configs carry both spellings; transformers reads num_experts_per_tok.
    const bool legacy = type == "gpt_oss" && r.Find("num_experts_per_tok") == nullptr;
    CAPPLAN_HF_READ(a.experts_per_token, r.Int(legacy ? "experts_per_token" : "num_experts_per_tok"));
    return absl::OkStatus();
  }
  if (type == "qwen2_moe" || type == "qwen3_moe") {
    CAPPLAN_RETURN_IF_ERROR(ReadCommon(r, false, false, out));
    return ReadQwenMoe(r, type == "qwen2_moe", &a);
  }
  if (type == "deepseek_v2" || type == "deepseek_v3") {
    CAPPLAN_RETURN_IF_ERROR(ReadCommon(r, false, false, out));
    return ReadDeepseek(r, &a);
  }
  return FieldError("model_type",
                    absl::StrCat("\"", type, "\" is not supported; supported: ", HfSupportedModelTypes()));
}

#undef CAPPLAN_HF_READ

}  // namespace

const char* HfSupportedModelTypes() {
  return "llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, deepseek_v2, deepseek_v3, gpt_oss, gemma, "
         "gemma2, gemma3, gemma3_text";
}

absl::StatusOr<HfModel> ModelFromHfConfig(const HfConfig& config) {
  auto type = config.find("model_type");
  if (type == config.end() || type->second.kind != HfConfigValue::Kind::kString || type->second.text.empty()) {
    return FieldError("model_type", absl::StrCat("required, one of: ", HfSupportedModelTypes()));
  }
  HfModel out;
  out.model_type = type->second.text;
  CAPPLAN_RETURN_IF_ERROR(ReadByType(config, out.model_type, &out));
  auto name = config.find("_name_or_path");
  out.arch.name = name != config.end() && !name->second.text.empty() ? name->second.text : out.model_type;
  absl::Status valid = ValidateModel(out.arch);
  if (!valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(valid.message(), " (in the architecture mapped from this model_type ", out.model_type, ")"));
  }
  return out;
}

}  // namespace capplan::core
