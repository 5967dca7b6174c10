// The planner over a small in-memory catalog: no proto, no SQLite. Prices are invented for
// the test (they only need to differ); GPU figures come from the datasheets in fixtures.h.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "core/planner/compare.h"
#include "core/planner/serving_plan.h"
#include "core/planner/training_plan.h"
#include "fake_catalog.h"
#include "fixtures.h"

namespace capplan::core::planner {
namespace {

using namespace capplan::core::testing;  // NOLINT(build/namespaces): datasheet fixtures

constexpr int64_t kNow = 1764547200;  // 2025-12-01

TrainingJob LoraJob() {
  TrainingJob j;
  j.model = Llama2_7B();
  j.tokens = 2e9;
  j.method = TrainingMethod::kLora;
  return j;
}

PlanQuery Query() {
  PlanQuery q;
  q.prices_as_of_unix_seconds = kNow;
  return q;
}

TEST(PlannerTest, SameOfferInTwoRegionsIsOneOptionNamingBoth) {
  FakeCatalog c;
  c.AddOffer("cloud", "a100x8", "east", "A100-SXM4-80GB", 8, 20.0);
  c.AddOffer("cloud", "a100x8", "west", "A100-SXM4-80GB", 8, 20.0);
  c.AddOffer("cloud", "a100x8", "south", "A100-SXM4-80GB", 8, 25.0);
  PlanQuery q = Query();
  q.constraints.max_gpus = 8;
  absl::StatusOr<TrainingPlan> p = PlanTraining(c, LoraJob(), q);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_GE(p->options.size(), 2u);
  EXPECT_EQ(p->supplies[p->options[0].supply].instance->region, "east");
  EXPECT_EQ(p->options[0].same_offer_regions, std::vector<std::string>{"west"});
  // The dearer region is its own option, with the same estimate (one estimate per shape).
  EXPECT_EQ(p->supplies[p->options[1].supply].instance->region, "south");
  EXPECT_DOUBLE_EQ(p->options[1].estimate.duration_seconds, p->options[0].estimate.duration_seconds);
  EXPECT_NEAR(p->options[1].cost_usd / p->options[0].cost_usd, 25.0 / 20.0, 1e-9);
}

TEST(PlannerTest, RejectionsAreTypedAndOrdered) {
  FakeCatalog c;
  c.AddOffer("cloud", "a100x8", "east", "A100-SXM4-80GB", 8, 20.0);
  c.AddOffer("cloud", "h100x8", "east", "H100-SXM5-80GB", 8, 40.0);
  c.AddOffer("cloud", "t4x4", "east", "T4", 4, 4.0);
  PlanQuery q = Query();
  q.top_k = 1;
  absl::StatusOr<TrainingPlan> p = PlanTraining(c, LoraJob(), q);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_FALSE(p->rejected.empty());
  // The T4 cannot run BF16 (datasheet: no BF16 math): a reason about the hardware, shown
  // before candidates that merely ranked lower.
  EXPECT_EQ(p->rejected.front().code, RejectionReason::kInvalid);
  EXPECT_NE(p->rejected.front().candidate.find("T4"), std::string::npos);
  for (size_t i = 1; i < p->rejected.size(); ++i) EXPECT_FALSE(CloserThan(p->rejected[i], p->rejected[i - 1]));
  EXPECT_EQ(p->rejected.back().code, RejectionReason::kRankedLower);
}

TEST(PlannerTest, BasicAsksForNoRejectionsAndTopKBoundsOptions) {
  FakeCatalog c;
  for (const char* region : {"r1", "r2", "r3", "r4"})
    c.AddOffer("cloud", "a100x8", region, "A100-SXM4-80GB", 8, 20.0 + region[1]);
  PlanQuery q = Query();
  q.max_rejected = 0;
  q.top_k = 2;
  absl::StatusOr<TrainingPlan> p = PlanTraining(c, LoraJob(), q);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->options.size(), 2u);
  EXPECT_TRUE(p->rejected.empty());
}

TEST(PlannerTest, DeadlineMissesCarryTheirRatio) {
  FakeCatalog c;
  c.AddOffer("cloud", "a100x1", "east", "A100-SXM4-80GB", 1, 3.0);
  PlanQuery q = Query();
  q.objective = Objective::kCheapestWithinDeadline;
  q.deadline_seconds = 60;  // no 7B fine-tune of 2B tokens finishes in a minute
  absl::StatusOr<TrainingPlan> p = PlanTraining(c, LoraJob(), q);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(p.status().message().find("deadline"), absl::string_view::npos) << p.status();
}

TEST(PlannerTest, FuturePricesAndBrokenRowsAreNotSupplies) {
  FakeCatalog c;
  c.AddOffer("cloud", "a100x8", "east", "A100-SXM4-80GB", 8, 20.0);
  c.AddOffer("cloud", "a100x8", "east", "A100-SXM4-80GB", 8, 0.01, /*from=*/4070908800);  // 2099
  c.AddOffer("cloud", "zero", "east", "A100-SXM4-80GB", 0, 1.0);
  c.AddOffer("cloud", "a100x8", "east", "A100-SXM4-80GB", 8, 5.0, 1704067200, PriceKind::kSpot);
  PlanQuery q = Query();
  std::vector<Supply> s = BuildSupplies(c, q, q.constraints.ServingMaxGpus());
  ASSERT_EQ(s.size(), 1u);  // on-demand only, today's price, no zero-GPU row
  EXPECT_DOUBLE_EQ(s[0].UsdPerUnitHour(), 20.0);
  q.constraints.spot_allowed = true;
  EXPECT_EQ(BuildSupplies(c, q, q.constraints.ServingMaxGpus()).size(), 2u);
  q.constraints.providers = {"elsewhere"};
  EXPECT_TRUE(BuildSupplies(c, q, q.constraints.ServingMaxGpus()).empty());
}

TEST(PlannerTest, ThePriceKindPicksWhichPriceEachOfferIsPlannedAt) {
  // Invented prices (they only need to differ): on-demand 20, reserved 1y 14, spot 5.
  FakeCatalog c;
  c.AddOffer("cloud", "a100x8", "east", "A100-SXM4-80GB", 8, 20.0);
  c.AddOffer("cloud", "a100x8", "east", "A100-SXM4-80GB", 8, 14.0, 1704067200, PriceKind::kReserved1y);
  c.AddOffer("cloud", "a100x8", "east", "A100-SXM4-80GB", 8, 5.0, 1704067200, PriceKind::kSpot);
  c.AddOffer("cloud", "a100x8", "west", "A100-SXM4-80GB", 8, 21.0);  // on-demand only
  PlanQuery q = Query();
  q.constraints.price_kind = PriceKind::kReserved1y;
  q.constraints.spot_allowed = true;  // adds spot beside on-demand only
  std::vector<Supply> s = BuildSupplies(c, q, q.constraints.ServingMaxGpus());
  ASSERT_EQ(s.size(), 1u);  // west has no reserved price: left out, not priced on-demand
  EXPECT_EQ(s[0].instance->region, "east");
  EXPECT_DOUBLE_EQ(s[0].UsdPerUnitHour(), 14.0);
  EXPECT_NE(s[0].Label(1).find("reserved_1y"), std::string::npos) << s[0].Label(1);
  q.constraints.price_kind = PriceKind::kSpot;
  s = BuildSupplies(c, q, q.constraints.ServingMaxGpus());
  ASSERT_EQ(s.size(), 1u);
  EXPECT_DOUBLE_EQ(s[0].UsdPerUnitHour(), 5.0);
  // What each kind implies travels with the option; on-demand needs no note.
  EXPECT_NE(std::string(PriceKindNote(PriceKind::kSpot)).find("Spot Instance Advisor"), std::string::npos);
  EXPECT_NE(std::string(PriceKindNote(PriceKind::kReserved3y)).find("3-year"), std::string::npos);
  EXPECT_STREQ(PriceKindNote(PriceKind::kOnDemand), "");
}

TEST(PlannerTest, ServingPacksReplicasIntoInstances) {
  FakeCatalog c;
  c.AddOffer("cloud", "h100x8", "east", "H100-SXM5-80GB", 8, 40.0);
  c.AddOffer("cloud", "h100x1", "east", "H100-SXM5-80GB", 1, 5.5);
  ServingWorkload w;
  w.model = Llama2_7B();
  w.prompt_tokens = 512;
  w.output_tokens = 128;
  w.requests_per_second = 35;  // the README's serving example
  absl::StatusOr<ServingPlan> p = PlanServing(c, w, Query());
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_FALSE(p->options.empty());
  const ServingChoice& best = p->options.front();
  const Supply& s = p->supplies[best.supply];
  // Every replica fits in the GPUs bought, and the price is per instance.
  EXPECT_LE(best.estimate.replicas * best.estimate.tp, int64_t{best.units} * s.GpusPerUnit());
  EXPECT_DOUBLE_EQ(best.usd_per_hour, best.units * s.UsdPerUnitHour());
  EXPECT_DOUBLE_EQ(best.offered_requests_per_second, 35);
}

TEST(PlannerTest, ComparePinnedLayoutMustMultiplyToTheGpus) {
  FakeCatalog c;
  CompareTarget t;
  t.gpu_name = "H100-SXM5-80GB";
  t.count = 8;
  t.pin.tensor_parallel = 65536;
  t.pin.pipeline_parallel = 65536;  // the overflow that once crashed the server
  absl::StatusOr<std::vector<CompareRow>> r = CompareTraining(c, LoraJob(), {t}, kNow);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  t.pin.tensor_parallel = 2;
  t.pin.pipeline_parallel = 0;
  r = CompareTraining(c, LoraJob(), {t}, kNow);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE((*r)[0].training.has_value());
  EXPECT_EQ((*r)[0].training->estimate.parallel.tp, 2);
  EXPECT_EQ((*r)[0].training->estimate.parallel.dp, 4);
}

}  // namespace
}  // namespace capplan::core::planner

