// The planner's converters (server/request_proto, server/option_proto): API defaults become
// core values, and every core enum value has its own API value (the tables are explicit
// switches; these tests catch a value added on one side only). Fabric overrides, the model's
// context window and the training option fields (steady state, goodput, batch, fabric) over a small in-memory catalog.
#include <gtest/gtest.h>

#include <set>

#include "core/planner/compare.h"
#include "core/planner/serving_plan.h"
#include "server/api/option_proto.h"
#include "server/api/request_proto.h"
#include "server/rpc/request_limits.h"
#include "tests/core/fixtures.h"

namespace capplan::server {
namespace {

namespace v1 = capplan::v1;
namespace planner = core::planner;

bool Contains(absl::string_view text, absl::string_view part) { return text.find(part) != absl::string_view::npos; }
bool Has(const absl::Status& s, absl::string_view part) { return Contains(s.message(), part); }

// Models with their context windows, one GPU and one named fabric: what the converters look up.
class TinyCatalog final : public core::CatalogView {
 public:
  TinyCatalog() {
    // Touvron et al. 2023 (Llama 2), Table 1: 4k context.
    models_.push_back({core::testing::Llama2_7B(), 4096, {}});
    // BLOOM was trained on 2048-token sequences (BigScience 2022); the shipped catalog's 2048.
    models_.push_back({core::testing::Dense("BLOOM-7B1", 30, 4096, 32, 32, 16384, 250880), 2048, {}});
    // A model whose window the catalog does not know (0).
    models_.push_back({core::testing::Dense("no-window-7b", 32, 4096, 32, 32, 11008, 32000), 0, {}});
    core::GpuRow h100;
    h100.spec = core::testing::H100_SXM();
    h100.vendor = "NVIDIA";
    h100.form_factor = "SXM";
    gpus_.push_back(h100);
    // AWS p5: 8 x H100 on NVSwitch, 3,200 Gbit/s EFA per instance = 400 Gbit/s per GPU
    // (AWS P5 instance page); 450 GB/s NVLink per direction (H100 SXM datasheet).
    core::FabricRow p5;
    p5.name = "aws-p5-efa";
    p5.fabric = {8, core::Interconnect::kNvlink, 450e9, core::NetworkKind::kEfa, 400e9 / 8, 0};
    fabrics_.push_back(p5);
  }
  int64_t Version() const override { return 1; }
  const std::vector<core::InstanceRow>& Instances() const override { return instances_; }
  const core::GpuRow* FindGpu(absl::string_view name) const override {
    for (const core::GpuRow& g : gpus_) {
      if (g.spec.name == name) return &g;
    }
    return nullptr;
  }
  const core::ModelRow* FindModel(absl::string_view name) const override {
    for (const core::ModelRow& m : models_) {
      if (m.arch.name == name) return &m;
    }
    return nullptr;
  }
  const core::FabricRow* FindFabric(absl::string_view name) const override {
    for (const core::FabricRow& f : fabrics_) {
      if (f.name == name) return &f;
    }
    return nullptr;
  }
  const core::PriceRow* PriceAt(const core::InstanceRow&, core::PriceKind, int64_t) const override { return nullptr; }
  const std::vector<core::TrainingBenchmark>& TrainingBenchmarks() const override { return training_; }
  const std::vector<core::ServingBenchmark>& ServingBenchmarks() const override { return serving_; }

