// Plan, Compare and Tco over the real server and the client library: each RPC's success and
// its error codes as a caller sees them.
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "client/client.h"
#include "server_process.h"
#include "shared_server.h"

namespace capplan::testing {
namespace {

namespace v1 = capplan::v1;

class PlannerRpcTest : public SharedServerTest {};

TEST_F(PlannerRpcTest, PlanServingTheReadmeExample) {
  // The README's serving example: Llama-2-7B at 35 req/s.
  v1::PlanRequest r;
  r.mutable_serving()->set_model_name("Llama-2-7B");
  r.mutable_serving()->set_prompt_tokens(512);
  r.mutable_serving()->set_output_tokens(128);
  r.mutable_serving()->set_requests_per_second(35);
  absl::StatusOr<v1::PlanResponse> p = MakeClient().Plan(r);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_GT(p->options_size(), 0);
  EXPECT_GT(p->options(0).usd_per_million_requests(), 0);
  EXPECT_FALSE(p->options(0).explanation().empty());
  EXPECT_EQ(p->catalog_version(), 1);
}

TEST_F(PlannerRpcTest, PlanTrainingAndItsErrors) {
  v1::PlanRequest r;
  r.mutable_training()->set_model_name("Llama-2-7B");
  r.mutable_training()->set_tokens(2e9);
  absl::StatusOr<v1::PlanResponse> p = MakeClient().Plan(r);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_GT(p->options_size(), 0);
  EXPECT_GT(p->rejected_size(), 0);

  r.mutable_training()->set_model_name("no-such-model");
  EXPECT_EQ(MakeClient().Plan(r).status().code(), absl::StatusCode::kNotFound);
  r.mutable_training()->set_model_name("Llama-2-7B");
  r.mutable_training()->set_tokens(-5);
  absl::StatusOr<v1::PlanResponse> bad = MakeClient().Plan(r);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("training.tokens"), std::string::npos);
  r.mutable_training()->set_model_name("Llama-3.1-405B");
  r.mutable_training()->set_tokens(1e9);
  r.mutable_constraints()->set_max_gpus(8);
  EXPECT_EQ(MakeClient().Plan(r).status().code(), absl::StatusCode::kFailedPrecondition);
}

// Deploy over the server: every co-located rank of the README's serving plan renders Plan's
// own option at that rank (one catalog version, one memo), and the errors a caller sees.
TEST_F(PlannerRpcTest, DeployRendersPlansOptionAtEachRank) {
  v1::DeployRequest d;
  v1::ServingWorkload* w = d.mutable_plan()->mutable_serving();
  w->set_model_name("Llama-2-7B");
  w->set_prompt_tokens(512);
  w->set_output_tokens(128);
  w->set_requests_per_second(35);
  absl::StatusOr<v1::PlanResponse> p = MakeClient().Plan(d.plan());
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_GT(p->options_size(), 1);
  for (int rank = 1; rank <= p->options_size(); ++rank) {
    d.set_option_rank(rank);
    absl::StatusOr<v1::DeployResponse> r = MakeClient().Deploy(d);
    const v1::PlanOption& o = p->options(rank - 1);
    if (o.deployment() == v1::SERVING_DEPLOYMENT_DISAGGREGATED) {  // not rendered, and said so
      EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition) << rank;
      EXPECT_NE(r.status().message().find("disaggregated"), std::string::npos) << r.status();
      continue;
    }
    ASSERT_TRUE(r.ok()) << rank << ": " << r.status();
    EXPECT_EQ(r->option().SerializeAsString(), o.SerializeAsString()) << rank;
    ASSERT_EQ(r->files_size(), 1);
    EXPECT_EQ(r->files(0).media_type(), "application/yaml");
    EXPECT_NE(r->files(0).content().find(absl::StrCat("  replicas: ", o.replicas(), "\n")), std::string::npos);
    EXPECT_NE(r->files(0).content().find(absl::StrCat("gpu: ", o.replica_gpus_per_node(), "\n")), std::string::npos);
  }
  d.set_option_rank(p->options_size() + 1);
  absl::StatusOr<v1::DeployResponse> beyond = MakeClient().Deploy(d);
  EXPECT_EQ(beyond.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(beyond.status().message().find("option_rank"), std::string::npos);
  d.set_option_rank(1);
  d.set_target(v1::DEPLOY_TARGET_SLURM);
  EXPECT_EQ(MakeClient().Deploy(d).status().code(), absl::StatusCode::kInvalidArgument);
  d.set_target(v1::DEPLOY_TARGET_KUBERNETES);
  d.mutable_plan()->mutable_serving()->set_model_name("no-such-model");
  EXPECT_EQ(MakeClient().Deploy(d).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(PlannerRpcTest, CompareAndItsErrors) {
  v1::CompareRequest r;
  r.mutable_training()->set_model_name("Llama-2-7B");
  r.mutable_training()->set_tokens(1e9);
  r.mutable_training()->set_method(v1::TRAINING_METHOD_LORA);
  r.add_targets()->set_instance_type("p4d.24xlarge");
  v1::CompareTarget* t = r.add_targets();
  t->set_gpu_name("RTX-4090");
  t->set_count(2);
  absl::StatusOr<v1::CompareResponse> c = MakeClient().Compare(r);
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->rows_size(), 2);
  EXPECT_DOUBLE_EQ(c->rows(0).speed_ratio_vs_first(), 1.0);
  EXPECT_GT(c->rows(0).option().cost_usd_per_hour(), 0);
  // A target the catalog lacks answers on its own row, naming it; the others still compare.
  r.add_targets()->set_gpu_name("no-such-gpu");
  absl::StatusOr<v1::CompareResponse> missing = MakeClient().Compare(r);
  ASSERT_TRUE(missing.ok()) << missing.status();
  ASSERT_EQ(missing->rows_size(), 3);
  EXPECT_TRUE(missing->rows(0).infeasible_reason().empty()) << missing->rows(0).infeasible_reason();
  EXPECT_NE(missing->rows(2).infeasible_reason().find("no GPU named \"no-such-gpu\""), std::string::npos)
      << missing->rows(2).infeasible_reason();
  r.clear_targets();
  EXPECT_EQ(MakeClient().Compare(r).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(PlannerRpcTest, TcoAndItsErrors) {
  v1::TcoRequest r;
  r.set_horizon_months(36);
  v1::TcoFleet* f = r.add_fleets();
  f->set_gpu_name("A100-SXM4-80GB");
  f->set_gpu_count(8);
  f->mutable_own()->set_capex_usd(250000);
  f->mutable_own()->set_ops_usd_per_month(5000);
  absl::StatusOr<v1::TcoResponse> t = MakeClient().Tco(r);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->series_size(), 36);
  // No rent given: the catalog's cheapest on-demand A100-80GB hour, with its price row.
  ASSERT_EQ(t->provenance().prices_size(), 1);
  EXPECT_GT(t->fleets(0).rent_usd_per_gpu_hour(), 0);
  r.set_horizon_months(500);
  EXPECT_EQ(MakeClient().Tco(r).status().code(), absl::StatusCode::kInvalidArgument);
  r.set_horizon_months(12);
  r.mutable_fleets(0)->set_gpu_name("no-such-gpu");
  EXPECT_EQ(MakeClient().Tco(r).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(PlannerRpcTest, OversizedRequestIsRefused) {
  // The server caps received messages at 4 MiB.
  v1::PlanRequest r;
  r.mutable_training()->set_model_name(std::string(5 * 1024 * 1024, 'x'));
  EXPECT_EQ(MakeClient().Plan(r).status().code(), absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace capplan::testing

namespace capplan::testing {
namespace {

TEST_F(PlannerRpcTest, ARepeatedQuestionIsAnsweredFromTheMemo) {
  // Llama-2-7B at 35 req/s (the README's example); a scheduler asking twice pays a lookup the second time.
  v1::PlanRequest r;
  r.mutable_serving()->set_model_name("Llama-2-7B");
  r.mutable_serving()->set_prompt_tokens(512);
  r.mutable_serving()->set_output_tokens(128);
  r.mutable_serving()->set_requests_per_second(35);
  r.set_view(v1::VIEW_BASIC);
  client::Client c = MakeClient();
  absl::StatusOr<v1::PlanResponse> first = c.Plan(r);
  absl::StatusOr<v1::PlanResponse> second = c.Plan(r);
  ASSERT_TRUE(first.ok() && second.ok()) << first.status() << second.status();
  EXPECT_FALSE(first->from_memo());
  EXPECT_TRUE(second->from_memo());
  second->clear_from_memo();
  EXPECT_EQ(first->SerializeAsString(), second->SerializeAsString());
  // BASIC: no formulas, no rejected candidates.
  EXPECT_EQ(first->formulas_size(), 0);
  EXPECT_EQ(first->rejected_size(), 0);
  // Another question is computed afresh.
  r.mutable_serving()->set_requests_per_second(36);
  absl::StatusOr<v1::PlanResponse> other = c.Plan(r);
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_FALSE(other->from_memo());
}

TEST_F(PlannerRpcTest, RepeatedCompareAndTcoAreAnsweredFromTheMemo) {
  // A dashboard refreshing the same own-or-rent panel: 8 A100s owned for 36 months (the
  // README's fleet: $250,000 up front, $5,000 a month), and a LoRA run compared on two targets.
  v1::TcoRequest t;
  t.set_horizon_months(36);
  v1::TcoFleet* f = t.add_fleets();
  f->set_gpu_name("A100-SXM4-80GB");
  f->set_gpu_count(8);
  f->mutable_own()->set_capex_usd(250000);
  f->mutable_own()->set_ops_usd_per_month(5000);
  client::Client c = MakeClient();
  absl::StatusOr<v1::TcoResponse> first = c.Tco(t);
  absl::StatusOr<v1::TcoResponse> second = c.Tco(t);
  ASSERT_TRUE(first.ok() && second.ok()) << first.status() << second.status();
  EXPECT_FALSE(first->from_memo());
  EXPECT_TRUE(second->from_memo());
  second->clear_from_memo();
  EXPECT_EQ(first->SerializeAsString(), second->SerializeAsString());
  t.set_horizon_months(48);  // another question: computed afresh
  absl::StatusOr<v1::TcoResponse> other = c.Tco(t);
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_FALSE(other->from_memo());
  EXPECT_EQ(other->series_size(), 48);

  v1::CompareRequest r;
  r.mutable_training()->set_model_name("Llama-2-7B");
  r.mutable_training()->set_tokens(1e9);
  r.mutable_training()->set_method(v1::TRAINING_METHOD_LORA);
  r.add_targets()->set_instance_type("p4d.24xlarge");
  v1::CompareTarget* rtx = r.add_targets();
  rtx->set_gpu_name("RTX-4090");
  rtx->set_count(2);
  absl::StatusOr<v1::CompareResponse> a = c.Compare(r);
  absl::StatusOr<v1::CompareResponse> b = c.Compare(r);
  ASSERT_TRUE(a.ok() && b.ok()) << a.status() << b.status();
  EXPECT_FALSE(a->from_memo());
  EXPECT_TRUE(b->from_memo());
  b->clear_from_memo();
  EXPECT_EQ(a->SerializeAsString(), b->SerializeAsString());
}

}  // namespace
}  // namespace capplan::testing
