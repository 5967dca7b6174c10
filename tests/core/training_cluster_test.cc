// The training estimator at cluster scale: the fabric, pipeline schedules, context and expert
// parallelism, the searched batch, and calibration that reproduces its benchmark. Each
// figure names its source.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/training/training.h"
#include "core/training/training_internal.h"
#include "core/units.h"
#include "fixtures.h"

namespace capplan::core {
namespace {

using testing::A100_80GB;
using testing::H100_SXM;
using testing::Llama2_70B;
using testing::Llama2_7B;

// AWS p4d.24xlarge: 8 x A100 on NVSwitch (600 GB/s bidirectional), 400 Gbit/s EFA per node
// = 6.25 GB/s per GPU (aws.amazon.com/ec2/instance-types/p4). AWS p5.48xlarge: 8 x H100
// (900 GB/s bidirectional NVLink), 3,200 Gbit/s EFA per node = 50 GB/s per GPU
// (aws.amazon.com/ec2/instance-types/p5). Latencies are order-of-magnitude.
Fabric P4d() { return {8, Interconnect::kNvlink, 300e9, NetworkKind::kEfa, 6.25e9, 15e-6}; }
Fabric P5() { return {8, Interconnect::kNvlink, 450e9, NetworkKind::kEfa, 50e9, 15e-6}; }
// A single-GPU VM (e.g. Lambda gpu_1x_h100): no NVLink peer, 10 Gbit/s Ethernet.
Fabric OneGpuVm() { return {1, Interconnect::kPcie, 32e9, NetworkKind::kEthernet, 1.25e9, 30e-6}; }

// Llama 3.1 405B, meta-llama/Llama-3.1-405B config.json.
ModelArchitecture Llama405B() { return testing::Dense("Llama-3.1-405B", 126, 16384, 128, 8, 53248, 128256); }
// Mixtral 8x7B, mistralai/Mixtral-8x7B-v0.1 config.json.
ModelArchitecture Mixtral() {
  ModelArchitecture m = testing::Dense("Mixtral-8x7B", 32, 4096, 32, 8, 14336, 32000);
  m.num_experts = 8;
  m.experts_per_token = 2;
  return m;
}

TrainingJob Job(const ModelArchitecture& m, int64_t seq, double batch_tokens) {
  TrainingJob job;
  job.model = m;
  job.sequence_length = seq;
  job.global_batch_tokens = batch_tokens;
  job.tokens = 1e12;
  return job;
}

const Efficiency kEff{0.5, 0.4, 0.6, "test", 0};

TrainingEstimate Estimate(const TrainingJob& job, const ClusterSpec& c, const ParallelConfig& p) {
  absl::StatusOr<TrainingEstimate> e = EstimateTraining(job, c, p, kEff);
  EXPECT_TRUE(e.ok()) << e.status();
  return e.ok() ? *e : TrainingEstimate{};
}

TEST(FabricTest, TheNetworkDecidesDataParallelCost) {
  // Llama 2 7B over 64 GPUs, tensor parallel 8 and data parallel 8: each data-parallel group
  // has one rank per node, so its gradients cross the network on one NIC per GPU.
  const TrainingJob job = Job(Llama2_7B(), 4096, 4.0 * 1024 * 1024);
  ParallelConfig p;
  p.tp = 8;
  p.dp = 8;
  p.zero_stage = 2;
  const TrainingEstimate slow = Estimate(job, {A100_80GB(), P4d()}, p);
  const TrainingEstimate fast =
      Estimate(job, {A100_80GB(), {8, Interconnect::kNvlink, 300e9, NetworkKind::kInfiniband, 25e9, 5e-6}}, p);
  EXPECT_GT(slow.dp_comm_exposed_seconds_per_step, 3 * fast.dp_comm_exposed_seconds_per_step);
  EXPECT_GT(slow.steady_duration_seconds, fast.steady_duration_seconds);
  EXPECT_EQ(slow.fabric.network_bytes_per_second_per_gpu, 6.25e9);  // the answer says what it assumed
}

TEST(FabricTest, SingleGpuNodesHaveNoTensorParallel) {
  const TrainingJob job = Job(Llama2_7B(), 4096, 4.0 * 1024 * 1024);
  const ClusterSpec vm{H100_SXM(), OneGpuVm()};
  ParallelConfig p;
  p.tp = 2;
  p.dp = 4;
  absl::StatusOr<TrainingEstimate> e = EstimateTraining(job, vm, p, kEff);
  EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(e.status().message().find("more than a node of 1 GPUs"), std::string::npos) << e.status();
  SearchOptions o;
  o.max_gpus = o.min_gpus = 8;
  o.top_k = 10;
  absl::StatusOr<SearchResult> r = SearchParallelism(job, vm, kEff, o);
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->ranked.empty());
  for (const TrainingEstimate& x : r->ranked) EXPECT_EQ(x.parallel.tp, 1);
}

TEST(FabricTest, NoNetworkMeansOneNode) {
  const TrainingJob job = Job(Llama2_7B(), 4096, 4.0 * 1024 * 1024);
  Fabric f = P5();
  f.network = NetworkKind::kNone;
  f.network_bytes_per_second_per_gpu = 0;
  SearchOptions o;
  o.max_gpus = o.min_gpus = 16;
  absl::StatusOr<SearchResult> r = SearchParallelism(job, {H100_SXM(), f}, kEff, o);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->ranked.empty());
}