 private:
  std::vector<core::GpuRow> gpus_;
  std::vector<core::ModelRow> models_;
  std::vector<core::FabricRow> fabrics_;
  std::vector<core::InstanceRow> instances_;
  std::vector<core::TrainingBenchmark> training_;
  std::vector<core::ServingBenchmark> serving_;
};

TEST(ConvertPlannerTest, EveryRejectionReasonHasItsOwnApiValue) {
  std::set<int> seen;
  for (int r = static_cast<int>(planner::RejectionReason::kOverDeadline);
       r <= static_cast<int>(planner::RejectionReason::kRankedLower); ++r) {
    const v1::RejectionReason p = RejectionReasonToProto(static_cast<planner::RejectionReason>(r));
    EXPECT_NE(p, v1::REJECTION_REASON_UNSPECIFIED) << r;
    EXPECT_TRUE(seen.insert(p).second) << r;
  }
  // Every API value but UNSPECIFIED is reached.
  EXPECT_EQ(seen.size(), static_cast<size_t>(v1::RejectionReason_descriptor()->value_count() - 1));
}

TEST(ConvertPlannerTest, EveryBottleneckAndRecomputeHasItsOwnApiValue) {
  std::set<int> bottlenecks;
  for (int b = static_cast<int>(core::Bottleneck::kCompute); b <= static_cast<int>(core::Bottleneck::kMemoryCapacity);
       ++b) {
    const v1::Bottleneck p = BottleneckToProto(static_cast<core::Bottleneck>(b));
    EXPECT_NE(p, v1::BOTTLENECK_UNSPECIFIED);
    EXPECT_TRUE(bottlenecks.insert(p).second);
  }
  EXPECT_EQ(bottlenecks.size(), static_cast<size_t>(v1::Bottleneck_descriptor()->value_count() - 1));
  EXPECT_EQ(RecomputeToProto(core::Recompute::kNone), v1::RECOMPUTE_NONE);
  EXPECT_EQ(RecomputeToProto(core::Recompute::kSelective), v1::RECOMPUTE_SELECTIVE);
  EXPECT_EQ(RecomputeToProto(core::Recompute::kFull), v1::RECOMPUTE_FULL);
}

TEST(ConvertPlannerTest, PlanQueryDefaultsAndViews) {
  const TinyCatalog catalog;
  v1::PlanRequest r;
  absl::StatusOr<planner::PlanQuery> q = PlanQueryFrom(catalog, r);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->objective, planner::Objective::kCheapest);
  EXPECT_EQ(q->top_k, planner::kDefaultTopK);
  EXPECT_EQ(q->max_rejected, planner::kDefaultMaxRejected);  // VIEW_UNSPECIFIED is FULL
  // No caller limit: serving deployments default to 64 GPUs, training to the API's limit.
  EXPECT_EQ(q->constraints.ServingMaxGpus(), planner::kDefaultMaxGpus);
  EXPECT_EQ(q->constraints.TrainingMaxGpus(), planner::kMaxGpus);
  EXPECT_GT(q->prices_as_of_unix_seconds, 1700000000);  // 0 means now

  r.set_view(v1::VIEW_BASIC);
  r.set_max_rejected(7);
  r.set_objective(v1::OBJECTIVE_FASTEST_WITHIN_BUDGET);
  r.set_prices_as_of_unix_seconds(1717200000);
  r.mutable_constraints()->add_owned_pools()->set_name("lab");
  q = PlanQueryFrom(catalog, r);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->max_rejected, 0);  // BASIC asks for no rejections, whatever max_rejected says
  EXPECT_EQ(q->objective, planner::Objective::kFastestWithinBudget);
  EXPECT_EQ(q->prices_as_of_unix_seconds, 1717200000);
  ASSERT_EQ(q->constraints.owned_pools.size(), 1u);
  EXPECT_EQ(q->constraints.owned_pools[0].name, "lab");

  r.set_view(v1::VIEW_FULL);
  q = PlanQueryFrom(catalog, r);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->max_rejected, 7);

  r.set_max_rejected(201);
  EXPECT_NE(PlanQueryFrom(catalog, r).status().message().find("max_rejected: must be in [0, 200]"),
            absl::string_view::npos);
}

