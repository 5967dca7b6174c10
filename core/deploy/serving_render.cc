// Serving: the option's engine launched with the planned layout and batch, as a Kubernetes
// Deployment (one node per replica) or LeaderWorkerSet (replicas across nodes) plus a Service,
// or as the launch command alone.
//
// Flags, by the documentation of each engine at the version named:
//  - vLLM v0.11.0 `vllm serve` engine arguments, https://docs.vllm.ai/en/v0.11.0/configuration/engine_args.html
//    (--tensor-parallel-size, --pipeline-parallel-size, --max-num-seqs, --max-model-len,
//    --gpu-memory-utilization, --quantization fp8, --kv-cache-dtype fp8,
//    --distributed-executor-backend ray); multi-node over Ray as in "Deploying with LWS",
//    https://docs.vllm.ai/en/v0.11.0/deployment/frameworks/lws.html; health: GET /health.
//  - SGLang server arguments, https://docs.sglang.ai/advanced_features/server_arguments.html
//    (v0.5: --model-path, --tp-size, --pp-size, --mem-fraction-static, --max-running-requests,
//    --context-length, --quantization fp8, --kv-cache-dtype fp8_e4m3, --nnodes, --node-rank,
//    --dist-init-addr); default port 30000; health: GET /health.
//  - TensorRT-LLM trtllm-serve, https://nvidia.github.io/TensorRT-LLM/1.0.0/commands/trtllm-serve/trtllm-serve.html
//    (--tp_size, --pp_size, --max_batch_size, --max_seq_len, --kv_cache_free_gpu_memory_fraction);
//    health: GET /health.
//  - llama.cpp llama-server, https://github.com/ggml-org/llama.cpp/blob/b6700/tools/server/README.md
//    (--model, --ctx-size, --parallel, --n-gpu-layers); health: GET /health.
//  - LeaderWorkerSet leaderworkerset.x-k8s.io/v1 (v0.7), https://lws.sigs.k8s.io/docs/reference/leaderworkerset.v1/:
//    the leader's address and a pod's index in LWS_LEADER_ADDRESS and LWS_WORKER_INDEX.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/deploy/deploy.h"
#include "core/deploy/kube.h"
#include "core/deploy/serving_internal.h"
#include "core/deploy/text.h"

namespace capplan::core::deploy {
namespace {

constexpr int kRayPort = 6379;           // `ray start --head` default port
constexpr int kSglangDistPort = 20000;   // any free port; the SGLang multi-node example's
constexpr int kLlamaCppAllLayers = 999;  // --n-gpu-layers beyond any model's layers: all on the GPU
constexpr int kDigitsSeconds = 4;
constexpr int kDigitsRate = 2;
constexpr int kDigitsFraction = 3;

struct Engine {
  const char* image;   // a public image of the engine; pin the tag you have tested
  int port;            // the server's default port
  const char* health;  // the readiness endpoint
};

Engine EngineOf(const ServingSpec& s) {
  const bool amd = s.accelerator == Accelerator::kAmd;
  switch (s.engine) {
    case ServingEngine::kVllm:
      return {amd ? "rocm/vllm:latest" : "vllm/vllm-openai:v0.11.0", 8000, "/health"};
    case ServingEngine::kSglang:
      return {amd ? "lmsysorg/sglang:latest-rocm" : "lmsysorg/sglang:latest", 30000, "/health"};
    case ServingEngine::kTensorRtLlm:
      return {"nvcr.io/nvidia/tensorrt-llm/release:1.0.0", 8000, "/health"};
    case ServingEngine::kLlamaCpp:
      return {amd ? "ghcr.io/ggml-org/llama.cpp:server-rocm" : "ghcr.io/ggml-org/llama.cpp:server-cuda", 8080,
              "/health"};
  }
  return {"", 0, ""};
}

// Why the option cannot be rendered as planned; OK when it can.
absl::Status Renderable(const ServingSpec& s) {
  if (s.disaggregated) return DisaggregatedRenderable(s);
  const bool multinode = s.replica_nodes > 1;
  if (multinode && (s.engine == ServingEngine::kTensorRtLlm || s.engine == ServingEngine::kLlamaCpp)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "engine ", ServingEngineName(s.engine), " cannot be rendered across nodes (the option spans ", s.replica_nodes,
        " nodes per replica); plan with max_gpus at one node's GPUs, or use vLLM or SGLang"));
  }
  if (s.engine == ServingEngine::kTensorRtLlm && s.accelerator == Accelerator::kAmd) {
    return absl::FailedPreconditionError("engine tensorrt_llm runs on NVIDIA GPUs only; the option's GPU is AMD");
  }
  if (s.kv_precision == Precision::kInt8 || s.kv_precision == Precision::kInt4) {
    return absl::FailedPreconditionError(absl::StrCat("kv_cache_precision ", PrecisionName(s.kv_precision),
                                                      ": the engines' KV cache flags take 16-bit or fp8 only"));
  }
  return absl::OkStatus();
}