namespace capplan::core::planner {
namespace {

TrainingJob FullFineTune7B() {
  TrainingJob j;
  j.model = Llama2_7B();
  j.tokens = 2e9;
  return j;
}

TEST(PlannerFabricTest, SingleGpuVmsAreNotPlannedAsNvlinkNodes) {
  // Lambda's gpu_1x_h100 is one GPU per VM (lambdalabs.com/service/gpu-cloud): clustering
  // them gives data parallel over the network, never tensor parallel over NVLink.
  FakeCatalog c;
  c.AddOffer("lambda", "gpu_1x_h100_sxm5", "us-east-1", "H100-SXM5-80GB", 1, 3.29);
  PlanQuery q = Query();
  q.constraints.max_gpus = 256;
  // Not sold as a cluster: one VM alone holds the job only with its optimizer state in host
  // memory (ZeRO-Offload, Ren et al. 2021: 18 bytes x 6.7B is 121 GB on the GPU otherwise).
  absl::StatusOr<TrainingPlan> alone = PlanTraining(c, FullFineTune7B(), q);
  ASSERT_TRUE(alone.ok()) << alone.status();
  for (const TrainingChoice& o : alone->options) {
    EXPECT_EQ(o.estimate.parallel.NumGpus(), 1);
    EXPECT_NE(o.estimate.parallel.offload, Offload::kNone);
  }
  q.constraints.allow_ethernet_clusters = true;  // the caller opts in
  absl::StatusOr<TrainingPlan> p = PlanTraining(c, FullFineTune7B(), q);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_FALSE(p->options.empty());
  for (const TrainingChoice& o : p->options) {
    EXPECT_EQ(o.estimate.parallel.tp, 1);
    EXPECT_EQ(o.estimate.fabric.gpus_per_node, 1);
  }
}

TEST(PlannerFabricTest, NoSilentCeilingAndABindingOneIsSaid) {
  // A 70B pre-training run on 8 x H100 offers, fastest first: without max_gpus the plan goes
  // past 64 GPUs; with max_gpus=64 the top option says the limit binds and what 128 gives.
  FakeCatalog c;
  c.AddOffer("cloud", "h100x8", "east", "H100-SXM5-80GB", 8, 98.32);
  TrainingJob job;
  job.model = Llama2_70B();
  job.tokens = 2e12;
  PlanQuery q = Query();
  q.objective = Objective::kFastest;
  q.constraints.allow_ethernet_clusters = true;  // no catalog fabric: the Ethernet fallback
  absl::StatusOr<TrainingPlan> open = PlanTraining(c, job, q);
  ASSERT_TRUE(open.ok()) << open.status();
  EXPECT_GT(open->options.front().estimate.parallel.NumGpus(), 64);
  q.constraints.max_gpus = 64;
  // 64 GPUs take about a year: past the default 90-day bound, so the caller says so.
  q.deadline_seconds = 400 * 86400.0;
  absl::StatusOr<TrainingPlan> capped = PlanTraining(c, job, q);
  ASSERT_TRUE(capped.ok()) << capped.status();
  EXPECT_EQ(capped->options.front().estimate.parallel.NumGpus(), 64);
  const std::string& note = capped->options.front().ceiling_note;
  EXPECT_NE(note.find("limited by max_gpus=64"), std::string::npos) << note;
  EXPECT_NE(note.find("128 GPUs would take"), std::string::npos) << note;
}

}  // namespace
}  // namespace capplan::core::planner