TEST(ConvertPlannerTest, CompareTargetsKeepTheirPins) {
  const TinyCatalog catalog;
  v1::CompareRequest r;
  v1::CompareTarget* t = r.add_targets();
  t->set_instance_type("p5.48xlarge");
  t->set_region("us-east-1");
  t->set_count(2);
  t->mutable_pinned_parallelism()->set_tensor_parallel(8);
  t->mutable_pinned_parallelism()->set_data_parallel(2);
  t->mutable_pinned_parallelism()->set_recompute(v1::RECOMPUTE_SELECTIVE);
  // Llama 3 405B's long-context layout (Dubey et al. 2024, Table 4): TP 8, CP 16, PP 16, DP 8;
  // the interleaved schedule (Sec. 3.3.2) with an illustrative 2 stages per GPU; a dense
  // model, so expert parallelism 1.
  t->mutable_pinned_parallelism()->set_virtual_pipeline_stages(2);
  t->mutable_pinned_parallelism()->set_context_parallel(16);
  t->mutable_pinned_parallelism()->set_expert_parallel(1);
  absl::StatusOr<std::vector<planner::CompareTarget>> targets = CompareTargetsFrom(catalog, r);
  ASSERT_TRUE(targets.ok()) << targets.status();
  const std::vector<planner::CompareTarget>& out = *targets;
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].instance_type, "p5.48xlarge");
  EXPECT_EQ(out[0].count, 2);
  EXPECT_EQ(out[0].pin.tensor_parallel, 8);
  EXPECT_EQ(out[0].pin.data_parallel, 2);
  EXPECT_EQ(out[0].pin.recompute, core::Recompute::kSelective);
  EXPECT_TRUE(out[0].pin.TrainingPinned());
  EXPECT_EQ(out[0].pin.virtual_pipeline_stages, 2);
  EXPECT_EQ(out[0].pin.context_parallel, 16);
  EXPECT_EQ(out[0].pin.expert_parallel, 1);
  EXPECT_TRUE(out[0].fabric.Empty());  // no fabric given: the offer's own

  // The same bound as tp, pp and dp (at most 65536 GPUs in any request), checked once, by the
  // planner's pin check, on the way from the request to an answer.
  t->clear_instance_type();
  t->clear_region();
  t->set_gpu_name("H100-SXM5-80GB");
  t->set_count(256);
  const auto compare = [&] {
    absl::StatusOr<std::vector<planner::CompareTarget>> c = CompareTargetsFrom(catalog, r);
    if (!c.ok()) return c.status();
    core::TrainingJob job;
    job.model = core::testing::Llama2_7B();
    job.tokens = 1e9;
    return planner::CompareTraining(catalog, job, *c, 0).status();
  };
  t->mutable_pinned_parallelism()->set_context_parallel(-1);
  absl::Status s = compare();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(s, "targets[0].pinned_parallelism.context_parallel: must be in [0, 65536]")) << s;
  t->mutable_pinned_parallelism()->set_context_parallel(16);
  t->mutable_pinned_parallelism()->set_virtual_pipeline_stages(65537);
  s = compare();
  EXPECT_TRUE(Has(s, "targets[0].pinned_parallelism.virtual_pipeline_stages: must be in [0, 65536]")) << s;
}

