// Imports of public SkyPilot catalog rows file each offer under the card it carries (PCIe, SXM
// or NVL, and its memory), judge prices against a fixed reference band whatever was imported
// before, and write nothing when nothing changed. Every row below is copied verbatim from
// github.com/skypilot-org/skypilot-catalog at the commit named beside it.
#include <gtest/gtest.h>

#include <set>

#include "absl/strings/str_cat.h"
#include "server/store/catalog_store.h"
#include "temp_store.h"

namespace capplan::store {
namespace {

// 2026-12-01 00:00 UTC: after the shipped catalog's newest prices (2026-08-26, migration 0008).
constexpr int64_t kDec1 = 1796083200;

class PriceVariantTest : public TempStoreTest {
 protected:
  absl::StatusOr<CsvImportResult> Import(const std::string& provider, const std::string& csv,
                                         int64_t effective = kDec1) {
    ImportOptions o;
    o.partial = true;
    return store_->ImportPricesCsv({"ops", "ImportPricesCsv"}, provider, csv, {"SkyPilot catalog", "2026-12-01", ""},
                                   effective, o);
  }
  std::string Gpu(const std::string& provider, const std::string& type, const std::string& region) {
    const InstanceRow* i = store_->Snapshot()->FindInstance(provider, type, region);
    return i == nullptr ? "(none)" : i->gpu_name;
  }
  double OnDemand(const std::string& provider, const std::string& type, const std::string& region) {
    std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
    const InstanceRow* i = snap->FindInstance(provider, type, region);
    const PriceRow* p = i == nullptr ? nullptr : snap->PriceAt(*i, PriceKind::kOnDemand, 0);
    return p == nullptr ? -1 : p->price_usd_per_hour;
  }
  static std::string Rows(const std::vector<CsvRowError>& rows) {
    std::string out;
    for (const CsvRowError& e : rows) absl::StrAppend(&out, e.row, " ", e.field, ": ", e.message, "\n");
    return out;
  }
};

// catalogs/v7/lambda/vms.csv @ 11580132cea293395776b033c8533714d42abb4e
constexpr char kLambda[] =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n"
    "gpu_8x_v100,V100,8.0,92.0,448.0,4.4,us-east-1,\"{'Gpus': [{'Name': 'V100', 'Manufacturer': 'NVIDIA', 'Count': "
    "8.0, 'MemoryInfo': {'SizeInMiB': 16384}}], 'TotalGpuMemoryInMiB': 16384}\",\n"
    "gpu_1x_a6000,A6000,1.0,14.0,100.0,0.8,us-east-1,\"{'Gpus': [{'Name': 'A6000', 'Manufacturer': 'NVIDIA', "
    "'Count': 1.0, 'MemoryInfo': {'SizeInMiB': 49152}}], 'TotalGpuMemoryInMiB': 49152}\",\n"
    "gpu_1x_h100_pcie,H100,1.0,26.0,200.0,2.49,us-east-1,\"{'Gpus': [{'Name': 'H100', 'Manufacturer': 'NVIDIA', "
    "'Count': 1.0, 'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 81920}\",\n"
    "gpu_1x_h100_sxm5,H100,1.0,26.0,225.0,3.29,us-east-1,\"{'Gpus': [{'Name': 'H100', 'Manufacturer': 'NVIDIA', "
    "'Count': 1.0, 'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 81920}\",\n";

TEST_F(PriceVariantTest, LambdaPcieH100IsThePcieCard) {
  absl::StatusOr<CsvImportResult> r = Import("lambda", kLambda);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->errors.empty()) << Rows(r->errors);
  EXPECT_EQ(Gpu("lambda", "gpu_1x_h100_pcie", "us-east-1"), "H100-PCIe-80GB");
  EXPECT_EQ(Gpu("lambda", "gpu_1x_h100_sxm5", "us-east-1"), "H100-SXM5-80GB");
  EXPECT_EQ(Gpu("lambda", "gpu_8x_v100", "us-east-1"), "V100-SXM2-16GB");  // the shipped offer's GPU
  EXPECT_EQ(Gpu("lambda", "gpu_1x_a6000", "us-east-1"), "RTX-A6000");
  EXPECT_DOUBLE_EQ(OnDemand("lambda", "gpu_1x_h100_pcie", "us-east-1"), 2.49);
}

// catalogs/v6/fluidstack/vms.csv @ 002403bca05e2ab5110637448f3b1654c983d5d5
constexpr char kFluidstack[] =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n"
    "H100_PCIE_80GB::1,H100,1,28,180.0,2.89,UTAH_USA,\"{'Gpus': [{'Name': 'H100', 'Manufacturer': 'NVIDIA', "
    "'Count': 1, 'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 81920}\",\n"
    "A100_PCIE_80GB::1,A100-80GB,1,28,120.0,1.8,CANADA,\"{'Gpus': [{'Name': 'A100-80GB', 'Manufacturer': "
    "'NVIDIA', 'Count': 1, 'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 81920}\",\n"
    "H100_NVLINK_80GB::8,H100,8,252,1440.0,23.92,FINLAND,\"{'Gpus': [{'Name': 'H100', 'Manufacturer': 'NVIDIA', "
    "'Count': 8, 'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 655360}\",\n";

TEST_F(PriceVariantTest, FluidstackPcieTypesArePcieCardsAndNvlinkIsSxm) {
  absl::StatusOr<CsvImportResult> r = Import("fluidstack", kFluidstack);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->errors.empty()) << Rows(r->errors);
  EXPECT_EQ(Gpu("fluidstack", "H100_PCIE_80GB::1", "UTAH_USA"), "H100-PCIe-80GB");
  EXPECT_EQ(Gpu("fluidstack", "A100_PCIE_80GB::1", "CANADA"), "A100-PCIe-80GB");
  EXPECT_EQ(Gpu("fluidstack", "H100_NVLINK_80GB::8", "FINLAND"), "H100-SXM5-80GB");
}

