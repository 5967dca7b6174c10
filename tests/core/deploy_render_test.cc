// core/deploy: options rendered from fixed specs, read back as YAML (PyYAML) or shell words
// (shlex) and checked field by field against the spec they came from.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/deploy/deploy.h"
#include "core/deploy/text.h"
#include "gtest/gtest.h"
#include "tests/core/deploy_parse.h"
#include "tests/core/fixtures.h"

namespace capplan::core::deploy {
namespace {

using core::testing::BashParses;
using core::testing::FlagValue;
using core::testing::HasWord;
using core::testing::ParseYaml;
using core::testing::ShellWords;
using Yaml = std::map<std::string, std::string>;

std::string Int(int64_t v) { return absl::StrCat("int:", v); }
std::string Str(const std::string& v) { return absl::StrCat("str:", v); }

// The scalars of the YAML sequence at `prefix` ("0|spec|...|command"), in order.
std::vector<std::string> List(const Yaml& y, const std::string& prefix) {
  std::vector<std::string> out;
  for (int i = 0;; ++i) {
    auto it = y.find(absl::StrCat(prefix, "|", i));
    if (it == y.end()) return out;
    out.push_back(it->second.substr(it->second.find(':') + 1));
  }
}

Provenance From() {
  Provenance p;
  p.option_rank = 1;
  p.catalog_version = 42;
  p.capplan_version = "1.2.3";
  p.gpu_name = "H100-SXM5-80GB";
  p.where = "aws p5.48xlarge x1 us-east-1";
  p.cost_usd_per_hour = 98.32;
  return p;
}

// One replica of 4 GPUs inside a node, three replicas, FP8 weights and KV cache.
ServingSpec VllmSingleNode() {
  ServingSpec s;
  s.from = From();
  s.model_path = "meta-llama/Llama-2-70b-hf";
  s.name = "llama-2-70b-vllm";
  s.tensor_parallel = 4;
  s.replicas = 3;
  s.gpus_per_pod = 4;
  s.max_num_seqs = 64;
  s.max_model_len = 512 + 128;
  s.memory_fraction = 0.9;
  s.weight_precision = Precision::kFp8;
  s.kv_precision = Precision::kFp8;
  s.requests_per_second = 35.5;
  s.ttft_seconds = 0.125;
  s.tpot_seconds = 0.031;
  s.memory_per_gpu_bytes = 7.1e10;
  return s;
}

constexpr char kPod[] = "0|spec|template|spec";

TEST(DeployServing, DeploymentMatchesTheOption) {
  const ServingSpec s = VllmSingleNode();
  absl::StatusOr<Rendered> r = RenderServing(s, Target::kKubernetes);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->files.size(), 1u);
  EXPECT_EQ(r->files[0].media_type, "application/yaml");
  const Yaml y = ParseYaml(r->files[0].content);
  ASSERT_EQ(y.count("error"), 0u) << y.at("error") << r->files[0].content;
  EXPECT_EQ(y.at("0|apiVersion"), Str("apps/v1"));
  EXPECT_EQ(y.at("0|kind"), Str("Deployment"));
  EXPECT_EQ(y.at("0|metadata|name"), Str(s.name));
  EXPECT_EQ(y.at("0|spec|replicas"), Int(s.replicas));
  const std::string c = absl::StrCat(kPod, "|containers|0");
  EXPECT_EQ(y.at(c + "|resources|limits|nvidia.com/gpu"), Int(s.tensor_parallel * s.pipeline_parallel));
  EXPECT_EQ(y.at(absl::StrCat(kPod, "|nodeSelector|nvidia.com/gpu.product")), Str(s.from.gpu_name));
  const std::vector<std::string> argv = List(y, c + "|command");
  ASSERT_GE(argv.size(), 3u);
  EXPECT_EQ(argv[0], "vllm");
  EXPECT_EQ(argv[1], "serve");
  EXPECT_EQ(argv[2], s.model_path);
  EXPECT_EQ(FlagValue(argv, "--tensor-parallel-size"), absl::StrCat(s.tensor_parallel));
  EXPECT_EQ(FlagValue(argv, "--pipeline-parallel-size"), absl::StrCat(s.pipeline_parallel));
  EXPECT_EQ(FlagValue(argv, "--max-num-seqs"), absl::StrCat(s.max_num_seqs));
  EXPECT_EQ(FlagValue(argv, "--max-model-len"), absl::StrCat(s.max_model_len));
  EXPECT_DOUBLE_EQ(std::stod(FlagValue(argv, "--gpu-memory-utilization")), s.memory_fraction);
  EXPECT_EQ(FlagValue(argv, "--quantization"), "fp8");
  EXPECT_EQ(FlagValue(argv, "--kv-cache-dtype"), "fp8");
  // vLLM's OpenAI server: port 8000 by default, GET /health.
  const std::string port = FlagValue(argv, "--port");
  EXPECT_EQ(y.at(c + "|readinessProbe|httpGet|path"), Str("/health"));
  EXPECT_EQ(y.at(c + "|readinessProbe|httpGet|port"), absl::StrCat("int:", port));
  EXPECT_EQ(y.at("1|kind"), Str("Service"));
  EXPECT_EQ(y.at("1|spec|ports|0|targetPort"), absl::StrCat("int:", port));
  EXPECT_EQ(y.at("1|spec|selector|app.kubernetes.io/name"),
            y.at("0|spec|template|metadata|labels|app.kubernetes.io/name"));
  EXPECT_EQ(y.at("0|metadata|annotations|capplan/catalog-version"), Str(absl::StrCat(s.from.catalog_version)));
  EXPECT_EQ(y.at("0|metadata|annotations|capplan/capplan-version"), Str(s.from.capplan_version));
  EXPECT_DOUBLE_EQ(std::stod(y.at("0|metadata|annotations|capplan/cost-usd-per-hour").substr(4)),
                   s.from.cost_usd_per_hour);
  EXPECT_DOUBLE_EQ(std::stod(y.at("0|metadata|annotations|capplan/tpot-seconds").substr(4)), s.tpot_seconds);
}

// Two replicas, each two nodes of 8 GPUs: one pipeline stage per node.
ServingSpec VllmTwoNodes() {
  ServingSpec s = VllmSingleNode();
  s.tensor_parallel = 8;
  s.pipeline_parallel = 2;
  s.replicas = 2;
  s.replica_nodes = 2;
  s.gpus_per_pod = 8;
  s.weight_precision = Precision::kBf16;
  s.kv_precision = Precision::kBf16;
  return s;
}

TEST(DeployServing, LeaderWorkerSetAcrossNodes) {
  const ServingSpec s = VllmTwoNodes();
  absl::StatusOr<Rendered> r = RenderServing(s, Target::kKubernetes);
  ASSERT_TRUE(r.ok()) << r.status();
  const Yaml y = ParseYaml(r->files[0].content);
  ASSERT_EQ(y.count("error"), 0u) << y.at("error");
  EXPECT_EQ(y.at("0|apiVersion"), Str("leaderworkerset.x-k8s.io/v1"));
  EXPECT_EQ(y.at("0|kind"), Str("LeaderWorkerSet"));
  EXPECT_EQ(y.at("0|spec|replicas"), Int(s.replicas));
  EXPECT_EQ(y.at("0|spec|leaderWorkerTemplate|size"), Int(s.replica_nodes));
  const std::string leader = "0|spec|leaderWorkerTemplate|leaderTemplate|spec|containers|0";
  const std::string worker = "0|spec|leaderWorkerTemplate|workerTemplate|spec|containers|0";
  // Every node holds one stage: tp GPUs.
  EXPECT_EQ(y.at(leader + "|resources|limits|nvidia.com/gpu"), Int(s.tensor_parallel));
  EXPECT_EQ(y.at(worker + "|resources|limits|nvidia.com/gpu"), Int(s.tensor_parallel));
  EXPECT_EQ(s.tensor_parallel * s.pipeline_parallel, s.gpus_per_pod * s.replica_nodes);
  const std::vector<std::string> sh = List(y, leader + "|command");
  ASSERT_EQ(sh.size(), 3u);
  const std::vector<std::string> words = ShellWords(sh[2]);
  EXPECT_TRUE(HasWord(words, "vllm"));
  EXPECT_EQ(FlagValue(words, "--tensor-parallel-size"), absl::StrCat(s.tensor_parallel));
  EXPECT_EQ(FlagValue(words, "--pipeline-parallel-size"), absl::StrCat(s.pipeline_parallel));
  EXPECT_EQ(FlagValue(words, "--distributed-executor-backend"), "ray");
  EXPECT_TRUE(y.at(worker + "|command|2").find("ray start --address=$(LWS_LEADER_ADDRESS)") != std::string::npos);
  EXPECT_EQ(y.count(worker + "|readinessProbe|httpGet|path"), 0u);
  EXPECT_EQ(y.at("1|spec|selector|capplan/role"), Str("leader"));
  EXPECT_EQ(y.at("0|spec|leaderWorkerTemplate|leaderTemplate|metadata|labels|capplan/role"), Str("leader"));
}

TEST(DeployServing, SglangOnAmd) {
  ServingSpec s = VllmSingleNode();
  s.engine = ServingEngine::kSglang;
  s.accelerator = Accelerator::kAmd;
  s.from.gpu_name = "MI300X";
  s.memory_fraction = 0.85;
  absl::StatusOr<Rendered> r = RenderServing(s, Target::kKubernetes);
  ASSERT_TRUE(r.ok()) << r.status();
  const Yaml y = ParseYaml(r->files[0].content);
  const std::string c = absl::StrCat(kPod, "|containers|0");
  EXPECT_EQ(y.at(c + "|resources|limits|amd.com/gpu"), Int(s.gpus_per_pod));
  EXPECT_EQ(y.count(c + "|resources|limits|nvidia.com/gpu"), 0u);
  EXPECT_EQ(y.at(absl::StrCat(kPod, "|nodeSelector|amd.com/gpu.product-name")), Str(s.from.gpu_name));
  const std::vector<std::string> argv = List(y, c + "|command");
  EXPECT_EQ(FlagValue(argv, "-m"), "sglang.launch_server");
  EXPECT_EQ(FlagValue(argv, "--model-path"), s.model_path);
  EXPECT_EQ(FlagValue(argv, "--tp-size"), absl::StrCat(s.tensor_parallel));
  EXPECT_EQ(FlagValue(argv, "--max-running-requests"), absl::StrCat(s.max_num_seqs));
  EXPECT_EQ(FlagValue(argv, "--context-length"), absl::StrCat(s.max_model_len));
  EXPECT_DOUBLE_EQ(std::stod(FlagValue(argv, "--mem-fraction-static")), s.memory_fraction);
  EXPECT_EQ(FlagValue(argv, "--kv-cache-dtype"), "fp8_e4m3");
  EXPECT_EQ(y.at(c + "|readinessProbe|httpGet|port"), absl::StrCat("int:", FlagValue(argv, "--port")));
}

TEST(DeployServing, TensorRtLlmCommand) {
  ServingSpec s = VllmSingleNode();
  s.engine = ServingEngine::kTensorRtLlm;
  s.model_path = "/models/it's here";  // quoted for the shell and read back whole
  absl::StatusOr<Rendered> r = RenderServing(s, Target::kCommand);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(BashParses(r->files[0].content)) << r->files[0].content;
  const std::vector<std::string> words = ShellWords(r->files[0].content);
  ASSERT_GE(words.size(), 2u);
  EXPECT_EQ(words[0], "trtllm-serve");
  EXPECT_EQ(words[1], s.model_path);
  EXPECT_EQ(FlagValue(words, "--tp_size"), absl::StrCat(s.tensor_parallel));
  EXPECT_EQ(FlagValue(words, "--pp_size"), absl::StrCat(s.pipeline_parallel));
  EXPECT_EQ(FlagValue(words, "--max_batch_size"), absl::StrCat(s.max_num_seqs));
  EXPECT_EQ(FlagValue(words, "--max_seq_len"), absl::StrCat(s.max_model_len));
}

TEST(DeployServing, UnrenderableOptionsSayWhy) {
  ServingSpec s = VllmSingleNode();
  s.disaggregated = true;
  absl::StatusOr<Rendered> r = RenderServing(s, Target::kKubernetes);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "disaggregated"));

  s = VllmTwoNodes();
  s.engine = ServingEngine::kLlamaCpp;
  r = RenderServing(s, Target::kKubernetes);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "llama_cpp"));
  s.engine = ServingEngine::kTensorRtLlm;
  EXPECT_EQ(RenderServing(s, Target::kCommand).status().code(), absl::StatusCode::kFailedPrecondition);

  s = VllmSingleNode();
  s.kv_precision = Precision::kInt8;
  EXPECT_EQ(RenderServing(s, Target::kKubernetes).status().code(), absl::StatusCode::kFailedPrecondition);

  r = RenderServing(VllmSingleNode(), Target::kSlurm);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "target"));

  s = VllmSingleNode();
  s.name = "Not A Label";
  EXPECT_EQ(RenderServing(s, Target::kKubernetes).status().code(), absl::StatusCode::kInvalidArgument);
}