// A pool's and a target's fabric are overrides: a catalog fabric by name, and any field given.
TEST(ConvertPlannerTest, FabricOverridesKeepWhatIsNotGiven) {
  const TinyCatalog catalog;
  v1::PlanRequest r;
  for (const char* name : {"lab", "attic", "rack"}) {
    v1::OwnedPool* p = r.mutable_constraints()->add_owned_pools();
    p->set_name(name);
    p->set_gpu_name("H100-SXM5-80GB");
    p->set_gpu_count(8);
  }
  // lab: the p5 fabric with a slower network, 200 Gbit/s per GPU (half the p5's 400).
  v1::Fabric* lab = r.mutable_constraints()->mutable_owned_pools(0)->mutable_fabric();
  lab->set_name("aws-p5-efa");
  lab->set_network_bytes_per_second_per_gpu(200e9 / 8);
  // attic: only the network kind and node size changed (PCIe boxes of 4, plain Ethernet).
  v1::Fabric* attic = r.mutable_constraints()->mutable_owned_pools(1)->mutable_fabric();
  attic->set_gpus_per_node(4);
  attic->set_intra_link(v1::INTERCONNECT_KIND_PCIE);
  attic->set_network(v1::NETWORK_KIND_ETHERNET);
  absl::StatusOr<planner::PlanQuery> q = PlanQueryFrom(catalog, r);
  ASSERT_TRUE(q.ok()) << q.status();
  const core::FabricOverride& a = q->constraints.owned_pools[0].fabric;
  EXPECT_EQ(a.fabric_name, "aws-p5-efa");
  EXPECT_DOUBLE_EQ(a.network_bytes_per_second_per_gpu, 200e9 / 8);
  EXPECT_FALSE(a.network.has_value());  // UNSPECIFIED keeps the base's
  EXPECT_FALSE(a.intra_link.has_value());
  EXPECT_EQ(a.gpus_per_node, 0);
  const core::FabricOverride& b = q->constraints.owned_pools[1].fabric;
  EXPECT_TRUE(b.fabric_name.empty());
  EXPECT_EQ(b.gpus_per_node, 4);
  EXPECT_EQ(b.intra_link, core::Interconnect::kPcie);
  EXPECT_EQ(b.network, core::NetworkKind::kEthernet);
  EXPECT_TRUE(q->constraints.owned_pools[2].fabric.Empty());

  // Each number given is held to a catalog fabric's range, named by its full path.
  v1::Fabric* rack = r.mutable_constraints()->mutable_owned_pools(2)->mutable_fabric();
  rack->set_network_bytes_per_second_per_gpu(-1);
  absl::Status s = PlanQueryFrom(catalog, r).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(s, "constraints.owned_pools[2].fabric.network_bytes_per_second_per_gpu: must be in [1e+07, 1e+12]"))
      << s;
  rack->Clear();
  rack->set_gpus_per_node(100000);
  s = PlanQueryFrom(catalog, r).status();
  EXPECT_TRUE(Has(s, "constraints.owned_pools[2].fabric.gpus_per_node: must be in [1, 576]")) << s;
  rack->Clear();
  rack->set_network_latency_seconds(1);  // a second per message: no data-centre network
  s = PlanQueryFrom(catalog, r).status();
  EXPECT_TRUE(Has(s, "constraints.owned_pools[2].fabric.network_latency_seconds")) << s;
  rack->Clear();
  rack->set_name("no-such-fabric");
  s = PlanQueryFrom(catalog, r).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(s, "constraints.owned_pools[2].fabric.name: no fabric named \"no-such-fabric\"")) << s;

  v1::CompareRequest c;
  v1::CompareTarget* t = c.add_targets();
  t->set_gpu_name("H100-SXM5-80GB");
  t->set_count(16);
  t->mutable_fabric()->set_name("aws-p5-efa");
  t->mutable_fabric()->set_network(v1::NETWORK_KIND_INFINIBAND);
  absl::StatusOr<std::vector<planner::CompareTarget>> targets = CompareTargetsFrom(catalog, c);
  ASSERT_TRUE(targets.ok()) << targets.status();
  EXPECT_EQ((*targets)[0].fabric.fabric_name, "aws-p5-efa");
  EXPECT_EQ((*targets)[0].fabric.network, core::NetworkKind::kInfiniband);
  t->mutable_fabric()->set_intra_node_bytes_per_second_per_gpu(1);  // 1 byte/s
  s = CompareTargetsFrom(catalog, c).status();
  EXPECT_TRUE(Has(s, "targets[0].fabric.intra_node_bytes_per_second_per_gpu: must be in [1e+08, 1e+13]")) << s;
}

v1::TrainingWorkload Training(const char* model, int64_t sequence_tokens) {
  v1::TrainingWorkload w;
  w.set_model_name(model);
  w.set_tokens(2e9);  // a 2B-token fine-tune
  w.set_sequence_tokens(sequence_tokens);
  return w;
}