// catalogs/v6/azure/vms.csv @ 098741e70562f65d7af1cceb81e33b284f742604
constexpr char kAzure[] =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,Generation\n"
    "Standard_NC6s_v3,V100,1,6.0,112,V100,3.06,0.3978,eastus,\"V1,V2\"\n"
    "Standard_NC24rs_v3,V100,4,24.0,448,V100,13.46,1.7498,eastus,\"V1,V2\"\n"
    "Standard_NC80adis_H100_v5,H100,2,80.0,640,H100,13.96,13.96,eastus,V2\n"
    "Standard_NC40ads_H100_v5,H100,1,40.0,320,H100,6.98,6.98,eastus,V2\n"
    "Standard_ND40rs_v2,V100-32GB,8,40.0,672,V100-32GB,22.032,2.42352,eastus,V2\n"
    "Standard_ND96asr_v4,A100,8,96.0,900,A100,27.197,2.99167,eastus,V2\n";

TEST_F(PriceVariantTest, AzureNcSeriesCarriesPcieAndNvlCardsAndNdSeriesSxm) {
  absl::StatusOr<CsvImportResult> r = Import("azure", kAzure);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->errors.empty()) << Rows(r->errors);
  // Azure NCv3-series page: NVIDIA Tesla V100 PCIe; NCads H100 v5: H100 NVL; NDv2: V100 SXM2
  // 32 GB; ND A100 v4: A100 SXM4 40 GB.
  EXPECT_EQ(Gpu("azure", "Standard_NC6s_v3", "eastus"), "V100-PCIe-16GB");
  EXPECT_EQ(Gpu("azure", "Standard_NC24rs_v3", "eastus"), "V100-PCIe-16GB");
  EXPECT_EQ(Gpu("azure", "Standard_NC80adis_H100_v5", "eastus"), "H100-NVL-94GB");
  EXPECT_EQ(Gpu("azure", "Standard_NC40ads_H100_v5", "eastus"), "H100-NVL-94GB");
  EXPECT_EQ(Gpu("azure", "Standard_ND40rs_v2", "eastus"), "V100-SXM2-32GB");
  EXPECT_EQ(Gpu("azure", "Standard_ND96asr_v4", "eastus"), "A100-SXM4-40GB");
}

// catalogs/v6/paperspace/vms.csv @ e520054145d1bce6748bcf18c9a25ddd6ea9a348: the memory is in
// the accelerator name; nothing names the form, so the family's default part stands.
constexpr char kPaperspace[] =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Region,SpotPrice,Price\n"
    "A100-80G,A100-80GB,1.0,12,80.0,A100-80GB,East Coast (NY2),,3.18\n"
    "V100-32G,V100-32GB,1.0,8,32.0,V100-32GB,East Coast (NY2),,2.30\n"
    "V100,V100,1.0,8,32.0,V100,East Coast (NY2),,2.29\n";

TEST_F(PriceVariantTest, PaperspaceMemorySizesComeFromTheAcceleratorName) {
  absl::StatusOr<CsvImportResult> r = Import("paperspace", kPaperspace);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->errors.empty()) << Rows(r->errors);
  std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
  auto gib = [&](const std::string& type) {
    const GpuRow* g = snap->FindGpu(Gpu("paperspace", type, "East Coast (NY2)"));
    return g == nullptr ? -1.0 : g->spec.memory_bytes / (1024.0 * 1024 * 1024);
  };
  EXPECT_DOUBLE_EQ(gib("A100-80G"), 80);
  EXPECT_DOUBLE_EQ(gib("V100-32G"), 32);
  EXPECT_DOUBLE_EQ(gib("V100"), 16);
}

// catalogs/v7/nebius/vms.csv @ 22fd1feab9aa97a155f0f5a9d39351d9aa8ae9be (its GpuInfo memory is
// the host's, 204800 MiB, so the variant never reads it).
constexpr char kNebius[] =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n"
    "gpu-h100-sxm_8gpu-128vcpu-1600gb,H100,8,128,1600,23.60,eu-north1,\"{'Gpus': [{'Name': 'H100', 'Manufacturer': "
    "'NVIDIA', 'Count': 8, 'MemoryInfo': {'SizeInMiB': 204800}}], 'TotalGpuMemoryInMiB': 1638400}\",10.00\n"
    "gpu-h200-sxm_8gpu-128vcpu-1600gb,H200,8,128,1600,28.00,eu-north1,\"{'Gpus': [{'Name': 'H200', 'Manufacturer': "
    "'NVIDIA', 'Count': 8, 'MemoryInfo': {'SizeInMiB': 204800}}], 'TotalGpuMemoryInMiB': 1638400}\",11.60\n";

