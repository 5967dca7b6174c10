// The catalog store on a real SQLite file with the shipped catalog: contents and sources,
// audited writes that the next snapshot shows, price history, validation, CSV import.
#include "server/store/catalog_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>

#include "server/store/csv.h"
#include "temp_store.h"

namespace capplan::store {
namespace {

class CatalogStoreTest : public TempStoreTest {
 protected:
  const WriteContext ops_{"alice", "SetPrice"};
};

TEST_F(CatalogStoreTest, ShippedCatalogHasTheCommonGpusWithSources) {
  std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
  // At least the parts common GPU-selection guides compare (docs/catalog.md).
  for (const char* name : {"P40", "T4", "V100-SXM2-32GB", "A10G", "L4", "L40S", "RTX-3090", "RTX-4090", "RTX-A6000",
                           "RTX-6000-Ada", "A100-SXM4-40GB", "A100-SXM4-80GB", "H100-PCIe-80GB", "H100-SXM5-80GB",
                           "H200-SXM-141GB", "MI300X", "Intel-Max-1550"}) {
    const GpuRow* g = snap->FindGpu(name);
    ASSERT_NE(g, nullptr) << name;
    EXPECT_FALSE(g->source.citation.empty()) << name;
    EXPECT_EQ(g->source.as_of_date.size(), 10u) << name;
  }
  // NVIDIA A100 datasheet: the 80 GB SXM part has 2039 GB/s (1555, often quoted for it, is the 40 GB
  // figure) and 312 dense BF16 TFLOPS (624 is sparse).
  const GpuRow* a100 = snap->FindGpu("A100-SXM4-80GB");
  EXPECT_DOUBLE_EQ(a100->spec.memory_bandwidth_bytes_per_second, 2039e9);
  EXPECT_DOUBLE_EQ(a100->spec.PeakFlops(core::Precision::kBf16), 312e12);
  EXPECT_FALSE(snap->FindGpu("RTX-4090")->spec.datacenter);
  EXPECT_GE(snap->models.size(), 12u);
  for (const ModelRow& m : snap->models) EXPECT_FALSE(m.source.citation.empty()) << m.arch.name;
  // AWS, GCP and Azure in two regions each, plus a GPU cloud; every offer priced.
  std::map<std::string, std::set<std::string>> regions;
  for (const InstanceRow& i : snap->instances) {
    regions[i.provider].insert(i.region);
    const PriceRow* p = snap->PriceAt(i, PriceKind::kOnDemand, 0);
    ASSERT_NE(p, nullptr) << i.provider << " " << i.instance_type;
    EXPECT_FALSE(p->source.citation.empty());
  }
  for (const char* provider : {"aws", "gcp", "azure", "lambda"}) {
    EXPECT_GE(regions[provider].size(), 2u) << provider;
  }
  // AWS EC2 On-Demand pricing (2024-06-01, migration 0002): p4d.24xlarge at $32.77/h.
  const InstanceRow* p4d = snap->FindInstance("aws", "p4d.24xlarge", "us-east-1");
  ASSERT_NE(p4d, nullptr);
  EXPECT_NEAR(snap->PriceAt(*p4d, PriceKind::kOnDemand, 0)->price_usd_per_hour, 32.77, 0.01);
  // Serving measurements are there for calibration (migrations 0009 and 0010).
  EXPECT_GE(snap->serving_benchmarks.size(), 2u);
}

TEST_F(CatalogStoreTest, SetPriceIsVisibleToTheNextSnapshotAndKeepsHistory) {
  // Test input: a further cut to $49.50/h from 2026-07-01, below the shipped $55.04 list price
  // (migration 0015); not an AWS quote.
  constexpr double kCut = 49.50;
  constexpr int64_t k20260701 = 1782864000;
  const int64_t v0 = store_->Snapshot()->catalog_version;
  const InstanceRow& p5 = *store_->Snapshot()->FindInstance("aws", "p5.48xlarge", "us-east-1");
  const double before = store_->Snapshot()->PriceAt(p5, PriceKind::kOnDemand, 0)->price_usd_per_hour;
  const size_t shipped_rows = store_->Snapshot()->PriceHistory("aws", "p5.48xlarge", "us-east-1").size();
  absl::StatusOr<WriteResult> w = store_->SetPrice(ops_, P5Price(kCut, k20260701));
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->catalog_version, v0 + 1);
  EXPECT_GT(w->id, 0);
  std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
  EXPECT_EQ(snap->catalog_version, v0 + 1);
  const InstanceRow& inst = *snap->FindInstance("aws", "p5.48xlarge", "us-east-1");
  EXPECT_DOUBLE_EQ(snap->PriceAt(inst, PriceKind::kOnDemand, 0)->price_usd_per_hour, kCut);
  // As of a moment before the cut, the old price.
  EXPECT_DOUBLE_EQ(snap->PriceAt(inst, PriceKind::kOnDemand, k20260701 - 1)->price_usd_per_hour, before);
  std::vector<const PriceRow*> history = snap->PriceHistory("aws", "p5.48xlarge", "us-east-1");
  ASSERT_EQ(history.size(), shipped_rows + 1);
  EXPECT_DOUBLE_EQ(history.back()->price_usd_per_hour, kCut);
  // The audit log names the caller and the new row.
  absl::StatusOr<std::vector<AuditEntry>> audit = store_->AuditLog(1);
  ASSERT_TRUE(audit.ok() && audit->size() == 1);
  EXPECT_EQ(audit->front().caller, "alice");
  EXPECT_EQ(audit->front().method, "SetPrice");
  EXPECT_EQ(audit->front().entity, "prices/" + std::to_string(w->id));
  EXPECT_TRUE(audit->front().before_json.empty());
  EXPECT_NE(audit->front().after_json.find("\"price_usd_per_hour\":49.5"), std::string::npos)
      << audit->front().after_json;
  EXPECT_EQ(audit->front().catalog_version, v0 + 1);
}

TEST_F(CatalogStoreTest, UpsertAuditsBeforeAndAfter) {
  GpuRow g = *store_->Snapshot()->FindGpu("A10G");
  g.spec.tdp_watts = 300;
  g.source.note = "AWS documents 300 W for the A10G";
  ASSERT_TRUE(store_->UpsertGpu({"bob", "UpsertGpu"}, g).ok());
  EXPECT_DOUBLE_EQ(store_->Snapshot()->FindGpu("A10G")->spec.tdp_watts, 300);
  AuditEntry e = store_->AuditLog(1)->front();
  EXPECT_EQ(e.entity, "gpu_types/A10G");
  EXPECT_NE(e.before_json.find("\"tdp_watts\":150"), std::string::npos) << e.before_json;
  EXPECT_NE(e.after_json.find("\"tdp_watts\":300"), std::string::npos) << e.after_json;
}

TEST_F(CatalogStoreTest, ImplausibleWritesAreRejectedNamingTheFieldAndLeaveNothing) {
  const int64_t v0 = store_->Snapshot()->catalog_version;
  GpuRow g = *store_->Snapshot()->FindGpu("T4");
  g.spec.name = "broken";
  g.spec.memory_bytes = 0;
  absl::StatusOr<WriteResult> w = store_->UpsertGpu(ops_, g);
  EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(w.status().message().find("gpu.memory_bytes: must be in"), std::string::npos) << w.status();

  w = store_->SetPrice(ops_, P5Price(-1, 1749081600));
  EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(w.status().message().find("price.price_usd_per_hour"), std::string::npos);

  InstanceRow i = *store_->Snapshot()->FindInstance("aws", "g5.xlarge", "us-east-1");
  i.gpu_count = 0;
  w = store_->UpsertInstance(ops_, i);
  EXPECT_NE(w.status().message().find("instance.gpu_count"), std::string::npos);

  BenchmarkRow b;
  b.gpu_name = "B300";
  b.model_name = "Llama-2-7B";
  b.measured_value = 10;
  b.source = {"lab", "2025-01-01", ""};
  w = store_->RecordBenchmark(ops_, b);
  EXPECT_EQ(w.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(w.status().message().find("benchmark.gpu_name: no GPU named \"B300\""), std::string::npos);

  PriceRow unknown = P5Price(1, 1749081600);
  unknown.instance_type = "p9.huge";
  EXPECT_EQ(store_->SetPrice(ops_, unknown).status().code(), absl::StatusCode::kNotFound);

  // A GPU still used by instance types cannot go.
  w = store_->DeleteGpu(ops_, "T4");
  EXPECT_EQ(w.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(w.status().message().find("used by"), std::string::npos);

  EXPECT_EQ(store_->Snapshot()->catalog_version, v0);
  EXPECT_TRUE(store_->AuditLog(10)->empty());
}

constexpr char kSkyPilotCsv[] =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone\n"
    "g6.12xlarge,L4,4.0,48.0,192.0,\"{'Gpus': [{'Name': 'L4', 'Count': 4}]}\",4.6016,1.9,us-east-1,us-east-1a\n"
    "g6.12xlarge,L4,4.0,48.0,192.0,\"{'Gpus': [{'Name': 'L4', 'Count': 4}]}\",4.6016,1.7,us-east-1,us-east-1b\n"
    "p4de.24xlarge,A100-80GB,8.0,96.0,1152.0,,40.9657,,us-east-1,us-east-1a\n"
    "m5.large,,,2.0,8.0,,0.096,0.04,us-east-1,us-east-1a\n";

TEST_F(CatalogStoreTest, ImportsSkyPilotCsvAllOrNothing) {
  const int64_t v0 = store_->Snapshot()->catalog_version;
  absl::StatusOr<CsvImportResult> r = store_->ImportPricesCsv(
      {"ops", "ImportPricesCsv"}, "aws", kSkyPilotCsv, {"SkyPilot catalog export", "2025-11-01", ""}, 1761955200);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->errors.empty());
  // Two offers (availability zones fold into their region); p4de's 40.9657 is the shipped
  // price already in force, so only g6.12xlarge is written.
  EXPECT_EQ(r->rows_imported, 1);
  EXPECT_EQ(r->diff.unchanged, 1);
  EXPECT_EQ(r->rows_skipped, 1);  // the CPU instance
  EXPECT_EQ(r->write.catalog_version, v0 + 1);
  std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
  const InstanceRow* g6 = snap->FindInstance("aws", "g6.12xlarge", "us-east-1");
  ASSERT_NE(g6, nullptr);
  EXPECT_EQ(g6->gpu_name, "L4");
  EXPECT_EQ(g6->gpu_count, 4);
  EXPECT_DOUBLE_EQ(snap->PriceAt(*g6, PriceKind::kOnDemand, 0)->price_usd_per_hour, 4.6016);
  EXPECT_DOUBLE_EQ(snap->PriceAt(*g6, PriceKind::kSpot, 0)->price_usd_per_hour, 1.7);  // cheapest AZ
  EXPECT_EQ(snap->FindInstance("aws", "p4de.24xlarge", "us-east-1")->gpu_name, "A100-SXM4-80GB");
}

TEST_F(CatalogStoreTest, CsvWithBadRowsWritesNothingAndNumbersTheRows) {
  const int64_t v0 = store_->Snapshot()->catalog_version;
  const size_t prices_before = store_->Snapshot()->price_count;
  const std::string csv =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region,AvailabilityZone\n"
      "g6.xlarge,L4,1,4,16,0.8048,,us-east-1,us-east-1a\n"
      "x.large,Z999,1,4,16,1.0,,us-east-1,us-east-1a\n"
      "g6.2xlarge,L4,1,8,32,-3,,us-east-1,us-east-1a\n";
  absl::StatusOr<CsvImportResult> r = store_->ImportPricesCsv(ops_, "aws", csv, {"test", "2025-11-01", ""}, 1761955200);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->errors.size(), 2u);
  EXPECT_EQ(r->errors[0].row, 3);
  EXPECT_EQ(r->errors[0].field, "AcceleratorName");
  EXPECT_EQ(r->errors[1].row, 4);
  EXPECT_EQ(r->errors[1].field, "Price");
  EXPECT_EQ(store_->Snapshot()->catalog_version, v0);
  EXPECT_EQ(store_->Snapshot()->price_count, prices_before);
}

TEST_F(CatalogStoreTest, CsvMissingAColumnIsInvalidArgumentNamingIt) {
  absl::StatusOr<CsvImportResult> r =
      store_->ImportPricesCsv(ops_, "aws", "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Region\n",
                              {"test", "2025-11-01", ""}, 1761955200);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("missing column Price"), std::string::npos) << r.status();
}