TEST(ConvertPlannerTest, ATrainingSequenceMustFitTheModelsContextWindow) {
  const TinyCatalog catalog;
  // Llama 2's 4k window (Touvron et al. 2023, Table 1): 4096 fits, 4097 does not.
  absl::StatusOr<core::TrainingJob> job = TrainingJobFrom(catalog, Training("Llama-2-7B", 4096), "training");
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->sequence_length, 4096);
  absl::Status s = TrainingJobFrom(catalog, Training("Llama-2-7B", 4097), "training").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(s, "training.sequence_tokens: 4097 tokens is beyond Llama-2-7B's context window of 4096")) << s;
  // BLOOM's 2048 (BigScience 2022): a 4096-token sequence is refused; an unset one is the
  // 4096 default capped at the window.
  s = TrainingJobFrom(catalog, Training("BLOOM-7B1", 4096), "training").status();
  EXPECT_TRUE(Has(s, "BLOOM-7B1's context window of 2048 tokens")) << s;
  job = TrainingJobFrom(catalog, Training("BLOOM-7B1", 0), "training");
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->sequence_length, 2048);
  // An unknown window (0) checks nothing: Llama 3.1's 128k (Meta model card) goes through.
  job = TrainingJobFrom(catalog, Training("no-window-7b", 131072), "training");
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->sequence_length, 131072);

  // An inline architecture carries its own window: Llama-2-7B's shape and 4k.
  v1::TrainingWorkload w = Training("", 8192);
  v1::ModelArchitecture* a = w.mutable_architecture();
  a->set_name("my-7b");
  a->set_num_layers(32);
  a->set_hidden_size(4096);
  a->set_num_attention_heads(32);
  a->set_ffn_hidden_size(11008);
  a->set_vocab_size(32000);
  a->set_max_context_tokens(4096);
  s = TrainingJobFrom(catalog, w, "training").status();
  EXPECT_TRUE(Has(s, "training.sequence_tokens: 8192 tokens is beyond my-7b's context window of 4096")) << s;
  a->set_max_context_tokens(0);
  EXPECT_TRUE(TrainingJobFrom(catalog, w, "training").ok());
}

TEST(ConvertPlannerTest, PromptPlusOutputMustFitTheModelsContextWindow) {
  const TinyCatalog catalog;
  v1::ServingWorkload w;
  w.set_model_name("Llama-2-7B");
  // 3,072 + 1,024 = 4,096: exactly Llama 2's 4k window (Touvron et al. 2023, Table 1).
  w.set_prompt_tokens(3072);
  w.set_output_tokens(1024);
  EXPECT_TRUE(ServingWorkloadFrom(catalog, w, "serving").ok());
  w.set_output_tokens(1025);
  absl::Status s = ServingWorkloadFrom(catalog, w, "serving").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(s,
                  "serving.prompt_tokens + serving.output_tokens: 3072 + 1025 = 4097 tokens is beyond "
                  "Llama-2-7B's context window of 4096"))
      << s;
}

TEST(ConvertPlannerTest, ServingEngineAndBurstArrivalReachCore) {
  // The engine (docs/estimator.md) sets the KV-cache budget and efficiencies; unset reads as vLLM.
  const TinyCatalog catalog;
  v1::ServingWorkload w;
  w.set_model_name("Llama-2-7B");
  w.set_prompt_tokens(512);
  w.set_output_tokens(128);
  absl::StatusOr<core::ServingWorkload> s = ServingWorkloadFrom(catalog, w, "serving");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->engine, core::ServingEngine::kVllm);
  EXPECT_FALSE(s->batch_arrives_at_once);
  w.set_engine(v1::SERVING_ENGINE_SGLANG);
  w.set_batch_arrives_at_once(true);
  s = ServingWorkloadFrom(catalog, w, "serving");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->engine, core::ServingEngine::kSglang);
  EXPECT_TRUE(s->batch_arrives_at_once);
  w.set_engine(static_cast<v1::ServingEngine>(42));
  absl::Status bad = ServingWorkloadFrom(catalog, w, "serving").status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(bad, "serving.engine: must be VLLM, TENSORRT_LLM, SGLANG or LLAMA_CPP")) << bad;
}

