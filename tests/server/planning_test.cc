// Plan, Compare and Tco over the shipped catalog (a real store on a temporary file).
#include "server/planning/planning.h"

#include <gtest/gtest.h>

#include "core/serving/serving.h"
#include "tests/server/shipped_catalog_test.h"

namespace capplan::server {
namespace {

namespace v1 = capplan::v1;

using PlanningTest = testing::ShippedCatalogTest;
using testing::ReadmeOwnOrRentRequest;

v1::PlanRequest FineTune7B() {
  // A 7B model fully fine-tuned on 2B tokens (the README's training example, without LoRA).
  v1::PlanRequest r;
  r.mutable_training()->set_model_name("Llama-2-7B");
  r.mutable_training()->set_tokens(2e9);
  r.mutable_training()->set_sequence_tokens(4096);
  return r;
}

v1::PlanRequest Serve7B() {
  // The README's serving example: Llama-2-7B at 35 req/s; 512-token prompts, 128-token answers.
  v1::PlanRequest r;
  v1::ServingWorkload* w = r.mutable_serving();
  w->set_model_name("Llama-2-7B");
  w->set_prompt_tokens(512);
  w->set_output_tokens(128);
  w->set_requests_per_second(35);
  w->set_ttft_slo_seconds(1.0);
  w->set_tpot_slo_seconds(0.05);
  return r;
}

TEST_F(PlanningTest, TrainingPlanRanksByCostAndExplainsItself) {
  v1::PlanResponse resp;
  ASSERT_TRUE(Plan(snap(), FineTune7B(), &resp).ok());
  ASSERT_EQ(resp.options_size(), kDefaultTopK);
  for (int i = 0; i < resp.options_size(); ++i) {
    const v1::PlanOption& o = resp.options(i);
    EXPECT_EQ(o.rank(), i + 1);
    EXPECT_LE(o.memory_per_gpu().total_bytes(), o.memory_per_gpu().capacity_bytes());
    // The cost is the duration times the hourly price of the instances it names.
    ASSERT_EQ(o.provenance().prices_size(), 1);
    EXPECT_NEAR(o.cost_usd_per_hour(), o.provenance().prices(0).price_usd_per_hour() * o.instance_count(), 1e-9);
    EXPECT_NEAR(o.total_cost_usd().point(), o.duration_seconds().point() / 3600 * o.cost_usd_per_hour(), 1e-6);
    EXPECT_LT(o.total_cost_usd().low(), o.total_cost_usd().point());
    EXPECT_GT(o.total_cost_usd().high(), o.total_cost_usd().point());
    EXPECT_FALSE(o.provenance().efficiency_source().empty());
    EXPECT_EQ(o.provenance().formulas_size(), 0);  // once per answer, below
    EXPECT_EQ(o.provenance().catalog_version(), snap().catalog_version);
    EXPECT_FALSE(o.explanation().empty());
    if (i > 0) {
      EXPECT_GE(o.total_cost_usd().point(), resp.options(i - 1).total_cost_usd().point());
    }
  }
  EXPECT_GE(resp.formulas_size(), 3);
  // The T4 has no BF16 math (datasheet), so it is rejected with that reason.
  bool t4 = false;
  for (const v1::RejectedCandidate& r : resp.rejected()) {
    if (r.candidate().find("T4") == 0) {
      t4 = true;
      EXPECT_NE(r.reason().find("no bf16 math"), std::string::npos) << r.reason();
    }
  }
  EXPECT_TRUE(t4);
}

// What a scheduler reads survives the basic view: durations, cost, layout (vpp, cp and ep
// included) and MFU; the fabric the estimate assumed comes with it once the planner
// resolves one.
TEST_F(PlanningTest, BasicViewKeepsTheSchedulersFigures) {
  v1::PlanRequest r = FineTune7B();
  r.set_view(v1::VIEW_BASIC);
  v1::PlanResponse resp;
  absl::Status s = Plan(snap(), r, &resp);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_GT(resp.options_size(), 0);
  EXPECT_EQ(resp.rejected_size(), 0);
  for (const v1::PlanOption& o : resp.options()) {
    EXPECT_GT(o.duration_seconds().point(), 0);
    EXPECT_GT(o.total_cost_usd().point(), 0);
    EXPECT_GE(o.parallelism().virtual_pipeline_stages(), 1);
    EXPECT_GE(o.parallelism().context_parallel(), 1);
    EXPECT_GE(o.parallelism().expert_parallel(), 1);
    EXPECT_GT(o.mfu_fraction(), 0);
    EXPECT_LT(o.mfu_fraction(), 1);  // a fraction of the dense peak
    EXPECT_GT(o.model_tflops_per_gpu(), 0);
    // Steady state is never longer than end to end (goodput <= 1), when it is sent.
    EXPECT_LE(o.steady_state_duration_seconds().point(), o.duration_seconds().point());
    if (o.has_fabric()) {
      EXPECT_GT(o.fabric().gpus_per_node(), 0);
    }
  }
}

// The basic view drops the rejected candidates and the formulas; its options (figures, layout,
// provenance) and its cost/time frontier are the full view's, for training and serving alike.
// One known difference: the full view walks further down the ranking to fill its rejections,
// so an option's explanation may list more regions with the same offer ("; same offer in ...").
TEST_F(PlanningTest, BasicViewOptionsAreTheFullViews) {
  auto without_regions = [](v1::PlanOption o) {
    const size_t cut = o.explanation().find("; same offer in ");
    if (cut != std::string::npos) o.set_explanation(o.explanation().substr(0, cut));
    return o.SerializeAsString();
  };
  for (const v1::PlanRequest& base : {FineTune7B(), Serve7B()}) {
    v1::PlanRequest basic = base, full = base;
    basic.set_view(v1::VIEW_BASIC);
    full.set_view(v1::VIEW_FULL);
    v1::PlanResponse b, f;
    ASSERT_TRUE(Plan(snap(), basic, &b).ok());
    ASSERT_TRUE(Plan(snap(), full, &f).ok());
    EXPECT_EQ(b.rejected_size(), 0);
    EXPECT_GT(f.rejected_size(), 0);
    ASSERT_GT(f.options_size(), 0);
    ASSERT_EQ(b.options_size(), f.options_size());
    for (int i = 0; i < f.options_size(); ++i) {
      EXPECT_EQ(without_regions(b.options(i)), without_regions(f.options(i))) << "option " << i;
    }
    ASSERT_EQ(b.frontier_size(), f.frontier_size());
    for (int i = 0; i < f.frontier_size(); ++i) {
      EXPECT_EQ(b.frontier(i).SerializeAsString(), f.frontier(i).SerializeAsString()) << "frontier " << i;
    }
    EXPECT_EQ(b.selection_rule(), f.selection_rule());
  }
}

// The shipped catalog's BLOOM-7B1 has a 2048-token window (BigScience 2022): an unset
// sequence plans at 2048, a 4096-token one is refused naming the field.
TEST_F(PlanningTest, TheContextWindowComesFromTheCatalog) {
  v1::PlanRequest r;
  r.mutable_training()->set_model_name("BLOOM-7B1");
  r.mutable_training()->set_tokens(2e9);
  r.mutable_training()->set_method(v1::TRAINING_METHOD_LORA);
  v1::PlanResponse resp;
  absl::Status s = Plan(snap(), r, &resp);
  EXPECT_TRUE(s.ok()) << s;
  r.mutable_training()->set_sequence_tokens(4096);
  s = Plan(snap(), r, &resp);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("training.sequence_tokens: 4096 tokens is beyond BLOOM-7B1's context window of 2048"),
            std::string::npos)
      << s;
}

TEST_F(PlanningTest, DeadlineAndBudgetObjectivesRespectTheirLimits) {
  v1::PlanRequest r = FineTune7B();
  r.set_objective(v1::OBJECTIVE_CHEAPEST_WITHIN_DEADLINE);
  r.set_deadline_seconds(12 * 3600);
  v1::PlanResponse resp;
  ASSERT_TRUE(Plan(snap(), r, &resp).ok());
  ASSERT_GT(resp.options_size(), 0);
  for (const v1::PlanOption& o : resp.options()) EXPECT_LE(o.duration_seconds().point(), 12 * 3600);
  bool deadline_reason = false;
  for (const v1::RejectedCandidate& rj : resp.rejected()) {
    deadline_reason = deadline_reason || rj.reason().find("deadline") != std::string::npos;
  }
  EXPECT_TRUE(deadline_reason);

  r.set_objective(v1::OBJECTIVE_FASTEST_WITHIN_BUDGET);
  r.set_budget_usd(500);
  v1::PlanResponse fast;
  ASSERT_TRUE(Plan(snap(), r, &fast).ok());
  for (const v1::PlanOption& o : fast.options()) EXPECT_LE(o.total_cost_usd().point(), 500);
  for (int i = 1; i < fast.options_size(); ++i) {
    EXPECT_GE(fast.options(i).duration_seconds().point(), fast.options(i - 1).duration_seconds().point());
  }
}

TEST_F(PlanningTest, ServingPlanCarriesTheLoadWithinSlos) {
  v1::PlanResponse resp;
  absl::Status s = Plan(snap(), Serve7B(), &resp);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_GT(resp.options_size(), 0);
  for (const v1::PlanOption& o : resp.options()) {
    EXPECT_LE(o.ttft_seconds().point(), 1.0);
    EXPECT_LE(o.tpot_seconds().point(), 0.05);
    // Capacity at 70% planned utilisation covers the offered 35 req/s.
    EXPECT_GE(o.requests_per_second().point() * 0.7, 35 - 1e-6);
    EXPECT_NEAR(o.usd_per_million_requests(), core::CostPerMillionRequests(o.cost_usd_per_hour(), 35), 1e-9);
    EXPECT_NEAR(o.usd_per_month(), o.cost_usd_per_hour() * 730, 1e-9);
    EXPECT_GE(o.gpu_count(), o.replicas() * o.parallelism().tensor_parallel());
  }
  for (int i = 1; i < resp.options_size(); ++i) {
    EXPECT_GE(resp.options(i).cost_usd_per_hour(), resp.options(i - 1).cost_usd_per_hour());
  }
}

TEST_F(PlanningTest, ConstraintsFilterTheCatalog) {
  v1::PlanRequest r = Serve7B();
  r.mutable_constraints()->add_providers("gcp");
  r.mutable_constraints()->add_allowed_gpus("L4");
  v1::PlanResponse resp;
  // L4 datasheet: 300 GB/s. Streaming 13.5 GB of FP16 weights per token takes ~64 ms at 70%
  // of that, over the 50 ms TPOT target even at batch 1.
  absl::Status miss = Plan(snap(), r, &resp);
  EXPECT_EQ(miss.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(miss.message().find("time per output token"), std::string::npos) << miss;
  r.mutable_serving()->set_tpot_slo_seconds(0.1);
  resp.Clear();
  ASSERT_TRUE(Plan(snap(), r, &resp).ok());
  ASSERT_GT(resp.options_size(), 0);
  for (const v1::PlanOption& o : resp.options()) {
    EXPECT_EQ(o.provider(), "gcp");
    EXPECT_EQ(o.gpu_name(), "L4");
  }
  // An owned pool competes at its own hourly cost.
  v1::PlanRequest pool = Serve7B();
  v1::OwnedPool* p = pool.mutable_constraints()->add_owned_pools();
  p->set_name("lab");
  p->set_gpu_name("A100-SXM4-80GB");
  p->set_gpu_count(16);
  p->set_cost_usd_per_gpu_hour(0.01);
  v1::PlanResponse pooled;
  ASSERT_TRUE(Plan(snap(), pool, &pooled).ok());
  EXPECT_EQ(pooled.options(0).owned_pool(), "lab");
}

TEST_F(PlanningTest, NothingFitsNamesTheClosestMiss) {
  v1::PlanRequest r;
  r.mutable_training()->set_model_name("Llama-3.1-405B");
  r.mutable_training()->set_tokens(1e9);
  r.mutable_constraints()->set_max_gpus(8);
  v1::PlanResponse resp;
  absl::Status s = Plan(snap(), r, &resp);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("closest miss"), std::string::npos) << s;
  EXPECT_NE(s.message().find("needs"), std::string::npos) << s;
}

TEST_F(PlanningTest, BadRequestsNameTheField) {
  v1::PlanResponse resp;
  v1::PlanRequest r = FineTune7B();
  r.mutable_training()->set_model_name("Llama-9-1T");
  absl::Status s = Plan(snap(), r, &resp);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("training.model_name"), std::string::npos);
  r = FineTune7B();
  r.mutable_training()->set_tokens(0);
  s = Plan(snap(), r, &resp);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("training.tokens: must be in"), std::string::npos) << s;
  r = FineTune7B();
  r.mutable_constraints()->add_allowed_gpus("B300");
  EXPECT_EQ(Plan(snap(), r, &resp).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Plan(snap(), v1::PlanRequest(), &resp).code(), absl::StatusCode::kInvalidArgument);
  v1::PlanRequest serve = Serve7B();
  serve.mutable_serving()->set_requests_per_second(0);
  s = Plan(snap(), serve, &resp);
  EXPECT_NE(s.message().find("serving.requests_per_second"), std::string::npos);
  serve = Serve7B();
  serve.set_objective(v1::OBJECTIVE_CHEAPEST_WITHIN_DEADLINE);
  EXPECT_EQ(Plan(snap(), serve, &resp).code(), absl::StatusCode::kInvalidArgument);
  r = FineTune7B();
  r.mutable_training()->clear_model_name();
  r.mutable_training()->mutable_architecture()->set_num_layers(32);
  r.mutable_training()->mutable_architecture()->set_hidden_size(4096);
  r.mutable_training()->mutable_architecture()->set_num_attention_heads(30);
  s = Plan(snap(), r, &resp);
  EXPECT_NE(s.message().find("training.architecture.num_attention_heads"), std::string::npos) << s;
}