// Llama 2 70B's shape, from its config.json (https://huggingface.co/meta-llama/Llama-2-70b-hf,
// num_hidden_layers 80, hidden_size 8192, num_attention_heads 64, num_key_value_heads 8,
// intermediate_size 28672), on 8 nodes of 8 GPUs.
TrainingSpec Llama70bOn64() {
  TrainingSpec s;
  s.from = From();
  s.model_path = "meta-llama/Llama-2-70b-hf";
  s.name = "llama-2-70b-train";
  s.model.num_layers = 80;  // Llama-2-70b-hf config.json
  s.model.hidden_size = 8192;
  s.model.num_attention_heads = 64;
  s.model.num_kv_heads = 8;
  s.model.ffn_hidden_size = 28672;
  s.nodes = 8;
  s.gpus_per_node = 8;
  s.parallel.tp = 8;
  s.parallel.pp = 4;
  s.parallel.dp = 2;
  s.parallel.vpp = 2;
  s.parallel.zero_stage = 1;
  s.parallel.recompute = Recompute::kSelective;
  s.parallel.micro_batch = 1;
  s.sequence_tokens = 4096;
  s.global_batch_sequences = 512;
  s.train_iters = 1000;
  s.step_seconds = 12.5;
  s.mfu_fraction = 0.42;
  s.duration_seconds = 2 * 86400;
  s.tokens_per_second = 167772;
  return s;
}