std::vector<std::string> VllmArgs(const ServingSpec& s, int port) {
  std::vector<std::string> a = {"vllm",
                                "serve",
                                s.model_path,
                                "--host",
                                "0.0.0.0",
                                "--port",
                                absl::StrCat(port),
                                "--tensor-parallel-size",
                                absl::StrCat(s.tensor_parallel),
                                "--pipeline-parallel-size",
                                absl::StrCat(s.pipeline_parallel),
                                "--max-num-seqs",
                                absl::StrCat(s.max_num_seqs),
                                "--max-model-len",
                                absl::StrCat(s.max_model_len),
                                "--gpu-memory-utilization",
                                Figure(s.memory_fraction, kDigitsFraction)};
  AddQuantization(s, "fp8", &a);
  if (s.replica_nodes > 1) a.insert(a.end(), {"--distributed-executor-backend", "ray"});
  return a;
}

std::vector<std::string> SglangArgs(const ServingSpec& s, int port, bool kubernetes) {
  std::vector<std::string> a = {"python3",
                                "-m",
                                "sglang.launch_server",
                                "--model-path",
                                s.model_path,
                                "--host",
                                "0.0.0.0",
                                "--port",
                                absl::StrCat(port),
                                "--tp-size",
                                absl::StrCat(s.tensor_parallel)};
  if (s.pipeline_parallel > 1) a.insert(a.end(), {"--pp-size", absl::StrCat(s.pipeline_parallel)});
  a.insert(a.end(),
           {"--max-running-requests", absl::StrCat(s.max_num_seqs), "--context-length", absl::StrCat(s.max_model_len),
            "--mem-fraction-static", Figure(s.memory_fraction, kDigitsFraction)});
  AddQuantization(s, "fp8_e4m3", &a);
  if (s.replica_nodes > 1) {
    const std::string leader = kubernetes ? "$(LWS_LEADER_ADDRESS)" : "${LEADER_ADDRESS}";
    a.insert(a.end(), {"--nnodes", absl::StrCat(s.replica_nodes), "--node-rank",
                       kubernetes ? "$(LWS_WORKER_INDEX)" : "${NODE_RANK}", "--dist-init-addr",
                       absl::StrCat(leader, ":", kSglangDistPort)});
  }
  return a;
}

std::vector<std::string> TrtllmArgs(const ServingSpec& s, int port) {
  // TensorRT-LLM's fraction is of the memory free after weights, as the plan's engine profile.
  return {"trtllm-serve",
          s.model_path,
          "--host",
          "0.0.0.0",
          "--port",
          absl::StrCat(port),
          "--tp_size",
          absl::StrCat(s.tensor_parallel),
          "--pp_size",
          absl::StrCat(s.pipeline_parallel),
          "--max_batch_size",
          absl::StrCat(s.max_num_seqs),
          "--max_seq_len",
          absl::StrCat(s.max_model_len),
          "--kv_cache_free_gpu_memory_fraction",
          Figure(s.memory_fraction, kDigitsFraction)};
}

std::vector<std::string> LlamaCppArgs(const ServingSpec& s, int port) {
  // llama-server's context is shared by its slots: each of --parallel gets ctx-size / parallel.
  return {"llama-server",
          "--model",
          s.model_path,
          "--host",
          "0.0.0.0",
          "--port",
          absl::StrCat(port),
          "--parallel",
          absl::StrCat(s.max_num_seqs),
          "--ctx-size",
          absl::StrCat(s.max_num_seqs * s.max_model_len),
          "--n-gpu-layers",
          absl::StrCat(kLlamaCppAllLayers)};
}