// A global batch of 0 asks core to search it. A core that cannot yet gets the
// Llama 2 default (Touvron et al. 2023: 4M tokens), so the request never fails on 0.
TEST(ConvertPlannerTest, AGlobalBatchOfZeroIsSearched) {
  const TinyCatalog catalog;
  absl::StatusOr<core::TrainingJob> job = TrainingJobFrom(catalog, Training("Llama-2-7B", 4096), "training");
  ASSERT_TRUE(job.ok()) << job.status();
  core::TrainingJob probe = *job;
  probe.global_batch_tokens = 0;
  const bool core_searches = core::ValidateTrainingJob(probe).ok();
  EXPECT_EQ(job->global_batch_tokens, core_searches ? 0 : core::kDefaultGlobalBatchTokens);
  v1::TrainingWorkload given = Training("Llama-2-7B", 4096);
  given.set_global_batch_tokens(1 << 20);  // 1M tokens: 256 sequences of 4096
  job = TrainingJobFrom(catalog, given, "training");
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->global_batch_tokens, 1 << 20);
}

// The option carries what the estimate says of steady state and end to end, and the fabric
// the supply resolved. Figures: Llama 3 405B on 16,384 H100s (Dubey et al. 2024, Table 4:
// TP 8, CP 16, PP 16, DP 8, 16M-token batches, 380 TFLOP/s per GPU, 38% MFU; >90% effective
// training time, Sec. 3.3.4) on RoCE at 400 Gbit/s per GPU (Sec. 3.3.1).
TEST(ConvertPlannerTest, TrainingOptionsCarrySteadyStateGoodputAndTheFabric) {
  const TinyCatalog catalog;
  planner::Supply s;
  s.gpu = catalog.FindGpu("H100-SXM5-80GB");
  s.units_max = 16384;
  s.fabric = {8, core::Interconnect::kNvlink, 450e9, core::NetworkKind::kRoce, 400e9 / 8, 0};
  s.fabric_name = "meta-roce+override";
  planner::TrainingChoice c;
  c.units = 16384;
  core::TrainingEstimate& e = c.estimate;
  e.parallel.tp = 8;
  e.parallel.cp = 16;
  e.parallel.pp = 16;
  e.parallel.dp = 8;
  e.parallel.vpp = 2;  // illustrative: the interleaved schedule's stages per GPU
  e.global_batch_tokens = 16.0 * 1024 * 1024;
  e.model_tflops_per_gpu = 380;
  e.mfu = 0.38;
  e.goodput = 0.9;
  // 54 days: the pre-training snapshot period of Sec. 3.3.4, as the steady state; end to
  // end is steady / goodput.
  e.steady_duration_seconds = 54 * 86400.0;
  e.steady_duration_seconds_low = e.steady_duration_seconds;
  e.steady_duration_seconds_high = e.steady_duration_seconds;
  e.duration_seconds = e.steady_duration_seconds / e.goodput;
  // 6ND: 380e12 FLOP/s x 16,384 GPUs / (6 x 405e9) tokens per second.
  e.tokens_per_second = 380e12 * 16384 / (6 * 405e9);
  v1::PlanOption o;
  FillTrainingOption(1, s, c, &o);
  EXPECT_EQ(o.parallelism().context_parallel(), 16);
  EXPECT_EQ(o.parallelism().virtual_pipeline_stages(), 2);
  EXPECT_EQ(o.parallelism().expert_parallel(), 1);
  EXPECT_EQ(o.global_batch_tokens(), 16777216);
  EXPECT_DOUBLE_EQ(o.model_tflops_per_gpu(), 380);
  EXPECT_DOUBLE_EQ(o.mfu_fraction(), 0.38);
  EXPECT_DOUBLE_EQ(o.goodput_fraction(), 0.9);
  EXPECT_DOUBLE_EQ(o.tokens_per_second(), e.tokens_per_second);
  EXPECT_DOUBLE_EQ(o.steady_state_duration_seconds().point(), 54 * 86400.0);
  EXPECT_DOUBLE_EQ(o.duration_seconds().point(), 60 * 86400.0);
  EXPECT_EQ(o.fabric().name(), "meta-roce+override");
  EXPECT_EQ(o.fabric().gpus_per_node(), 8);
  EXPECT_EQ(o.fabric().intra_link(), v1::INTERCONNECT_KIND_NVLINK);
  EXPECT_EQ(o.fabric().network(), v1::NETWORK_KIND_ROCE);
  EXPECT_DOUBLE_EQ(o.fabric().network_bytes_per_second_per_gpu(), 50e9);
  EXPECT_TRUE(Contains(o.explanation(), "end to end 60.0 days")) << o.explanation();
  EXPECT_TRUE(Contains(o.explanation(), "steady state 54.0 days at 90% goodput")) << o.explanation();

  // A supply whose fabric the planner has not resolved sends none rather than zeros.
  s.fabric = {};
  v1::PlanOption unresolved;
  FillTrainingOption(1, s, c, &unresolved);
  EXPECT_FALSE(unresolved.has_fabric());
}

