// The training terms of sharded data parallelism (ring collectives across nodes, ZeRO-3
// per-layer prefetch, HSDP shard groups, CPU offload) and of mixture-of-experts training as it
// runs (grouped expert GEMMs at their tokens per expert, the all-to-all on the link it
// crosses, routing imbalance). Each figure names its source.
#include <gtest/gtest.h>

#include "core/assumptions.h"
#include "core/training/training.h"
#include "core/units.h"
#include "fixtures.h"

namespace capplan::core {
namespace {

using testing::A100_80GB;
using testing::H100_SXM;
using testing::Llama2_13B;

// NVIDIA DGX H100 datasheet: 8 x H100 on NVLink (900 GB/s bidirectional per GPU) and 8
// ConnectX-7 400 Gb/s ports, one per GPU: 50 GB/s per GPU each way.
Fabric DgxH100() { return {8, Interconnect::kNvlink, 450e9, NetworkKind::kInfiniband, 50e9, 5e-6}; }

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

// allenai/OLMoE-1B-7B-0924 config.json: 16 layers, hidden 2048, 16 heads, 64 experts of FFN
// 1024, 8 per token, vocab 50304 (Muennighoff et al. 2024, arXiv 2409.02060, Table 1).
ModelArchitecture Olmoe() {
  ModelArchitecture m = testing::Dense("OLMoE-1B-7B", 16, 2048, 16, 16, 1024, 50304);
  m.num_experts = 64;
  m.experts_per_token = 8;
  return m;
}

TEST(ShardedDataParallelTest, ANodesRanksCrossTheNetworkOnTheirOwnNics) {
  // Llama-2-13B, FSDP (ZeRO-3) over 8 DGX H100 nodes, tp = 1: all 8 GPUs of a node are in the
  // data-parallel group, and NCCL's rings cross the network on all 8 NICs at once (one ring per
  // NIC; nccl-tests doc/PERFORMANCE.md), so the group moves 8 x 50 GB/s per node. A micro-batch
  // gathers 13B x 2 bytes twice and reduce-scatters 13B x 4 bytes: ~0.26 s at 400 GB/s, hidden
  // behind ~0.9 s of compute (6 x 13B x 4,096 tokens at 50% of 989.4 TFLOP/s) but for the
  // first gather and last reduce-scatter. Charged at one NIC's 50 GB/s it would be ~2 s, more
  // than the compute.
  const ClusterSpec c{H100_SXM(), DgxH100()};
  const TrainingJob job = Job(Llama2_13B(), 4096, 64.0 * 4096);
  const ParallelConfig fsdp{1, 1, 64, 3, Recompute::kNone, false, 1, 1, 1, 1};
  const TrainingEstimate a = Estimate(job, c, fsdp);
  ASSERT_TRUE(a.fits);
  EXPECT_LT(a.dp_comm_exposed_seconds_per_step, 0.05 * a.compute_seconds_per_step);
  EXPECT_GT(a.mfu, 0.45);
}

TEST(ShardedDataParallelTest, HsdpShardsInsideANodeAndAllReducesAcross) {
  // PyTorch FSDP HYBRID_SHARD / MiCS (Zhang et al. 2022, Sec. 3): shard inside a group of 8,
  // replicate across the 8 groups. Weights, gradients and optimizer state are 1/8 per GPU, not
  // 1/64: 8x the model states of full sharding (less the prefetched layers both hold).
  const ClusterSpec c{H100_SXM(), DgxH100()};
  const TrainingJob job = Job(Llama2_13B(), 4096, 64.0 * 4096);
  ParallelConfig full{1, 1, 64, 3, Recompute::kFull, false, 1, 1, 1, 1};
  ParallelConfig hsdp = full;
  hsdp.shard_group = 8;
  const TrainingEstimate f = Estimate(job, c, full), h = Estimate(job, c, hsdp);
  EXPECT_NEAR(h.memory_per_gpu.optimizer_bytes / f.memory_per_gpu.optimizer_bytes, 8.0, 0.01);
  // 13.0B parameters x 12 bytes of AdamW state and master weights / 8 GPUs = 19.5 GB.
  EXPECT_NEAR(h.memory_per_gpu.optimizer_bytes / 1e9, 13.016e9 * 12 / 8 / 1e9, 0.5);
  EXPECT_EQ(h.range_band, &assumptions::kRangeTrainingSharded);
  // A shard group must divide the data-parallel ranks.
  hsdp.shard_group = 7;
  EXPECT_FALSE(EstimateTraining(job, c, hsdp, kEff).ok());
}

TEST(ShardedDataParallelTest, OptimizerOffloadFitsTenBillionParametersOnOneGpu) {
  // ZeRO-Offload (Ren et al. 2021, abstract): a 10B-parameter model trains on a single 32 GB
  // V100 once the optimizer state and gradients live in host memory. 10B at 18 bytes per
  // parameter is 180 GB without it.
  ModelArchitecture m = testing::Dense("GPT-10B", 50, 4096, 32, 32, 16384, 50304);
  m.gated_mlp = false;
  TrainingJob job = Job(m, 1024, 8.0 * 1024);
  job.precision = Precision::kFp16;  // V100 has no BF16; ZeRO-Offload trained in FP16
  const ClusterSpec c{testing::V100(), {}};
  ParallelConfig p{1, 1, 1, 0, Recompute::kFull, false, 1, 1, 1, 1};
  absl::StatusOr<TrainingEstimate> plain = EstimateTraining(job, c, p, kEff);
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->fits);
  p.offload = Offload::kOptimizer;
  const TrainingEstimate off = Estimate(job, c, p);
  EXPECT_TRUE(off.fits) << off.memory_per_gpu.TotalBytes() / units::kGiB << " GiB";
  EXPECT_EQ(off.memory_per_gpu.optimizer_bytes, 0.0);
  // The updated 16-bit weights come back over PCIe Gen3 x16 (V100: 16 GB/s nominal, counted
  // here as Gen4's 32 GB/s at 80%) and the CPU steps 10B parameters at ~1e9 a second: ~10 s.
  EXPECT_GT(off.offload_seconds_per_step, 10.0);
  EXPECT_EQ(off.range_band, &assumptions::kRangeTrainingSharded);
  // Parameter offload needs ZeRO-3, whose gathers it feeds.
  p.offload = Offload::kOptimizerAndParameters;
  EXPECT_FALSE(EstimateTraining(job, c, p, kEff).ok());
}

TEST(ShardedDataParallelTest, TheSearchOffloadsOnlyWhenNothingElseFits) {
  // Llama-2-13B full fine-tune on one 80 GB A100: 234 GB of model states without offload.
  const TrainingJob job = Job(Llama2_13B(), 2048, 16.0 * 2048);
  SearchOptions o;
  o.max_gpus = o.min_gpus = 1;
  absl::StatusOr<SearchResult> r = SearchParallelism(job, ClusterSpec{A100_80GB(), {}}, kEff, o);
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->ranked.empty());
  EXPECT_NE(r->ranked.front().parallel.offload, Offload::kNone);
  // On 8 GPUs ZeRO-3 fits without the host link, and is faster.
  o.max_gpus = o.min_gpus = 8;
  r = SearchParallelism(job, ClusterSpec{A100_80GB(), {}}, kEff, o);
  ASSERT_TRUE(r.ok() && !r->ranked.empty());
  EXPECT_EQ(r->ranked.front().parallel.offload, Offload::kNone);
}