// The engine's launch on the leader (or only) node.
std::vector<std::string> LaunchArgs(const ServingSpec& s, bool kubernetes) {
  const int port = EngineOf(s).port;
  switch (s.engine) {
    case ServingEngine::kVllm:
      return VllmArgs(s, port);
    case ServingEngine::kSglang:
      return SglangArgs(s, port, kubernetes);
    case ServingEngine::kTensorRtLlm:
      return TrtllmArgs(s, port);
    case ServingEngine::kLlamaCpp:
      return LlamaCppArgs(s, port);
  }
  return {};
}

}  // namespace

std::vector<std::pair<std::string, std::string>> ServingAnnotations(const ServingSpec& s) {
  return {{"capplan/engine", ServingEngineName(s.engine)},
          {"capplan/gpu", s.from.gpu_name},
          {"capplan/where", s.from.where},
          {"capplan/option-rank", absl::StrCat(s.from.option_rank)},
          {"capplan/requests-per-second", Figure(s.requests_per_second, kDigitsRate)},
          {"capplan/ttft-seconds", Figure(s.ttft_seconds, kDigitsSeconds)},
          {"capplan/tpot-seconds", Figure(s.tpot_seconds, kDigitsSeconds)},
          {"capplan/memory-per-gpu-bytes", Figure(s.memory_per_gpu_bytes, 0)},
          {"capplan/cost-usd-per-hour", Figure(s.from.cost_usd_per_hour, kDigitsRate)},
          {"capplan/catalog-version", absl::StrCat(s.from.catalog_version)},
          {"capplan/capplan-version", s.from.capplan_version}};
}

void AddQuantization(const ServingSpec& s, const char* kv_fp8, std::vector<std::string>* a) {
  // INT8/INT4 weights come as a pre-quantized checkpoint (AWQ, GPTQ) whose config names its
  // method; the engines read it from there, so only FP8 is a flag.
  if (s.weight_precision == Precision::kFp8) a->insert(a->end(), {"--quantization", "fp8"});
  if (s.kv_precision == Precision::kFp8) a->insert(a->end(), {"--kv-cache-dtype", kv_fp8});
}

namespace {

KeyValues Labels(const ServingSpec& s) {
  return {{"app.kubernetes.io/name", s.name}, {"app.kubernetes.io/managed-by", "capplan"}};
}

Container EngineContainer(const ServingSpec& s, std::vector<std::string> command) {
  const Engine e = EngineOf(s);
  Container c;
  c.name = "engine";
  c.image = e.image;
  c.command = std::move(command);
  c.accelerator = s.accelerator;
  c.gpus = s.gpus_per_pod;
  c.port = e.port;
  c.health = e.health;
  return c;
}

// One replica per pod, inside one node.
std::string DeploymentYaml(const ServingSpec& s) {
  return absl::StrCat("apiVersion: apps/v1\nkind: Deployment\n", Metadata(s.name, Labels(s), ServingAnnotations(s), 0),
                      "spec:\n  replicas: ", s.replicas,
                      "\n  selector:\n    matchLabels:\n      app.kubernetes.io/name: ", s.name, "\n  template:\n",
                      Metadata("", Labels(s), {}, 4), "    spec:\n",
                      PodSpec(EngineContainer(s, LaunchArgs(s, true)), s.from.gpu_name, "Always", 6));
}

// Leader and workers of one replica across nodes. vLLM: a Ray cluster, the leader running
// `vllm serve` over it; SGLang: every node runs the server with its node rank.
std::vector<std::string> LeaderCommand(const ServingSpec& s) {
  if (s.engine == ServingEngine::kSglang) return LaunchArgs(s, true);
  return {"/bin/sh", "-c",
          absl::StrCat("ray start --head --port=", kRayPort, " && exec ", ShellLine(LaunchArgs(s, true)))};
}

std::vector<std::string> WorkerCommand(const ServingSpec& s) {
  if (s.engine == ServingEngine::kSglang) return LaunchArgs(s, true);
  return {"/bin/sh", "-c", absl::StrCat("ray start --address=$(LWS_LEADER_ADDRESS):", kRayPort, " --block")};
}

std::string LeaderWorkerSetYaml(const ServingSpec& s) {
  KeyValues leader_labels = Labels(s);
  leader_labels.emplace_back("capplan/role", "leader");
  Container worker = EngineContainer(s, WorkerCommand(s));
  worker.port = 0;  // workers serve no HTTP: only the leader is probed and behind the Service
  return absl::StrCat("apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\n",
                      Metadata(s.name, Labels(s), ServingAnnotations(s), 0), "spec:\n  replicas: ", s.replicas,
                      "\n  leaderWorkerTemplate:\n    size: ", s.replica_nodes,
                      "\n    restartPolicy: RecreateGroupOnPodRestart\n    leaderTemplate:\n",
                      Metadata("", leader_labels, {}, 6), "      spec:\n",
                      PodSpec(EngineContainer(s, LeaderCommand(s)), s.from.gpu_name, "Always", 8),
                      "    workerTemplate:\n", Metadata("", Labels(s), {}, 6), "      spec:\n",
                      PodSpec(worker, s.from.gpu_name, "Always", 8));
}

std::string ServiceYaml(const ServingSpec& s) {
  const int port = EngineOf(s).port;
  std::string selector = absl::StrCat("    app.kubernetes.io/name: ", s.name, "\n");
  if (s.replica_nodes > 1) absl::StrAppend(&selector, "    capplan/role: \"leader\"\n");
  return absl::StrCat("apiVersion: v1\nkind: Service\n", Metadata(s.name, Labels(s), {}, 0), "spec:\n  selector:\n",
                      selector, "  ports:\n    - name: http\n      port: ", port, "\n      targetPort: ", port, "\n");
}

absl::Status CheckSpec(const ServingSpec& s) {
  if (s.model_path.empty()) return absl::InvalidArgumentError("model_path: empty");
  if (DnsLabel(s.name) != s.name) return absl::InvalidArgumentError("name: not a DNS-1123 label");
  if (s.tensor_parallel < 1 || s.pipeline_parallel < 1 || s.replicas < 1 || s.replica_nodes < 1 || s.gpus_per_pod < 1 ||
      s.max_num_seqs < 1 || s.max_model_len < 1) {
    return absl::InvalidArgumentError("serving spec: layout counts must be at least 1");
  }
  if (!(s.memory_fraction > 0 && s.memory_fraction <= 1)) {
    return absl::InvalidArgumentError("serving spec: memory_fraction must be in (0, 1]");
  }
  return Renderable(s);
}

}  // namespace

