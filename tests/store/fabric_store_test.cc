// Fabrics in the store: the shipped rows (migration 0004) and their sources, what names them
// (offers, GPU defaults, benchmarks), the audited writes and their refusals.
#include <gtest/gtest.h>

#include <set>

#include "server/store/catalog_store.h"
#include "temp_store.h"

namespace capplan::store {
namespace {

class FabricStoreTest : public TempStoreTest {
 protected:
  const WriteContext ops_{"alice", "UpsertFabric"};

  // A 2-node test rig: 4 GPUs on PCIe Gen4 (~32 GB/s one direction, PCIe 4.0 x16), 25 Gbit/s
  // Ethernet per node = 25e9 / 8 / 4 bytes/s per GPU, ~30 us TCP latency (migration 0004).
  static FabricRow Rig(const std::string& name) {
    FabricRow f;
    f.name = name;
    f.fabric.gpus_per_node = 4;
    f.fabric.intra_link = core::Interconnect::kPcie;
    f.fabric.intra_node_bytes_per_second_per_gpu = 32e9;
    f.fabric.network = core::NetworkKind::kEthernet;
    f.fabric.network_bytes_per_second_per_gpu = 25e9 / 8 / 4;
    f.fabric.network_latency_seconds = 30e-6;
    f.source = {"lab rig inventory, rack 7", "2026-11-30", ""};
    return f;
  }
};

TEST_F(FabricStoreTest, EveryShippedOfferAndGpuNamesACitedFabricThatFitsIt) {
  std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
  ASSERT_FALSE(snap->fabrics.empty());
  for (const FabricRow& f : snap->fabrics) {
    EXPECT_FALSE(f.source.citation.empty()) << f.name;
    EXPECT_EQ(f.source.as_of_date.size(), 10u) << f.name;
    EXPECT_TRUE(core::ValidateFabric(f.fabric).ok()) << f.name << ": " << core::ValidateFabric(f.fabric);
  }
  for (const InstanceRow& i : snap->instances) {
    const FabricRow* f = snap->FindFabric(i.fabric_name);
    ASSERT_NE(f, nullptr) << i.provider << " " << i.instance_type << " names \"" << i.fabric_name << "\"";
    // A VM is one node: its GPUs are the fabric's node.
    EXPECT_EQ(f->fabric.gpus_per_node, i.gpu_count) << i.instance_type;
  }
  for (const GpuRow& g : snap->gpus) {
    EXPECT_NE(snap->FindFabric(g.default_fabric_name), nullptr) << g.spec.name;
  }
  // Amazon EC2 P5 page: 8 x H100 on NVSwitch, 900 GB/s bidirectional per GPU, 3,200 Gbps
  // EFA per instance = 450 GB/s and 50 GB/s per GPU, one direction.
  const FabricRow* p5 = snap->FindFabric(snap->FindInstance("aws", "p5.48xlarge", "us-east-1")->fabric_name);
  EXPECT_EQ(p5->fabric.network, core::NetworkKind::kEfa);
  EXPECT_DOUBLE_EQ(p5->fabric.intra_node_bytes_per_second_per_gpu, 450e9);
  EXPECT_DOUBLE_EQ(p5->fabric.network_bytes_per_second_per_gpu, 3200e9 / 8 / 8);
  // Microsoft Learn, ND H100 v5: one 400 Gb/s NDR InfiniBand link per GPU.
  const FabricRow* nd =
      snap->FindFabric(snap->FindInstance("azure", "Standard_ND96isr_H100_v5", "eastus")->fabric_name);
  EXPECT_EQ(nd->fabric.network, core::NetworkKind::kInfiniband);
  EXPECT_DOUBLE_EQ(nd->fabric.network_bytes_per_second_per_gpu, 400e9 / 8);
  // NVIDIA DGX A100 datasheet: 8 x 200 Gb/s HDR, the owned-pool default for A100 SXM.
  const FabricRow* dgx = snap->FindFabric(snap->FindGpu("A100-SXM4-80GB")->default_fabric_name);
  EXPECT_DOUBLE_EQ(dgx->fabric.network_bytes_per_second_per_gpu, 200e9 / 8);
}

TEST_F(FabricStoreTest, GpuMemoryIsTheDatasheetCapacityInGiB) {
  std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
  // NVIDIA A100 and H100 datasheets: "80 GB" / "40 GB" of HBM are 80 / 40 GiB.
  EXPECT_DOUBLE_EQ(snap->FindGpu("A100-SXM4-80GB")->spec.memory_bytes, 80.0 * (1 << 30));
  EXPECT_DOUBLE_EQ(snap->FindGpu("A100-SXM4-40GB")->spec.memory_bytes, 40.0 * (1 << 30));
  EXPECT_DOUBLE_EQ(snap->FindGpu("H100-SXM5-80GB")->spec.memory_bytes, 80.0 * (1 << 30));
  // NVIDIA A10 datasheet: 24 GB GDDR6.
  EXPECT_DOUBLE_EQ(snap->FindGpu("A10G")->spec.memory_bytes, 24.0 * (1 << 30));
}

TEST_F(FabricStoreTest, LlamaTwoBenchmarksAreEndToEndOnTheirPublishedNetwork) {
  std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
  int seen = 0;
  for (const core::TrainingBenchmark& t : snap->training_benchmarks) {
    if (t.citation != "Touvron et al. 2023 (Llama 2), Table 2") continue;
    ++seen;
    EXPECT_EQ(t.figure, core::BenchmarkFigure::kEndToEnd);
    // Touvron et al. 2023, section 2.2.1: 200 Gbps endpoints per GPU.
    ASSERT_TRUE(t.fabric.Known());
    EXPECT_DOUBLE_EQ(t.fabric.network_bytes_per_second_per_gpu, 200e9 / 8);
    EXPECT_EQ(t.layout.tp, 0);  // not published
  }
  EXPECT_EQ(seen, 3);  // 7B, 13B, 70B (migration 0002)
}

TEST_F(FabricStoreTest, UpsertIsAuditedIdempotentAndVisible) {
  const WriteContext keyed{"alice", "UpsertFabric", "rig-1", "fp-1"};
  absl::StatusOr<WriteResult> w = store_->UpsertFabric(keyed, Rig("lab-rig"));
  ASSERT_TRUE(w.ok()) << w.status();
  const FabricRow* f = store_->Snapshot()->FindFabric("lab-rig");
  ASSERT_NE(f, nullptr);
  EXPECT_DOUBLE_EQ(f->fabric.network_bytes_per_second_per_gpu, 25e9 / 8 / 4);
  AuditEntry e = store_->AuditLog(1)->front();
  EXPECT_EQ(e.method, "UpsertFabric");
  EXPECT_EQ(e.entity, "fabrics/lab-rig");
  EXPECT_TRUE(e.before_json.empty());
  EXPECT_NE(e.after_json.find("\"network_kind\":\"ethernet\""), std::string::npos) << e.after_json;
  // The same request id and body: the first answer, nothing applied again.
  absl::StatusOr<WriteResult> again = store_->UpsertFabric(keyed, Rig("lab-rig"));
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->replayed);
  EXPECT_EQ(again->catalog_version, w->catalog_version);
  EXPECT_EQ(store_->AuditLog(10)->size(), 1u);
  // A benchmark with no fabric of its own takes its GPU's default after the GPU names this one.
  GpuRow gpu = *store_->Snapshot()->FindGpu("A10G");
  gpu.default_fabric_name = "lab-rig";
  ASSERT_TRUE(store_->UpsertGpu({"alice", "UpsertGpu"}, gpu).ok());
  EXPECT_EQ(store_->Snapshot()->FindGpu("A10G")->default_fabric_name, "lab-rig");
}

TEST_F(FabricStoreTest, BadFabricsAreRefusedNamingTheField) {
  FabricRow zero = Rig("z");
  zero.fabric.gpus_per_node = 0;
  FabricRow none_with_bandwidth = Rig("n");
  none_with_bandwidth.fabric.network = core::NetworkKind::kNone;
  FabricRow uncited = Rig("u");
  uncited.source.citation.clear();
  struct Case {
    const FabricRow* row;
    const char* field;
  } cases[] = {{&zero, "fabric.gpus_per_node"},
               {&none_with_bandwidth, "fabric.network_bytes_per_second_per_gpu"},
               {&uncited, "fabric.source.citation"}};
  for (const Case& c : cases) {
    absl::StatusOr<WriteResult> w = store_->UpsertFabric(ops_, *c.row);
    EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument) << w.status();
    EXPECT_NE(w.status().message().find(c.field), absl::string_view::npos) << w.status();
  }
  InstanceRow inst = *store_->Snapshot()->FindInstance("aws", "g5.xlarge", "us-east-1");
  inst.fabric_name = "no-such-fabric";
  absl::StatusOr<WriteResult> w = store_->UpsertInstance({"alice", "UpsertInstanceType"}, inst);
  EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(w.status().message().find("instance.fabric_name"), absl::string_view::npos) << w.status();
  EXPECT_TRUE(store_->AuditLog(10)->empty());
}