TEST(PipelineTest, InterleavingDividesTheBubbleByTheVirtualStages) {
  // Narayanan et al. 2021, Sec. 2.2.2: the interleaved schedule's bubble is (p-1)/(m·v), and
  // its first stage holds (1 + (p-1)/(p·v)) times the activations of plain 1F1B.
  const TrainingJob job = Job(Llama2_70B(), 4096, 64.0 * 4096);  // 64 sequences
  ParallelConfig p;
  p.tp = 8;
  p.pp = 8;
  p.dp = 1;
  const TrainingEstimate plain = Estimate(job, {H100_SXM(), P5()}, p);
  p.vpp = 5;  // 80 layers / (8 x 5) = 2 per chunk
  const TrainingEstimate inter = Estimate(job, {H100_SXM(), P5()}, p);
  EXPECT_NEAR(plain.bubble_seconds_per_step / plain.compute_seconds_per_step, 7.0 / 64.0, 1e-9);
  EXPECT_NEAR(inter.bubble_seconds_per_step / inter.compute_seconds_per_step, 7.0 / (64.0 * 5), 1e-9);
  EXPECT_NEAR(inter.memory_per_gpu.activations_bytes / plain.memory_per_gpu.activations_bytes, 1.0 + 7.0 / 40.0,
              0.02);  // the logits term makes it slightly less
}

TEST(PipelineTest, UnevenStagesPutTheHeadOnALighterLastStage) {
  // Llama 3 405B's 126 layers on 16 stages (Dubey et al. 2024, Sec. 3.3.2: one layer fewer on
  // the first and last stages): 8 layers on the busiest stage, 7 on the first and last.
  const training_internal::StageSplit s = training_internal::SplitStages(126, 16, 0.6);
  EXPECT_EQ(s.slowest_load, 8);
  EXPECT_EQ(s.first_layers, 7);
  EXPECT_EQ(s.last_layers, 7);
  // pp need not divide the layers: 126 layers on 16 stages is a layout the search considers.
  SearchOptions o;
  o.max_gpus = o.min_gpus = 8192;
  o.pinned.tp = 8;
  o.pinned.pp = 16;
  absl::StatusOr<SearchResult> r =
      SearchParallelism(Job(Llama405B(), 8192, 2048.0 * 8192), {H100_SXM(), P5()}, kEff, o);
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->ranked.empty());
  EXPECT_EQ(r->ranked.front().parallel.pp, 16);
}

TEST(ContextParallelTest, LongSequencesAreSplit) {
  // Llama 3's 128k-token stage ran tp8 cp16 pp16 (Dubey et al. 2024, Table 4): one sequence's
  // activations are spread over 16 GPUs.
  const TrainingJob job = Job(Llama405B(), 131072, 128.0 * 131072);
  ParallelConfig p;
  p.tp = 8;
  p.pp = 16;
  p.dp = 8;
  p.cp = 16;
  p.vpp = 2;
  p.zero_stage = 2;
  p.recompute = Recompute::kFull;
  const TrainingEstimate with = Estimate(job, {H100_SXM(), P5()}, p);
  p.cp = 1;  // the same micro-batches in flight on 16x fewer GPUs
  const TrainingEstimate without = Estimate(job, {H100_SXM(), P5()}, p);
  EXPECT_NEAR(with.memory_per_gpu.activations_bytes / without.memory_per_gpu.activations_bytes, 1.0 / 16, 0.01);
  EXPECT_TRUE(with.fits);
  EXPECT_FALSE(without.fits);
}