TEST_F(PriceVariantTest, NebiusSxmTypesAreSxmBoards) {
  absl::StatusOr<CsvImportResult> r = Import("nebius", kNebius);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->errors.empty()) << Rows(r->errors);
  EXPECT_EQ(Gpu("nebius", "gpu-h100-sxm_8gpu-128vcpu-1600gb", "eu-north1"), "H100-SXM5-80GB");
  EXPECT_EQ(Gpu("nebius", "gpu-h200-sxm_8gpu-128vcpu-1600gb", "eu-north1"), "H200-SXM-141GB");
}

// catalogs/v7/runpod/vms.csv @ 0727c2bd9e77f91cb1377127c5f793a28cf01384
constexpr char kRunpod[] =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Region,SpotPrice,Price,"
    "AvailabilityZone\n"
    "1x_A100-80GB_SECURE,A100-80GB,1.0,8.0,80.0,A100-80GB,CA,1.19,1.64,CA-MTL-1\n"
    "1x_A100-80GB-SXM_SECURE,A100-80GB-SXM,1.0,16.0,80.0,A100-80GB-SXM,CA,,1.89,CA-MTL-1\n";

TEST_F(PriceVariantTest, RunpodNamesItsSxmPartsSoThePlainNameIsPcie) {
  absl::StatusOr<CsvImportResult> r = Import("runpod", kRunpod);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->errors.empty()) << Rows(r->errors);
  EXPECT_EQ(Gpu("runpod", "1x_A100-80GB_SECURE", "CA"), "A100-PCIe-80GB");
  EXPECT_EQ(Gpu("runpod", "1x_A100-80GB-SXM_SECURE", "CA"), "A100-SXM4-80GB");
}

// catalogs/v7/gcp/vms.csv @ 017e2502fb63c7a28757acd94002b2d6099d3e3d: A3 Edge host rows (with
// and without local SSD) whose H100 x 8 accelerator row is not in this excerpt, and an H100 x 1
// accelerator row in a zone where this excerpt lists no a3-highgpu-1g host.
constexpr char kGcpExcerpt[] =
    "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,AvailabilityZone,Price,SpotPrice\n"
    "a3-edgegpu-8g,208.0,1872.0,,,,us-central1,us-central1-a,9.46006,2.17547\n"
    "a3-edgegpu-8g-nolssd,208.0,1872.0,,,,us-central1,us-central1-a,9.46006,2.17547\n"
    ",,,H100,1,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 81920}}]},us-central1,us-central1-a,4.20076,2.253\n";

TEST_F(PriceVariantTest, GcpOffersThatCannotBePricedAreListedAsUnsupported) {
  absl::StatusOr<CsvImportResult> r = Import("gcp", kGcpExcerpt);
  ASSERT_TRUE(r.ok()) << r.status();
  // Nothing is dropped unseen: both host rows and the accelerator row are listed, and none of
  // them counts as a bad row (the refresh threshold leaves unsupported rows out).
  EXPECT_EQ(r->rows_skipped, 0);
  EXPECT_EQ(r->gpu_rows, 3);
  ASSERT_EQ(r->errors.size(), 3u) << Rows(r->errors);
  for (const CsvRowError& e : r->errors) EXPECT_TRUE(e.unsupported) << e.row << " " << e.message;
  EXPECT_NE(r->errors[0].message.find("a3-edgegpu-8g in us-central1-a"), std::string::npos) << Rows(r->errors);
  EXPECT_NE(r->errors[1].message.find("a3-edgegpu-8g-nolssd"), std::string::npos) << Rows(r->errors);
  EXPECT_NE(r->errors[2].message.find("no host VM"), std::string::npos) << Rows(r->errors);
}

TEST_F(PriceVariantTest, AnOfferThatNamesItsCardCorrectsAnEarlierSxmLabel) {
  // What an import before this change wrote: the Lambda PCIe H100 filed as SXM.
  const std::string sxm = absl::StrCat("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\n",
                                       "gpu_1x_h100_pcie,H100-SXM5-80GB,1,26,200,2.49,us-east-1\n");
  ASSERT_TRUE(Import("lambda", sxm).ok());
  ASSERT_EQ(Gpu("lambda", "gpu_1x_h100_pcie", "us-east-1"), "H100-SXM5-80GB");
  absl::StatusOr<CsvImportResult> r = Import("lambda", kLambda);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->errors.empty()) << Rows(r->errors);
  EXPECT_EQ(Gpu("lambda", "gpu_1x_h100_pcie", "us-east-1"), "H100-PCIe-80GB");
  EXPECT_NE(Rows(r->warnings).find("relabelled from H100-SXM5-80GB to H100-PCIe-80GB"), std::string::npos)
      << Rows(r->warnings);
}

// catalogs/v7/aws/vms.csv @ 001367d22a0033fac286a8c71aeac7109e431bcb: one GPU on a 64-vCPU host
// costs several times the smallest shape's per-GPU price, and is a real offer.
constexpr char kAwsHeader[] =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
    "AvailabilityZone\n";