// A serving plan's queueing percentiles, deployment, pools and SLO warnings reach the API
// (docs/estimator.md). Llama-2-70B (config.json) with 3.5k-token prompts under a tight TPOT SLO on an
// owned pool of H100s in 8-GPU NVLink nodes: co-located and disaggregated options both appear.
TEST(ConvertPlannerTest, ServingOptionsCarryPercentilesDeploymentAndWarnings) {
  const TinyCatalog catalog;
  core::ServingWorkload w;
  w.model = core::testing::Llama2_70B();
  w.prompt_tokens = 3584;
  w.output_tokens = 128;
  w.requests_per_second = 40;
  w.ttft_slo_seconds = 1.5;
  w.tpot_slo_seconds = 0.025;
  planner::PlanQuery q;
  q.prices_as_of_unix_seconds = 1764547200;  // 2025-12-01
  q.top_k = 10;
  q.constraints.max_gpus = 256;
  planner::OwnedPool pool;
  pool.name = "hgx";
  pool.gpu_name = "H100-SXM5-80GB";
  pool.gpu_count = 256;
  pool.cost_usd_per_gpu_hour = 98.32 / 8;  // p5.48xlarge on demand, per GPU (AWS, 2024)
  q.constraints.owned_pools.push_back(pool);
  absl::StatusOr<planner::ServingPlan> plan = planner::PlanServing(catalog, w, q);
  ASSERT_TRUE(plan.ok()) << plan.status();
  std::set<int> kinds;
  for (const planner::ServingChoice& c : plan->options) {
    v1::PlanOption o;
    FillServingOption(1, plan->supplies[c.supply], c, w, &o);
    kinds.insert(o.deployment());
    // The server refuses to send an answer holding NaN or infinity (INTERNAL): none here.
    EXPECT_TRUE(CheckResponseFinite(o).ok()) << CheckResponseFinite(o);
    EXPECT_DOUBLE_EQ(o.ttft_p99_seconds(), c.latency.ttft_p99_seconds);
    EXPECT_LE(o.ttft_p50_seconds(), o.ttft_p99_seconds());
    EXPECT_LE(o.ttft_p99_seconds(), 1.5);  // the SLO is a p99 target
    EXPECT_GT(o.e2e_p99_seconds(), o.ttft_p99_seconds());
    EXPECT_GE(o.slo_break_requests_per_second(), 40);
    ASSERT_EQ(o.slo_warnings_size(), static_cast<int>(c.warnings.size()));
    for (int i = 0; i < o.slo_warnings_size(); ++i) {
      EXPECT_EQ(o.slo_warnings(i).message(), c.warnings[i].message);
      if (o.slo_warnings(i).high_unbounded()) {  // the pessimistic queue saturates at this load
        EXPECT_EQ(o.slo_warnings(i).high_seconds(), 0);
        EXPECT_TRUE(Contains(o.slo_warnings(i).message(), "grows without bound")) << o.slo_warnings(i).message();
      } else {
        EXPECT_GT(o.slo_warnings(i).high_seconds(), o.slo_warnings(i).slo_seconds());
      }
      EXPECT_TRUE(Contains(o.explanation(), "warning: " + c.warnings[i].message)) << o.explanation();
    }
    if (o.deployment() == v1::SERVING_DEPLOYMENT_DISAGGREGATED) {
      EXPECT_EQ(o.prefill_gpu_count() + o.decode_gpu_count(), o.gpu_count());
      EXPECT_EQ(o.prefill_gpu_count(), o.prefill_tensor_parallel() * o.prefill_replicas());
      EXPECT_DOUBLE_EQ(o.kv_transfer_bytes(), 3584.0 * 327680);  // 80 x 8 x 128 x 2 x 2 bytes a token
      EXPECT_GT(o.kv_transfer_seconds(), 0);
      EXPECT_TRUE(Contains(o.explanation(), "disaggregated: ")) << o.explanation();
    } else {
      EXPECT_EQ(o.deployment(), v1::SERVING_DEPLOYMENT_COLOCATED);
      EXPECT_EQ(o.prefill_gpu_count(), 0);
    }
  }
  EXPECT_EQ(kinds.size(), 2u);
}

