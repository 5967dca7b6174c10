// Header recognition for the public SkyPilot catalogs, and the GCP accelerator-to-VM table.
#include "server/store/price_layouts.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace capplan::store {

namespace {

// Column orders as published (skypilot-org/skypilot-catalog, read 2026-12-01).
const std::vector<std::string>& AwsV7Header() {
  static const std::vector<std::string> kHeader = {
      "InstanceType", "AcceleratorName", "AcceleratorCount", "vCPUs",  "MemoryGiB",
      "GpuInfo",      "Price",           "SpotPrice",        "Region", "AvailabilityZone"};
  return kHeader;
}
const std::vector<std::string>& GcpV7Header() {
  static const std::vector<std::string> kHeader = {
      "InstanceType", "vCPUs",  "MemoryGiB",        "AcceleratorName", "AcceleratorCount",
      "GpuInfo",      "Region", "AvailabilityZone", "Price",           "SpotPrice"};
  return kHeader;
}
const std::vector<std::string>& AzureV6Header() {
  static const std::vector<std::string> kHeader = {
      "InstanceType", "AcceleratorName", "AcceleratorCount", "vCPUs",  "MemoryGiB",
      "GpuInfo",      "Price",           "SpotPrice",        "Region", "Generation"};
  return kHeader;
}

bool SameHeader(const std::vector<std::string>& header, const std::vector<std::string>& want) {
  if (header.size() != want.size()) return false;
  for (size_t i = 0; i < want.size(); ++i) {
    if (absl::StripAsciiWhitespace(header[i]) != want[i]) return false;
  }
  return true;
}

// GCP VM types with a fixed GPU count, by accelerator and count. The pairing follows the
// GCP machine-type documentation (A2, A3, G2, A4 series; A3 Edge is the A3 High board for
// edge regions); G2 sells one L4 in several sizes. A type with the suffix kNoLocalSsd is the
// same VM without local SSD.
constexpr absl::string_view kNoLocalSsd = "-nolssd";

struct GcpHost {
  const char* accelerator;
  int count;
  const char* instance_type;
};
constexpr GcpHost kGcpHosts[] = {
    {"A100", 1, "a2-highgpu-1g"},       {"A100", 2, "a2-highgpu-2g"},       {"A100", 4, "a2-highgpu-4g"},
    {"A100", 8, "a2-highgpu-8g"},       {"A100", 16, "a2-megagpu-16g"},     {"A100-80GB", 1, "a2-ultragpu-1g"},
    {"A100-80GB", 2, "a2-ultragpu-2g"}, {"A100-80GB", 4, "a2-ultragpu-4g"}, {"A100-80GB", 8, "a2-ultragpu-8g"},
    {"H100", 1, "a3-highgpu-1g"},       {"H100", 2, "a3-highgpu-2g"},       {"H100", 4, "a3-highgpu-4g"},
    {"H100", 8, "a3-highgpu-8g"},       {"H100", 8, "a3-edgegpu-8g"},       {"H100-MEGA", 8, "a3-megagpu-8g"},
    {"H200", 8, "a3-ultragpu-8g"},      {"B200", 8, "a4-highgpu-8g"},       {"L4", 1, "g2-standard-4"},
    {"L4", 1, "g2-standard-8"},         {"L4", 1, "g2-standard-12"},        {"L4", 1, "g2-standard-16"},
    {"L4", 1, "g2-standard-32"},        {"L4", 2, "g2-standard-24"},        {"L4", 4, "g2-standard-48"},
    {"L4", 8, "g2-standard-96"},
};

}  // namespace

const char* PriceLayoutName(PriceLayout layout) {
  switch (layout) {
    case PriceLayout::kAwsV7:
      return "skypilot-aws-v7";
    case PriceLayout::kGcpV7:
      return "skypilot-gcp-v7";
    case PriceLayout::kAzureV6:
      return "skypilot-azure-v6";
    case PriceLayout::kColumns:
      break;
  }
  return "skypilot-columns";
}

PriceLayout DetectPriceLayout(const std::vector<std::string>& header) {
  if (SameHeader(header, AwsV7Header())) return PriceLayout::kAwsV7;
  if (SameHeader(header, GcpV7Header())) return PriceLayout::kGcpV7;
  if (SameHeader(header, AzureV6Header())) return PriceLayout::kAzureV6;
  return PriceLayout::kColumns;
}

const std::map<std::string, std::string>& AcceleratorAliases() {
  static const std::map<std::string, std::string> kAliases = {
      {"A100", "A100-SXM4-40GB"},
      {"A100-80GB", "A100-SXM4-80GB"},
      {"H100", "H100-SXM5-80GB"},
      // GCP's A3 Mega: the same H100 SXM with more network (the VM type names that).
      {"H100-MEGA", "H100-SXM5-80GB"},
      {"H200", "H200-SXM-141GB"},
      {"B200", "B200-SXM-180GB"},  // HGX B200 boards (AWS p6-b200, GCP a4-highgpu-8g)
      {"P100", "P100-PCIe-16GB"},  // GCP's P100 is the 16 GB PCIe card
      {"V100", "V100-SXM2-16GB"},
      {"V100-32GB", "V100-SXM2-32GB"},
      {"A6000", "RTX-A6000"},
      {"RTX6000-Ada", "RTX-6000-Ada"},
      {"RTX4090", "RTX-4090"},
      {"RTX3090", "RTX-3090"},
      {"MI300X", "MI300X"},
      {"A10G", "A10G"},
      {"T4", "T4"},
      {"L4", "L4"},
      {"L40S", "L40S"},
      {"P40", "P40"},
  };
  return kAliases;
}

std::vector<std::string> GcpHostTypes(absl::string_view accelerator, int count) {
  std::vector<std::string> out;
  for (const GcpHost& h : kGcpHosts) {
    if (accelerator == h.accelerator && count == h.count) {
      out.emplace_back(h.instance_type);
      out.push_back(absl::StrCat(h.instance_type, kNoLocalSsd));
    }
  }
  return out;
}

bool LooksLikeGcpGpuHost(absl::string_view instance_type) {
  for (const char* series : {"a2-", "a3-", "a4-", "a4x-", "g2-", "g4-"}) {
    if (absl::StartsWith(instance_type, series)) return true;
  }
  return false;
}

bool IsGcpGpuHost(absl::string_view instance_type) {
  absl::ConsumeSuffix(&instance_type, kNoLocalSsd);
  for (const GcpHost& h : kGcpHosts) {
    if (instance_type == h.instance_type) return true;
  }
  return false;
}

bool IsGcpAttachableGpu(absl::string_view accelerator) {
  for (const char* name : {"T4", "V100", "P100", "P4", "K80"}) {
    if (accelerator == name) return true;
  }
  return false;
}

bool IsTpu(absl::string_view accelerator) { return absl::StartsWith(accelerator, "tpu-"); }

}  // namespace capplan::store
