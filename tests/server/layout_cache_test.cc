// The training layout cache (core/training/layout_cache.h) must never change an answer: over
// a grid of questions on the shipped catalog (models x methods x token counts x deadlines x
// budgets x objectives) every Plan and Compare answered with one shared, warm cache is the
// answer computed without it, option by option, rank by rank and rejection by rejection.
#include "core/training/layout_cache.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "server/planning/planning.h"
#include "tests/server/shipped_catalog_test.h"

namespace capplan::server {
namespace {

namespace v1 = capplan::v1;
using LayoutCacheTest = testing::ShippedCatalogTest;

struct Question {
  const char* model;
  v1::TrainingMethod method;
  int64_t sequence_tokens;  // 0: the default
};

// The whole answer, field by field (a deterministic serialization of the response).
std::string Bytes(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  m.SerializeToCodedStream(&coded);
  return out;
}

std::string Describe(const v1::PlanRequest& r) {
  return absl::StrCat(r.training().model_name(), " method ", r.training().method(), " tokens ", r.training().tokens(),
                      " deadline ", r.deadline_seconds(), " budget ", r.budget_usd(), " objective ", r.objective());
}

TEST_F(LayoutCacheTest, CachedPlansAreTheUncachedPlans) {
  const std::vector<Question> questions = {
      {"Llama-2-7B", v1::TRAINING_METHOD_LORA, 0},
      {"Llama-3-8B", v1::TRAINING_METHOD_FULL, 8192},
      {"Llama-3-70B", v1::TRAINING_METHOD_FULL, 0},
      {"Mixtral-8x7B", v1::TRAINING_METHOD_FULL, 0},
  };
  // Token counts from a fine-tune (20M, few batch candidates) to pre-training (15T, all of
  // them), so that entries stored for one count are read back for another.
  const double tokens[] = {2e7, 2e9, 1.5e13};
  const double deadlines[] = {0, 7 * 86400.0};
  const double budgets[] = {0, 50000};
  core::TrainingLayoutCache cache;
  int compared = 0, ok = 0;
  for (const Question& q : questions) {
    for (double t : tokens) {
      for (double deadline : deadlines) {
        for (double budget : budgets) {
          v1::PlanRequest r;
          r.mutable_training()->set_model_name(q.model);
          r.mutable_training()->set_method(q.method);
          r.mutable_training()->set_tokens(t);
          if (q.sequence_tokens > 0) r.mutable_training()->set_sequence_tokens(q.sequence_tokens);
          r.set_deadline_seconds(deadline);
          r.set_budget_usd(budget);
          r.set_objective(deadline > 0 ? v1::OBJECTIVE_CHEAPEST_WITHIN_DEADLINE
                                       : (budget > 0 ? v1::OBJECTIVE_FASTEST_WITHIN_BUDGET : v1::OBJECTIVE_CHEAPEST));
          r.set_top_k(5);
          v1::PlanResponse plain, cached;
          const absl::Status s_plain = Plan(snap(), r, &plain);
          const absl::Status s_cached = Plan(snap(), r, &cached, &cache);
          EXPECT_EQ(s_plain, s_cached) << Describe(r);
          EXPECT_EQ(Bytes(plain), Bytes(cached)) << Describe(r);
          if (s_plain.ok()) {
            ++ok;
            ASSERT_EQ(plain.options_size(), cached.options_size()) << Describe(r);
            for (int i = 0; i < plain.options_size(); ++i) {
              EXPECT_EQ(plain.options(i).rank(), cached.options(i).rank());
              EXPECT_EQ(plain.options(i).duration_seconds().point(), cached.options(i).duration_seconds().point());
              EXPECT_EQ(plain.options(i).total_cost_usd().point(), cached.options(i).total_cost_usd().point());
            }
          }
          ++compared;
        }
      }
    }
  }
  EXPECT_EQ(compared, 48);
  EXPECT_GT(ok, compared / 2);  // most questions have an answer to compare
  // The grid asks about each model at several token counts: most searches are remembered.
  const core::TrainingLayoutCache::Stats stats = cache.GetStats();
  EXPECT_GT(stats.hits, stats.misses) << stats.hits << " hits, " << stats.misses << " misses";
}

TEST_F(LayoutCacheTest, CachedComparesAreTheUncachedCompares) {
  core::TrainingLayoutCache cache;
  for (double t : {2e9, 2e12}) {
    v1::CompareRequest r;
    r.mutable_training()->set_model_name("Llama-3-8B");
    r.mutable_training()->set_tokens(t);
    for (const char* gpu : {"H100-SXM5-80GB", "A100-SXM4-80GB"}) {
      v1::CompareTarget* target = r.add_targets();
      target->set_gpu_name(gpu);
      target->set_count(8);
    }
    v1::CompareResponse plain, cached;
    const absl::Status s_plain = Compare(snap(), r, &plain);
    EXPECT_EQ(s_plain, Compare(snap(), r, &cached, &cache));
    EXPECT_EQ(Bytes(plain), Bytes(cached)) << t;
    EXPECT_TRUE(s_plain.ok()) << s_plain;
  }
}

// Serving: the calibrated efficiencies are kept per model, precision, lengths, engine and GPU,
// and read back for other loads, SLOs, budgets and engines' versions of the same question;
// the batch each layout search settled on is kept per workload but its load, and read back
// for the same question at another load (every load after the first here).
TEST_F(LayoutCacheTest, CachedServingPlansAndComparesAreTheUncachedOnes) {
  core::TrainingLayoutCache cache;
  int compared = 0;
  for (const char* model : {"Llama-2-7B", "Llama-3-70B"}) {
    for (const v1::ServingEngine engine : {v1::SERVING_ENGINE_VLLM, v1::SERVING_ENGINE_TENSORRT_LLM}) {
      for (int64_t prompt : {512, 2048}) {
        for (double rps : {1.0, 35.0, 7.25}) {
          for (double tpot_ms : {0.0, 50.0}) {
            v1::PlanRequest r;
            v1::ServingWorkload* w = r.mutable_serving();
            w->set_model_name(model);
            w->set_engine(engine);
            w->set_prompt_tokens(prompt);
            w->set_output_tokens(128);
            w->set_requests_per_second(rps);
            if (tpot_ms > 0) w->set_tpot_slo_seconds(tpot_ms / 1000);
            r.set_budget_usd(rps > 10 ? 20000 : 0);
            r.set_top_k(5);
            v1::PlanResponse plain, cached;
            const absl::Status s_plain = Plan(snap(), r, &plain);
            EXPECT_EQ(s_plain, Plan(snap(), r, &cached, &cache)) << r.ShortDebugString();
            EXPECT_EQ(Bytes(plain), Bytes(cached)) << r.ShortDebugString();
            ++compared;
            v1::CompareRequest c;
            *c.mutable_serving() = *w;
            for (const char* gpu : {"H100-SXM5-80GB", "A100-SXM4-80GB"}) {
              v1::CompareTarget* t = c.add_targets();
              t->set_gpu_name(gpu);
              t->set_count(8);
            }
            v1::CompareResponse cp, cc;
            const absl::Status s_cp = Compare(snap(), c, &cp);
            EXPECT_EQ(s_cp, Compare(snap(), c, &cc, &cache)) << c.ShortDebugString();
            EXPECT_EQ(Bytes(cp), Bytes(cc)) << c.ShortDebugString();
          }
        }
      }
    }
  }
  EXPECT_EQ(compared, 48);
  const core::TrainingLayoutCache::Stats stats = cache.GetStats();
  EXPECT_GT(stats.hits, stats.misses) << stats.hits << " hits, " << stats.misses << " misses";
}

// A newer catalog version drops what an older one remembered; a request still on the older
// one neither reads nor stores.
TEST(LayoutCacheVersions, ANewerVersionDropsEntries) {
  core::TrainingLayoutCache cache;
  core::CachedLayouts layouts;
  layouts.batch_tokens = 4096;
  cache.StoreLayouts(1, "k", layouts);
  ASSERT_NE(cache.FindLayouts(1, "k"), nullptr);
  EXPECT_EQ(cache.FindLayouts(2, "k"), nullptr);
  cache.StoreLayouts(1, "old", layouts);
  EXPECT_EQ(cache.FindLayouts(2, "old"), nullptr);
  EXPECT_EQ(cache.FindLayouts(1, "k"), nullptr);
}

TEST(LayoutCacheVersions, TheCacheIsBounded) {
  core::TrainingLayoutCache cache(4);
  for (int i = 0; i < 10; ++i) cache.StoreLayouts(1, std::to_string(i), {});
  EXPECT_LE(cache.GetStats().entries, 4);
}

}  // namespace
}  // namespace capplan::server
