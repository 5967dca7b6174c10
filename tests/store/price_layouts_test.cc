// The three public SkyPilot layouts import as published (fixtures/README.md names the rows'
// source): partial imports take every good row and list the others with their reasons,
// strict imports write nothing, dry runs return the diff, the audit row records it, and
// the sanity rules refuse what would make a plan wrong.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "server/store/catalog_store.h"
#include "temp_store.h"

namespace capplan::store {
namespace {

std::string Fixture(const std::string& name) {
  std::ifstream in(std::string(CAPPLAN_SKYPILOT_FIXTURES) + "/" + name);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_FALSE(s.str().empty()) << name;
  return s.str();
}

// The fixtures were read 2026-12-01 (fixtures/README.md); their prices take effect then, after
// the shipped catalog's newest rows (2026-08-26, migration 0008).
constexpr int64_t kFixturesReadUnixSeconds = 1796083200;

class PriceLayoutTest : public TempStoreTest {
 protected:
  absl::StatusOr<CsvImportResult> Import(const std::string& provider, const std::string& csv, bool partial,
                                         bool dry_run = false, bool force = false) {
    ImportOptions o;
    o.partial = partial;
    o.dry_run = dry_run;
    o.force = force;
    return store_->ImportPricesCsv({"ops", "ImportPricesCsv"}, provider, csv, {"SkyPilot catalog", "2026-12-01", ""},
                                   kFixturesReadUnixSeconds, o);
  }
  double Price(const std::string& provider, const std::string& type, const std::string& region, PriceKind kind) {
    std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
    const InstanceRow* i = snap->FindInstance(provider, type, region);
    if (i == nullptr) return -1;
    const PriceRow* p = snap->PriceAt(*i, kind, 0);
    return p == nullptr ? -1 : p->price_usd_per_hour;
  }
  static std::string Rows(const std::vector<CsvRowError>& errors) {
    std::string out;
    for (const CsvRowError& e : errors) absl::StrAppend(&out, e.row, " ", e.field, ": ", e.message, "\n");
    return out;
  }
};

TEST_F(PriceLayoutTest, AwsV7ImportsEveryPricedOfferAndListsTheRowsWithNoPrice) {
  const std::string csv = Fixture("aws_v7_vms.csv");
  const int64_t v0 = store_->Snapshot()->catalog_version;
  absl::StatusOr<CsvImportResult> strict = Import("aws", csv, false);
  ASSERT_TRUE(strict.ok()) << strict.status();
  EXPECT_EQ(strict->errors.size(), 2u) << Rows(strict->errors);
  EXPECT_EQ(store_->Snapshot()->catalog_version, v0);  // strict: all or nothing

  absl::StatusOr<CsvImportResult> r = Import("aws", csv, true);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->layout, PriceLayout::kAwsV7);
  EXPECT_EQ(r->gpu_rows, 9);
  EXPECT_EQ(r->rows_skipped, 2);  // a1.2xlarge and r3.2xlarge: CPU instances
  ASSERT_EQ(r->errors.size(), 2u) << Rows(r->errors);
  // p5e.48xlarge rows 9 and 10 publish a spot price but no on-demand price.
  EXPECT_EQ(r->errors[0].row, 9);
  EXPECT_EQ(r->errors[1].row, 10);
  EXPECT_EQ(r->errors[0].field, "Price");
  EXPECT_NE(r->errors[0].message.find("empty"), std::string::npos);
  EXPECT_EQ(r->rows_imported, 4);
  EXPECT_TRUE(r->written);
  EXPECT_EQ(store_->Snapshot()->catalog_version, v0 + 1);
  // p4de repeats use1-az4 with and without a spot price: one offer, the cheapest spot (az6).
  EXPECT_DOUBLE_EQ(Price("aws", "p4de.24xlarge", "us-east-1", PriceKind::kOnDemand), 40.96575);
  EXPECT_DOUBLE_EQ(Price("aws", "p4de.24xlarge", "us-east-1", PriceKind::kSpot), 5.8394);
  EXPECT_DOUBLE_EQ(Price("aws", "p5.48xlarge", "ca-central-1", PriceKind::kOnDemand), 113.068);
  EXPECT_DOUBLE_EQ(Price("aws", "p5.48xlarge", "ca-central-1", PriceKind::kSpot), 113.068);  // equal is fine
  EXPECT_EQ(store_->Snapshot()->FindInstance("aws", "p5e.48xlarge", "us-east-2"), nullptr);
  EXPECT_EQ(store_->Snapshot()->FindInstance("aws", "p5en.48xlarge", "us-east-1")->gpu_name, "H200-SXM-141GB");
  // Against the shipped catalog (which has p5 ca-central-1 and p5en us-east-1 at the 2026-08-26
  // list's 63.296): nothing is new; p4de's on-demand price moves from the shipped 40.9657, p5
  // ca-central-1 and p5en take this list's prices, and p5 us-east-1 gains a spot price.
  EXPECT_EQ(r->diff.new_offers.size(), 0u);
  ASSERT_EQ(r->diff.changed.size(), 4u);
  EXPECT_EQ(r->diff.changed[0].instance_type, "p4de.24xlarge");
  EXPECT_DOUBLE_EQ(r->diff.changed[0].old_on_demand_usd_per_hour, 40.9657);
  EXPECT_DOUBLE_EQ(r->diff.changed[0].new_on_demand_usd_per_hour, 40.96575);
}

TEST_F(PriceLayoutTest, GcpV7AddsEachAcceleratorRowToItsHostVmRow) {
  absl::StatusOr<CsvImportResult> r = Import("gcp", Fixture("gcp_v7_vms.csv"), true);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->layout, PriceLayout::kGcpV7);
  EXPECT_EQ(r->gpu_rows, 7);       // the accelerator rows
  EXPECT_EQ(r->rows_skipped, 8);   // six host and CPU VM rows, the TPU, n1-highmem-8
  EXPECT_EQ(r->rows_imported, 3);  // a2-ultragpu-8g, a3-highgpu-1g, a3-highgpu-4g in us-central1
  // a3-highgpu-1g: host 1.18251 + one H100 4.20076; spot 0.27193 + 2.253. The host row alone
  // would have been a fifth of the price.
  EXPECT_NEAR(Price("gcp", "a3-highgpu-1g", "us-central1", PriceKind::kOnDemand), 5.38327, 1e-9);
  EXPECT_NEAR(Price("gcp", "a3-highgpu-1g", "us-central1", PriceKind::kSpot), 2.52493, 1e-9);
  const InstanceRow* a3 = store_->Snapshot()->FindInstance("gcp", "a3-highgpu-4g", "us-central1");
  ASSERT_NE(a3, nullptr);
  EXPECT_EQ(a3->gpu_name, "H100-SXM5-80GB");
  EXPECT_EQ(a3->gpu_count, 4);
  EXPECT_EQ(a3->vcpus, 104);
  EXPECT_NEAR(Price("gcp", "a3-highgpu-4g", "us-central1", PriceKind::kOnDemand), 4.73003 + 16.80304, 1e-9);
  // The shipped a2-ultragpu-8g (40.5503, 2024 pricing page) becomes host 8.79698 + 8 x A100
  // 80GB 14.76958.
  EXPECT_NEAR(Price("gcp", "a2-ultragpu-8g", "us-central1", PriceKind::kOnDemand), 23.56656, 1e-9);
  ASSERT_EQ(r->errors.size(), 2u) << Rows(r->errors);
  // B200 is in the catalog (migration 0008), but the fixture has no a4-highgpu-8g host row:
  // nothing sells the accelerator in that zone, so the row is unsupported, not bad (it does
  // not count against the refresh's skipped-rows threshold).
  EXPECT_EQ(r->errors[0].row, 10);
  EXPECT_TRUE(r->errors[0].unsupported);
  EXPECT_TRUE(r->errors[1].unsupported);
  EXPECT_NE(r->errors[0].message.find("a4-highgpu-8g"), std::string::npos) << r->errors[0].message;
  EXPECT_EQ(r->errors[1].row, 14);  // H100-MEGA: the fixture has no a3-megagpu-8g host row
  EXPECT_NE(r->errors[1].message.find("a3-megagpu-8g"), std::string::npos) << r->errors[1].message;
}