std::string SbatchValue(const std::string& script, const std::string& flag) {
  const std::string key = absl::StrCat("#SBATCH ", flag, "=");
  const size_t at = script.find(key);
  if (at == std::string::npos) return "";
  const size_t end = script.find('\n', at);
  return script.substr(at + key.size(), end - at - key.size());
}

TEST(DeployTraining, SlurmScriptMatchesTheOption) {
  const TrainingSpec s = Llama70bOn64();
  ASSERT_EQ(s.parallel.tp * s.parallel.pp * s.parallel.dp, s.nodes * s.gpus_per_node);  // the fixture is whole
  absl::StatusOr<Rendered> r = RenderTraining(s, Target::kSlurm);
  ASSERT_TRUE(r.ok()) << r.status();
  const std::string& text = r->files[0].content;
  ASSERT_TRUE(BashParses(text)) << text;
  EXPECT_EQ(SbatchValue(text, "--nodes"), absl::StrCat(s.nodes));
  EXPECT_EQ(SbatchValue(text, "--gpus-per-node"), absl::StrCat(s.gpus_per_node));
  EXPECT_EQ(SbatchValue(text, "--ntasks-per-node"), "1");
  const std::vector<std::string> w = ShellWords(text);
  EXPECT_TRUE(HasWord(w, "torchrun"));
  EXPECT_EQ(FlagValue(w, "--nnodes"), absl::StrCat(s.nodes));
  EXPECT_EQ(FlagValue(w, "--nproc-per-node"), absl::StrCat(s.gpus_per_node));
  EXPECT_EQ(FlagValue(w, "--node-rank"), "${SLURM_NODEID}");
  EXPECT_EQ(FlagValue(w, "--tensor-model-parallel-size"), absl::StrCat(s.parallel.tp));
  EXPECT_EQ(FlagValue(w, "--pipeline-model-parallel-size"), absl::StrCat(s.parallel.pp));
  EXPECT_EQ(FlagValue(w, "--num-layers-per-virtual-pipeline-stage"),
            absl::StrCat(s.model.num_layers / (s.parallel.pp * s.parallel.vpp)));
  EXPECT_EQ(FlagValue(w, "--micro-batch-size"), absl::StrCat(s.parallel.micro_batch));
  EXPECT_EQ(FlagValue(w, "--global-batch-size"), absl::StrCat(s.global_batch_sequences));
  EXPECT_EQ(FlagValue(w, "--seq-length"), absl::StrCat(s.sequence_tokens));
  EXPECT_EQ(FlagValue(w, "--train-iters"), absl::StrCat(s.train_iters));
  EXPECT_EQ(FlagValue(w, "--num-layers"), absl::StrCat(s.model.num_layers));
  EXPECT_EQ(FlagValue(w, "--num-query-groups"), absl::StrCat(s.model.num_kv_heads));
  EXPECT_EQ(FlagValue(w, "--recompute-granularity"), "selective");
  EXPECT_TRUE(HasWord(w, "--use-distributed-optimizer"));
  EXPECT_TRUE(HasWord(w, "--bf16"));
  EXPECT_TRUE(HasWord(w, "--group-query-attention"));
  EXPECT_TRUE(HasWord(w, "--untie-embeddings-and-output-weights"));  // Llama 2: tie_word_embeddings false
  EXPECT_EQ(FlagValue(w, "--position-embedding-type"), "rope");
  EXPECT_FALSE(HasWord(w, "--context-parallel-size"));  // cp 1
  EXPECT_TRUE(absl::StrContains(text, absl::StrCat("step time ", Figure(s.step_seconds, 2), " s")));
  EXPECT_TRUE(absl::StrContains(text, absl::StrCat("MFU ", Figure(s.mfu_fraction * 100, 1), "%")));
}

