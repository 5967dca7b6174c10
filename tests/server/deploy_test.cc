// Deploy over the shipped catalog: the option rendered is Plan's own at that rank, and the
// files read back (YAML through PyYAML, shell through shlex) carry that option's layout.
#include "server/planning/deploy.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "server/planning/planning.h"
#include "tests/core/deploy_parse.h"
#include "tests/server/shipped_catalog_test.h"

namespace capplan::server {
namespace {

namespace v1 = capplan::v1;
using core::testing::FlagValue;
using core::testing::HasWord;
using core::testing::ParseYaml;
using core::testing::ShellWords;

using DeployTest = testing::ShippedCatalogTest;

// The README's serving example: Llama-2-7B at 35 req/s, 512-token prompts, 128-token answers,
// 50 ms TPOT.
v1::DeployRequest Serve7B() {
  v1::DeployRequest r;
  v1::ServingWorkload* w = r.mutable_plan()->mutable_serving();
  w->set_model_name("Llama-2-7B");
  w->set_prompt_tokens(512);
  w->set_output_tokens(128);
  w->set_requests_per_second(35);
  w->set_tpot_slo_seconds(0.05);
  r.set_model_path("meta-llama/Llama-2-7b-hf");
  return r;
}

// The README's training example as a full fine-tune (Megatron-LM renders no LoRA).
v1::DeployRequest Train7B() {
  v1::DeployRequest r;
  v1::TrainingWorkload* w = r.mutable_plan()->mutable_training();
  w->set_model_name("Llama-2-7B");
  w->set_tokens(2e9);
  w->set_sequence_tokens(4096);
  return r;
}

class DeployOn : public DeployTest {
 protected:
  absl::Status Run(const v1::DeployRequest& req, v1::DeployResponse* resp) {
    return Deploy(
        snap(), req, "test", [this](const v1::PlanRequest& p, v1::PlanResponse* out) { return Plan(snap(), p, out); },
        resp);
  }
};

std::vector<std::string> List(const std::map<std::string, std::string>& y, const std::string& prefix) {
  std::vector<std::string> out;
  for (int i = 0;; ++i) {
    auto it = y.find(absl::StrCat(prefix, "|", i));
    if (it == y.end()) return out;
    out.push_back(it->second.substr(it->second.find(':') + 1));
  }
}

TEST_F(DeployOn, ServingRankOneIsPlansRankOne) {
  const v1::DeployRequest req = Serve7B();
  v1::PlanResponse plan;
  ASSERT_TRUE(Plan(snap(), req.plan(), &plan).ok());
  ASSERT_GE(plan.options_size(), 1);
  v1::DeployResponse resp;
  absl::Status s = Run(req, &resp);
  ASSERT_TRUE(s.ok()) << s;
  const v1::PlanOption& o = plan.options(0);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(resp.option(), o));
  EXPECT_EQ(resp.catalog_version(), plan.catalog_version());
  ASSERT_EQ(resp.files_size(), 1);
  const auto y = ParseYaml(resp.files(0).content());
  ASSERT_EQ(y.count("error"), 0u) << y.at("error");
  ASSERT_EQ(o.replica_node_count(), 1) << "a 7B model fits one node";
  EXPECT_EQ(y.at("0|kind"), "str:Deployment");
  EXPECT_EQ(y.at("0|spec|replicas"), absl::StrCat("int:", o.replicas()));
  const std::string c = "0|spec|template|spec|containers|0";
  EXPECT_EQ(y.at(c + "|resources|limits|nvidia.com/gpu"), absl::StrCat("int:", o.parallelism().tensor_parallel()));
  EXPECT_EQ(y.at("0|spec|template|spec|nodeSelector|nvidia.com/gpu.product"), absl::StrCat("str:", o.gpu_name()));
  const std::vector<std::string> argv = List(y, c + "|command");
  EXPECT_EQ(FlagValue(argv, "serve"), req.model_path());
  EXPECT_EQ(FlagValue(argv, "--tensor-parallel-size"), absl::StrCat(o.parallelism().tensor_parallel()));
  EXPECT_EQ(FlagValue(argv, "--max-num-seqs"), absl::StrCat(o.parallelism().serving_batch_sequences()));
  EXPECT_EQ(FlagValue(argv, "--max-model-len"),
            absl::StrCat(req.plan().serving().prompt_tokens() + req.plan().serving().output_tokens()));
  EXPECT_EQ(y.at("0|metadata|annotations|capplan/catalog-version"), absl::StrCat("str:", plan.catalog_version()));
}

TEST_F(DeployOn, TrainingOptionsRenderOrSayWhy) {
  v1::DeployRequest req = Train7B();
  v1::PlanResponse plan;
  ASSERT_TRUE(Plan(snap(), req.plan(), &plan).ok());
  int rendered = 0;
  for (int rank = 1; rank <= plan.options_size(); ++rank) {
    const v1::PlanOption& o = plan.options(rank - 1);
    const v1::Parallelism& p = o.parallelism();
    req.set_option_rank(rank);
    v1::DeployResponse resp;
    absl::Status s = Run(req, &resp);
    // What Megatron-LM runs (docs/api.md "Deploy"): ZeRO-3 and HSDP on Megatron-FSDP without
    // pipeline stages, optimizer offload outside ZeRO-3, no parameter offload.
    const int dp_ranks = p.data_parallel() * p.context_parallel();
    const bool hybrid = p.shard_group_gpus() > 0 && p.shard_group_gpus() < dp_ranks;
    const bool fsdp = p.zero_stage() >= 3;
    const bool offload_optimizer = p.offload() == v1::OFFLOAD_OPTIMIZER;
    const bool refused = (fsdp && p.pipeline_parallel() > 1) || (!fsdp && hybrid) ||
                         (hybrid && dp_ranks % p.shard_group_gpus() != 0) || (fsdp && offload_optimizer) ||
                         p.offload() == v1::OFFLOAD_OPTIMIZER_AND_PARAMETERS;
    if (refused) {
      EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << rank << ": " << s;
      continue;
    }
    ASSERT_TRUE(s.ok()) << rank << ": " << s;
    ++rendered;
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(resp.option(), o));
    const std::string& text = resp.files(0).content();
    EXPECT_EQ(resp.files(0).name(), "train.sbatch");
    const int nodes = o.instance_count();
    EXPECT_NE(text.find(absl::StrCat("#SBATCH --nodes=", nodes, "\n")), std::string::npos) << text;
    EXPECT_NE(text.find(absl::StrCat("#SBATCH --gpus-per-node=", o.gpu_count() / nodes, "\n")), std::string::npos);
    const std::vector<std::string> w = ShellWords(text);
    EXPECT_EQ(FlagValue(w, "--tensor-model-parallel-size"), absl::StrCat(p.tensor_parallel()));
    EXPECT_EQ(FlagValue(w, "--pipeline-model-parallel-size"), absl::StrCat(p.pipeline_parallel()));
    EXPECT_EQ(FlagValue(w, "--micro-batch-size"), absl::StrCat(p.micro_batch_sequences()));
    EXPECT_EQ(FlagValue(w, "--global-batch-size"),
              absl::StrCat(o.global_batch_tokens() / req.plan().training().sequence_tokens()));
    EXPECT_EQ(HasWord(w, "--use-distributed-optimizer"), p.zero_stage() >= 1 || offload_optimizer);
    EXPECT_EQ(HasWord(w, "--use-megatron-fsdp"), fsdp);
    EXPECT_EQ(HasWord(w, "--optimizer-cpu-offload"), offload_optimizer);
  }
  EXPECT_GE(rendered, 1) << "no option of the 7B fine-tune renders";
}