constexpr char kAwsBigHosts[] =
    "g4dn.16xlarge,T4,1.0,64.0,256.0,\"{'Gpus': [{'Name': 'T4', 'Manufacturer': 'NVIDIA', 'Count': 1, "
    "'MemoryInfo': {'SizeInMiB': 16384}}], 'TotalGpuMemoryInMiB': 16384}\",4.352,1.130700,us-east-1,use1-az1\n"
    "g6.16xlarge,L4,1.0,64.0,256.0,\"{'Gpus': [{'Name': 'L4', 'Manufacturer': 'NVIDIA', 'Count': 1, 'MemoryInfo': "
    "{'SizeInMiB': 22888}}], 'TotalGpuMemoryInMiB': 22888}\",4.92637,1.942200,ap-northeast-1,apne1-az1\n";
constexpr char kAwsSmallHosts[] =
    "g4dn.xlarge,T4,1.0,4.0,16.0,\"{'Gpus': [{'Name': 'T4', 'Manufacturer': 'NVIDIA', 'Count': 1, 'MemoryInfo': "
    "{'SizeInMiB': 16384}}], 'TotalGpuMemoryInMiB': 16384}\",0.526,0.201000,us-east-1,use1-az1\n"
    "g6.16xlarge,L4,1.0,64.0,256.0,\"{'Gpus': [{'Name': 'L4', 'Manufacturer': 'NVIDIA', 'Count': 1, 'MemoryInfo': "
    "{'SizeInMiB': 22888}}], 'TotalGpuMemoryInMiB': 22888}\",3.3968,1.218400,us-east-1,use1-az1\n";

std::set<std::string> Offers(const CsvImportResult& r) {
  std::set<std::string> out;
  for (const OfferChange& c : r.diff.new_offers) out.insert(c.instance_type + "/" + c.region);
  for (const OfferChange& c : r.diff.changed) out.insert(c.instance_type + "/" + c.region);
  return out;
}

TEST_F(PriceVariantTest, ImportOrderDoesNotChangeWhatIsAccepted) {
  const std::string big = absl::StrCat(kAwsHeader, kAwsBigHosts);
  const std::string small = absl::StrCat(kAwsHeader, kAwsSmallHosts);
  absl::StatusOr<CsvImportResult> big_first = Import("aws", big);
  ASSERT_TRUE(big_first.ok()) << big_first.status();
  EXPECT_TRUE(big_first->errors.empty()) << Rows(big_first->errors);
  EXPECT_EQ(Offers(*big_first).size(), 2u);
  absl::StatusOr<CsvImportResult> small_second = Import("aws", small);
  ASSERT_TRUE(small_second.ok());
  EXPECT_TRUE(small_second->errors.empty()) << Rows(small_second->errors);

  TearDown();
  SetUp();
  absl::StatusOr<CsvImportResult> small_first = Import("aws", small);
  ASSERT_TRUE(small_first.ok());
  absl::StatusOr<CsvImportResult> big_second = Import("aws", big);
  ASSERT_TRUE(big_second.ok()) << big_second.status();
  EXPECT_TRUE(big_second->errors.empty()) << Rows(big_second->errors);
  EXPECT_EQ(Offers(*big_second), Offers(*big_first));
  EXPECT_EQ(Offers(*small_first), Offers(*small_second));
  EXPECT_DOUBLE_EQ(OnDemand("aws", "g6.16xlarge", "ap-northeast-1"), 4.92637);
}

TEST_F(PriceVariantTest, ReimportingAnUnchangedListWritesNothing) {
  ASSERT_TRUE(Import("lambda", kLambda).ok());
  const int64_t version = store_->Snapshot()->catalog_version;
  const size_t history = store_->Snapshot()->PriceHistory("lambda", "gpu_1x_h100_pcie", "us-east-1").size();
  absl::StatusOr<CsvImportResult> again = Import("lambda", kLambda, kDec1 + 86400);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_FALSE(again->written);
  EXPECT_EQ(again->rows_imported, 0);
  EXPECT_EQ(again->diff.unchanged, 4);
  EXPECT_TRUE(again->diff.changed.empty());
  EXPECT_EQ(store_->Snapshot()->catalog_version, version);
  EXPECT_EQ(store_->Snapshot()->PriceHistory("lambda", "gpu_1x_h100_pcie", "us-east-1").size(), history);
  // The staleness gauge reads the effective time of the current prices: unchanged too.
  const PriceRow* p = store_->Snapshot()->PriceHistory("lambda", "gpu_1x_h100_pcie", "us-east-1").back();
  EXPECT_EQ(p->effective_unix_seconds, kDec1);
}