TEST(MoeTrainingTest, SmallExpertsSeeingFewTokensAreMemoryBound) {
  // OLMoE-1B-7B at 2,048-token micro-batches, no expert parallelism: each of 64 experts gets
  // 2048 x 8 / 64 = 256 tokens, a 256 x 2048 x 1024 GEMM of arithmetic intensity ~186 FLOP/byte,
  // under the H100's 989.4 TFLOP/s / 3.35 TB/s = 295 (datasheet): ~63% of a large GEMM's rate,
  // and the busiest expert carries the routing imbalance on top.
  const ClusterSpec c{H100_SXM(), DgxH100()};
  const TrainingJob job = Job(Olmoe(), 2048, 64.0 * 2048);
  const ParallelConfig p{1, 1, 8, 2, Recompute::kNone, false, 1, 1, 1, 1};
  const TrainingEstimate e = Estimate(job, c, p);
  const double imbalance = assumptions::kMoeRoutingImbalance.value.point;
  EXPECT_NEAR(e.expert_gemm_efficiency * imbalance, 0.63, 0.03);
  // Expert parallelism over the node gathers 8 ranks' tokens per expert: 2,048 tokens, a
  // compute-bound GEMM again.
  ParallelConfig ep8 = p;
  ep8.ep = 8;
  EXPECT_NEAR(Estimate(job, c, ep8).expert_gemm_efficiency * imbalance, 1.0, 1e-9);
  EXPECT_EQ(e.range_band, &assumptions::kRangeTrainingMoe);
}

TEST(MoeTrainingTest, TheAllToAllIsPricedOnTheLinkItCrosses) {
  // OLMoE with expert parallelism 8 inside a DGX H100 node (NVLink, 450 GB/s a direction) and
  // 16 over two nodes: 8/16 of the tokens then leave the node over 50 GB/s NICs (datasheet),
  // so the dispatch and combine cost several times more.
  const ClusterSpec c{H100_SXM(), DgxH100()};
  const TrainingJob job = Job(Olmoe(), 2048, 64.0 * 2048);
  const ParallelConfig in_node{1, 1, 16, 2, Recompute::kNone, false, 1, 1, 1, 8};
  ParallelConfig across = in_node;
  across.ep = 16;
  const TrainingEstimate a = Estimate(job, c, in_node), b = Estimate(job, c, across);
  EXPECT_GT(b.tp_comm_seconds_per_step, 4.0 * a.tp_comm_seconds_per_step);
}