TEST(DeployTraining, JobSetMatchesTheOption) {
  TrainingSpec s = Llama70bOn64();
  s.precision = Precision::kFp8;
  s.parallel.recompute = Recompute::kFull;
  absl::StatusOr<Rendered> r = RenderTraining(s, Target::kKubernetes);
  ASSERT_TRUE(r.ok()) << r.status();
  const Yaml y = ParseYaml(r->files[0].content);
  ASSERT_EQ(y.count("error"), 0u) << y.at("error");
  EXPECT_EQ(y.at("0|apiVersion"), Str("jobset.x-k8s.io/v1alpha2"));
  EXPECT_EQ(y.at("0|kind"), Str("JobSet"));
  const std::string job = "0|spec|replicatedJobs|0|template|spec";
  EXPECT_EQ(y.at(job + "|parallelism"), Int(s.nodes));
  EXPECT_EQ(y.at(job + "|completions"), Int(s.nodes));
  EXPECT_EQ(y.at(job + "|completionMode"), Str("Indexed"));
  const std::string c = job + "|template|spec|containers|0";
  EXPECT_EQ(y.at(c + "|resources|limits|nvidia.com/gpu"), Int(s.gpus_per_node));
  const std::vector<std::string> sh = List(y, c + "|command");
  ASSERT_EQ(sh.size(), 3u);
  const std::vector<std::string> w = ShellWords(sh[2]);
  EXPECT_EQ(FlagValue(w, "--nnodes"), absl::StrCat(s.nodes));
  EXPECT_EQ(FlagValue(w, "--node-rank"), "${JOB_COMPLETION_INDEX}");
  // The JobSet's first pod by its stable name: <jobset>-<replicatedJob>-0-0.<jobset>.
  EXPECT_EQ(FlagValue(w, "--master-addr"),
            absl::StrCat(s.name, "-", y.at("0|spec|replicatedJobs|0|name").substr(4), "-0-0.", s.name));
  EXPECT_EQ(FlagValue(w, "--fp8-format"), "hybrid");
  EXPECT_EQ(FlagValue(w, "--recompute-granularity"), "full");
}