TEST_F(PriceLayoutTest, AzureV6SkipsUnknownGpusAndImpossibleShapesAndKeepsShippedGpus) {
  const std::string csv = Fixture("azure_v6_vms.csv");
  absl::StatusOr<CsvImportResult> strict = Import("azure", csv, false);
  ASSERT_TRUE(strict.ok()) << strict.status();
  EXPECT_FALSE(strict->errors.empty());  // K80 and friends: strict refuses the whole file
  absl::StatusOr<CsvImportResult> r = Import("azure", csv, true);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->layout, PriceLayout::kAzureV6);
  EXPECT_EQ(r->gpu_rows, 10);
  EXPECT_EQ(r->rows_skipped, 2);  // Standard_B1s, and NC16ads_A10_v4 listed without its GPU
  ASSERT_EQ(r->errors.size(), 5u) << Rows(r->errors);
  int unsupported = 0;
  for (const CsvRowError& e : r->errors) unsupported += e.unsupported ? 1 : 0;
  EXPECT_EQ(unsupported, 4);  // K80, M60, Radeon MI25 twice (the shipped catalog has A10)
  // ND96isr_H100_v5 is listed with 12 H100s (the VM has 8): refused, so H100 does not look
  // a third cheaper per GPU; the shipped offer keeps 8 GPUs at 98.32.
  EXPECT_EQ(r->errors[1].row, 9);
  EXPECT_EQ(r->errors[1].field, "AcceleratorCount");
  const InstanceRow* nd = store_->Snapshot()->FindInstance("azure", "Standard_ND96isr_H100_v5", "eastus");
  EXPECT_EQ(nd->gpu_count, 8);
  // The NC series carries PCIe cards (Azure's NC A100 v4 and NCads H100 v5 pages: A100 PCIe,
  // H100 NVL): "A100-80GB" and "H100" do not make them SXM.
  EXPECT_EQ(store_->Snapshot()->FindInstance("azure", "Standard_NC24ads_A100_v4", "eastus")->gpu_name,
            "A100-PCIe-80GB");
  EXPECT_EQ(store_->Snapshot()->FindInstance("azure", "Standard_NC40ads_H100_v5", "eastus")->gpu_name, "H100-NVL-94GB");
  EXPECT_EQ(store_->Snapshot()->FindInstance("azure", "Standard_ND96amsr_A100_v4", "eastus")->gpu_name,
            "A100-SXM4-80GB");
  EXPECT_DOUBLE_EQ(Price("azure", "Standard_NC40ads_H100_v5", "eastus", PriceKind::kOnDemand), 6.98);
  EXPECT_DOUBLE_EQ(Price("azure", "Standard_NC4as_T4_v3", "eastus", PriceKind::kSpot), 0.062699);
  EXPECT_DOUBLE_EQ(Price("azure", "Standard_NV36ads_A10_v5", "eastus", PriceKind::kOnDemand), 3.2);
}