namespace capplan::core::planner {
namespace {

// Llama-2-70B with prompts near its 4096-token context and short answers under a tight TPOT
// SLO: co-located, every prompt's prefill shares the iterations that decode the batch, so
// the TPOT SLO keeps the batch small; the shape DistServe (Zhong et al. 2024, Sec. 2) and
// Splitwise disaggregate. The SLOs are the test's own targets.
ServingWorkload LongPrompts70B() {
  ServingWorkload w;
  w.model = Llama2_70B();
  w.prompt_tokens = 3584;
  w.output_tokens = 128;
  w.requests_per_second = 40;
  w.ttft_slo_seconds = 1.5;
  w.tpot_slo_seconds = 0.025;
  return w;
}

const ServingChoice* FirstOf(const ServingPlan& p, ServingDeployment d) {
  for (const ServingChoice& o : p.options) {
    if (o.deployment == d) return &o;
  }
  return nullptr;
}

TEST(PlannerServingTest, DisaggregationWinsForLongPromptsOnNvlinkNodes) {
  // AWS p5.48xlarge: 8 x H100 SXM on NVSwitch (450 GB/s per GPU per direction, H100
  // datasheet) and 3,200 Gbit/s of EFA per instance (50 GB/s per GPU; aws.amazon.com/ec2/
  // instance-types/p5), $98.32/h on demand (aws.amazon.com/ec2/pricing/on-demand, us-east-1,
  // 2024).
  FakeCatalog c;
  c.AddOffer("aws", "p5.48xlarge", "us-east-1", "H100-SXM5-80GB", 8, 98.32);
  c.SetFabric("p5.48xlarge", {"p5-efa", {8, Interconnect::kNvlink, 450e9, NetworkKind::kEfa, 50e9, 15e-6}, {}});
  PlanQuery q = Query();
  q.top_k = 10;
  q.constraints.max_gpus = 256;
  absl::StatusOr<ServingPlan> p = PlanServing(c, LongPrompts70B(), q);
  ASSERT_TRUE(p.ok()) << p.status();
  const ServingChoice& best = p->options.front();
  ASSERT_EQ(best.deployment, ServingDeployment::kDisaggregated);
  ASSERT_TRUE(best.disagg.has_value());
  const DisaggregatedServing& d = *best.disagg;
  // 3584 tokens x 327,680 bytes (config.json: 80 layers, 8 KV heads, head dim 128, FP16)
  // = 1.17 GB of KV cache cross NVLink or EFA in milliseconds.
  EXPECT_DOUBLE_EQ(d.kv_bytes_per_request, 3584.0 * 327680);
  EXPECT_LT(d.kv_transfer_seconds, 0.01);
  EXPECT_GT(d.PrefillGpus(), d.DecodeGpus());  // prompt work dominates
  EXPECT_LE(best.latency.ttft_p99_seconds, 1.5);
  // Both deployments are offered, ranked by the same cost rule.
  const ServingChoice* co = FirstOf(*p, ServingDeployment::kColocated);
  ASSERT_NE(co, nullptr);
  EXPECT_LT(best.usd_per_hour, co->usd_per_hour);
  EXPECT_GT(d.decode_batch, co->estimate.batch);  // decode no longer shares its iterations
}

TEST(PlannerServingTest, DisaggregationLosesOverASlowNetwork) {
  // The same GPUs owned in 4-GPU boxes, each on one 25 Gbit/s Ethernet port (0.78 GB/s per
  // GPU): a tp=4 prefill and a tp=4 decode replica sit in different boxes, and 1.17 GB of KV
  // cache per request takes ~0.4 s to cross.
  FakeCatalog c;
  PlanQuery q = Query();
  q.top_k = 10;
  q.constraints.max_gpus = 256;
  OwnedPool pool;
  pool.name = "boxes";
  pool.gpu_name = "H100-SXM5-80GB";
  pool.gpu_count = 256;
  pool.cost_usd_per_gpu_hour = 98.32 / 8;
  pool.fabric.gpus_per_node = 4;
  pool.fabric.network = NetworkKind::kEthernet;
  pool.fabric.network_bytes_per_second_per_gpu = 25e9 / 8 / 4;
  q.constraints.owned_pools.push_back(pool);
  absl::StatusOr<ServingPlan> p = PlanServing(c, LongPrompts70B(), q);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->options.front().deployment, ServingDeployment::kColocated);
  const ServingChoice* dis = FirstOf(*p, ServingDeployment::kDisaggregated);
  ASSERT_NE(dis, nullptr);
  EXPECT_GT(dis->usd_per_hour, p->options.front().usd_per_hour);
  if (dis->disagg->kv_over_network) {
    EXPECT_GT(dis->disagg->kv_transfer_seconds, 0.1);
  }
}

TEST(PlannerServingTest, SingleGpuVmsWithoutANodeLinkServeColocated) {
  // Lambda gpu_1x_h100_sxm5: one GPU per VM (lambdalabs.com/service/gpu-cloud, 2024),
  // $3.29/h; the catalog names no fabric, so VMs talk over the fallback Ethernet. Llama-3-8B
  // (config.json: 8 KV heads) with 7936-token prompts moves ~1 GB of KV cache per request.
  FakeCatalog c;
  c.AddOffer("lambda", "gpu_1x_h100_sxm5", "us-east-1", "H100-SXM5-80GB", 1, 3.29);
  ServingWorkload w;
  w.model = Llama3_8B();
  w.prompt_tokens = 7936;
  w.output_tokens = 128;
  w.requests_per_second = 10;
  w.ttft_slo_seconds = 1.5;
  PlanQuery q = Query();
  q.top_k = 10;
  absl::StatusOr<ServingPlan> p = PlanServing(c, w, q);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->options.front().deployment, ServingDeployment::kColocated);
  const ServingChoice* dis = FirstOf(*p, ServingDeployment::kDisaggregated);
  if (dis != nullptr) {
    EXPECT_TRUE(dis->disagg->kv_over_network);
    EXPECT_GT(dis->disagg->kv_transfer_seconds, 0.3);  // 1.04 GB over 1.56 GB/s
    EXPECT_GE(dis->usd_per_hour, p->options.front().usd_per_hour);
  }
}

