// Serving a replica across nodes: tensor parallel inside a node, pipeline parallel across
// nodes over the offer's network, in the estimator, Plan and Compare. Prices are invented for
// the test (they only need to differ); GPU figures come from the datasheets in fixtures.h.
#include "core/serving/serving_multinode.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/planner/compare.h"
#include "core/planner/serving_plan.h"
#include "fake_catalog.h"
#include "fixtures.h"

namespace capplan::core::planner {
namespace {

using namespace capplan::core::testing;  // NOLINT(build/namespaces): datasheet fixtures

constexpr int64_t kNow = 1764547200;  // 2025-12-01

// meta-llama/Llama-3.1-405B config.json: 126 layers, hidden 16384, 128 heads, 8 KV heads,
// intermediate 53248, vocabulary 128256.
ModelArchitecture Llama31_405B() { return Dense("Llama-3.1-405B", 126, 16384, 128, 8, 53248, 128256); }

// Azure ND H100 v5: 8 x H100 SXM on NVSwitch (450 GB/s per GPU per direction, H100
// datasheet) and one 400 Gbit/s Quantum-2 InfiniBand port per GPU (50 GB/s;
// learn.microsoft.com/azure/virtual-machines/nd-h100-v5-series). The 5 us latency is the
// test's own figure for one small InfiniBand message.
FabricRow InfinibandNode() {
  return {"nd-h100-v5-ib", {8, Interconnect::kNvlink, 450e9, NetworkKind::kInfiniband, 50e9, 5e-6}, {}};
}

FakeCatalog H100Cluster() {
  FakeCatalog c;
  c.AddOffer("azure", "Standard_ND96isr_H100_v5", "eastus", "H100-SXM5-80GB", 8, 98.0);
  c.SetFabric("Standard_ND96isr_H100_v5", InfinibandNode());
  return c;
}

PlanQuery Query() {
  PlanQuery q;
  q.prices_as_of_unix_seconds = kNow;
  q.top_k = 10;
  return q;
}

ServingWorkload Chat(const ModelArchitecture& m, double rps) {
  ServingWorkload w;
  w.model = m;
  w.weight_precision = Precision::kBf16;
  w.kv_precision = Precision::kBf16;
  w.prompt_tokens = 512;
  w.output_tokens = 128;
  w.requests_per_second = rps;
  return w;
}

const ServingChoice* FirstMultiNode(const ServingPlan& p) {
  for (const ServingChoice& o : p.options) {
    if (o.multinode) return &o;
  }
  return nullptr;
}

TEST(MultiNodeServingTest, Llama405BInBf16SpansTwoH100NodesAsMetaServedIt) {
  // Llama 3 paper (arXiv 2407.21783) Sec. 6.1: 405B in BF16 does not fit one machine of
  // 8 x H100, so Meta served it on 16 GPUs of two machines, tensor parallel inside each and
  // pipeline parallel across them.
  FakeCatalog c = H100Cluster();
  absl::StatusOr<ServingPlan> p = PlanServing(c, Chat(Llama31_405B(), 1), Query());
  ASSERT_TRUE(p.ok()) << p.status();
  const ServingChoice& best = p->options.front();
  ASSERT_TRUE(best.multinode.has_value());
  EXPECT_EQ(best.multinode->tp, 8);
  EXPECT_EQ(best.multinode->pp, 2);
  EXPECT_EQ(best.multinode->network, NetworkKind::kInfiniband);
  // Every node is billed: two instances per replica.
  EXPECT_EQ(best.units, best.estimate.replicas * 2);
  EXPECT_DOUBLE_EQ(best.usd_per_hour, best.units * 98.0);
  // Half the layers' weights per GPU: ~405e9 x 2 bytes over 16 GPUs, one vocabulary matrix
  // on the heaviest stage; and weights, KV cache at the batch and activations fit.
  const ServingMemory& m = best.estimate.memory;
  EXPECT_GT(m.weights_bytes, 405e9 * 2 / 16);
  EXPECT_LT(m.weights_bytes, 1.04 * 405e9 * 2 / 16);
  EXPECT_LE(m.weights_bytes + m.activation_bytes + m.kv_bytes_per_sequence * static_cast<double>(best.estimate.batch),
            m.capacity_bytes);
  EXPECT_GE(best.estimate.batch, 2);  // one micro-batch per stage in flight
  // The inter-node boundary is in the latency: a token crosses it and comes back.
  EXPECT_GT(best.multinode->decode_hop_seconds, 5e-6);
}

TEST(MultiNodeServingTest, OneNodeAloneCannotHold405BInBf16) {
  // The same offer without a network between nodes: planned one instance at a time, refused.
  FakeCatalog c;
  c.AddOffer("azure", "Standard_ND96isr_H100_v5", "eastus", "H100-SXM5-80GB", 8, 98.0);
  c.SetFabric("Standard_ND96isr_H100_v5",
              {"nvlink-only", {8, Interconnect::kNvlink, 450e9, NetworkKind::kNone, 0, 0}, {}});
  absl::StatusOr<ServingPlan> p = PlanServing(c, Chat(Llama31_405B(), 1), Query());
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("GiB"), std::string::npos) << p.status();
}

TEST(MultiNodeServingTest, DeepSeekV3IsServedOnH100Nodes) {
  // DeepSeek-V3 (arXiv 2412.19437) is published with FP8 weights (config.json
  // quantization_config fp8): 671B parameters, ~671 GB, more than 8 x 80 GB at vLLM's 90%.
  // Its own deployment spans nodes (Sec. 3.4: prefill on 4 nodes, decode on 40).
  FakeCatalog c = H100Cluster();
  ServingWorkload w = Chat(DeepSeekV3(), 1);
  w.weight_precision = Precision::kFp8;
  absl::StatusOr<ServingPlan> p = PlanServing(c, w, Query());
  ASSERT_TRUE(p.ok()) << p.status();
  const ServingChoice& best = p->options.front();
  ASSERT_TRUE(best.multinode.has_value());
  EXPECT_GE(best.multinode->pp, 2);
  EXPECT_LE(best.estimate.memory.weights_bytes, best.estimate.memory.capacity_bytes);
}

TEST(MultiNodeServingTest, EthernetOnlySingleGpuVmsAreNotClustered) {
  // Lambda gpu_1x_h100_sxm5: one GPU per VM (lambdalabs.com/service/gpu-cloud), no cluster
  // network in the catalog (the fallback Ethernet). Llama-2-70B in FP16 (~138 GB) needs two.
  FakeCatalog c;
  c.AddOffer("lambda", "gpu_1x_h100_sxm5", "us-east-1", "H100-SXM5-80GB", 1, 3.29);
  ServingWorkload w = Chat(Llama2_70B(), 1);
  w.weight_precision = Precision::kFp16;
  PlanQuery q = Query();
  absl::StatusOr<ServingPlan> alone = PlanServing(c, w, q);
  ASSERT_FALSE(alone.ok());
  // The caller opts in: then the VMs are pipeline stages, one GPU each.
  q.constraints.allow_ethernet_clusters = true;
  absl::StatusOr<ServingPlan> p = PlanServing(c, w, q);
  ASSERT_TRUE(p.ok()) << p.status();
  const ServingChoice& best = p->options.front();
  ASSERT_TRUE(best.multinode.has_value());
  EXPECT_EQ(best.multinode->tp, 1);
  EXPECT_GE(best.multinode->pp, 2);
  EXPECT_EQ(best.multinode->network, NetworkKind::kEthernet);
}

TEST(MultiNodeServingTest, AModelThatFitsOneNodeKeepsTheSingleNodeOption) {
  // Llama-2-7B fits one H100 many times over: spanning nodes only adds a network hop per
  // token, so the single-node option ranks first and stays offered.
  FakeCatalog c = H100Cluster();
  absl::StatusOr<ServingPlan> p = PlanServing(c, Chat(Llama2_7B(), 35), Query());
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FALSE(p->options.front().multinode.has_value());
  const ServingChoice* multi = FirstMultiNode(*p);
  if (multi != nullptr) {
    EXPECT_GE(multi->usd_per_hour, p->options.front().usd_per_hour);
  }
}

TEST(MultiNodeServingTest, NetworkLatencyIsPaidAtEveryStageBoundaryOfEveryToken) {
  // The same two nodes with a 1 ms slower network: each output token crosses the one
  // boundary and returns the sampled token to the first stage, so TPOT grows by 2 x 1 ms.
  const ServingWorkload w = Chat(Llama31_405B(), 1);
  Fabric fast = InfinibandNode().fabric;
  Fabric slow = fast;
  slow.network_latency_seconds += 1e-3;
  const ServingEfficiency eff = DefaultServingEfficiency(w, H100_SXM());
  absl::StatusOr<MultiNodeServing> a = EstimateMultiNodeServingAtBatch(w, H100_SXM(), fast, 8, 2, 16, eff);
  absl::StatusOr<MultiNodeServing> b = EstimateMultiNodeServingAtBatch(w, H100_SXM(), slow, 8, 2, 16, eff);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_NEAR(b->estimate.tpot_seconds - a->estimate.tpot_seconds, 2e-3, 1e-9);
  EXPECT_LT(b->estimate.requests_per_second_per_replica, a->estimate.requests_per_second_per_replica);
  // A fabric with no network cannot carry a stage boundary.
  Fabric none = fast;
  none.network = NetworkKind::kNone;
  none.network_bytes_per_second_per_gpu = 0;
  EXPECT_EQ(EstimateMultiNodeServingAtBatch(w, H100_SXM(), none, 8, 2, 16, eff).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(MultiNodeServingTest, CompareTwoNodesAgainstOne) {
  FakeCatalog c = H100Cluster();
  CompareTarget one, two;
  one.instance_type = two.instance_type = "Standard_ND96isr_H100_v5";
  one.count = 1;
  two.count = 2;
  absl::StatusOr<std::vector<CompareRow>> r = CompareServing(c, Chat(Llama31_405B(), 1), {one, two}, kNow);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE((*r)[0].serving.has_value());  // one node cannot hold it
  ASSERT_TRUE((*r)[1].serving.has_value()) << (*r)[1].infeasible_reason;
  const ServingChoice& s = *(*r)[1].serving;
  ASSERT_TRUE(s.multinode.has_value());
  EXPECT_EQ(s.multinode->tp, 8);
  EXPECT_EQ(s.multinode->pp, 2);
  EXPECT_DOUBLE_EQ(s.usd_per_hour, 2 * 98.0);
  // Pinned: pp=2 on one instance is refused with the reason.
  one.pin.pipeline_parallel = 2;
  r = CompareServing(c, Chat(Llama31_405B(), 1), {one}, kNow);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NE((*r)[0].infeasible_reason.find("needs 2 nodes"), std::string::npos) << (*r)[0].infeasible_reason;
}

}  // namespace
}  // namespace capplan::core::planner
