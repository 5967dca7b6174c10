// The public SkyPilot price catalogs capplan imports, recognised from their header: the
// column orders of skypilot-org/skypilot-catalog (catalogs/v7/aws, catalogs/v7/gcp,
// catalogs/v6/azure), GCP's separately priced accelerators and the accelerator names.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace capplan::store {

enum class PriceLayout {
  kColumns,  // any order of the SkyPilot columns; every row a whole VM (the layout before v7)
  kAwsV7,    // ...,GpuInfo,Price,SpotPrice,Region,AvailabilityZone; GPU rows are whole VMs
  kGcpV7,    // InstanceType,vCPUs,MemoryGiB,...: host VM rows plus accelerator-only rows
  kAzureV6,  // ...,Price,SpotPrice,Region,Generation; no availability zones
};

// "skypilot-columns", "skypilot-aws-v7", "skypilot-gcp-v7", "skypilot-azure-v6".
const char* PriceLayoutName(PriceLayout layout);

// The layout whose exact header (names trimmed, in order) `header` is; kColumns otherwise.
PriceLayout DetectPriceLayout(const std::vector<std::string>& header);

// SkyPilot accelerator names -> catalog GPU names (exact catalog names resolve too). An
// alias names a family; it never relabels an offer the catalog already has.
const std::map<std::string, std::string>& AcceleratorAliases();

// GCP: the VM types whose GPUs are priced in accelerator rows of `count` x `accelerator`
// (A2, A3, G2, A4 series: the GPU count is fixed by the VM type). Empty when the accelerator
// attaches to general VMs (N1) or is unknown.
std::vector<std::string> GcpHostTypes(absl::string_view accelerator, int count);
// GCP: true when `instance_type` is a VM whose GPUs come in separate accelerator rows (with or
// without local SSD).
bool IsGcpGpuHost(absl::string_view instance_type);
// GCP: true for a type of an accelerator-optimized or G2/G4 series (a2-, a3-, a4-, g2-, ...),
// whether or not the host table knows it: such a row is a GPU offer, never a CPU VM.
bool LooksLikeGcpGpuHost(absl::string_view instance_type);
// GCP accelerators sold per GPU for any N1 VM (T4, V100, P100, P4, K80): no fixed VM shape.
bool IsGcpAttachableGpu(absl::string_view accelerator);
// Cloud TPUs (tpu-v4-8, ...): not GPUs, so not offers capplan plans with.
bool IsTpu(absl::string_view accelerator);

}  // namespace capplan::store