// Llama-2-7B with 2048-token prompts on one-GPU VMs.
ServingWorkload SevenB() {
  ServingWorkload w;
  w.model = Llama2_7B();
  w.prompt_tokens = 2048;
  w.output_tokens = 128;
  w.requests_per_second = 35;  // the README's serving load
  return w;
}

TEST(PlannerServingTest, TightP99TtftSloAddsReplicasBeyondTheUtilisationRule) {
  FakeCatalog c;
  c.AddOffer("lambda", "gpu_1x_h100_sxm5", "us-east-1", "H100-SXM5-80GB", 1, 3.29);
  absl::StatusOr<ServingPlan> loose = PlanServing(c, SevenB(), Query());
  ASSERT_TRUE(loose.ok()) << loose.status();
  const ServingChoice* a = FirstOf(*loose, ServingDeployment::kColocated);
  ASSERT_NE(a, nullptr);
  // No SLO: the 70% rule alone, and the first token still waits at that load.
  const double capacity = a->estimate.requests_per_second_per_replica;
  EXPECT_EQ(a->estimate.replicas, static_cast<int64_t>(std::ceil(35 / (capacity * 0.7))));
  EXPECT_GT(a->latency.ttft_p99_seconds, a->estimate.ttft_seconds);
  EXPECT_GE(a->latency.ttft_p99_seconds, a->latency.ttft_p50_seconds);

  ServingWorkload tight = SevenB();
  tight.ttft_slo_seconds = 2 * a->estimate.ttft_seconds;
  absl::StatusOr<ServingPlan> p = PlanServing(c, tight, Query());
  ASSERT_TRUE(p.ok()) << p.status();
  const ServingChoice* b = FirstOf(*p, ServingDeployment::kColocated);
  ASSERT_NE(b, nullptr);
  EXPECT_GT(b->estimate.replicas, a->estimate.replicas);
  EXPECT_LE(b->latency.ttft_p99_seconds, tight.ttft_slo_seconds);
  // The option says where the SLO breaks: above the offered load, below raw capacity.
  EXPECT_GE(b->slo_break_requests_per_second, 35);
  EXPECT_LT(b->slo_break_requests_per_second, capacity * static_cast<double>(b->estimate.replicas));
}