// ZeRO-3 and HSDP launch on Megatron-FSDP with the flags its user guide requires
// (NVIDIA/Megatron-LM docs/discussions/megatron-fsdp-user-guide/megatron-fsdp-user-guide.md @
// f6f94c70): optim_grads_params sharding, the fsdp_dtensor checkpoint format; HSDP adds the
// outer data-parallel size, replicated.
TEST(DeployTraining, ShardedParametersRunOnMegatronFsdp) {
  TrainingSpec s = Llama70bOn64();
  s.parallel.pp = 1;
  s.parallel.vpp = 1;
  s.parallel.dp = 8;
  s.parallel.zero_stage = 3;
  absl::StatusOr<Rendered> r = RenderTraining(s, Target::kCommand);
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<std::string> w = ShellWords(r->files[0].content);
  EXPECT_TRUE(HasWord(w, "--use-megatron-fsdp"));
  EXPECT_TRUE(HasWord(w, "--use-distributed-optimizer"));
  EXPECT_TRUE(HasWord(w, "--no-gradient-accumulation-fusion"));
  EXPECT_EQ(FlagValue(w, "--data-parallel-sharding-strategy"), "optim_grads_params");
  EXPECT_EQ(FlagValue(w, "--ckpt-format"), "fsdp_dtensor");
  EXPECT_FALSE(HasWord(w, "--num-distributed-optimizer-instances"));

  s.parallel.shard_group = 2;  // shard inside pairs, four replicas across them
  r = RenderTraining(s, Target::kSlurm);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(BashParses(r->files[0].content)) << r->files[0].content;
  w = ShellWords(r->files[0].content);
  EXPECT_EQ(FlagValue(w, "--num-distributed-optimizer-instances"), "4");
  EXPECT_EQ(FlagValue(w, "--outer-dp-sharding-strategy"), "no_shard");

  s.parallel.shard_group = 3;  // 8 ranks do not split into groups of 3
  EXPECT_EQ(RenderTraining(s, Target::kSlurm).status().code(), absl::StatusCode::kFailedPrecondition);
  s.parallel.shard_group = 0;
  s.parallel.pp = 4;
  s.parallel.dp = 2;
  absl::StatusOr<Rendered> piped = RenderTraining(s, Target::kSlurm);
  ASSERT_FALSE(piped.ok());
  EXPECT_NE(piped.status().message().find("pipeline"), std::string::npos) << piped.status();
}

