// Judgement: Plans over a grid of realistic questions (models x GPU filters x objectives x
// loads, on the shipped catalog), each top option checked against the rules an engineer
// signing it off would apply: it finishes within the stated (or default) time bound, uses
// every GPU it bills, honours every given constraint, clusters only over a fabric sold as a
// cluster, keeps the pipeline bubble at most half of compute, leaves serving replicas room
// for their KV cache, and every GPU type of the catalog is accounted for in the answer.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "capplan/v1/planner.pb.h"
#include "server/planning/planning.h"
#include "tests/server/judgement_rules.h"
#include "tests/server/shipped_catalog_test.h"

namespace capplan::server {
namespace {

namespace v1 = capplan::v1;
using judgement::Broken;
using judgement::Question;

class JudgementTest : public testing::ShippedCatalogTest {};

constexpr double kDay = 86400;

// Training questions: published pre-training and fine-tuning scales.
std::vector<Question> TrainingQuestions() {
  struct Model {
    const char* name;
    double params;
  };
  const Model models[] = {{"Llama-3-8B", 8e9}, {"Llama-3-70B", 70e9}, {"Mixtral-8x7B", 13e9}, {"Llama-2-7B", 7e9}};
  const double token_counts[] = {2e10, 2e11, 2e12, 15e12};
  const char* gpu_filters[] = {"", "H100-SXM5-80GB", "A100-SXM4-80GB"};
  std::vector<Question> out;
  for (const Model& m : models) {
    for (double tokens : token_counts) {
      // A reference cost: 6 N D FLOPs at 40% of an H100's BF16 peak (989 TFLOP/s, NVIDIA
      // H100 datasheet) at $3 per GPU-hour; budgets are set around it.
      const double ref_usd = 6 * m.params * tokens / (989e12 * 0.4) / 3600 * 3;
      for (const char* gpu : gpu_filters) {
        for (int objective = 0; objective < 7; ++objective) {
          Question q;
          v1::PlanRequest& r = q.request;
          v1::TrainingWorkload* w = r.mutable_training();
          w->set_model_name(m.name);
          w->set_tokens(tokens);
          if (*gpu != '\0') r.mutable_constraints()->add_allowed_gpus(gpu);
          r.set_max_rejected(200);
          switch (objective) {
            case 0:
              r.set_objective(v1::OBJECTIVE_CHEAPEST);
              break;
            case 1:
              r.set_objective(v1::OBJECTIVE_FASTEST);
              break;
            case 2:
              r.set_objective(v1::OBJECTIVE_CHEAPEST_WITHIN_DEADLINE);
              r.set_deadline_seconds(7 * kDay);
              break;
            case 3:
              r.set_objective(v1::OBJECTIVE_CHEAPEST_WITHIN_DEADLINE);
              r.set_deadline_seconds(30 * kDay);
              break;
            case 4:
              r.set_objective(v1::OBJECTIVE_FASTEST_WITHIN_BUDGET);
              r.set_budget_usd(2 * ref_usd);
              break;
            case 5:  // both limits, the deadline objective
              r.set_objective(v1::OBJECTIVE_CHEAPEST_WITHIN_DEADLINE);
              r.set_deadline_seconds(14 * kDay);
              r.set_budget_usd(1.5 * ref_usd);
              break;
            default:  // a GPU ceiling
              r.set_objective(v1::OBJECTIVE_CHEAPEST);
              r.mutable_constraints()->set_max_gpus(512);
              break;
          }
          q.name = absl::StrCat(m.name, " ", tokens, " tokens gpu=", gpu, " objective#", objective);
          out.push_back(std::move(q));
        }
      }
    }
  }
  return out;
}

std::vector<Question> ServingQuestions() {
  const char* models[] = {"Llama-3-8B", "Llama-3-70B", "Mixtral-8x7B", "Qwen2-72B", "Mistral-7B-v0.1"};
  const double loads[] = {0.5, 5, 40};
  const char* gpu_filters[] = {"", "H100-SXM5-80GB", "L40S"};
  std::vector<Question> out;
  for (const char* m : models) {
    for (double rps : loads) {
      for (const char* gpu : gpu_filters) {
        for (int objective = 0; objective < 4; ++objective) {
          Question q;
          v1::PlanRequest& r = q.request;
          v1::ServingWorkload* w = r.mutable_serving();
          w->set_model_name(m);
          w->set_prompt_tokens(2048);
          w->set_output_tokens(256);
          w->set_requests_per_second(rps);
          if (*gpu != '\0') r.mutable_constraints()->add_allowed_gpus(gpu);
          r.set_max_rejected(200);
          switch (objective) {
            case 0:
              r.set_objective(v1::OBJECTIVE_CHEAPEST);
              break;
            case 1:
              r.set_objective(v1::OBJECTIVE_FASTEST);
              break;
            case 2:  // interactive SLOs
              r.set_objective(v1::OBJECTIVE_CHEAPEST);
              w->set_ttft_slo_seconds(1.0);
              w->set_tpot_slo_seconds(0.05);
              w->set_e2e_slo_seconds(20);
              break;
            default:  // a monthly budget
              r.set_objective(v1::OBJECTIVE_FASTEST_WITHIN_BUDGET);
              r.set_budget_usd(20000);
              break;
          }
          q.name = absl::StrCat(m, " ", rps, " req/s gpu=", gpu, " objective#", objective);
          out.push_back(std::move(q));
        }
      }
    }
  }
  return out;
}

TEST_F(JudgementTest, TopOptionsFollowTheRules) {
  std::vector<Question> questions = TrainingQuestions();
  for (Question& q : ServingQuestions()) questions.push_back(std::move(q));
  ASSERT_GE(questions.size(), 500u);
  std::map<std::string, int> by_rule;
  int broken = 0, answered = 0, shown = 0;
  for (const Question& q : questions) {
    v1::PlanResponse resp;
    const absl::Status st = Plan(snap(), q.request, &resp);
    std::vector<std::string> why = Broken(snap(), q.request, st, resp);
    answered += st.ok() ? 1 : 0;
    if (why.empty()) continue;
    ++broken;
    for (const std::string& w : why) ++by_rule[w.substr(0, w.find(':'))];
    if (++shown <= 8) ADD_FAILURE() << q.name << ": " << why.front();
  }
  std::string summary;
  for (const auto& [rule, n] : by_rule) absl::StrAppend(&summary, rule, "=", n, " ");
  EXPECT_EQ(broken, 0) << "of " << questions.size() << " questions: " << summary;
  // The grid exercises what it is for: most questions are answered with options.
  EXPECT_GT(answered, static_cast<int>(questions.size()) / 2);
  std::printf("judgement: %d of %zu questions broke a rule; %d answered; %s\n", broken, questions.size(), answered,
              summary.c_str());
}

}  // namespace
}  // namespace capplan::server