TEST(PlannerServingTest, PessimisticTpotOverTheSloIsAWarningWithABatchThatMeetsIt) {
  FakeCatalog c;
  c.AddOffer("lambda", "gpu_1x_h100_sxm5", "us-east-1", "H100-SXM5-80GB", 1, 3.29);
  ServingWorkload w = SevenB();
  w.tpot_slo_seconds = 0.03;
  absl::StatusOr<ServingPlan> p = PlanServing(c, w, Query());
  ASSERT_TRUE(p.ok()) << p.status();
  const ServingChoice* o = FirstOf(*p, ServingDeployment::kColocated);
  ASSERT_NE(o, nullptr);
  ASSERT_LE(o->estimate.tpot_seconds, 0.03);       // the point estimate meets it...
  ASSERT_GT(o->estimate.tpot_seconds_high, 0.03);  // ...the pessimistic one does not
  const SloWarning* tpot = nullptr;
  for (const SloWarning& x : o->warnings) {
    if (x.metric == SloMetric::kTpot) tpot = &x;
  }
  ASSERT_NE(tpot, nullptr);
  EXPECT_DOUBLE_EQ(tpot->high_seconds, o->estimate.tpot_seconds_high);
  ASSERT_GT(tpot->meets_slo_at_batch_sequences, 0);
  ASSERT_LT(tpot->meets_slo_at_batch_sequences, o->estimate.batch);
  // The batch it names does meet the SLO at the pessimistic end (the estimate's high TPOT).
  const ServingEfficiency eff = DefaultServingEfficiency(w, H100_SXM());
  ServingWorkload free = w;
  free.tpot_slo_seconds = 0;
  absl::StatusOr<ServingEstimate> at =
      EstimateServingAtBatch(free, H100_SXM(), o->estimate.tp, tpot->meets_slo_at_batch_sequences, eff);
  ASSERT_TRUE(at.ok());
  EXPECT_LE(at->tpot_seconds_high, 0.03);
  // A loose SLO warns of nothing.
  w.tpot_slo_seconds = 1;
  p = PlanServing(c, w, Query());
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->options.front().warnings.empty());
}