// Mixtral-8x22B-v0.1 config.json (56 layers, hidden 6144, 48 heads, 8 KV heads, 8 experts of
// 16384, top-2, vocab 32768) and its fine-grained re-parameterisation "G8T8" in MoE Parallel
// Folding (Liu et al. 2025, arXiv 2504.14960, Sec. 4.1): 64 experts of one-eighth the width,
// 8 per token, the same total expert parameters.
ModelArchitecture Mixtral8x22B(bool fine_grained) {
  ModelArchitecture m = testing::Dense("Mixtral-8x22B", 56, 6144, 48, 8, fine_grained ? 2048 : 16384, 32768);
  m.num_experts = fine_grained ? 64 : 8;
  m.experts_per_token = fine_grained ? 8 : 2;
  return m;
}

TEST(MoeTrainingTest, ExpertTensorParallelismMovesEveryRoutedCopy) {
  // With the experts split by tp (Megatron-Core's ETP = TP), the MoE layer's all-gather and
  // reduce-scatter carry each token's k routed copies (MoE Parallel Folding, Sec. 3.2 and 4.4:
  // ETP's AllGather-V / ReduceScatter-V cost far more than EP's all-to-all). Attention's two
  // collectives stay: per layer 1 + k against 1 + 1 for a dense MLP, so top-8 moves
  // (1 + 8) / (1 + 2) = 3x top-2's traffic at the same shape and layout (no ep: no all-to-all).
  const ClusterSpec c{H100_SXM(), DgxH100()};
  const ParallelConfig p{2, 8, 8, 1, Recompute::kNone, true, 1, 1, 1, 1};
  const TrainingEstimate coarse = Estimate(Job(Mixtral8x22B(false), 4096, 256.0 * 4096), c, p);
  const TrainingEstimate fine = Estimate(Job(Mixtral8x22B(true), 4096, 256.0 * 4096), c, p);
  EXPECT_NEAR(fine.tp_comm_seconds_per_step / coarse.tp_comm_seconds_per_step, 3.0, 0.01);
}

TEST(MoeTrainingTest, TheInterleavedScheduleDoesNotHideTheAllToAllByDefault) {
  // Megatron-Core overlaps the expert-parallel all-to-all only with the opt-in
  // --overlap-moe-expert-parallel-comm (MCore v0.14, Megatron-Core MoE README); by default the
  // dispatch and combine sit on the critical path, interleaved or not
  // (assumptions::kMoeAllToAllHidden).
  ASSERT_EQ(assumptions::kMoeAllToAllHidden.value.point, 0.0);
  const ClusterSpec c{H100_SXM(), DgxH100()};
  const TrainingJob job = Job(Olmoe(), 2048, 256.0 * 2048);
  const ParallelConfig plain{1, 2, 16, 1, Recompute::kNone, false, 1, 1, 1, 16};
  ParallelConfig interleaved = plain;
  interleaved.vpp = 2;
  const TrainingEstimate a = Estimate(job, c, plain), b = Estimate(job, c, interleaved);
  ASSERT_GT(a.tp_comm_seconds_per_step, 0.0);
  EXPECT_NEAR(b.tp_comm_seconds_per_step / a.tp_comm_seconds_per_step, 1.0, 0.01);
}

TEST(MoeTrainingTest, FineGrainedExpertsTrainWellBelowCoarseOnes) {
  // MoE Parallel Folding, Table 1 and App. Table 3 ("MCore" rows, 128 H100, global batch 256,
  // sequence 4,096): Mixtral-8x22B at TP 2, EP 4, PP 8 reaches 46.3% MFU, its G8T8 variant at
  // TP 2, EP 8, PP 8 17.1%, 0.37x. Dispatching 8 copies of every token over two nodes and
  // through the tensor-parallel collectives must cost capplan at least 40% of the MFU.
  const ClusterSpec c{H100_SXM(), DgxH100()};
  const ParallelConfig coarse_layout{2, 8, 8, 1, Recompute::kNone, true, 1, 4, 1, 4};
  ParallelConfig fine_layout = coarse_layout;
  fine_layout.ep = 8;
  const TrainingEstimate coarse = Estimate(Job(Mixtral8x22B(false), 4096, 256.0 * 4096), c, coarse_layout);
  const TrainingEstimate fine = Estimate(Job(Mixtral8x22B(true), 4096, 256.0 * 4096), c, fine_layout);
  EXPECT_LT(fine.mfu, 0.6 * coarse.mfu) << fine.mfu << " vs " << coarse.mfu;
}

}  // namespace
}  // namespace capplan::core
