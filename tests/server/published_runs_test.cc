// Validation of the training estimator against published LLM training runs at 1,000 GPUs or
// more (tests/core/published_training_runs.h; sources in docs/validation/). These runs are
// never used for calibration: the estimator answers as the service would, with the shipped
// catalog's GPU rows and its calibration benchmarks (Llama 2 on A100-80GB), on the run's own
// cluster fabric, with the published layout pinned where the source gives one.
//
// The test prints the table reported in the issue's closing note (published, capplan point,
// low-high, error) and checks the accuracy reached, the range coverage, and that the search
// finds a layout at least as fast as the published one under capplan's own model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/assumptions.h"
#include "core/training/training.h"
#include "tests/core/fixtures.h"
#include "tests/core/published_moe_runs.h"
#include "tests/core/published_training_runs.h"
#include "tests/core/validation_score.h"
#include "tests/server/shipped_catalog_test.h"

namespace capplan::server {
namespace {

using core::ClusterSpec;
using core::Fabric;
using core::ModelArchitecture;
using core::SearchOptions;
using core::TrainingEstimate;
using core::TrainingJob;
using testdata::PublishedRun;

// Small-message latency by fabric, order of magnitude (InfiniBand ~2-5 us, RoCE ~5-10 us,
// EFA ~15 us): only visible at tiny messages, which these runs do not send.
double LatencySeconds(const std::string& kind) {
  if (kind == "infiniband") return 5e-6;
  if (kind == "roce") return 10e-6;
  return 15e-6;
}

Fabric RunFabric(const PublishedRun& r, const core::GpuSpec& gpu) {
  Fabric f;
  f.gpus_per_node = 8;  // every run in the table uses 8-GPU HGX/DGX nodes
  f.intra_link = core::Interconnect::kNvlink;
  f.intra_node_bytes_per_second_per_gpu = gpu.interconnect_bandwidth_bytes_per_second;
  const std::string published = r.gpu_as_published;
  // H800: NVLink 400 GB/s bidirectional; DeepSeek-V3 (Sec. 3.2.2) measures 160 GB/s. A800:
  // the same 400 GB/s NVLink cap (NVIDIA A800 product brief), 200 GB/s per direction.
  if (published.rfind("H800", 0) == 0) f.intra_node_bytes_per_second_per_gpu = 160e9;
  if (published.rfind("A800", 0) == 0) f.intra_node_bytes_per_second_per_gpu = 200e9;
  const std::string kind = r.network_kind;
  f.network = kind == "infiniband" ? core::NetworkKind::kInfiniband
              : kind == "roce"     ? core::NetworkKind::kRoce
                                   : core::NetworkKind::kEfa;
  f.network_bytes_per_second_per_gpu = r.network_gbit_per_s_per_gpu * 1e9 / 8;
  f.network_latency_seconds = LatencySeconds(kind);
  return f;
}

ModelArchitecture RunModel(const PublishedRun& r) {
  // The row's fields cannot hold MLA, the shared expert or the leading dense layers; the
  // released config.json can (deepseek-ai/DeepSeek-V3, tests/core/fixtures.h).
  if (std::string(r.name) == "deepseek-v3-pretrain") return core::testing::DeepSeekV3();
  // Nor Qwen2-57B-A14B's shared expert (Qwen/Qwen2-57B-A14B config.json, tests/core/fixtures.h).
  if (std::string(r.name).find("qwen2-57b-a14b") != std::string::npos) return core::testing::Qwen2_57B_A14B();
  ModelArchitecture m;
  m.name = r.name;
  m.num_layers = r.layers;
  m.hidden_size = r.hidden;
  m.num_attention_heads = r.heads;
  m.num_kv_heads = r.kv_heads;
  m.ffn_hidden_size = r.ffn;
  m.gated_mlp = r.gated_mlp;
  m.vocab_size = r.vocab;
  m.tied_embeddings = r.tied_embeddings;
  m.num_experts = r.experts;
  m.experts_per_token = r.experts_per_token;
  return m;
}

core::Precision RunPrecision(const std::string& p) {
  if (p == "fp8") return core::Precision::kFp8;
  if (p == "fp16") return core::Precision::kFp16;
  return core::Precision::kBf16;
}

bool EndToEnd(const PublishedRun& r) { return std::string(r.kind) == "end_to_end"; }

struct Outcome {
  const PublishedRun* run = nullptr;
  double published = 0, point = 0, low = 0, high = 0;
  bool pinned = false;
  double pinned_seconds = 0, searched_seconds = 0;
  std::string layout, searched_layout;
  double Error() const { return point / published - 1.0; }
  bool InRange() const { return low <= published && published <= high; }
};

std::string Layout(const core::ParallelConfig& p) {
  return absl::StrFormat("tp%d pp%d dp%d cp%d ep%d v%d mb%d z%d %s", p.tp, p.pp, p.dp, p.cp, p.ep, p.vpp, p.micro_batch,
                         p.zero_stage, core::RecomputeName(p.recompute));
}

class PublishedRunsTest : public testing::ShippedCatalogTest {
 protected:
  // The estimate for one run: the best layout with the published parts pinned (or searched
  // entirely), and the fully searched layout for the same GPUs and batch.
  Outcome Estimate(const PublishedRun& r) {
    auto snap = store_->Snapshot();
    const core::GpuRow* gpu = snap->FindGpu(r.gpu);
    EXPECT_NE(gpu, nullptr) << r.gpu;
    Outcome out;
    out.run = &r;
    if (gpu == nullptr) return out;
    TrainingJob job;
    job.model = RunModel(r);
    job.sequence_length = r.sequence;
    job.global_batch_tokens =
        r.global_batch_sequences > 0 ? static_cast<double>(r.global_batch_sequences) * r.sequence : 0.0;  // searched
    job.precision = RunPrecision(r.precision);
    job.tokens = EndToEnd(r) ? r.tokens_trained : 1e12;
    const ClusterSpec cluster{gpu->spec, RunFabric(r, gpu->spec)};
    const core::Efficiency eff = core::TrainingEfficiency(job, cluster, snap->TrainingBenchmarks());
    SearchOptions searched;
    searched.max_gpus = searched.min_gpus = r.gpus;
    searched.top_k = 1;
    SearchOptions pinned = searched;
    out.pinned = r.tp > 0 && r.pp > 0 && r.dp > 0;
    if (out.pinned) {
      pinned.pinned = {r.tp,
                       r.pp,
                       r.dp,
                       0,
                       core::Recompute::kNone,
                       true,
                       r.micro_batch,
                       r.vpp,
                       std::max(r.cp, 1),
                       std::max(r.ep, 1)};
      const std::string rc = r.recompute;
      if (!rc.empty()) {
        pinned.pin_recompute = true;
        pinned.pinned.recompute = rc == "full"        ? core::Recompute::kFull
                                  : rc == "selective" ? core::Recompute::kSelective
                                                      : core::Recompute::kNone;
      }
    }
    absl::StatusOr<core::SearchResult> a = core::SearchParallelism(job, cluster, eff, pinned);
    absl::StatusOr<core::SearchResult> b = core::SearchParallelism(job, cluster, eff, searched);
    EXPECT_TRUE(a.ok() && b.ok()) << r.name;
    if (!a.ok() || !b.ok() || b->ranked.empty()) return out;
    if (a->ranked.empty()) {
      // The published layout does not fit capplan's memory model: say so, use the search.
      ADD_FAILURE() << r.name << ": published layout does not fit: "
                    << (a->rejected.empty() ? "" : core::DescribeRejection(a->rejected.front(), gpu->spec));
      a = b;
    }
    const TrainingEstimate& e = a->ranked.front();
    const double n = r.gpus;
    out.layout = Layout(e.parallel);
    out.searched_layout = Layout(b->ranked.front().parallel);
    out.pinned_seconds = e.steady_duration_seconds;
    out.searched_seconds = b->ranked.front().steady_duration_seconds;
    if (EndToEnd(r)) {
      out.published = r.gpu_hours;
      out.point = e.gpu_hours;
      out.low = e.duration_seconds_low * n / 3600;
      out.high = e.duration_seconds_high * n / 3600;
    } else {
      out.published = r.tokens_per_second_per_gpu;
      out.point = job.tokens / e.steady_duration_seconds / n;
      out.low = job.tokens / e.steady_duration_seconds_high / n;
      out.high = job.tokens / e.steady_duration_seconds_low / n;
    }
    return out;
  }
};

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// The 10th-90th percentile of v, linearly interpolated between ranks.
double Percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const size_t i = static_cast<size_t>(at);
  const double next = v[std::min(i + 1, v.size() - 1)];
  return v[i] + (next - v[i]) * (at - static_cast<double>(i));
}

// The ranges answers carry are the development set's residuals (core/assumptions.h,
// range.training_*): a model change that moves the residuals fails here until the bands are
// derived again and docs/validation/README.md says so.
void ExpectRegisteredBandsAreTheResiduals(const std::vector<Outcome>& all) {
  std::vector<double> dense, moe;  // published over estimated throughput
  for (const Outcome& o : all) {
    if (o.published <= 0) continue;
    const double ratio = EndToEnd(*o.run) ? o.point / o.published : o.published / o.point;
    (o.run->experts > 1 ? moe : dense).push_back(ratio);
  }
  ASSERT_GE(dense.size(), 20u);
  ASSERT_FALSE(moe.empty());
  const core::Range d = core::assumptions::kRangeTrainingDense.value;
  EXPECT_NEAR(Percentile(dense, 0.1), d.low, 0.001);
  EXPECT_NEAR(Percentile(dense, 0.9), d.high, 0.001);
  // With the MoE runs of tests/core/published_moe_runs.h the MoE regime has enough rows for
  // the same percentiles.
  ASSERT_GE(moe.size(), 8u);
  const core::Range m = core::assumptions::kRangeTrainingMoe.value;
  EXPECT_NEAR(Percentile(moe, 0.1), m.low, 0.001);
  EXPECT_NEAR(Percentile(moe, 0.9), m.high, 0.001);
}

TEST_F(PublishedRunsTest, EstimatesMatchPublishedRuns) {
  std::vector<Outcome> all;
  for (const PublishedRun& r : testdata::kPublishedRuns) all.push_back(Estimate(r));
  for (const PublishedRun& r : testdata::kPublishedMoeRuns) all.push_back(Estimate(r));
  std::vector<double> steady, e2e;
  int in_range = 0, at_8k = 0;
  std::printf(
      "| run | GPUs | figure | published | capplan | low-high | error | layout |\n|---|---|---|---|---|---|---|---|\n");
  for (const Outcome& o : all) {
    if (o.published <= 0) continue;
    const bool end = EndToEnd(*o.run);
    (end ? e2e : steady).push_back(std::fabs(o.Error()));
    in_range += o.InRange() ? 1 : 0;
    at_8k += o.run->gpus >= 8000 ? 1 : 0;
    std::printf("| %s | %d | %s | %.4g | %.4g | %.4g-%.4g | %+.1f%% | %s |\n", o.run->name, o.run->gpus,
                end ? "GPU-hours" : "tokens/s/GPU", o.published, o.point, o.low, o.high, 100 * o.Error(),
                o.layout.c_str());
    // The search finds what experts found: at least as fast as the published layout.
    if (o.pinned) {
      EXPECT_LE(o.searched_seconds, o.pinned_seconds * (1 + 1e-9))
          << o.run->name << ": searched " << o.searched_layout << " vs published " << o.layout;
    }
  }
  // The development set's aggregate per regime, in the form docs/validation/README.md reports
  // for the frozen test set.
  std::map<std::string, testdata::RegimeScore> regimes;
  for (const Outcome& o : all) {
    testdata::RegimeScore& score = regimes[o.run->experts > 1 ? "moe-training" : "dense-training"];
    if (o.published > 0)
      score.Answer(o.published, o.point, o.low, o.high, true);
    else
      score.Refuse("published layout not estimated");
  }
  testdata::PrintRegimeScores("Development set, training (tests/core/published_training_runs.h)", regimes);
  ExpectRegisteredBandsAreTheResiduals(all);
  // MoE regime (docs/validation/README.md, "MoE training as Megatron-Core runs it"): before
  // the routed-copy, all-to-all and permutation terms the fine-grained rows (64 experts, top-8:
  // Qwen2-57B-A14B and Mixtral-8x22B-G8T8, arXiv:2504.14960 Table 3) came out 24% and 148% too
  // fast; every MoE row now within 45% and the regime's median within 10%.
  EXPECT_LE(regimes["moe-training"].MedianAbsError(), 0.10);
  for (const Outcome& o : all) {
    if (o.run->experts > 1 && o.published > 0) {
      EXPECT_LE(std::fabs(o.Error()), 0.45) << o.run->name;
    }
  }
  const size_t rows = steady.size() + e2e.size();
  const double coverage = static_cast<double>(in_range) / static_cast<double>(rows);
  std::printf(
      "steady-state rows %zu, median |error| %.1f%%; end-to-end rows %zu, median |error| %.1f%%; "
      "%d of %zu published values inside low-high (%.0f%%)\n",
      steady.size(), 100 * Median(steady), e2e.size(), 100 * Median(e2e), in_range, rows, 100 * coverage);
  EXPECT_GE(rows, 12u);
  EXPECT_GE(at_8k, 2);
  // The issue's goals are 10% (steady), 15% (end to end) and 80% coverage. Measured at the
  // commit that added this test: 10.4%, 12.5% and 76% (docs/validation/). The bounds hold
  // that line: a change that makes the estimator worse on published runs fails here.
  // The ring-latency and collective terms of the sharded-training change moved the A100
  // calibration and with it the steady-state median from 10.4% to 11.4%.
  EXPECT_LE(Median(steady), 0.12);
  EXPECT_LE(Median(e2e), 0.15);
  EXPECT_GE(coverage, 0.75);
}

// Calibration reproduces its benchmarks: for every training benchmark the shipped catalog
// calibrates on, estimating that benchmark's own setup (GPUs, layout, batch, sequence,
// fabric) returns its figure within 1%, steady state or end to end as recorded. A benchmark
// that cannot be used is set aside, and the efficiency's source says why.
TEST_F(PublishedRunsTest, EveryShippedTrainingBenchmarkIsReproducedWithinOnePercent) {
  auto snap = store_->Snapshot();
  int reproduced = 0;
  for (const core::TrainingBenchmark& b : snap->TrainingBenchmarks()) {
    const core::GpuRow* gpu = snap->FindGpu(b.gpu_name);
    ASSERT_NE(gpu, nullptr);
    TrainingJob job;
    job.model = b.model;
    job.precision = b.precision;
    job.method = b.method;
    if (b.sequence_length > 0) job.sequence_length = b.sequence_length;
    job.global_batch_tokens = static_cast<double>(b.batch_sequences) * static_cast<double>(job.sequence_length);
    job.tokens = 1e12;
    const ClusterSpec cluster{gpu->spec, b.fabric};
    const core::Efficiency eff = core::TrainingEfficiency(job, cluster, snap->TrainingBenchmarks());
    if (eff.benchmark_id != b.id) {
      EXPECT_NE(eff.source.find(absl::StrFormat("benchmark #%d", b.id)), std::string::npos)
          << "benchmark #" << b.id << " neither used nor said to be set aside: " << eff.source;
      continue;
    }
    SearchOptions o;
    o.max_gpus = o.min_gpus = b.gpu_count;
    o.top_k = 1;
    o.pinned = b.layout;
    absl::StatusOr<core::SearchResult> r = core::SearchParallelism(job, cluster, eff, o);
    ASSERT_TRUE(r.ok() && !r->ranked.empty()) << b.citation;
    const TrainingEstimate& e = r->ranked.front();
    const bool end_to_end = b.figure == core::BenchmarkFigure::kEndToEnd;
    const double seconds = end_to_end ? e.duration_seconds : e.steady_duration_seconds;
    const double tokens_per_second = job.tokens / seconds;
    const double steps_per_second = e.steps / seconds;
    const double estimated = b.unit == core::MeasuredUnit::kSecondsPerStep ? 1.0 / steps_per_second : tokens_per_second;
    EXPECT_NEAR(estimated / b.value, 1.0, 0.01) << "benchmark #" << b.id << " (" << b.citation << ")";
    ++reproduced;
  }
  EXPECT_GE(reproduced, 3);  // the three Llama 2 runs (Touvron et al. 2023, Table 2)
}

}  // namespace
}  // namespace capplan::server