TEST_F(PlanningTest, CompareShowsTheCliExampleSideBySide) {
  // 4 x A100-80GB, 8 x RTX 3090 and 2 x RTX A6000 for a 13B model (docs/cli.md's compare
  // example); as LoRA fine-tuning so that every card holds it.
  v1::CompareRequest r;
  r.mutable_training()->set_model_name("Llama-2-13B");
  r.mutable_training()->set_tokens(1e9);
  r.mutable_training()->set_method(v1::TRAINING_METHOD_LORA);
  r.mutable_training()->set_sequence_tokens(2048);
  for (auto [gpu, n] : {std::pair{"A100-SXM4-80GB", 4}, std::pair{"RTX-3090", 8}, std::pair{"RTX-A6000", 2}}) {
    v1::CompareTarget* t = r.add_targets();
    t->set_gpu_name(gpu);
    t->set_count(n);
  }
  v1::CompareResponse resp;
  absl::Status s = Compare(snap(), r, &resp);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(resp.rows_size(), 3);
  for (const v1::CompareRow& row : resp.rows()) ASSERT_TRUE(row.infeasible_reason().empty()) << row.infeasible_reason();
  EXPECT_DOUBLE_EQ(resp.rows(0).speed_ratio_vs_first(), 1.0);
  // Dense FP16 tensor peak decides the order: 4 x 312 TFLOPS (A100 datasheet) first, 2 x 154.8
  // (RTX A6000 datasheet) last, 8 x 71 (GA102 whitepaper) between.
  EXPECT_LT(resp.rows(1).speed_ratio_vs_first(), 1.0);
  EXPECT_LT(resp.rows(2).speed_ratio_vs_first(), resp.rows(1).speed_ratio_vs_first());
  EXPECT_NEAR(resp.rows(1).speed_ratio_vs_first(),
              resp.rows(0).option().duration_seconds().point() / resp.rows(1).option().duration_seconds().point(),
              1e-9);

  // A pinned layout that does not multiply to the GPU count is refused, naming the target.
  r.mutable_targets(1)->mutable_pinned_parallelism()->set_tensor_parallel(2);
  r.mutable_targets(1)->mutable_pinned_parallelism()->set_pipeline_parallel(1);
  r.mutable_targets(1)->mutable_pinned_parallelism()->set_data_parallel(2);
  s = Compare(snap(), r, &resp);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("targets[1].pinned_parallelism"), std::string::npos) << s;
}

