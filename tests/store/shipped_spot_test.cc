// The shipped AWS spot prices (migration 0016): each is the cheapest availability zone of the
// public SkyPilot rows it cites, below the offer's on-demand price, and in force only from the
// day it was read. Rows below are copied verbatim from github.com/skypilot-org/skypilot-catalog
// catalogs/v7/aws/vms.csv @ 001367d22a0033fac286a8c71aeac7109e431bcb.
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

class ShippedSpotTest : public TempStoreTest {
 protected:
  const PriceRow* Price(const std::string& type, const std::string& region, PriceKind kind, int64_t as_of = 0) {
    snap_ = store_->Snapshot();
    const InstanceRow* i = snap_->FindInstance("aws", type, region);
    return i == nullptr ? nullptr : snap_->PriceAt(*i, kind, as_of);
  }
  std::shared_ptr<const CatalogSnapshot> snap_;
};

TEST_F(ShippedSpotTest, EachSpotPriceIsBelowOnDemandAndCitesItsFile) {
  std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
  int spot_rows = 0;
  for (const InstanceRow& i : snap->instances) {
    const PriceRow* spot = snap->PriceAt(i, PriceKind::kSpot, 0);
    if (spot == nullptr) continue;
    ++spot_rows;
    const PriceRow* on_demand = snap->PriceAt(i, PriceKind::kOnDemand, 0);
    ASSERT_NE(on_demand, nullptr) << i.instance_type << " " << i.region;
    EXPECT_GT(spot->price_usd_per_hour, 0) << i.instance_type << " " << i.region;
    EXPECT_LT(spot->price_usd_per_hour, on_demand->price_usd_per_hour) << i.instance_type << " " << i.region;
    EXPECT_TRUE(absl::StrContains(spot->source.citation, "aws/vms.csv @ 001367d")) << spot->source.citation;
    EXPECT_EQ(spot->effective_unix_seconds, kRead);
  }
  // 13 instance types of migration 0002 in us-east-1 and us-west-2.
  EXPECT_EQ(spot_rows, 26);
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

}  // namespace
}  // namespace capplan::store