TEST(ExpertParallelTest, ExpertsAreShardedAndTokensMove) {
  // Mixtral 8x7B: 46.7B parameters of which 45B in experts (config.json; Jiang et al. 2024).
  const TrainingJob job = Job(Mixtral(), 4096, 4.0 * 1024 * 1024);
  ParallelConfig p;
  p.tp = 1;
  p.pp = 4;
  p.dp = 16;
  p.zero_stage = 2;
  p.recompute = Recompute::kFull;
  const TrainingEstimate ep1 = Estimate(job, {H100_SXM(), P5()}, p);
  p.ep = 8;
  const TrainingEstimate ep8 = Estimate(job, {H100_SXM(), P5()}, p);
  EXPECT_LT(ep8.memory_per_gpu.weights_bytes, ep1.memory_per_gpu.weights_bytes / 4);
  EXPECT_GT(ep8.tp_comm_seconds_per_step, ep1.tp_comm_seconds_per_step);  // all-to-all dispatch
  p.ep = 3;                                                               // does not divide 8 experts
  EXPECT_FALSE(EstimateTraining(job, {H100_SXM(), P5()}, p, kEff).ok());
}

TEST(BatchSearchTest, RangeFromPublishedBatchesAndAtLeastAThousandSteps) {
  // 0.5M (GPT-3 small, Brown et al. 2020 Table 2.1) to 16M tokens (Llama 3 405B, Dubey et al.
  // 2024 Sec. 3.4.1), powers of two in whole sequences.
  TrainingJob job = Job(Llama405B(), 8192, 0);
  job.tokens = 15.6e12;
  std::vector<double> b = BatchCandidates(job);
  ASSERT_EQ(b.size(), 6u);
  EXPECT_EQ(b.front(), 512.0 * 1024);
  EXPECT_EQ(b.back(), 16.0 * 1024 * 1024);
  job.tokens = 1e9;  // a small fine-tune: at most tokens / 1,000 per step
  b = BatchCandidates(job);
  EXPECT_LE(b.back(), 1e6);
  job.global_batch_tokens = 4.0 * 1024 * 1024;  // a caller's batch is honoured
  EXPECT_EQ(BatchCandidates(job), std::vector<double>{4.0 * 1024 * 1024});
}

TEST(BatchSearchTest, APreTrainingRunAtScaleIsPlannedAtASearchedBatch) {
  // The 405B on 16,384 H100 with the batch left to capplan: a plan, with its batch and the
  // steady-state and end-to-end durations apart by the goodput.
  TrainingJob job = Job(Llama405B(), 8192, 0);
  job.tokens = 15.6e12;
  SearchOptions o;
  o.max_gpus = o.min_gpus = 16384;
  absl::StatusOr<SearchResult> r = SearchParallelism(job, {H100_SXM(), P5()}, kEff, o);
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->ranked.empty());
  const TrainingEstimate& e = r->ranked.front();
  EXPECT_GE(e.global_batch_tokens, 4e6);
  EXPECT_LE(e.global_batch_tokens, 17e6);
  EXPECT_NEAR(e.duration_seconds, e.steady_duration_seconds / job.goodput, 1e-6 * e.duration_seconds);
  EXPECT_GT(e.parallel.pp * e.parallel.tp, 8);  // a 405B model does not fit in one node's state
}

TEST(CalibrationTest, EstimatingTheBenchmarkSetupReturnsItsFigure) {
  // A steady-state figure and an end-to-end one; both must come back within 1% when the
  // estimator is asked about the benchmark's own setup.
  for (BenchmarkFigure figure : {BenchmarkFigure::kSteadyState, BenchmarkFigure::kEndToEnd}) {
    TrainingBenchmark b;
    b.id = 3;
    b.gpu_name = "H100-SXM5-80GB";
    b.model = Llama2_70B();
    b.gpu_count = 512;
    b.batch_sequences = 1024;
    b.sequence_length = 4096;
    b.value = 512 * 900.0;  // tokens/s for the cluster (a made-up measurement, 900 per GPU)
    b.layout.tp = 8;
    b.layout.pp = 4;
    b.figure = figure;
    b.fabric = P5();
    TrainingJob job = Job(Llama2_70B(), 4096, 1024.0 * 4096);
    const ClusterSpec cluster{H100_SXM(), P5()};
    const Efficiency eff = TrainingEfficiency(job, cluster, {b});
    ASSERT_EQ(eff.benchmark_id, 3) << eff.source;
    SearchOptions o;
    o.max_gpus = o.min_gpus = 512;
    o.pinned.tp = 8;
    o.pinned.pp = 4;
    absl::StatusOr<SearchResult> r = SearchParallelism(job, cluster, eff, o);
    ASSERT_TRUE(r.ok() && !r->ranked.empty());
    const TrainingEstimate& e = r->ranked.front();
    const double tokens_per_s =
        job.tokens / (figure == BenchmarkFigure::kEndToEnd ? e.duration_seconds : e.steady_duration_seconds);
    EXPECT_NEAR(tokens_per_s / b.value, 1.0, 0.01) << BenchmarkFigureName(figure);
  }
}

}  // namespace
}  // namespace capplan::core