TEST_F(PlanningTest, CompareServingInstancesPricesAndCapacity) {
  v1::CompareRequest r;
  *r.mutable_serving() = Serve7B().serving();
  r.mutable_serving()->set_requests_per_second(0);  // compare capacity, not a load
  r.mutable_serving()->clear_ttft_slo_seconds();
  r.mutable_serving()->clear_tpot_slo_seconds();
  for (const char* type : {"g5.xlarge", "p4d.24xlarge"}) {
    v1::CompareTarget* t = r.add_targets();
    t->set_instance_type(type);
    t->set_region("us-east-1");
  }
  v1::CompareResponse resp;
  ASSERT_TRUE(Compare(snap(), r, &resp).ok());
  ASSERT_TRUE(resp.rows(0).infeasible_reason().empty() && resp.rows(1).infeasible_reason().empty());
  // Shipped AWS prices: g5.xlarge $1.006/h, p4d.24xlarge $32.7726/h.
  EXPECT_NEAR(resp.rows(1).cost_ratio_vs_first(), 32.7726 / 1.006, 1e-6);
  EXPECT_GT(resp.rows(1).speed_ratio_vs_first(), 4.0);  // eight A100s vs one A10G
  v1::CompareTarget* bad = r.add_targets();
  bad->set_instance_type("p9.huge");
  // A target the catalog lacks answers on its own row; the others are still compared.
  resp.Clear();
  ASSERT_TRUE(Compare(snap(), r, &resp).ok());
  ASSERT_EQ(resp.rows_size(), 3);
  EXPECT_NE(resp.rows(2).infeasible_reason().find("p9.huge"), std::string::npos) << resp.rows(2).infeasible_reason();
  EXPECT_TRUE(resp.rows(1).infeasible_reason().empty());
}

