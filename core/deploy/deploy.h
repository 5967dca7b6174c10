// Deploy: one planned option rendered as the files that run it (Kubernetes manifests, a
// Slurm script, or the launch command alone). Pure: a spec in, text out; the server converts
// a PlanOption and its request into a spec at the edge (server/planning/deploy.cc).
//
// Every flag rendered is one the tool's published documentation lists, cited where it is
// written (serving_render.cc, training_render.cc) and in docs/api.md "Deploy".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/model.h"
#include "core/precision.h"
#include "core/serving/serving_engine.h"
#include "core/training/training.h"

namespace capplan::core::deploy {

enum class Target { kKubernetes, kSlurm, kCommand };

// Which device plugin's resource the pods ask for: nvidia.com/gpu or amd.com/gpu.
enum class Accelerator { kNvidia, kAmd };

// What every rendered file records about where it came from.
struct Provenance {
  int option_rank = 1;
  int64_t catalog_version = 0;
  std::string capplan_version;
  std::string gpu_name;  // the catalog's name, e.g. "H100-SXM5-80GB"
  std::string where;     // the offer or owned pool, e.g. "aws p5.48xlarge us-east-1"
  double cost_usd_per_hour = 0;
};

struct ServingSpec {
  Provenance from;
  std::string model_path;  // what the engine loads: a Hugging Face repo id or a local path
  std::string name;        // the Kubernetes object name (DNS-1123 label, checked by Render)
  ServingEngine engine = ServingEngine::kVllm;
  Accelerator accelerator = Accelerator::kNvidia;
  int tensor_parallel = 1;    // GPUs per pipeline stage
  int pipeline_parallel = 1;  // stages per replica, one per node when replica_nodes > 1
  int replicas = 1;
  int replica_nodes = 1;         // nodes one replica spans
  int gpus_per_pod = 1;          // GPUs of one replica on one node
  int64_t max_num_seqs = 1;      // concurrent sequences per replica
  int64_t max_model_len = 1;     // prompt + output tokens of one sequence
  double memory_fraction = 0.9;  // of the device (vLLM, SGLang) or of free memory (TensorRT-LLM)
  Precision weight_precision = Precision::kFp16;
  Precision kv_precision = Precision::kFp16;
  // Disaggregated: prefill_replicas servers of prefill_tp GPUs, and `replicas` decode servers
  // of tensor_parallel GPUs each at max_num_seqs (SGLang only).
  bool disaggregated = false;
  int prefill_replicas = 0;
  int prefill_tp = 0;
  // The plan's figures, recorded as annotations.
  double requests_per_second = 0;
  double ttft_seconds = 0;
  double tpot_seconds = 0;
  double memory_per_gpu_bytes = 0;
};

struct TrainingSpec {
  Provenance from;
  std::string model_path;  // the tokenizer and weights the caller trains from
  std::string name;        // the job name (DNS-1123 label)
  Accelerator accelerator = Accelerator::kNvidia;
  ModelArchitecture model;  // the shape Megatron-LM's arguments carry
  TrainingMethod method = TrainingMethod::kFull;
  Precision precision = Precision::kBf16;
  int nodes = 1;
  int gpus_per_node = 1;
  ParallelConfig parallel;
  int64_t sequence_tokens = 0;
  int64_t global_batch_sequences = 0;
  int64_t train_iters = 0;
  // The plan's figures, recorded as comments.
  double step_seconds = 0;
  double mfu_fraction = 0;
  double duration_seconds = 0;
  double tokens_per_second = 0;
};

struct RenderedFile {
  std::string name;
  std::string content;
  std::string media_type;
};

struct Rendered {
  std::vector<RenderedFile> files;
  std::vector<std::string> notes;  // what the files assume or leave to the caller
};

// InvalidArgument for a target the workload has no rendering for (serving on Slurm) or a
// spec out of range; FailedPrecondition, naming why, for an option the engine or trainer
// cannot run as planned (a disaggregated option other than SGLang's, TensorRT-LLM or llama.cpp across nodes,
// LoRA, offload, a ZeRO-3 / HSDP layout).
absl::StatusOr<Rendered> RenderServing(const ServingSpec& spec, Target target);
absl::StatusOr<Rendered> RenderTraining(const TrainingSpec& spec, Target target);

// A DNS-1123 label from free text: lower case, [a-z0-9-], at most 63 characters, starting and
// ending with an alphanumeric ("capplan" when nothing is left).
std::string DnsLabel(const std::string& text);

}  // namespace capplan::core::deploy