TEST_F(PriceVariantTest, AnOlderListNeverReplacesANewerPrice) {
  ASSERT_TRUE(Import("lambda", kLambda).ok());  // effective 2026-12-01
  // A list dated 2026-11-01 with another price for gpu_1x_h100_pcie (an invented 2.99).
  const std::string older = absl::StrCat("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\n",
                                         "gpu_1x_h100_pcie,H100,1.0,26.0,200.0,2.99,us-east-1\n");
  const int64_t nov1 = kDec1 - 30 * 86400;
  absl::StatusOr<CsvImportResult> r = Import("lambda", older, nov1);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->diff.superseded, 1);
  EXPECT_DOUBLE_EQ(OnDemand("lambda", "gpu_1x_h100_pcie", "us-east-1"), 2.49);  // still current
  // The older list's price is history: a plan "as of" November sees it.
  std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
  const PriceRow* then =
      snap->PriceAt(*snap->FindInstance("lambda", "gpu_1x_h100_pcie", "us-east-1"), PriceKind::kOnDemand, nov1 + 1);
  ASSERT_NE(then, nullptr);
  EXPECT_DOUBLE_EQ(then->price_usd_per_hour, 2.99);
  EXPECT_NE(Rows(r->warnings).find("the newer price stays"), std::string::npos) << Rows(r->warnings);
  // Imported again: nothing new at its date, so nothing is written.
  const int64_t version = store_->Snapshot()->catalog_version;
  absl::StatusOr<CsvImportResult> again = Import("lambda", older, nov1);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->written);
  EXPECT_EQ(store_->Snapshot()->catalog_version, version);
}

// The per-GPU on-demand price of an offer (-1 when there is none).
double PerGpu(const CatalogSnapshot& snap, const std::string& provider, const std::string& type,
              const std::string& region) {
  const InstanceRow* i = snap.FindInstance(provider, type, region);
  const PriceRow* p = i == nullptr ? nullptr : snap.PriceAt(*i, PriceKind::kOnDemand, 0);
  return p == nullptr || i->gpu_count <= 0 ? -1 : p->price_usd_per_hour / i->gpu_count;
}

// The memory of the catalog GPU an offer was filed under, in GiB (-1 when there is none).
double GpuGib(const CatalogSnapshot& snap, const std::string& provider, const std::string& type,
              const std::string& region) {
  const InstanceRow* i = snap.FindInstance(provider, type, region);
  const GpuRow* g = i == nullptr ? nullptr : snap.FindGpu(i->gpu_name);
  return g == nullptr ? -1 : g->spec.memory_bytes / (1024.0 * 1024 * 1024);
}

// catalogs/v7/vast/vms.csv @ 00690e7666c721997de53f0594aef3d86d560545: the instance type names
// the card (H100_SXM, H100_NVL, A100_SXM4); GpuInfo's MemoryInfo is the offer's total.
constexpr char kVast[] =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region\n"
    "1x-H100_SXM-32-65536,H100,1,32,64.0,\"{'Gpus': [{'Name': 'H100', 'Count': 1, 'MemoryInfo': {'SizeInMiB': "
    "81559}}], 'TotalGpuMemoryInMiB': 81559}\",1.80,0.00,\"Czechia, CZ, EU\"\n"
    "2x-H100_NVL-32-65536,H100,2,32,64.0,\"{'Gpus': [{'Name': 'H100', 'Count': 2, 'MemoryInfo': {'SizeInMiB': "
    "191660}}], 'TotalGpuMemoryInMiB': 191660}\",4.53,0.00,\"California, US, NA\"\n"
    "1x-A100_SXM4-32-65536,A100,1,32,64.0,\"{'Gpus': [{'Name': 'A100', 'Count': 1, 'MemoryInfo': {'SizeInMiB': "
    "40960}}], 'TotalGpuMemoryInMiB': 40960}\",1.20,0.00,\"Germany, DE, EU\"\n"
    "1x-RTX_4090-32-65536,RTX4090,1,32,64.0,\"{'Gpus': [{'Name': 'RTX4090', 'Count': 1, 'MemoryInfo': "
    "{'SizeInMiB': 24564}}], 'TotalGpuMemoryInMiB': 24564}\",0.40,0.00,\"Spain, ES, EU\"\n"
    "2x-RTX_3090-32-65536,RTX3090,2,32,64.0,\"{'Gpus': [{'Name': 'RTX3090', 'Count': 2, 'MemoryInfo': "
    "{'SizeInMiB': 49152}}], 'TotalGpuMemoryInMiB': 49152}\",0.45,0.00,\"Quebec, CA, NA\"\n"
    "2x-RTX_6000Ada-32-65536,RTX6000-Ada,2,32,64.0,\"{'Gpus': [{'Name': 'RTX6000-Ada', 'Count': 2, 'MemoryInfo': "
    "{'SizeInMiB': 98280}}], 'TotalGpuMemoryInMiB': 98280}\",1.31,0.00,\"Estonia, EE, EU\"\n"
    "2x-A10-32-65536,A10,2,32,64.0,\"{'Gpus': [{'Name': 'A10', 'Count': 2, 'MemoryInfo': {'SizeInMiB': 46056}}], "
    "'TotalGpuMemoryInMiB': 46056}\",0.51,0.00,\"The Netherlands, NL, EU\"\n"
    "12x-RTX_4090-32-65536,RTX4090,12,32,64.0,\"{'Gpus': [{'Name': 'RTX4090', 'Count': 12, 'MemoryInfo': "
    "{'SizeInMiB': 294768}}], 'TotalGpuMemoryInMiB': 294768}\",3.84,0.00,\"Taiwan, TW, AS\"\n";