TEST_F(CatalogStoreTest, BenchmarkRecordedAndDeletedFeedsCalibrationLists) {
  const size_t serving_before = store_->Snapshot()->serving_benchmarks.size();
  BenchmarkRow b;
  b.gpu_name = "L4";
  b.model_name = "Llama-3-8B";
  b.workload = core::WorkloadKind::kServing;
  b.precision = core::Precision::kFp8;
  b.gpu_count = 1;
  b.batch_size = 16;
  b.sequence_tokens = 512;
  b.output_tokens = 128;
  b.measured_value = 2.5;
  b.unit = core::MeasuredUnit::kRequestsPerSecond;
  b.source = {"ops load test 2025-11-20", "2025-11-20", "vLLM 0.6"};
  absl::StatusOr<WriteResult> w = store_->RecordBenchmark({"ops", "RecordBenchmark"}, b);
  ASSERT_TRUE(w.ok()) << w.status();
  std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
  ASSERT_EQ(snap->serving_benchmarks.size(), serving_before + 1);
  EXPECT_EQ(snap->serving_benchmarks.back().id, w->id);
  EXPECT_EQ(snap->serving_benchmarks.back().model.num_kv_heads, 8);  // resolved from the model
  ASSERT_TRUE(store_->DeleteBenchmark({"ops", "DeleteBenchmark"}, w->id).ok());
  EXPECT_EQ(store_->Snapshot()->serving_benchmarks.size(), serving_before);
  EXPECT_EQ(store_->DeleteBenchmark({"ops", "DeleteBenchmark"}, w->id).status().code(), absl::StatusCode::kNotFound);
}

TEST(CsvTest, QuotedFieldsAndErrors) {
  absl::StatusOr<std::vector<std::vector<std::string>>> rows = ParseCsv("a,\"b,c\",\"say \"\"hi\"\"\"\r\nx,,z\n");
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0], (std::vector<std::string>{"a", "b,c", "say \"hi\""}));
  EXPECT_EQ((*rows)[1], (std::vector<std::string>{"x", "", "z"}));
  EXPECT_EQ(ParseCsv("a,\"open\n").status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace capplan::store
