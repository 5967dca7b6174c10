// Reference bands added from public rows (server/store/price_bands.cc): the rows they come from
// import (or, for GCP's P4 sold alone, are refused as no offer), and the same rows with a price in
// the wrong unit are refused. Every row below is copied verbatim from
// github.com/skypilot-org/skypilot-catalog at the commit named beside it.
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

// catalogs/azure/instances.csv @ 5940ede7074d3fc5a668be7902bb20d1fb7ef13d (the header of the
// Azure v6 layout). Azure's ND-series carries the Tesla P40.
constexpr char kAzureHeader[] =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,Generation\n";
constexpr char kAzureNd6s[] = "Standard_ND6s,P40,1,6.0,112,P40,2.07,0.217557,eastus,\"V1,V2\"\n";
constexpr char kAzureNd24rsHead[] = "Standard_ND24rs,P40,4,24.0,448,P40,";
constexpr char kAzureNd24rsTail[] = ",0.957251,eastus,\"V1,V2\"\n";

// catalogs/v7/gcp/vms.csv @ 017e2502fb63c7a28757acd94002b2d6099d3e3d: the P4 is priced alone,
// without a host VM, in accelerator-only rows.
constexpr char kGcpHeader[] =
    "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,AvailabilityZone,Price,SpotPrice\n";
constexpr char kGcpP4[] =
    ",,,P4,1,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 8192}}]},us-central1,us-central1-a,0.6,0.24\n"
    ",,,P4,1,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 8192}}]},us-west2,us-west2-b,0.72,0.118\n";

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

TEST_F(PriceBandTest, P40HasABandFromAzureNdRows) {
  const PriceBand* b = ReferencePriceBand("P40");
  ASSERT_NE(b, nullptr);
  EXPECT_DOUBLE_EQ(b->low_usd_per_gpu_hour, 2.07);        // Azure Standard_ND6s, 1 x P40
  EXPECT_DOUBLE_EQ(b->high_usd_per_gpu_hour, 9.108 / 4);  // Azure Standard_ND24rs, 4 x P40
  EXPECT_NE(std::string(b->source).find("5940ede7"), std::string::npos) << b->source;
}

TEST_F(PriceBandTest, TheP40RowsTheBandComesFromImportAndOneInCentsIsRefused) {
  absl::StatusOr<CsvImportResult> r =
      Import("azure", absl::StrCat(kAzureHeader, kAzureNd6s, kAzureNd24rsHead, "9.108", kAzureNd24rsTail));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->errors.empty());
  EXPECT_DOUBLE_EQ(OnDemand("azure", "Standard_ND6s", "eastus"), 2.07);
  EXPECT_DOUBLE_EQ(OnDemand("azure", "Standard_ND24rs", "eastus"), 9.108);
  EXPECT_EQ(store_->Snapshot()->FindInstance("azure", "Standard_ND24rs", "eastus")->gpu_name, "P40");
  // The ND24rs row with its price in cents: $227.70 per GPU-hour, 100x the band's top.
  r = Import("azure", absl::StrCat(kAzureHeader, kAzureNd24rsHead, "910.8", kAzureNd24rsTail));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->errors.size(), 1u);
  EXPECT_EQ(r->errors[0].field, "Price");
  EXPECT_NE(r->errors[0].message.find("P40"), std::string::npos) << r->errors[0].message;
  EXPECT_DOUBLE_EQ(OnDemand("azure", "Standard_ND24rs", "eastus"), 9.108);
}

TEST_F(PriceBandTest, P4HasABandFromGcpAcceleratorRows) {
  const PriceBand* b = ReferencePriceBand("P4");
  ASSERT_NE(b, nullptr);
  EXPECT_DOUBLE_EQ(b->low_usd_per_gpu_hour, 0.6);    // GCP P4 alone, us-central1
  EXPECT_DOUBLE_EQ(b->high_usd_per_gpu_hour, 0.72);  // GCP P4 alone, us-west2
  EXPECT_NE(std::string(b->source).find("017e2502"), std::string::npos) << b->source;
  // The rows it comes from price no VM (GCP attaches a P4 to any N1 VM), so they are a
  // reference, not offers: the import refuses them and says why.
  absl::StatusOr<CsvImportResult> r = Import("gcp", absl::StrCat(kGcpHeader, kGcpP4));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->errors.size(), 2u);
  EXPECT_NE(r->errors[0].message.find("any N1 VM"), std::string::npos) << r->errors[0].message;
}

TEST_F(PriceBandTest, GpusWithoutAPublicPriceHaveNoBand) {
  // No public list read prices these as the import would file them (docs/catalog.md).
  for (const char* gpu : {"A100-PCIe-40GB", "V100-PCIe-32GB", "Intel-Max-1550"}) {
    EXPECT_EQ(ReferencePriceBand(gpu), nullptr) << gpu;
  }
}

}  // namespace
}  // namespace capplan::store