TEST_F(PriceVariantTest, VastInstanceTypesNameTheCard) {
  absl::StatusOr<CsvImportResult> r = Import("vast", kVast);
  ASSERT_TRUE(r.ok()) << r.status();
  // 12 GPUs is no shape the catalog has for the RTX 4090: that row alone is refused.
  ASSERT_EQ(r->errors.size(), 1u) << Rows(r->errors);
  EXPECT_EQ(r->errors[0].field, "AcceleratorCount") << Rows(r->errors);
  EXPECT_EQ(Gpu("vast", "1x-H100_SXM-32-65536", "Czechia, CZ, EU"), "H100-SXM5-80GB");
  EXPECT_EQ(Gpu("vast", "2x-H100_NVL-32-65536", "California, US, NA"), "H100-NVL-94GB");
  EXPECT_EQ(Gpu("vast", "1x-A100_SXM4-32-65536", "Germany, DE, EU"), "A100-SXM4-40GB");  // 40960 MiB
  EXPECT_EQ(Gpu("vast", "1x-RTX_4090-32-65536", "Spain, ES, EU"), "RTX-4090");
  EXPECT_EQ(Gpu("vast", "2x-RTX_3090-32-65536", "Quebec, CA, NA"), "RTX-3090");
  EXPECT_EQ(Gpu("vast", "2x-RTX_6000Ada-32-65536", "Estonia, EE, EU"), "RTX-6000-Ada");
  EXPECT_EQ(Gpu("vast", "2x-A10-32-65536", "The Netherlands, NL, EU"), "A10");
  EXPECT_EQ(Gpu("vast", "12x-RTX_4090-32-65536", "Taiwan, TW, AS"), "(none)");
  std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
  EXPECT_DOUBLE_EQ(PerGpu(*snap, "vast", "2x-H100_NVL-32-65536", "California, US, NA"), 4.53 / 2);
  EXPECT_DOUBLE_EQ(PerGpu(*snap, "vast", "2x-RTX_3090-32-65536", "Quebec, CA, NA"), 0.45 / 2);
  EXPECT_DOUBLE_EQ(PerGpu(*snap, "vast", "2x-A10-32-65536", "The Netherlands, NL, EU"), 0.51 / 2);
}

// catalogs/v7/cudo/vms.csv @ 16f33dd5f241850aaba3ac8aa1050e8ca7db4a7f: the instance type names
// "h100-nvl-pcie" (GpuInfo: 96256 MiB, the 94 GB NVL card) and the accelerator "H100-SXM"; the
// A100 types say "pcie" or "pci" and only GpuInfo gives their memory (81920 MiB per GPU).
constexpr char kCudo[] =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n"
    "epyc-genoa-h100-nvl-pcie_1x2v4gb,H100,1.0,2,4,2.4994,au-melbourne-1,\"{'Gpus': [{'Name': 'H100', "
    "'Manufacturer': 'NVIDIA', 'Count': '1.0', 'MemoryInfo': {'SizeInMiB': 96256}}], 'TotalGpuMemoryInMiB': "
    "96256}\",\n"
    "epyc-genoa-l40s-compute_1x2v4gb,L40S,1.0,2,4,0.8994,au-melbourne-1,\"{'Gpus': [{'Name': 'L40S', "
    "'Manufacturer': 'NVIDIA', 'Count': '1.0', 'MemoryInfo': {'SizeInMiB': 49152}}], 'TotalGpuMemoryInMiB': "
    "49152}\",\n"
    "sapphire-rapids-h100_1x2v4gb,H100-SXM,1.0,2,4,1.8214000000000001,no-kristiansand-1,\"{'Gpus': [{'Name': "
    "'H100-SXM', 'Manufacturer': 'NVIDIA', 'Count': '1.0', 'MemoryInfo': {'SizeInMiB': 81920}}], "
    "'TotalGpuMemoryInMiB': 81920}\",\n"
    "epyc-genoa-h100-nvl-pcie_2x8v16gb,H100,2.0,8,16,5.057600000000001,au-melbourne-1,\"{'Gpus': [{'Name': "
    "'H100', 'Manufacturer': 'NVIDIA', 'Count': '2.0', 'MemoryInfo': {'SizeInMiB': 96256}}], "
    "'TotalGpuMemoryInMiB': 192512}\",\n"
    "epyc-genoa-a100-pcie_1x2v4gb,A100,1.0,2,4,1.5294,no-kristiansand-1,\"{'Gpus': [{'Name': 'A100', "
    "'Manufacturer': 'NVIDIA', 'Count': '1.0', 'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': "
    "81920}\",\n"
    "intel-ice-lake-a100-pci_2x8v16gb,A100,2.0,8,16,2.7936,us-carlsbad-1,\"{'Gpus': [{'Name': 'A100', "
    "'Manufacturer': 'NVIDIA', 'Count': '2.0', 'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': "
    "163840}\",\n";