// Optimizer state offloaded to the host: the flags Megatron-LM's optimizer offload README lists
// (megatron/core/optimizer/cpu_offloading/README.md @ 21d3f231), inside the distributed
// optimizer even on one GPU.
TEST(DeployTraining, OptimizerOffloadUsesMegatronsCpuOptimizer) {
  TrainingSpec s = Llama70bOn64();
  s.parallel.zero_stage = 0;
  s.parallel.offload = Offload::kOptimizer;
  absl::StatusOr<Rendered> r = RenderTraining(s, Target::kCommand);
  ASSERT_TRUE(r.ok()) << r.status();
  const std::vector<std::string> w = ShellWords(r->files[0].content);
  EXPECT_TRUE(HasWord(w, "--optimizer-cpu-offload"));
  EXPECT_EQ(FlagValue(w, "--optimizer-offload-fraction"), "1.0");
  EXPECT_TRUE(HasWord(w, "--use-precision-aware-optimizer"));
  EXPECT_TRUE(HasWord(w, "--use-distributed-optimizer"));
}

// DeepSeek-V3's shape (deepseek-ai/DeepSeek-V3 config.json) as Megatron-LM's arguments name it:
// MLA ranks and head widths, 2048-wide experts, one shared expert, 3 dense layers then 58 MoE.
TEST(DeployTraining, MoeAndLatentAttentionShapesReachMegatron) {
  TrainingSpec s = Llama70bOn64();
  s.model = core::testing::DeepSeekV3();
  s.parallel.vpp = 1;
  absl::StatusOr<Rendered> r = RenderTraining(s, Target::kCommand);
  ASSERT_TRUE(r.ok()) << r.status();
  const std::vector<std::string> w = ShellWords(r->files[0].content);
  EXPECT_TRUE(HasWord(w, "--multi-latent-attention"));
  EXPECT_EQ(FlagValue(w, "--q-lora-rank"), "1536");
  EXPECT_EQ(FlagValue(w, "--kv-lora-rank"), "512");
  EXPECT_EQ(FlagValue(w, "--qk-head-dim"), "128");
  EXPECT_EQ(FlagValue(w, "--qk-pos-emb-head-dim"), "64");
  EXPECT_EQ(FlagValue(w, "--v-head-dim"), "128");
  EXPECT_FALSE(HasWord(w, "--group-query-attention"));
  EXPECT_EQ(FlagValue(w, "--ffn-hidden-size"), "18432");
  EXPECT_EQ(FlagValue(w, "--num-experts"), "256");
  EXPECT_EQ(FlagValue(w, "--moe-router-topk"), "8");
  EXPECT_EQ(FlagValue(w, "--moe-ffn-hidden-size"), "2048");
  EXPECT_EQ(FlagValue(w, "--moe-shared-expert-intermediate-size"), "2048");
  EXPECT_EQ(FlagValue(w, "--moe-layer-freq"), "([0]*3+[1]*58)");
}

