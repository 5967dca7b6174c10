// Reference bands added from public rows (server/store/price_bands.cc): the rows they come from
// import, and the same rows with a price in the wrong unit are refused. Every row below is copied
// verbatim from github.com/skypilot-org/skypilot-catalog at the commit named beside it.
#include "server/store/price_bands.h"

#include <gtest/gtest.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "server/store/catalog_store.h"
#include "temp_store.h"

namespace capplan::store {
namespace {

constexpr int64_t kDec2 = 1796169600;  // 2026-12-02 00:00 UTC, when the rows were read

// catalogs/v8/oci/vms.csv @ 0588751183820cf2dab5c8a89447e8aac9f73fd5 (AWS v7 column order).
constexpr char kOciHeader[] =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
    "AvailabilityZone\n";
constexpr char kOciMi300xHead[] =
    "BM.GPU.MI300X.8,MI300X,8,224,2048,\"{'Gpus': [{'Name': 'MI300X', 'Manufacturer': 'AMD', 'Count': 8, "
    "'MemoryInfo': {'SizeInMiB': 196608}}], 'TotalGpuMemoryInMiB': 1572864}\",";
constexpr char kOciMi300xTail[] = ",,af-casablanca-1,AF-CASABLANCA-1-AD-1\n";

// catalogs/v8/runpod/vms.csv @ 01acdfd419ce5afae1289ff14825b893ced0c196 (RunPod's column order;
// its GpuInfo states memory in GB).
constexpr char kRunpod[] =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Region,SpotPrice,Price,AvailabilityZone,GpuInfo\n"
    "2x_MI300X_SECURE,MI300X,2.0,48.0,566.0,US,4.78,4.78,US-TX-1,\"{'Gpus': [{'Name': 'MI300X', 'Manufacturer': "
    "'AMD', 'Count': 2, 'MemoryInfo': {'SizeInMiB': 192}}], 'TotalGpuMemoryInMiB': 384}\"\n";

class PriceBandTest : public TempStoreTest {
 protected:
  absl::StatusOr<CsvImportResult> Import(const std::string& provider, const std::string& csv) {
    ImportOptions o;
    o.partial = true;
    return store_->ImportPricesCsv({"ops", "ImportPricesCsv"}, provider, csv, {"SkyPilot catalog", "2026-12-02", ""},
                                   kDec2, o);
  }
  double OnDemand(const std::string& provider, const std::string& type, const std::string& region) {
    std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
    const InstanceRow* i = snap->FindInstance(provider, type, region);
    const PriceRow* p = i == nullptr ? nullptr : snap->PriceAt(*i, PriceKind::kOnDemand, 0);
    return p == nullptr ? -1 : p->price_usd_per_hour;
  }
};

TEST_F(PriceBandTest, Mi300xHasABandFromTwoPublicRows) {
  const PriceBand* b = ReferencePriceBand("MI300X");
  ASSERT_NE(b, nullptr);
  EXPECT_DOUBLE_EQ(b->low_usd_per_gpu_hour, 4.78 / 2);   // RunPod 2x_MI300X_SECURE
  EXPECT_DOUBLE_EQ(b->high_usd_per_gpu_hour, 48.0 / 8);  // OCI BM.GPU.MI300X.8
}

TEST_F(PriceBandTest, TheMi300xRowsTheBandComesFromImport) {
  absl::StatusOr<CsvImportResult> r = Import("oci", absl::StrCat(kOciHeader, kOciMi300xHead, "48", kOciMi300xTail));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->errors.empty());
  EXPECT_DOUBLE_EQ(OnDemand("oci", "BM.GPU.MI300X.8", "af-casablanca-1"), 48);
  EXPECT_EQ(store_->Snapshot()->FindInstance("oci", "BM.GPU.MI300X.8", "af-casablanca-1")->gpu_name, "MI300X");
  r = Import("runpod", kRunpod);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->errors.empty());
  EXPECT_DOUBLE_EQ(OnDemand("runpod", "2x_MI300X_SECURE", "US"), 4.78);
}

TEST_F(PriceBandTest, AnMi300xRowInCentsIsRefused) {
  // The OCI row with its price written in cents: 100x, $600 per GPU-hour.
  absl::StatusOr<CsvImportResult> r = Import("oci", absl::StrCat(kOciHeader, kOciMi300xHead, "4800", kOciMi300xTail));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->errors.size(), 1u);
  EXPECT_EQ(r->errors[0].field, "Price");
  EXPECT_NE(r->errors[0].message.find("MI300X"), std::string::npos) << r->errors[0].message;
  EXPECT_EQ(OnDemand("oci", "BM.GPU.MI300X.8", "af-casablanca-1"), -1);
}

}  // namespace
}  // namespace capplan::store