TEST_F(DeployOn, BadRequestsNameTheirField) {
  v1::DeployRequest req = Serve7B();
  v1::DeployResponse resp;
  req.set_option_rank(-1);
  absl::Status s = Run(req, &resp);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(s.message(), "option_rank")) << s;

  req = Serve7B();
  req.mutable_plan()->set_top_k(2);
  req.set_option_rank(3);  // beyond the two options asked for
  s = Run(req, &resp);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "option_rank: 3 is beyond the 2")) << s;

  req = Serve7B();
  req.set_target(v1::DEPLOY_TARGET_SLURM);
  s = Run(req, &resp);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(s.message(), "target")) << s;

  req = Serve7B();
  req.set_model_path("x; rm -rf /");
  s = Run(req, &resp);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(s.message(), "model_path")) << s;

  req = Serve7B();
  req.mutable_plan()->mutable_serving()->set_prompt_tokens(-5);
  s = Run(req, &resp);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(s.message(), "plan.serving.prompt_tokens")) << s;

  req = Train7B();
  req.mutable_plan()->mutable_training()->set_method(v1::TRAINING_METHOD_LORA);
  s = Run(req, &resp);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(s.message(), "LoRA")) << s;
}

TEST_F(DeployOn, CommandTargetIsTheLaunchAlone) {
  v1::DeployRequest req = Serve7B();
  req.set_target(v1::DEPLOY_TARGET_COMMAND);
  req.mutable_plan()->mutable_serving()->set_engine(v1::SERVING_ENGINE_SGLANG);
  v1::DeployResponse resp;
  absl::Status s = Run(req, &resp);
  ASSERT_TRUE(s.ok()) << s;
  const std::vector<std::string> w = ShellWords(resp.files(0).content());
  ASSERT_GE(w.size(), 3u);
  EXPECT_EQ(w[2], "sglang.launch_server");
  EXPECT_EQ(FlagValue(w, "--tp-size"), absl::StrCat(resp.option().parallelism().tensor_parallel()));
  EXPECT_EQ(FlagValue(w, "--max-running-requests"),
            absl::StrCat(resp.option().parallelism().serving_batch_sequences()));
}

}  // namespace
}  // namespace capplan::server