TEST_F(PlanningTest, TcoReproducesTheReadmeOwnOrRentExample) {
  v1::TcoResponse resp;
  absl::Status s = Tco(snap(), ReadmeOwnOrRentRequest(), &resp);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(resp.series_size(), 36);
  // Cash: 250000 + 5000 m <= 15000 m first at m = 25.
  EXPECT_EQ(resp.break_even_month(), 25);
  EXPECT_DOUBLE_EQ(resp.series(0).own_usd(), 255000);
  EXPECT_DOUBLE_EQ(resp.series(24).own_cumulative_usd(), 375000);
  EXPECT_DOUBLE_EQ(resp.series(24).rent_cumulative_usd(), 375000);
  // Amortised over 36 months: own costs 250000/36 + 5000 = $11,944/month. The rent is a flat
  // $15,000 a month whatever the use, so no use makes owning cheaper or dearer: a break-even
  // use does not apply (docs/estimator.md), and none is printed.
  EXPECT_NEAR(resp.fleets(0).own_usd_per_month(), 250000.0 / 36 + 5000, 1e-6);
  EXPECT_FALSE(resp.break_even_usage_applies());
  EXPECT_EQ(resp.break_even_gpu_hours_per_month(), 0);
  EXPECT_NEAR(resp.rent_usd_per_used_gpu_hour(), 15000.0 / 5840, 1e-9);
}