TEST_F(FabricStoreTest, DeletingANamedFabricIsRefusedNamingItsUsers) {
  absl::StatusOr<WriteResult> used = store_->DeleteFabric({"alice", "DeleteFabric"}, "aws-p5-efa");
  EXPECT_EQ(used.status().code(), absl::StatusCode::kFailedPrecondition);
  // p5.48xlarge ships in 14 regions (0002: us-east-1, us-west-2; 0010: 12 more from the AWS
  // price list); the message names the count and the first users in region order.
  EXPECT_NE(used.status().message().find("used by 14 instance type(s)"), absl::string_view::npos) << used.status();
  EXPECT_NE(used.status().message().find("aws p5.48xlarge ap-northeast-1"), absl::string_view::npos) << used.status();
  absl::StatusOr<WriteResult> gpu_default = store_->DeleteFabric({"alice", "DeleteFabric"}, "dgx-h100-ndr");
  EXPECT_EQ(gpu_default.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(gpu_default.status().message().find("H100-SXM5-80GB"), absl::string_view::npos) << gpu_default.status();
  ASSERT_NE(store_->Snapshot()->FindFabric("aws-p5-efa"), nullptr);

  ASSERT_TRUE(store_->UpsertFabric(ops_, Rig("lab-rig")).ok());
  absl::StatusOr<WriteResult> gone = store_->DeleteFabric({"alice", "DeleteFabric"}, "lab-rig");
  ASSERT_TRUE(gone.ok()) << gone.status();
  EXPECT_EQ(store_->Snapshot()->FindFabric("lab-rig"), nullptr);
  EXPECT_EQ(store_->DeleteFabric({"alice", "DeleteFabric"}, "lab-rig").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(FabricStoreTest, BenchmarkSetupIsStoredCheckedAndCalibratedOn) {
  // A made-up 16-GPU run on the shipped DGX H100 fabric: tp 4 x pp 2 x dp 2 = 16 GPUs.
  BenchmarkRow b;
  b.gpu_name = "H100-SXM5-80GB";
  b.model_name = "Llama-2-13B";
  b.workload = core::WorkloadKind::kTraining;
  b.precision = core::Precision::kBf16;
  b.gpu_count = 16;
  b.sequence_tokens = 4096;
  b.measured_value = 16 * 3000;
  b.unit = core::MeasuredUnit::kTokensPerSecond;
  b.tensor_parallel = 4;
  b.pipeline_parallel = 2;
  b.data_parallel = 2;
  b.virtual_pipeline_stages = 2;
  b.fabric_name = "dgx-h100-ndr";
  b.source = {"test run", "2026-11-30", ""};
  const WriteContext rec{"alice", "RecordBenchmark"};
  absl::StatusOr<WriteResult> w = store_->RecordBenchmark(rec, b);
  ASSERT_TRUE(w.ok()) << w.status();
  const core::TrainingBenchmark* t = nullptr;
  for (const core::TrainingBenchmark& x : store_->Snapshot()->training_benchmarks) {
    if (x.id == w->id) t = &x;
  }
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->layout.tp, 4);
  EXPECT_EQ(t->layout.vpp, 2);
  EXPECT_EQ(t->figure, core::BenchmarkFigure::kSteadyState);
  EXPECT_DOUBLE_EQ(t->fabric.network_bytes_per_second_per_gpu, 400e9 / 8);  // DGX H100: 400 Gb/s per GPU

  BenchmarkRow bad = b;
  bad.data_parallel = 3;  // 4 x 2 x 3 = 24, not 16
  EXPECT_NE(store_->RecordBenchmark(rec, bad).status().message().find("must equal gpu_count 16"),
            absl::string_view::npos);
  bad = b;
  bad.context_parallel = 2;  // 4 x 2 x 2 x 2 = 32
  EXPECT_EQ(store_->RecordBenchmark(rec, bad).status().code(), absl::StatusCode::kInvalidArgument);
  bad = b;
  bad.expert_parallel = 70000;
  EXPECT_NE(store_->RecordBenchmark(rec, bad).status().message().find("benchmark.expert_parallel"),
            absl::string_view::npos);
  bad = b;
  bad.fabric_name = "no-such-fabric";
  absl::StatusOr<WriteResult> unknown = store_->RecordBenchmark(rec, bad);
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("benchmark.fabric_name"), absl::string_view::npos);
  // The recorded benchmark now holds its fabric.
  EXPECT_EQ(store_->DeleteFabric({"alice", "DeleteFabric"}, "dgx-h100-ndr").status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(FabricStoreTest, AnImportedPriceKeepsTheOffersFabricAndANewOfferHasNone) {
  // SkyPilot columns name no fabric: a shipped offer keeps its own (migration 0004), and an
  // offer the import creates has none (the planner then takes the GPU's default).
  const std::string csv =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\n"
      "p5.48xlarge,H100,8,192,2048,55.04,us-east-1\n"
      "g6.12xlarge,L4,4,48,192,4.6016,us-east-1\n";
  absl::StatusOr<CsvImportResult> r =
      store_->ImportPricesCsv({"ops", "ImportPricesCsv"}, "aws", csv, {"test", "2025-11-01", ""}, 1761955200);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->errors.empty()) << r->errors.front().message;
  std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
  EXPECT_EQ(snap->FindInstance("aws", "p5.48xlarge", "us-east-1")->fabric_name, "aws-p5-efa");
  ASSERT_NE(snap->FindInstance("aws", "g6.12xlarge", "us-east-1"), nullptr);
  EXPECT_EQ(snap->FindInstance("aws", "g6.12xlarge", "us-east-1")->fabric_name, "");
}

TEST_F(FabricStoreTest, ReopeningMigratesNothingTwice) {
  const size_t fabrics = store_->Snapshot()->fabrics.size();
  const double a100 = store_->Snapshot()->FindGpu("A100-SXM4-80GB")->spec.memory_bytes;
  store_.reset();
  absl::StatusOr<std::unique_ptr<CatalogStore>> again = CatalogStore::Open({dir_ + "/c.db"});
  ASSERT_TRUE(again.ok()) << again.status();
  store_ = std::move(*again);
  EXPECT_EQ(store_->Snapshot()->fabrics.size(), fabrics);
  EXPECT_DOUBLE_EQ(store_->Snapshot()->FindGpu("A100-SXM4-80GB")->spec.memory_bytes, a100);
  EXPECT_EQ(store_->Snapshot()->catalog_version, 1);
}

}  // namespace
}  // namespace capplan::store