// A replica across nodes says which nodes it takes and what crossing them costs
// (docs/api.md). Llama 3.1 405B (meta-llama/Llama-3.1-405B config.json: 126 layers, hidden
// 16384, 128 heads, 8 KV heads, intermediate 53248) in BF16 on an owned pool of H100s wired
// as p5 nodes: the Llama 3 paper (arXiv 2407.21783, Sec. 6.1) served it on two such nodes.
TEST(ConvertPlannerTest, ServingOptionsAcrossNodesCarryTheirNodesAndStageBoundary) {
  const TinyCatalog catalog;
  core::ServingWorkload w;
  w.model = core::testing::Dense("Llama-3.1-405B", 126, 16384, 128, 8, 53248, 128256);
  w.weight_precision = core::Precision::kBf16;
  w.requests_per_second = 1;
  planner::PlanQuery q;
  q.prices_as_of_unix_seconds = 1764547200;  // 2025-12-01
  planner::OwnedPool pool;
  pool.name = "hgx";
  pool.gpu_name = "H100-SXM5-80GB";
  pool.gpu_count = 64;
  pool.cost_usd_per_gpu_hour = 98.32 / 8;  // p5.48xlarge on demand, per GPU (AWS, 2024)
  pool.fabric.fabric_name = "aws-p5-efa";
  q.constraints.owned_pools.push_back(pool);
  absl::StatusOr<planner::ServingPlan> plan = planner::PlanServing(catalog, w, q);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const planner::ServingChoice& c = plan->options.front();
  ASSERT_TRUE(c.multinode.has_value());
  v1::PlanOption o;
  FillServingOption(1, plan->supplies[c.supply], c, w, &o);
  EXPECT_TRUE(CheckResponseFinite(o).ok()) << CheckResponseFinite(o);
  EXPECT_EQ(o.parallelism().tensor_parallel(), 8);
  EXPECT_EQ(o.parallelism().pipeline_parallel(), 2);
  EXPECT_EQ(o.replica_node_count(), 2);
  EXPECT_EQ(o.replica_gpus_per_node(), 8);
  EXPECT_EQ(o.node_count(), o.replicas() * 2);
  EXPECT_EQ(o.gpu_count(), o.node_count() * 8);
  EXPECT_EQ(o.fabric().network(), v1::NETWORK_KIND_EFA);
  EXPECT_GT(o.pipeline_hop_seconds(), 0);
  EXPECT_GT(o.pipeline_hop_bytes(), 0);
  EXPECT_EQ(o.parallelism().serving_batch_sequences(), 2 * o.pipeline_micro_batch_sequences());
  EXPECT_TRUE(Contains(o.explanation(), "each replica spans 2 nodes")) << o.explanation();
}

}  // namespace
}  // namespace capplan::server