TEST_F(PlanningTest, TcoPricesRentFromTheCatalogAndServingPerMillion) {
  v1::TcoRequest r;
  r.set_horizon_months(24);
  v1::TcoFleet* f = r.add_fleets();
  f->set_role("serving");
  f->set_gpu_name("A10G");
  f->set_gpu_count(4);
  f->mutable_own()->set_capex_usd(40000);
  f->mutable_rent()->set_provider("aws");
  f->mutable_rent()->set_instance_type("g5.xlarge");
  f->mutable_rent()->set_region("us-east-1");
  *r.mutable_serving() = Serve7B().serving();
  r.mutable_serving()->set_requests_per_second(2);
  v1::TcoResponse resp;
  absl::Status s = Tco(snap(), r, &resp);
  ASSERT_TRUE(s.ok()) << s;
  // g5.xlarge: one A10G at $1.006/h (shipped AWS price).
  EXPECT_NEAR(resp.fleets(0).rent_usd_per_gpu_hour(), 1.006, 1e-9);
  EXPECT_NEAR(resp.fleets(0).rent_usd_per_month(), 1.006 * 4 * 730, 1e-6);
  ASSERT_EQ(resp.provenance().prices_size(), 1);
  // Per 1M requests: monthly rent over 2 req/s x 2,628,000 s.
  EXPECT_NEAR(resp.rent_usd_per_million_requests(), 1.006 * 4 * 730 * 1e6 / (2 * 2628000.0), 1e-6);
  EXPECT_GT(resp.serving_capacity_requests_per_second(), 2);
  // Power from the catalog's owning rows (migration 0005): an A10G server draws its 150 W TDP
  // plus an assumed 250 W host share per GPU, at Virginia's commercial tariff for us-east-1
  // (EIA Electric Power Annual 2023: 8.95 cents/kWh), PUE 1.2, every GPU busy all month:
  // 4 x 400 W x 730 h x 1.2 x $0.0895/kWh.
  EXPECT_NEAR(resp.fleets(0).own_power_usd_per_month(), 4 * 400 * 730 * 1.2 * 0.0895 / 1000, 1e-6);
  // Too much load for four A10Gs is refused with the capacity.
  r.mutable_serving()->set_requests_per_second(500);
  s = Tco(snap(), r, &resp);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("carry"), std::string::npos) << s;
}

