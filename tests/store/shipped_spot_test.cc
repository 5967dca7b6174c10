// The shipped spot prices: AWS (migration 0016), each the cheapest availability zone of the
// public SkyPilot rows it cites, and GCP (migration 0017), each host + accelerator of the rows it
// cites; all below the offer's on-demand price and in force only from the day they were read.
// Rows below are copied verbatim from github.com/skypilot-org/skypilot-catalog:
// catalogs/v7/aws/vms.csv @ 001367d22a0033fac286a8c71aeac7109e431bcb and catalogs/v7/gcp/vms.csv
// @ 017e2502fb63c7a28757acd94002b2d6099d3e3d.
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "server/store/catalog_store.h"
#include "temp_store.h"

namespace capplan::store {
namespace {

// 2026-12-02 00:00 UTC: when migration 0016's rows were read and take effect.
constexpr int64_t kRead = 1796169600;
constexpr int64_t kDayBefore = kRead - 24 * 3600;
// 2026-12-07 00:00 UTC: likewise for migration 0017.
constexpr int64_t kGcpRead = 1796601600;

constexpr char kHeader[] =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
    "AvailabilityZone\n";
constexpr char kT4Info[] =
    "\"{'Gpus': [{'Name': 'T4', 'Manufacturer': 'NVIDIA', 'Count': 1, 'MemoryInfo': {'SizeInMiB': 16384}}], "
    "'TotalGpuMemoryInMiB': 16384}\"";
constexpr char kA10gInfo[] =
    "\"{'Gpus': [{'Name': 'A10G', 'Manufacturer': 'NVIDIA', 'Count': 4, 'MemoryInfo': {'SizeInMiB': 22888}}], "
    "'TotalGpuMemoryInMiB': 91552}\"";

// g4dn.xlarge in the five us-east-1 zones (cheapest: use1-az5, 0.1845) and g5.12xlarge in the
// three us-west-2 zones (cheapest: usw2-az1, 1.8005).
std::string PublicRows() {
  std::string csv = kHeader;
  for (const char* tail :
       {"0.526,0.201000,us-east-1,use1-az1", "0.526,0.186000,us-east-1,use1-az2", "0.526,0.186900,us-east-1,use1-az4",
        "0.526,0.184500,us-east-1,use1-az5", "0.526,0.187200,us-east-1,use1-az6"}) {
    absl::StrAppend(&csv, "g4dn.xlarge,T4,1.0,4.0,16.0,", kT4Info, ",", tail, "\n");
  }
  for (const char* tail : {"5.672,1.800500,us-west-2,usw2-az1", "5.672,2.015100,us-west-2,usw2-az2",
                           "5.672,1.938300,us-west-2,usw2-az3"}) {
    absl::StrAppend(&csv, "g5.12xlarge,A10G,4.0,48.0,192.0,", kA10gInfo, ",", tail, "\n");
  }
  return csv;
}

constexpr char kGcpHeader[] =
    "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,AvailabilityZone,Price,SpotPrice\n";

// a2-highgpu-1g with its A100 in us-east1's one zone, and g2-standard-4 with its L4 in the three
// us-central1 zones: host rows first, accelerator rows after, in the file's order.
std::string GcpPublicRows() {
  std::string csv = kGcpHeader;
  absl::StrAppend(&csv, "a2-highgpu-1g,12.0,85.0,,,,us-east1,us-east1-b,0.73948,0.29576\n");
  for (const char* zone : {"us-central1-a", "us-central1-b", "us-central1-c"}) {
    absl::StrAppend(&csv, "g2-standard-4,4.0,16.0,,,,us-central1,", zone, ",0.14679,0.05874\n");
  }
  absl::StrAppend(&csv,
                  ",,,A100,1,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 40960}}]},us-east1,us-east1-b,2.93391,1.1472\n");
  for (const char* zone : {"us-central1-a", "us-central1-b", "us-central1-c"}) {
    absl::StrAppend(&csv, ",,,L4,1,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 24576}}]},us-central1,", zone,
                    ",0.56004,0.2231\n");
  }
  return csv;
}

class ShippedSpotTest : public TempStoreTest {
 protected:
  const PriceRow* Price(const std::string& type, const std::string& region, PriceKind kind, int64_t as_of = 0,
                        const std::string& provider = "aws") {
    snap_ = store_->Snapshot();
    const InstanceRow* i = snap_->FindInstance(provider, type, region);
    return i == nullptr ? nullptr : snap_->PriceAt(*i, kind, as_of);
  }
  std::shared_ptr<const CatalogSnapshot> snap_;
};

TEST_F(ShippedSpotTest, EachSpotPriceIsBelowOnDemandAndCitesItsFile) {
  std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
  int aws_rows = 0, gcp_rows = 0;
  for (const InstanceRow& i : snap->instances) {
    const PriceRow* spot = snap->PriceAt(i, PriceKind::kSpot, 0);
    if (spot == nullptr) continue;
    const PriceRow* on_demand = snap->PriceAt(i, PriceKind::kOnDemand, 0);
    ASSERT_NE(on_demand, nullptr) << i.instance_type << " " << i.region;
    EXPECT_GT(spot->price_usd_per_hour, 0) << i.instance_type << " " << i.region;
    EXPECT_LT(spot->price_usd_per_hour, on_demand->price_usd_per_hour) << i.instance_type << " " << i.region;
    if (i.provider == "gcp") {
      ++gcp_rows;
      EXPECT_TRUE(absl::StrContains(spot->source.citation, "gcp/vms.csv @ 017e250")) << spot->source.citation;
      EXPECT_EQ(spot->effective_unix_seconds, kGcpRead);
      continue;
    }
    ++aws_rows;
    EXPECT_EQ(i.provider, "aws");
    EXPECT_TRUE(absl::StrContains(spot->source.citation, "aws/vms.csv @ 001367d")) << spot->source.citation;
    EXPECT_EQ(spot->effective_unix_seconds, kRead);
  }
  // 13 instance types of migration 0002 in us-east-1 and us-west-2.
  EXPECT_EQ(aws_rows, 26);
  // g2-standard-4, a2-highgpu-1g and a2-highgpu-8g of migration 0002 in us-central1 and us-east1.
  EXPECT_EQ(gcp_rows, 6);
}

TEST_F(ShippedSpotTest, TheSpotPriceIsTheCheapestZoneOfThePublicRows) {
  const PriceRow* g4dn = Price("g4dn.xlarge", "us-east-1", PriceKind::kSpot);
  ASSERT_NE(g4dn, nullptr);
  EXPECT_DOUBLE_EQ(g4dn->price_usd_per_hour, 0.1845);
  // The importer folds the same rows to the same prices: nothing new to write.
  ImportOptions o;
  o.partial = true;
  o.dry_run = true;
  absl::StatusOr<CsvImportResult> r = store_->ImportPricesCsv({"ops", "ImportPricesCsv"}, "aws", PublicRows(),
                                                              {"SkyPilot catalog", "2026-12-02", ""}, kRead, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->errors.empty());
  EXPECT_EQ(r->diff.unchanged, 2);
  EXPECT_TRUE(r->diff.changed.empty());
  EXPECT_TRUE(r->diff.new_offers.empty());
}

TEST_F(ShippedSpotTest, SpotPricesAreHistoryBeforeTheyWereRead) {
  EXPECT_NE(Price("p4d.24xlarge", "us-west-2", PriceKind::kSpot), nullptr);
  EXPECT_EQ(Price("p4d.24xlarge", "us-west-2", PriceKind::kSpot, kDayBefore), nullptr);
  EXPECT_NE(Price("p4d.24xlarge", "us-west-2", PriceKind::kOnDemand, kDayBefore), nullptr);
}

TEST_F(ShippedSpotTest, OffersWhoseFileListsAnotherOnDemandPriceShipNoSpotPrice) {
  // p5.48xlarge: the file's p5 prices predate the June 2025 cut that migration 0015 ships.
  EXPECT_EQ(Price("p5.48xlarge", "us-east-1", PriceKind::kSpot), nullptr);
  EXPECT_EQ(Price("p5.48xlarge", "us-west-2", PriceKind::kSpot), nullptr);
  // p4d in a region migration 0008 priced after the cut.
  EXPECT_EQ(Price("p4d.24xlarge", "ap-northeast-1", PriceKind::kSpot), nullptr);
}

TEST_F(ShippedSpotTest, GcpSpotPricesAreHostPlusAcceleratorOfThePublicRows) {
  // g2-standard-4 in us-central1: host 0.05874 + L4 0.2231 = 0.28184 (on-demand 0.14679 +
  // 0.56004 = 0.70683, the price migration 0002 holds).
  const PriceRow* g2 = Price("g2-standard-4", "us-central1", PriceKind::kSpot, 0, "gcp");
  ASSERT_NE(g2, nullptr);
  EXPECT_DOUBLE_EQ(g2->price_usd_per_hour, 0.05874 + 0.2231);
  EXPECT_DOUBLE_EQ(g2->price_usd_per_hour, 0.28184);
  // a2-highgpu-1g in us-east1: host 0.29576 + A100 1.1472; a2-highgpu-8g: 2.36604 + 9.1776.
  EXPECT_DOUBLE_EQ(Price("a2-highgpu-1g", "us-east1", PriceKind::kSpot, 0, "gcp")->price_usd_per_hour, 1.44296);
  EXPECT_DOUBLE_EQ(Price("a2-highgpu-8g", "us-central1", PriceKind::kSpot, 0, "gcp")->price_usd_per_hour, 11.54364);
  // The importer joins the same rows to the same spot prices. g2-standard-4's on-demand sum is
  // the catalog's: unchanged. a2-highgpu-1g's, 0.73948 + 2.93391 = 3.67339, is 0.000087 under
  // 0002's 3.673477, so its on-demand row would change; its spot price would not.
  ImportOptions o;
  o.partial = true;
  o.dry_run = true;
  absl::StatusOr<CsvImportResult> r = store_->ImportPricesCsv({"ops", "ImportPricesCsv"}, "gcp", GcpPublicRows(),
                                                              {"SkyPilot catalog", "2026-12-07", ""}, kGcpRead, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->errors.empty());
  EXPECT_EQ(r->diff.unchanged, 1);
  EXPECT_TRUE(r->diff.new_offers.empty());
  ASSERT_EQ(r->diff.changed.size(), 1u);
  const OfferChange& a2 = r->diff.changed[0];
  EXPECT_EQ(a2.instance_type, "a2-highgpu-1g");
  EXPECT_DOUBLE_EQ(a2.old_on_demand_usd_per_hour, 3.673477);
  EXPECT_DOUBLE_EQ(a2.new_on_demand_usd_per_hour, 0.73948 + 2.93391);
  EXPECT_DOUBLE_EQ(a2.old_spot_usd_per_hour, 1.44296);
  EXPECT_DOUBLE_EQ(a2.new_spot_usd_per_hour, 1.44296);
  ASSERT_EQ(r->diff.writes.size(), 1u);
  EXPECT_TRUE(r->diff.writes[0].on_demand);
  EXPECT_FALSE(r->diff.writes[0].spot);
}

TEST_F(ShippedSpotTest, GcpOffersWhoseFileListsAnotherOnDemandPriceShipNoSpotPrice) {
  // a2-ultragpu-8g and a3-highgpu-8g: the file's on-demand sums (23.56656, 43.06615 in
  // us-central1) are not 0002's (40.5503, 88.2549); neither is listed in us-east1.
  for (const char* region : {"us-central1", "us-east1"}) {
    EXPECT_EQ(Price("a2-ultragpu-8g", region, PriceKind::kSpot, 0, "gcp"), nullptr) << region;
    EXPECT_EQ(Price("a3-highgpu-8g", region, PriceKind::kSpot, 0, "gcp"), nullptr) << region;
  }
  // Read 2026-12-07: history before then has no GCP spot price.
  EXPECT_EQ(Price("g2-standard-4", "us-east1", PriceKind::kSpot, kGcpRead - 1, "gcp"), nullptr);
  EXPECT_NE(Price("g2-standard-4", "us-east1", PriceKind::kSpot, kGcpRead, "gcp"), nullptr);
}

}  // namespace
}  // namespace capplan::store