absl::StatusOr<Rendered> RenderServing(const ServingSpec& s, Target target) {
  if (absl::Status ok = CheckSpec(s); !ok.ok()) return ok;
  Rendered r;
  if (target == Target::kSlurm) {
    return absl::InvalidArgumentError("target: SLURM renders training only; serving takes KUBERNETES or COMMAND");
  }
  if (s.disaggregated) return RenderDisaggregated(s, target);
  if (target == Target::kCommand) {
    std::string text = absl::StrCat(ProvenanceComment(s.from, "#"), ShellLine(LaunchArgs(s, false), 2), "\n");
    if (s.replica_nodes > 1 && s.engine == ServingEngine::kVllm) {
      text =
          absl::StrCat(ProvenanceComment(s.from, "#"), "# on the head node, after `ray start --head --port=", kRayPort,
                       "` there and `ray start --address=${LEADER_ADDRESS}:", kRayPort, "` on the other ",
                       s.replica_nodes - 1, " node(s):\n", ShellLine(LaunchArgs(s, false), 2), "\n");
    }
    r.files.push_back({"serve.sh", std::move(text), "text/x-shellscript"});
    r.notes.push_back(absl::StrCat("run once per replica (", s.replicas, ") on ", s.gpus_per_pod, " GPUs per node, ",
                                   s.replica_nodes, " node(s) per replica"));
    return r;
  }
  const bool multinode = s.replica_nodes > 1;
  std::string yaml = absl::StrCat(ProvenanceComment(s.from, "#"),
                                  multinode ? LeaderWorkerSetYaml(s) : DeploymentYaml(s), "---\n", ServiceYaml(s));
  r.files.push_back({multinode ? "leaderworkerset.yaml" : "deployment.yaml", std::move(yaml), "application/yaml"});
  r.notes.push_back(NodeSelectorNote(s.accelerator, s.from.gpu_name));
  r.notes.push_back(absl::StrCat("image ", EngineOf(s).image, ": pin the tag you have tested"));
  if (multinode) r.notes.push_back("needs the LeaderWorkerSet controller (https://lws.sigs.k8s.io)");
  if (s.weight_precision == Precision::kInt8 || s.weight_precision == Precision::kInt4) {
    r.notes.push_back(absl::StrCat("weights ", PrecisionName(s.weight_precision),
                                   ": point model_path at a checkpoint quantized so (AWQ, GPTQ); the engine reads "
                                   "its quantization config"));
  }
  return r;
}

}  // namespace capplan::core::deploy
