// Workload flags -> TrainingWorkload / ServingWorkload.
#include "client/cli/workload.h"

#include <google/protobuf/util/json_util.h>

#include <cstdint>
#include <functional>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "client/cli/common.h"

namespace capplan::cli {
namespace {

constexpr int64_t kMaxTokens = int64_t{1} << 40;

absl::StatusOr<v1::ModelArchitecture> ModelFromFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return absl::InvalidArgumentError(absl::StrCat("--model_file: ", text.status().message()));
  v1::ModelArchitecture model;
  auto parsed = google::protobuf::util::JsonStringToMessage(*text, &model);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--model_file: ", path, " is not a ModelArchitecture in protobuf JSON: ", parsed.ToString()));
  }
  return model;
}

// Sets the workload's model oneof from --model or --model_file.
template <typename Workload>
absl::Status SetModel(const ModelFlags& flags, Workload* out) {
  const int given = static_cast<int>(!flags.name.empty()) + static_cast<int>(!flags.file.empty()) +
                    static_cast<int>(!flags.hf_config.empty());
  if (given != 1) {
    return absl::InvalidArgumentError("give exactly one of --model=NAME, --model_file=PATH and --hf_config=PATH");
  }
  if (!flags.name.empty()) {
    out->set_model_name(flags.name);
    return absl::OkStatus();
  }
  if (!flags.hf_config.empty()) {
    // Sent as read: the server maps it and names any field it cannot use.
    absl::StatusOr<std::string> text = ReadFile(flags.hf_config);
    if (!text.ok()) return absl::InvalidArgumentError(absl::StrCat("--hf_config: ", text.status().message()));
    out->set_hf_config_json(*std::move(text));
    return absl::OkStatus();
  }
  absl::StatusOr<v1::ModelArchitecture> model = ModelFromFile(flags.file);
  if (!model.ok()) return model.status();
  *out->mutable_architecture() = *std::move(model);
  return absl::OkStatus();
}

}  // namespace

void AddModelFlags(FlagSet* flags, ModelFlags* model) {
  flags->String("model", "NAME", "catalog model name, e.g. Llama-2-7B (capplan catalog models)", &model->name);
  flags->String("model_file", "PATH",
                "a ModelArchitecture in protobuf JSON instead of --model, e.g. "
                "{\"name\":\"my-7b\",\"num_layers\":32,\"hidden_size\":4096,...}",
                &model->file);
  flags->String("hf_config", "PATH",
                "a Hugging Face config.json as published instead of --model (model_type llama, mistral, mixtral, "
                "qwen2, qwen2_moe, qwen3, qwen3_moe, deepseek_v2, deepseek_v3, gpt_oss, gemma, gemma2, gemma3)",
                &model->hf_config);
}

bool HasModel(const ModelFlags& model) {
  return !model.name.empty() || !model.file.empty() || !model.hf_config.empty();
}

void AddTrainingFlags(FlagSet* flags, TrainingFlags* t) {
  AddModelFlags(flags, &t->model);
  v1::TrainingWorkload* w = &t->workload;
  NumberField(flags, "tokens", "N", "training tokens, e.g. 2e9", "", 0, false, 1e18,
              [w](double d) { w->set_tokens(d); });
  IntField(flags, "sequence_tokens", "tokens per training sequence, at most the model's context window",
           "4096, or the model's context window if shorter", 1, kMaxTokens,
           [w](int64_t n) { w->set_sequence_tokens(n); });
  IntField(flags, "global_batch_tokens", "tokens per optimizer step across all GPUs", "0: searched by the server", 0,
           kMaxTokens, [w](int64_t n) { w->set_global_batch_tokens(n); });
  EnumField<v1::Precision>(flags, "precision", "fp32|bf16|fp16|fp8", "training precision (16 and 8 bit: mixed)",
                           "server's choice", "PRECISION_", v1::Precision_Parse,
                           [w](v1::Precision p) { w->set_precision(p); });
  w->set_method(v1::TRAINING_METHOD_FULL);
  EnumField<v1::TrainingMethod>(flags, "method", "full|lora|qlora", "fine-tuning method", "full", "TRAINING_METHOD_",
                                v1::TrainingMethod_Parse, [w](v1::TrainingMethod m) { w->set_method(m); });
  EnumField<v1::Optimizer>(flags, "optimizer", "adamw|adamw_8bit|sgd_momentum", "optimizer (sets its state memory)",
                           "adamw", "OPTIMIZER_", v1::Optimizer_Parse, [w](v1::Optimizer o) { w->set_optimizer(o); });
  IntField(flags, "lora_rank", "LoRA rank with --method=lora|qlora", "16", 1, 65536,
           [w](int64_t n) { w->set_lora_rank(static_cast<int32_t>(n)); });
  NumberField(flags, "goodput_fraction", "F",
              "share of end-to-end wall time doing useful steps (failures, restarts, checkpoints and evaluation "
              "take the rest)",
              "0.9", 0, false, 1, [w](double d) { w->set_goodput_fraction(d); });
  flags->Bool("flash_attention", "assume FlashAttention (--noflash_attention: off)", &t->flash_attention);
}