TEST_F(PriceVariantTest, CudoTypesNameTheFormAndGpuInfoTheMemory) {
  absl::StatusOr<CsvImportResult> r = Import("cudo", kCudo);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->errors.empty()) << Rows(r->errors);
  EXPECT_EQ(Gpu("cudo", "epyc-genoa-h100-nvl-pcie_1x2v4gb", "au-melbourne-1"), "H100-NVL-94GB");
  EXPECT_EQ(Gpu("cudo", "epyc-genoa-h100-nvl-pcie_2x8v16gb", "au-melbourne-1"), "H100-NVL-94GB");
  EXPECT_EQ(Gpu("cudo", "sapphire-rapids-h100_1x2v4gb", "no-kristiansand-1"), "H100-SXM5-80GB");
  EXPECT_EQ(Gpu("cudo", "epyc-genoa-l40s-compute_1x2v4gb", "au-melbourne-1"), "L40S");
  EXPECT_EQ(Gpu("cudo", "epyc-genoa-a100-pcie_1x2v4gb", "no-kristiansand-1"), "A100-PCIe-80GB");
  EXPECT_EQ(Gpu("cudo", "intel-ice-lake-a100-pci_2x8v16gb", "us-carlsbad-1"), "A100-PCIe-80GB");
  std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
  EXPECT_DOUBLE_EQ(PerGpu(*snap, "cudo", "epyc-genoa-h100-nvl-pcie_2x8v16gb", "au-melbourne-1"), 5.057600000000001 / 2);
  EXPECT_DOUBLE_EQ(PerGpu(*snap, "cudo", "sapphire-rapids-h100_1x2v4gb", "no-kristiansand-1"), 1.8214000000000001);
}

// catalogs/v6/oci/vms.csv @ 6e3a02d25e04a22b358168a5f95f8ac620424683 (the AWS v7 column order).
// GpuInfo gives each card's memory: A100 40960 and 81920 MiB, V100 and P100 16384 MiB.
constexpr char kOci[] =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
    "AvailabilityZone\n"
    "VM.Standard.E4.Flex$_2_8,,,2,8,,0.037,0.0185,eu-amsterdam-1,eu-amsterdam-1-AD-1\n"
    "VM.GPU.A10.1,A10,1,30,240,\"{'Gpus': [{'Name': 'A10', 'Manufacturer': 'NVIDIA', 'Count': 1, 'MemoryInfo': "
    "{'SizeInMiB': 24576}}], 'TotalGpuMemoryInMiB': 24576}\",2,,eu-amsterdam-1,eu-amsterdam-1-AD-1\n"
    "BM.GPU.A10.4,A10,4,128,1024,\"{'Gpus': [{'Name': 'A10', 'Manufacturer': 'NVIDIA', 'Count': 4, 'MemoryInfo': "
    "{'SizeInMiB': 24576}}], 'TotalGpuMemoryInMiB': 98304}\",8,,eu-amsterdam-1,eu-amsterdam-1-AD-1\n"
    "VM.GPU2.1,P100,1,24,72,\"{'Gpus': [{'Name': 'P100', 'Manufacturer': 'NVIDIA', 'Count': 1, 'MemoryInfo': "
    "{'SizeInMiB': 16384}}], 'TotalGpuMemoryInMiB': 16384}\",1.275,,eu-amsterdam-1,eu-amsterdam-1-AD-1\n"
    "VM.GPU3.1,V100,1,12,90,\"{'Gpus': [{'Name': 'V100', 'Manufacturer': 'NVIDIA', 'Count': 1, 'MemoryInfo': "
    "{'SizeInMiB': 16384}}], 'TotalGpuMemoryInMiB': 16384}\",2.95,,eu-amsterdam-1,eu-amsterdam-1-AD-1\n"
    "BM.GPU.A100-v2.8,A100-80GB,8,256,2048,\"{'Gpus': [{'Name': 'A100-80GB', 'Manufacturer': 'NVIDIA', 'Count': "
    "8, 'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 655360}\",32,,eu-amsterdam-1,"
    "eu-amsterdam-1-AD-1\n"
    "BM.GPU4.8,A100,8,128,2048,\"{'Gpus': [{'Name': 'A100', 'Manufacturer': 'NVIDIA', 'Count': 8, 'MemoryInfo': "
    "{'SizeInMiB': 40960}}], 'TotalGpuMemoryInMiB': 327680}\",24.4,,eu-amsterdam-1,eu-amsterdam-1-AD-1\n";

TEST_F(PriceVariantTest, OciShapesGetTheirCardsMemoryAndPerGpuPrice) {
  absl::StatusOr<CsvImportResult> r = Import("oci", kOci);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->errors.empty()) << Rows(r->errors);
  const std::string region = "eu-amsterdam-1";
  EXPECT_EQ(Gpu("oci", "VM.GPU.A10.1", region), "A10");
  EXPECT_EQ(Gpu("oci", "VM.GPU2.1", region), "P100-PCIe-16GB");
  EXPECT_EQ(Gpu("oci", "VM.Standard.E4.Flex$_2_8", region), "(none)");  // no GPU: not an offer
  std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
  EXPECT_DOUBLE_EQ(GpuGib(*snap, "oci", "BM.GPU4.8", region), 40);
  EXPECT_DOUBLE_EQ(GpuGib(*snap, "oci", "BM.GPU.A100-v2.8", region), 80);
  EXPECT_DOUBLE_EQ(GpuGib(*snap, "oci", "VM.GPU3.1", region), 16);
  EXPECT_DOUBLE_EQ(PerGpu(*snap, "oci", "BM.GPU.A10.4", region), 8.0 / 4);
  EXPECT_DOUBLE_EQ(PerGpu(*snap, "oci", "BM.GPU4.8", region), 24.4 / 8);
  EXPECT_DOUBLE_EQ(PerGpu(*snap, "oci", "BM.GPU.A100-v2.8", region), 32.0 / 8);
  EXPECT_DOUBLE_EQ(PerGpu(*snap, "oci", "VM.GPU2.1", region), 1.275);
}