TEST_F(PlanningTest, TcoHybridFleetAndErrors) {
  v1::TcoRequest r = ReadmeOwnOrRentRequest();
  v1::TcoFleet* serving = r.add_fleets();
  serving->set_role("serving");
  serving->set_gpu_name("T4");
  serving->set_gpu_count(8);
  serving->mutable_own()->set_capex_usd(20000);
  v1::TcoResponse resp;
  ASSERT_TRUE(Tco(snap(), r, &resp).ok());
  ASSERT_EQ(resp.fleets_size(), 2);
  EXPECT_NEAR(resp.series(0).rent_usd(), resp.fleets(0).rent_usd_per_month() + resp.fleets(1).rent_usd_per_month(),
              1e-6);

  v1::TcoRequest bad = ReadmeOwnOrRentRequest();
  bad.set_horizon_months(0);
  EXPECT_NE(Tco(snap(), bad, &resp).message().find("horizon_months"), std::string::npos);
  bad = ReadmeOwnOrRentRequest();
  bad.mutable_fleets(0)->set_gpu_name("B300");
  EXPECT_EQ(Tco(snap(), bad, &resp).code(), absl::StatusCode::kNotFound);
  bad = ReadmeOwnOrRentRequest();
  bad.mutable_fleets(0)->set_gpu_name("H200-SXM-141GB");  // no list price in the catalog (migration 0005)
  bad.mutable_fleets(0)->mutable_own()->clear_capex_usd();
  absl::Status s = Tco(snap(), bad, &resp);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("fleets[0].own.capex_usd"), std::string::npos) << s;
  bad = ReadmeOwnOrRentRequest();
  bad.mutable_fleets(0)->set_usage_gpu_hours_per_month(10000);  // > 8 x 730
  EXPECT_NE(Tco(snap(), bad, &resp).message().find("usage_gpu_hours_per_month"), std::string::npos);
}

}  // namespace
}  // namespace capplan::server