TEST_F(PriceLayoutTest, DryRunReturnsTheDiffAndWritesNothing) {
  const int64_t v0 = store_->Snapshot()->catalog_version;
  absl::StatusOr<CsvImportResult> r = Import("gcp", Fixture("gcp_v7_vms.csv"), true, true);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->written);
  EXPECT_EQ(store_->Snapshot()->catalog_version, v0);
  EXPECT_EQ(store_->Snapshot()->FindInstance("gcp", "a3-highgpu-1g", "us-central1"), nullptr);
  EXPECT_EQ(r->diff.new_offers.size(), 2u);  // a3-highgpu-1g and -4g
  ASSERT_EQ(r->diff.changed.size(), 1u);     // a2-ultragpu-8g: shipped 40.5503
  EXPECT_DOUBLE_EQ(r->diff.changed[0].old_on_demand_usd_per_hour, 40.5503);
  EXPECT_NEAR(r->diff.changed[0].new_on_demand_usd_per_hour, 23.56656, 1e-9);
  EXPECT_EQ(r->errors.size(), 2u);
}

TEST_F(PriceLayoutTest, TheAuditRowRecordsWhatTheImportChanged) {
  ASSERT_TRUE(Import("aws", Fixture("aws_v7_vms.csv"), true).ok());
  absl::StatusOr<std::vector<AuditEntry>> log = store_->AuditLog(1);
  ASSERT_TRUE(log.ok() && log->size() == 1u);
  const std::string& json = log->front().after_json;
  for (const char* part : {"\"layout\":\"skypilot-aws-v7\"", "\"mode\":\"partial\"", "\"offers_new\":0",
                           "\"rows_skipped\":2", "\"instance_type\":\"p5en.48xlarge\"",
                           "\"old_on_demand_usd_per_hour\":40.9657", "\"row\":9,\"field\":\"Price\""}) {
    EXPECT_NE(json.find(part), std::string::npos) << part << " in " << json;
  }
}

// The rows below are deliberately wrong figures, each breaking one rule.
constexpr char kColumns[] = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region\n";

