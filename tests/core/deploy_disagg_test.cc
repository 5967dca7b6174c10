// Disaggregated serving rendered for SGLang: prefill and decode pools as StatefulSets behind
// headless Services, and the router listing each server by its stable name, checked field by
// field against the option after YAML parsing (flags: sgl-project/sglang
// docs/advanced_features/pd_disaggregation.md @ cccb6546).
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/deploy/deploy.h"
#include "gtest/gtest.h"
#include "tests/core/deploy_parse.h"

namespace capplan::core::deploy {
namespace {

using core::testing::BashParses;
using core::testing::FlagValue;
using core::testing::HasWord;
using core::testing::ParseYaml;
using core::testing::ShellWords;

// Two prefill servers of 2 GPUs, three decode servers of 4 GPUs at 128 sequences each.
ServingSpec SglangDisaggregated() {
  ServingSpec s;
  s.from.option_rank = 2;
  s.from.catalog_version = 7;
  s.from.capplan_version = "1.2.3";
  s.from.gpu_name = "H100-SXM5-80GB";
  s.from.where = "aws p5.48xlarge x2 us-east-1";
  s.from.cost_usd_per_hour = 110.08;
  s.model_path = "meta-llama/Llama-3.1-70B-Instruct";
  s.name = "llama-3-1-70b-sglang";
  s.engine = ServingEngine::kSglang;
  s.disaggregated = true;
  s.prefill_replicas = 2;
  s.prefill_tp = 2;
  s.replicas = 3;
  s.tensor_parallel = 4;
  s.gpus_per_pod = 4;
  s.max_num_seqs = 128;
  s.max_model_len = 4096 + 512;
  s.memory_fraction = 0.85;
  return s;
}

// The argv of the first container of document `doc`.
std::vector<std::string> Command(const std::map<std::string, std::string>& y, int doc, const std::string& pod) {
  std::vector<std::string> out;
  for (int i = 0;; ++i) {
    auto it = y.find(absl::StrCat(doc, "|", pod, "|containers|0|command|", i));
    if (it == y.end()) return out;
    out.push_back(it->second.substr(it->second.find(':') + 1));
  }
}

TEST(DeployDisaggregated, PoolsAndRouterMatchTheOption) {
  const ServingSpec s = SglangDisaggregated();
  absl::StatusOr<Rendered> r = RenderServing(s, Target::kKubernetes);
  ASSERT_TRUE(r.ok()) << r.status();
  const auto y = ParseYaml(r->files[0].content);
  ASSERT_EQ(y.count("error"), 0u) << y.at("error");
  const std::string pod = "spec|template|spec";
  // Documents: prefill Service, prefill StatefulSet, decode Service, decode StatefulSet,
  // router Deployment, router Service.
  EXPECT_EQ(y.at("0|spec|clusterIP"), "str:None");
  EXPECT_EQ(y.at("1|kind"), "str:StatefulSet");
  EXPECT_EQ(y.at("1|spec|serviceName"), absl::StrCat("str:", y.at("0|metadata|name").substr(4)));
  EXPECT_EQ(y.at("1|spec|replicas"), absl::StrCat("int:", s.prefill_replicas));
  EXPECT_EQ(y.at("1|" + pod + "|containers|0|resources|limits|nvidia.com/gpu"), absl::StrCat("int:", s.prefill_tp));
  const std::vector<std::string> prefill = Command(y, 1, pod);
  EXPECT_EQ(FlagValue(prefill, "--disaggregation-mode"), "prefill");
  EXPECT_EQ(FlagValue(prefill, "--tp-size"), absl::StrCat(s.prefill_tp));
  EXPECT_FALSE(HasWord(prefill, "--max-running-requests"));
  EXPECT_EQ(y.at("3|spec|replicas"), absl::StrCat("int:", s.replicas));
  EXPECT_EQ(y.at("3|" + pod + "|containers|0|resources|limits|nvidia.com/gpu"),
            absl::StrCat("int:", s.tensor_parallel));
  const std::vector<std::string> decode = Command(y, 3, pod);
  EXPECT_EQ(FlagValue(decode, "--disaggregation-mode"), "decode");
  EXPECT_EQ(FlagValue(decode, "--tp-size"), absl::StrCat(s.tensor_parallel));
  EXPECT_EQ(FlagValue(decode, "--max-running-requests"), absl::StrCat(s.max_num_seqs));
  EXPECT_EQ(FlagValue(decode, "--disaggregation-transfer-backend"), "nixl");
  // The router names every server as <statefulset>-<ordinal>.<service>.
  const std::vector<std::string> router = Command(y, 4, pod);
  ASSERT_FALSE(router.empty());
  EXPECT_TRUE(HasWord(router, "--pd-disaggregation"));
  int prefills = 0, decodes = 0;
  for (size_t i = 0; i + 1 < router.size(); ++i) {
    if (router[i] == "--prefill") {
      EXPECT_EQ(router[i + 1], absl::StrCat("http://", s.name, "-prefill-", prefills, ".", s.name, "-prefill:30000"));
      ++prefills;
    }
    if (router[i] == "--decode") ++decodes;
  }
  EXPECT_EQ(prefills, s.prefill_replicas);
  EXPECT_EQ(decodes, s.replicas);
  EXPECT_EQ(y.at("5|kind"), "str:Service");
  EXPECT_EQ(y.at("5|metadata|name"), absl::StrCat("str:", s.name));
}

TEST(DeployDisaggregated, CommandsAndRefusals) {
  ServingSpec s = SglangDisaggregated();
  absl::StatusOr<Rendered> r = RenderServing(s, Target::kCommand);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(BashParses(r->files[0].content)) << r->files[0].content;
  const std::vector<std::string> w = ShellWords(r->files[0].content);
  EXPECT_TRUE(HasWord(w, "--pd-disaggregation"));
  EXPECT_TRUE(HasWord(w, "http://${PREFILL_1}:30000"));
  EXPECT_TRUE(HasWord(w, "http://${DECODE_2}:30000"));
  s.engine = ServingEngine::kVllm;  // vLLM's disaggregation is not rendered
  r = RenderServing(s, Target::kKubernetes);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "sglang")) << r.status();
}

}  // namespace
}  // namespace capplan::core::deploy