// catalogs/v5/ibm/vms.csv @ 6cd128a59e84c66224f42d960f1c72e0662e7c72 (the AWS v7 column order):
// zones of one region repeat the offer, and some rows leave the Region cell empty.
constexpr char kIbm[] =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
    "AvailabilityZone\n"
    "gx2-8x64x1v100,V100,1.0,8,64,V100,2.497,,us-south,us-south-1\n"
    "gx2-8x64x1v100,V100,1.0,8,64,V100,2.497,,us-south,us-south-2\n"
    "gx2-8x64x1v100,V100,1.0,8,64,V100,2.821,,jp-tok,jp-tok-1\n"
    "gx2-8x64x1v100,V100,1.0,8,64,V100,2.821,,,jp-tok-2\n"
    "bx2-8x32,,,8,32,,0.384,,us-east,us-east-1\n";

TEST_F(PriceVariantTest, IbmZonesMergeAndGx2CarriesTheV100PcieCard) {
  absl::StatusOr<CsvImportResult> r = Import("ibm", kIbm);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->errors.size(), 1u) << Rows(r->errors);
  EXPECT_EQ(r->errors[0].field, "Region") << Rows(r->errors);
  // IBM Cloud docs, Instance profiles (GPU): gx2 profiles carry V100 PCIe 16GB cards.
  EXPECT_EQ(Gpu("ibm", "gx2-8x64x1v100", "us-south"), "V100-PCIe-16GB");
  std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
  EXPECT_DOUBLE_EQ(GpuGib(*snap, "ibm", "gx2-8x64x1v100", "us-south"), 16);
  EXPECT_DOUBLE_EQ(PerGpu(*snap, "ibm", "gx2-8x64x1v100", "us-south"), 2.497);
  EXPECT_DOUBLE_EQ(PerGpu(*snap, "ibm", "gx2-8x64x1v100", "jp-tok"), 2.821);
  EXPECT_EQ(Gpu("ibm", "bx2-8x32", "us-east"), "(none)");
}

// catalogs/v6/do/vms.csv @ 1fbe7331dd1f13d70ac4f249bb7ee7a659fc6b6a (GpuInfo in lower case).
constexpr char kDo[] =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n"
    "g-2vcpu-8gb,,,2,8.0,0.09375,nyc1,,\n"
    "gpu-h100x1-80gb,H100,1,20,240.0,6.74,tor1,\"{'gpus': [{'name': 'h100', 'manufacturer': 'nvidia', 'count': "
    "1.0, 'memoryinfo': {'sizeinmib': 81559}}], 'totalgpumemoryinmib': 81559}\",\n"
    "gpu-h100x8-640gb,H100,8,160,1920.0,47.60,tor1,\"{'gpus': [{'name': 'h100', 'manufacturer': 'nvidia', "
    "'count': 8.0, 'memoryinfo': {'sizeinmib': 81559}}], 'totalgpumemoryinmib': 81559}\",\n";

TEST_F(PriceVariantTest, DigitalOceanH100DropletsGetTheirPerGpuPrice) {
  absl::StatusOr<CsvImportResult> r = Import("do", kDo);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->errors.empty()) << Rows(r->errors);
  std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
  EXPECT_DOUBLE_EQ(GpuGib(*snap, "do", "gpu-h100x1-80gb", "tor1"), 80);
  EXPECT_DOUBLE_EQ(GpuGib(*snap, "do", "gpu-h100x8-640gb", "tor1"), 80);
  EXPECT_DOUBLE_EQ(PerGpu(*snap, "do", "gpu-h100x1-80gb", "tor1"), 6.74);
  EXPECT_DOUBLE_EQ(PerGpu(*snap, "do", "gpu-h100x8-640gb", "tor1"), 47.60 / 8);
  EXPECT_EQ(Gpu("do", "g-2vcpu-8gb", "nyc1"), "(none)");
}

TEST_F(PriceVariantTest, ARowReadInCentsIsOutsideTheNewBands) {
  // The Vast 1x RTX 4090 and OCI P100 rows above, each price written in cents: 100x the row.
  const std::string vast =
      absl::StrCat("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region\n",
                   "1x-RTX_4090-32-65536,RTX4090,1,32,64.0,,40,,\"Spain, ES, EU\"\n");
  absl::StatusOr<CsvImportResult> r = Import("vast", vast);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->errors.size(), 1u) << Rows(r->errors);
  EXPECT_EQ(r->errors[0].field, "Price");
  EXPECT_NE(r->errors[0].message.find("RTX-4090"), std::string::npos) << Rows(r->errors);
  const std::string oci = absl::StrCat("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\n",
                                       "VM.GPU2.1,P100,1,24,72,127.5,eu-amsterdam-1\n");
  r = Import("oci", oci);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->errors.size(), 1u) << Rows(r->errors);
  EXPECT_EQ(r->errors[0].field, "Price");
  EXPECT_NE(r->errors[0].message.find("P100-PCIe-16GB"), std::string::npos) << Rows(r->errors);
}

}  // namespace
}  // namespace capplan::store