TEST_F(PriceLayoutTest, SanityRulesRefuseWithReasonsUnlessForced) {
  const std::string csv = absl::StrCat(kColumns,
                                       "free.xlarge,L4,1,4,16,0,,us-east-1\n"             // price 0
                                       "cheap.48xlarge,H100,8,192,2048,0.5,,us-east-1\n"  // 6 cents per H100-hour
                                       "p4de.24xlarge,H100-SXM5-80GB,8,96,1152,98.32,,us-east-1\n"  // relabel
                                       "odd.xlarge,L4,3,4,16,2.4,,us-east-1\n"                      // 3 x L4
                                       "g6.xlarge,L4,1,4,16,0.8048,1.7,us-east-1\n");  // spot above on-demand
  absl::StatusOr<CsvImportResult> r = Import("aws", csv, true);
  ASSERT_TRUE(r.ok()) << r.status();
  const std::string why = Rows(r->errors);
  ASSERT_EQ(r->errors.size(), 4u) << why;
  EXPECT_NE(why.find("2 Price: free.xlarge in us-east-1: 0 USD per hour"), std::string::npos) << why;
  EXPECT_NE(why.find("3 Price: cheap.48xlarge in us-east-1: 0.0625 USD per GPU-hour"), std::string::npos) << why;
  EXPECT_NE(why.find("4 AcceleratorName: p4de.24xlarge in us-east-1: the catalog's offer has GPU A100-SXM4-80GB"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("5 AcceleratorCount: odd.xlarge in us-east-1: 3 x L4"), std::string::npos) << why;
  // The good row is in, without its impossible spot price: the spot price in force is still the
  // shipped one (migration 0016: 0.3879, SkyPilot aws/vms.csv v7 @ 001367d, use1-az2).
  EXPECT_DOUBLE_EQ(Price("aws", "g6.xlarge", "us-east-1", PriceKind::kOnDemand), 0.8048);
  EXPECT_DOUBLE_EQ(Price("aws", "g6.xlarge", "us-east-1", PriceKind::kSpot), 0.3879);
  EXPECT_NE(Rows(r->warnings).find("6 SpotPrice: spot price 1.7 is above the on-demand price 0.8048"),
            std::string::npos);

  absl::StatusOr<CsvImportResult> forced = Import("aws", csv, true, false, true);
  ASSERT_TRUE(forced.ok()) << forced.status();
  EXPECT_TRUE(forced->errors.empty()) << Rows(forced->errors);
  EXPECT_EQ(store_->Snapshot()->FindInstance("aws", "p4de.24xlarge", "us-east-1")->gpu_name, "H100-SXM5-80GB");
  EXPECT_NE(Rows(forced->warnings).find("accepted with force"), std::string::npos);
}

TEST_F(PriceLayoutTest, AnAliasNeverRelabelsAnOfferTheCatalogHas) {
  // An offer filed under the PCIe card by its catalog name (prices invented), then a list that
  // names only the family ("H100": nothing in the row says PCIe or SXM): the offer keeps its
  // card rather than becoming the family's SXM part.
  ASSERT_TRUE(Import("acme", absl::StrCat(kColumns, "x1.large,H100-PCIe-80GB,1,16,128,2.5,,r1\n"), false).ok());
  absl::StatusOr<CsvImportResult> r = Import("acme", absl::StrCat(kColumns, "x1.large,H100,1,16,128,2.6,,r1\n"), false);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->errors.empty()) << Rows(r->errors);
  EXPECT_EQ(store_->Snapshot()->FindInstance("acme", "x1.large", "r1")->gpu_name, "H100-PCIe-80GB");
  EXPECT_NE(Rows(r->warnings).find("keeps its catalog GPU H100-PCIe-80GB"), std::string::npos) << Rows(r->warnings);
}

TEST_F(PriceLayoutTest, ConflictingRowsDropTheirOfferAndKeepTheRest) {
  // g6.xlarge at 0.8048 (the shipped AWS price) twice in one region with another price.
  absl::StatusOr<CsvImportResult> r = Import("aws",
                                             absl::StrCat(kColumns,
                                                          "g6.xlarge,L4,1,4,16,0.8048,,eu-west-1\n"
                                                          "g6.xlarge,L4,1,4,16,0.9,,eu-west-1\n"
                                                          "g6.xlarge,L4,1,4,16,0.8048,,eu-west-2\n"),
                                             true);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->errors.size(), 1u);
  EXPECT_NE(r->errors[0].message.find("rows 2 and 3"), std::string::npos);
  EXPECT_EQ(store_->Snapshot()->FindInstance("aws", "g6.xlarge", "eu-west-1"), nullptr);
  EXPECT_NE(store_->Snapshot()->FindInstance("aws", "g6.xlarge", "eu-west-2"), nullptr);
}

// 50,000 AWS v7 rows, one L4 offer per region at the shipped g6.xlarge price (0.8048, AWS
// on-demand page). Prints the time; the goal is under 2 s on a CI machine.
TEST_F(PriceLayoutTest, FiftyThousandRowImportTime) {
  std::string csv =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
      "AvailabilityZone\n";
  for (int i = 0; i < 50000; ++i) {
    absl::StrAppend(&csv, "g6.xlarge,L4,1.0,4.0,16.0,\"{'Gpus': [{'Name': 'L4', 'Count': 1}]}\",0.8048,0.3,r-", i,
                    ",r-", i, "a\n");
  }
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  absl::StatusOr<CsvImportResult> r = Import("bulk", csv, true);
  const double cpu_seconds = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->rows_imported, 50000);
  // CPU time too: on a shared machine the wall time mostly measures the neighbours.
  std::printf("50,000-row AWS v7 import (partial, 50,000 new offers): %.3f s wall, %.3f s CPU\n", seconds, cpu_seconds);
}

}  // namespace
}  // namespace capplan::store