TEST(DeployTraining, UnrenderableOptionsSayWhy) {
  TrainingSpec s = Llama70bOn64();
  s.method = TrainingMethod::kLora;
  EXPECT_EQ(RenderTraining(s, Target::kSlurm).status().code(), absl::StatusCode::kFailedPrecondition);
  s = Llama70bOn64();
  s.parallel.zero_stage = 3;
  EXPECT_EQ(RenderTraining(s, Target::kSlurm).status().code(), absl::StatusCode::kFailedPrecondition);
  s = Llama70bOn64();
  s.parallel.shard_group = 8;  // HSDP: state sharded over 8 of the 16 data-parallel ranks
  s.parallel.dp = 16;
  s.parallel.tp = 4;
  s.parallel.pp = 1;
  EXPECT_EQ(RenderTraining(s, Target::kSlurm).status().code(), absl::StatusCode::kFailedPrecondition);
  s = Llama70bOn64();
  s.parallel.offload = Offload::kOptimizerAndParameters;
  EXPECT_EQ(RenderTraining(s, Target::kKubernetes).status().code(), absl::StatusCode::kFailedPrecondition);
  s = Llama70bOn64();
  s.parallel.vpp = 3;  // 80 layers over 4 x 3 stages
  EXPECT_EQ(RenderTraining(s, Target::kSlurm).status().code(), absl::StatusCode::kFailedPrecondition);
  s = Llama70bOn64();
  s.model.num_layers = 0;  // a model known only by its parameter count
  EXPECT_EQ(RenderTraining(s, Target::kCommand).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(DeployTraining, CommandAlone) {
  const TrainingSpec s = Llama70bOn64();
  absl::StatusOr<Rendered> r = RenderTraining(s, Target::kCommand);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(BashParses(r->files[0].content));
  const std::vector<std::string> w = ShellWords(r->files[0].content);
  ASSERT_FALSE(w.empty());
  EXPECT_EQ(w[0], "torchrun");
  EXPECT_EQ(FlagValue(w, "--tokenizer-model"), s.model_path);
}

TEST(DeployText, DnsLabel) {
  EXPECT_EQ(DnsLabel("Llama-2-7B vllm"), "llama-2-7b-vllm");
  EXPECT_EQ(DnsLabel("--"), "capplan");
  EXPECT_EQ(DnsLabel(std::string(100, 'a')).size(), 63u);
  EXPECT_EQ(DnsLabel("a.b_c"), "a-b-c");
}

TEST(DeployText, YamlQuoteKeepsAnyTextOneString) {
  const std::string nasty = "a\"b\\c\nd: e # f";
  const Yaml y = ParseYaml(absl::StrCat("k: ", YamlQuote(nasty), "\n"));
  EXPECT_EQ(y.at("0|k"), Str("a\"b\\c\\nd: e # f"));  // the parser's newline printed as \n
}

}  // namespace
}  // namespace capplan::core::deploy
