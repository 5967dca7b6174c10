// Disaggregated prefill/decode sizing: KV bytes from the model's config.json, transfer
// times from the fabric's link speeds, and the decode batch once prefills no longer stall it.
#include "core/serving/serving_disagg.h"

#include <gtest/gtest.h>

#include "fixtures.h"

namespace capplan::core {
namespace {

using namespace capplan::core::testing;  // NOLINT(build/namespaces): datasheet fixtures

// Llama-2-70B, 4000-token prompts, short answers.
ServingWorkload LongPrompt70B() {
  ServingWorkload w;
  w.model = Llama2_70B();
  w.prompt_tokens = 4000;
  w.output_tokens = 96;
  w.requests_per_second = 10;
  w.tpot_slo_seconds = 0.05;
  return w;
}

// An HGX H100 node: 8 GPUs on NVSwitch at 450 GB/s per GPU per direction (H100 datasheet,
// 900 GB/s bidirectional) and 400 Gbit/s InfiniBand per GPU (DGX H100 user guide: eight
// ConnectX-7 ports), ~10 us end to end.
Fabric HgxH100(int gpus_per_node = 8) {
  return {gpus_per_node, Interconnect::kNvlink, 450e9, NetworkKind::kInfiniband, 50e9, 10e-6};
}

const DisaggregatedStage& StageOf(const std::vector<DisaggregatedStage>& stages, int tp) {
  for (const DisaggregatedStage& s : stages) {
    if (s.tp == tp) return s;
  }
  ADD_FAILURE() << "no stage for tp=" << tp;
  return stages.front();
}

TEST(DisaggregatedTest, KvCacheCrossesNvlinkWhenThePairSharesANode) {
  const ServingWorkload w = LongPrompt70B();
  const GpuSpec gpu = H100_SXM();
  const std::vector<DisaggregatedStage> stages = DisaggregatedStages(w, gpu, DefaultServingEfficiency(w, gpu));
  absl::StatusOr<DisaggregatedServing> d = SizeDisaggregated(w, HgxH100(), StageOf(stages, 4), StageOf(stages, 4));
  ASSERT_TRUE(d.ok()) << d.status();
  // config.json: 80 layers x 8 KV heads x 128 head dim x K and V x 2 bytes = 327,680 bytes
  // per token; 4000 tokens = 1.31 GB, sent by 4 GPUs at 450 GB/s each.
  EXPECT_DOUBLE_EQ(d->kv_bytes_per_request, 327680.0 * 4000);
  EXPECT_FALSE(d->kv_over_network);
  EXPECT_NEAR(d->kv_transfer_seconds, 327680.0 * 4000 / (4 * 450e9), 1e-12);
  EXPECT_NEAR(d->ttft_seconds, d->prefill_seconds + d->kv_transfer_seconds, 1e-12);
  EXPECT_EQ(d->total_gpus, d->PrefillGpus() + d->DecodeGpus());
}

TEST(DisaggregatedTest, PcieStagesTakeCrossSocketAllReducesAtTheirHighEnd) {
  // As co-located estimates (core/serving.cc): on a PCIe part the pessimistic end runs each
  // all-reduce as an NCCL ring crossing CPU sockets, 2(tp-1) steps of 292/14 us (vLLM PR
  // #50941), against 30 us at the point. A tp=4 Llama-2-70B decode step (80 layers, two
  // all-reduces each) gains 160 x (6 x 292/14 - 30) us more at its high end than the same
  // stage over NVLink, whose point and high ends share the link figure.
  ServingWorkload w = LongPrompt70B();
  w.tpot_slo_seconds = 0;  // the decode batch is the memory's, the same on both parts
  GpuSpec pcie = A100_80GB();
  pcie.interconnect = Interconnect::kPcie;
  GpuSpec nvlink = pcie;
  nvlink.interconnect = Interconnect::kNvlink;
  const ServingEfficiency eff = DefaultServingEfficiency(w, pcie);
  const std::vector<DisaggregatedStage> on_pcie = DisaggregatedStages(w, pcie, eff);
  const std::vector<DisaggregatedStage> on_nvlink = DisaggregatedStages(w, nvlink, eff);
  const DisaggregatedStage& p = StageOf(on_pcie, 4);
  const DisaggregatedStage& n = StageOf(on_nvlink, 4);
  ASSERT_TRUE(p.decode_status.ok() && n.decode_status.ok());
  ASSERT_EQ(p.decode_batch, n.decode_batch);
  EXPECT_NEAR((p.step_seconds_high - p.step.seconds) - (n.step_seconds_high - n.step.seconds),
              160 * (6 * 292e-6 / 14 - 30e-6), 1e-6);
}

TEST(DisaggregatedTest, PoolsInSeparateNodesUseTheNetworkOrCannotPair) {
  const ServingWorkload w = LongPrompt70B();
  const GpuSpec gpu = H100_SXM();
  const std::vector<DisaggregatedStage> stages = DisaggregatedStages(w, gpu, DefaultServingEfficiency(w, gpu));
  // Nodes of 4: a tp=4 prefill and a tp=4 decode replica sit in different nodes.
  absl::StatusOr<DisaggregatedServing> d = SizeDisaggregated(w, HgxH100(4), StageOf(stages, 4), StageOf(stages, 4));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_TRUE(d->kv_over_network);
  EXPECT_NEAR(d->kv_transfer_seconds, 10e-6 + 327680.0 * 4000 / (4 * 50e9), 1e-12);
  Fabric isolated = HgxH100(4);
  isolated.network = NetworkKind::kNone;
  isolated.network_bytes_per_second_per_gpu = 0;
  d = SizeDisaggregated(w, isolated, StageOf(stages, 4), StageOf(stages, 4));
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(DisaggregatedTest, DecodeBatchGrowsOnceItStopsWaitingForPrefills) {
  // Co-located, every new prompt's prefill stalls the batch's decode steps (Orca-style
  // continuous batching); disaggregated, TPOT is the decode step alone (Zhong et al. 2024,
  // Sec. 2.2), so the same TPOT SLO admits a larger batch.
  const ServingWorkload w = LongPrompt70B();
  const GpuSpec gpu = H100_SXM();
  const ServingEfficiency eff = DefaultServingEfficiency(w, gpu);
  absl::StatusOr<ServingEstimate> co = EstimateServing(w, gpu, 8, eff);
  ASSERT_TRUE(co.ok()) << co.status();
  const std::vector<DisaggregatedStage> stages = DisaggregatedStages(w, gpu, eff);
  const DisaggregatedStage& s = StageOf(stages, 8);
  ASSERT_TRUE(s.decode_status.ok()) << s.decode_status;
  EXPECT_GT(s.decode_batch, co->batch);
  EXPECT_LE(s.step.seconds, 0.05);
}

TEST(DisaggregatedTest, PrefillPoolGrowsWithPromptWork) {
  const GpuSpec gpu = H100_SXM();
  ServingWorkload w = LongPrompt70B();
  const std::vector<DisaggregatedStage> st1 = DisaggregatedStages(w, gpu, DefaultServingEfficiency(w, gpu));
  absl::StatusOr<DisaggregatedServing> a = SizeDisaggregated(w, HgxH100(), StageOf(st1, 4), StageOf(st1, 4));
  w.requests_per_second *= 4;
  const std::vector<DisaggregatedStage> st4 = DisaggregatedStages(w, gpu, DefaultServingEfficiency(w, gpu));
  absl::StatusOr<DisaggregatedServing> b = SizeDisaggregated(w, HgxH100(), StageOf(st4, 4), StageOf(st4, 4));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_GE(b->prefill_replicas, 3 * a->prefill_replicas);
  // Each prefill replica stays within the utilisation the plan allows.
  EXPECT_LE(w.requests_per_second / static_cast<double>(b->prefill_replicas),
            b->prefill_capacity_per_second * w.target_utilization + 1e-9);
}

}  // namespace
}  // namespace capplan::core
