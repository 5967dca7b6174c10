// TrainingCache gives SearchParallelism's answers: the same layouts and the same figures, bit
// for bit, whichever token count filled it, over a grid of models, GPUs, GPU counts, token
// counts and batches; and it keeps the searches (the point of it).
#include "core/training/training_cache.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/training/training.h"
#include "fixtures.h"

namespace capplan::core {
namespace {

using testing::Dense;

void ExpectSameParallel(const ParallelConfig& a, const ParallelConfig& b, const std::string& where) {
  EXPECT_EQ(a.tp, b.tp) << where;
  EXPECT_EQ(a.pp, b.pp) << where;
  EXPECT_EQ(a.dp, b.dp) << where;
  EXPECT_EQ(a.cp, b.cp) << where;
  EXPECT_EQ(a.ep, b.ep) << where;
  EXPECT_EQ(a.vpp, b.vpp) << where;
  EXPECT_EQ(a.zero_stage, b.zero_stage) << where;
  EXPECT_EQ(a.recompute, b.recompute) << where;
  EXPECT_EQ(a.sequence_parallel, b.sequence_parallel) << where;
  EXPECT_EQ(a.micro_batch, b.micro_batch) << where;
}

// Exact equality: a replayed layout must give the figures the full search gives.
void ExpectSameEstimate(const TrainingEstimate& a, const TrainingEstimate& b, const std::string& where) {
  ExpectSameParallel(a.parallel, b.parallel, where);
  EXPECT_EQ(a.memory_per_gpu.TotalBytes(), b.memory_per_gpu.TotalBytes()) << where;
  EXPECT_EQ(a.fits, b.fits) << where;
  EXPECT_EQ(a.steps, b.steps) << where;
  EXPECT_EQ(a.global_batch_tokens, b.global_batch_tokens) << where;
  EXPECT_EQ(a.step_seconds, b.step_seconds) << where;
  EXPECT_EQ(a.duration_seconds, b.duration_seconds) << where;
  EXPECT_EQ(a.duration_seconds_low, b.duration_seconds_low) << where;
  EXPECT_EQ(a.duration_seconds_high, b.duration_seconds_high) << where;
  EXPECT_EQ(a.gpu_hours, b.gpu_hours) << where;
  EXPECT_EQ(a.mfu, b.mfu) << where;
  EXPECT_EQ(a.energy_kwh, b.energy_kwh) << where;
  EXPECT_EQ(a.hardware_flops, b.hardware_flops) << where;
  EXPECT_EQ(a.bottleneck, b.bottleneck) << where;
}

void ExpectSameResult(const absl::StatusOr<SearchResult>& want, const absl::StatusOr<SearchResult>& got,
                      const std::string& where) {
  ASSERT_EQ(want.ok(), got.ok()) << where << ": " << want.status() << " vs " << got.status();
  if (!want.ok()) {
    EXPECT_EQ(want.status(), got.status()) << where;
    return;
  }
  EXPECT_EQ(want->configurations_evaluated, got->configurations_evaluated) << where;
  ASSERT_EQ(want->ranked.size(), got->ranked.size()) << where;
  for (size_t i = 0; i < want->ranked.size(); ++i) ExpectSameEstimate(want->ranked[i], got->ranked[i], where);
  ASSERT_EQ(want->rejected.size(), got->rejected.size()) << where;
  for (size_t i = 0; i < want->rejected.size(); ++i) {
    const LayoutRejection &a = want->rejected[i], &b = got->rejected[i];
    ExpectSameParallel(a.parallel, b.parallel, where);
    EXPECT_EQ(a.reason, b.reason) << where;
    EXPECT_EQ(a.needed_bytes, b.needed_bytes) << where;
    EXPECT_EQ(a.global_batch_sequences, b.global_batch_sequences) << where;
  }
}

struct Job {
  ModelArchitecture model;
  TrainingMethod method;
  int64_t sequence_length;
};

std::vector<Job> Jobs() {
  ModelArchitecture bare;
  bare.name = "bare-3B";
  bare.parameter_count = 3e9;
  // Mixtral 8x7B (config.json): 32 layers, d 4096, 32 heads, 8 KV heads, FFN 14336, 8
  // experts, top-2.
  ModelArchitecture moe = Dense("Mixtral-8x7B", 32, 4096, 32, 8, 14336, 32000);
  moe.num_experts = 8;
  moe.experts_per_token = 2;
  return {{testing::Llama2_7B(), TrainingMethod::kLora, 4096},
          {testing::Llama3_8B(), TrainingMethod::kFull, 8192},
          {testing::Llama2_70B(), TrainingMethod::kFull, 4096},
          {testing::Llama2_70B(), TrainingMethod::kQlora, 4096},
          {moe, TrainingMethod::kFull, 32768},
          {bare, TrainingMethod::kFull, 2048}};
}

// Every token count of the grid is different from the one that filled the cache, and from
// each other by factors that are not powers of two (so durations round differently).
TEST(TrainingCacheTest, SameAnswersAsTheSearchOverAGrid) {
  const Fabric ib{8, Interconnect::kNvlink, 300e9, NetworkKind::kInfiniband, 25e9, 5e-6};
  const std::vector<ClusterSpec> clusters = {
      {testing::A100_80GB(), ib}, {testing::H100_SXM(), {}}, {testing::Rtx4090(), {}}, {testing::V100(), {}}};
  TrainingCache cache;
  int compared = 0;
  for (const Job& j : Jobs()) {
    for (const ClusterSpec& cluster : clusters) {
      for (int gpus : {1, 8, 64, 256}) {
        for (double batch : {0.0, 4.0 * 1024 * 1024}) {
          TrainingJob job;
          job.model = j.model;
          job.method = j.method;
          job.sequence_length = j.sequence_length;
          job.global_batch_tokens = batch;
          const Efficiency eff = DefaultTrainingEfficiency(cluster.gpu, job.precision);
          SearchOptions o;
          o.max_gpus = o.min_gpus = gpus;
          o.top_k = gpus == 8 ? 5 : 1;
          job.tokens = 3e11;  // fills the cache
          static_cast<void>(cache.Search(1, job, cluster, eff, o));
          for (double tokens : {7.3e8, 2.9e10, 1.1e12, 15.6e12}) {
            job.tokens = tokens;
            const std::string where = absl::StrCat(j.model.name, " method ", static_cast<int>(j.method), " on ", gpus,
                                                   " x ", cluster.gpu.name, " batch ", batch, " tokens ", tokens);
            ExpectSameResult(SearchParallelism(job, cluster, eff, o), cache.Search(1, job, cluster, eff, o), where);
            ++compared;
          }
        }
      }
    }
  }
  EXPECT_EQ(compared, 6 * 4 * 4 * 2 * 4);
  const TrainingCache::Stats s = cache.stats();
  EXPECT_GT(s.layout_hits, s.layout_misses);  // the token counts after the first were replayed
}

// A deadline changes what is ranked (GPU-hours) and what is kept: such searches go through
// as asked, with the same answer.
TEST(TrainingCacheTest, DeadlineSearchesAreTheSearch) {
  TrainingJob job;
  job.model = testing::Llama2_7B();
  job.tokens = 1e11;
  const ClusterSpec cluster{testing::A100_80GB()};
  const Efficiency eff = DefaultTrainingEfficiency(cluster.gpu, job.precision);
  SearchOptions o;
  o.max_gpus = 64;
  TrainingCache cache;
  for (double days : {3.0, 30.0, 300.0}) {
    o.deadline_seconds = days * 86400;
    ExpectSameResult(SearchParallelism(job, cluster, eff, o), cache.Search(1, job, cluster, eff, o),
                     absl::StrCat(days, " days"));
  }
  EXPECT_EQ(cache.stats().layouts, 0u);
}

TEST(TrainingCacheTest, AnotherTokenCountIsAHitAndANewCatalogVersionIsNot) {
  TrainingJob job;
  job.model = testing::Llama2_70B();
  job.tokens = 2e12;
  const ClusterSpec cluster{testing::H100_SXM()};
  const Efficiency eff = DefaultTrainingEfficiency(cluster.gpu, job.precision);
  SearchOptions o;
  o.max_gpus = o.min_gpus = 64;
  TrainingCache cache;
  ASSERT_TRUE(cache.Search(3, job, cluster, eff, o).ok());
  EXPECT_EQ(cache.stats().layout_misses, 1);
  job.tokens = 5e12;
  ASSERT_TRUE(cache.Search(3, job, cluster, eff, o).ok());
  EXPECT_EQ(cache.stats().layout_hits, 1);
  job.sequence_length = 8192;  // a different job: searched
  ASSERT_TRUE(cache.Search(3, job, cluster, eff, o).ok());
  EXPECT_EQ(cache.stats().layout_misses, 2);
  ASSERT_TRUE(cache.Search(4, job, cluster, eff, o).ok());  // a new catalog: dropped, searched
  EXPECT_EQ(cache.stats().layout_misses, 3);
  EXPECT_EQ(cache.stats().layouts, 1u);
}

TEST(TrainingCacheTest, InvalidJobsGetTheSearchsError) {
  TrainingJob job;
  job.model = testing::Llama2_7B();
  job.tokens = -1;
  const ClusterSpec cluster{testing::A100_80GB()};
  TrainingCache cache;
  const Efficiency eff = DefaultTrainingEfficiency(cluster.gpu, job.precision);
  ExpectSameResult(SearchParallelism(job, cluster, eff, {}), cache.Search(1, job, cluster, eff, {}), "tokens -1");
}

TEST(TrainingCacheTest, LruKeepsTheMostRecentlyUsed) {
  LruMap<int> lru(2);
  lru.Insert("a", std::make_shared<const int>(1));
  lru.Insert("b", std::make_shared<const int>(2));
  ASSERT_NE(lru.Find("a"), nullptr);  // "b" is now the least recently used
  lru.Insert("c", std::make_shared<const int>(3));
  EXPECT_EQ(lru.size(), 2u);
  EXPECT_EQ(lru.Find("b"), nullptr);
  EXPECT_EQ(*lru.Find("a"), 1);
  EXPECT_EQ(*lru.Find("c"), 3);
}

}  // namespace
}  // namespace capplan::core