// At 95% planned use the pessimistic capacity (the low efficiency) of the replicas sized at
// the point efficiency is below the offered load: the pessimistic queue grows without bound.
// The warning says so with a flag rather than an infinite latency (which no API answer may
// hold), and still names the load these replicas would meet the SLO at.
TEST(PlannerServingTest, PessimisticQueueThatGrowsWithoutBoundIsFlaggedNotInfinite) {
  FakeCatalog c;
  c.AddOffer("lambda", "gpu_1x_h100_sxm5", "us-east-1", "H100-SXM5-80GB", 1, 3.29);
  ServingWorkload w = SevenB();
  w.target_utilization = 0.95;
  w.ttft_slo_seconds = 1;
  absl::StatusOr<ServingPlan> p = PlanServing(c, w, Query());
  ASSERT_TRUE(p.ok()) << p.status();
  const ServingChoice* o = FirstOf(*p, ServingDeployment::kColocated);
  ASSERT_NE(o, nullptr);
  ASSERT_LT(o->estimate.requests_per_second_low * static_cast<double>(o->estimate.replicas), 35);
  EXPECT_LE(o->latency.ttft_p99_seconds, 1);  // the point estimate meets the SLO
  const SloWarning* ttft = nullptr;
  for (const SloWarning& x : o->warnings) {
    if (x.metric == SloMetric::kTtftP99) ttft = &x;
  }
  ASSERT_NE(ttft, nullptr);
  EXPECT_TRUE(ttft->unbounded);
  EXPECT_EQ(ttft->high_seconds, 0);
  EXPECT_GT(ttft->meets_slo_at_requests_per_second, 0);
  EXPECT_LT(ttft->meets_slo_at_requests_per_second, 35);
  EXPECT_NE(ttft->message.find("grows without bound"), std::string::npos) << ttft->message;
}

}  // namespace
}  // namespace capplan::core::planner