void AddServingFlags(FlagSet* flags, ServingFlags* s) {
  AddModelFlags(flags, &s->model);
  v1::ServingWorkload* w = &s->workload;
  EnumField<v1::Precision>(flags, "weight_precision", "fp16|bf16|fp8|int8|int4", "precision of the weights",
                           "server's choice", "PRECISION_", v1::Precision_Parse,
                           [w](v1::Precision p) { w->set_weight_precision(p); });
  EnumField<v1::Precision>(flags, "kv_cache_precision", "fp16|bf16|fp8|int8", "precision of the KV cache",
                           "server's choice", "PRECISION_", v1::Precision_Parse,
                           [w](v1::Precision p) { w->set_kv_cache_precision(p); });
  IntField(flags, "prompt_tokens", "prompt length, tokens per request", "0", 0, kMaxTokens,
           [w](int64_t n) { w->set_prompt_tokens(n); });
  IntField(flags, "output_tokens", "output length, tokens per request", "0", 0, kMaxTokens,
           [w](int64_t n) { w->set_output_tokens(n); });
  NumberField(flags, "rps", "REQ_PER_S", "offered load, requests per second", "0", 0, true, 1e9,
              [w](double d) { w->set_requests_per_second(d); });
  NumberField(flags, "ttft_ms", "MS", "time-to-first-token SLO, milliseconds (0: none)", "0", 0, true, 1e9,
              [s](double d) { s->ttft_ms = d; });
  NumberField(flags, "tpot_ms", "MS", "time-per-output-token SLO, milliseconds (0: none)", "0", 0, true, 1e9,
              [s](double d) { s->tpot_ms = d; });
  NumberField(flags, "e2e_ms", "MS", "end-to-end request latency SLO, milliseconds (0: none)", "0", 0, true, 1e9,
              [s](double d) { s->e2e_ms = d; });
  NumberField(flags, "target_utilization", "F", "plan GPUs to run at this busy fraction", "server's choice", 0, false,
              1, [w](double d) { w->set_target_utilization_fraction(d); });
  EnumField<v1::ServingEngine>(flags, "engine", "vllm|tensorrt_llm|sglang|llama_cpp",
                               "serving engine (memory fraction, token budget, efficiencies)", "vllm",
                               "SERVING_ENGINE_", v1::ServingEngine_Parse,
                               [w](v1::ServingEngine e) { w->set_engine(e); });
  flags->String("engine_version", "X.Y", "the engine's release, e.g. 0.6.3 (vLLM: <0.6, 0.6-0.7, 0.8+ V1)",
                &s->engine_version);
  IntField(flags, "concurrency", "closed-loop load: requests kept in flight (0: open loop at --rps)", "0", 0, 10000000,
           [w](int64_t n) { w->set_concurrent_requests(n); });
  flags->Bool("batch_arrives_at_once",
              "the batch's requests arrive together (a static batch or burst): TTFT is the batch's mean",
              &s->batch_arrives_at_once);
}

bool AddWorkloadFlags(const std::string& kind, FlagSet* flags, WorkloadFlags* w) {
  if (kind != "training" && kind != "serving") return false;
  w->serving = kind == "serving";
  if (w->serving) {
    AddServingFlags(flags, &w->serving_flags);
  } else {
    AddTrainingFlags(flags, &w->training);
  }
  return true;
}

absl::Status BuildTraining(const TrainingFlags& flags, v1::TrainingWorkload* out) {
  *out = flags.workload;
  out->set_disable_flash_attention(!flags.flash_attention);
  return SetModel(flags.model, out);
}

absl::Status BuildServing(const ServingFlags& flags, v1::ServingWorkload* out) {
  if (flags.ttft_ms < 0 || flags.tpot_ms < 0 || flags.e2e_ms < 0) {
    return absl::InvalidArgumentError("SLOs (--ttft_ms, --tpot_ms, --e2e_ms) must be >= 0");
  }
  *out = flags.workload;
  out->set_ttft_slo_seconds(flags.ttft_ms / 1000);
  out->set_tpot_slo_seconds(flags.tpot_ms / 1000);
  out->set_e2e_slo_seconds(flags.e2e_ms / 1000);
  out->set_batch_arrives_at_once(flags.batch_arrives_at_once);
  out->set_engine_version(flags.engine_version);
  return SetModel(flags.model, out);
}

}  // namespace capplan::cli
