// Which card an imported offer carries. SkyPilot names accelerators by family ("H100", "A100",
// "V100"); the same family is sold as SXM boards, PCIe cards and NVL cards with different
// memory, bandwidth and speed. The variant is read from the offer itself: the instance type and
// accelerator name ("gpu_1x_h100_pcie", "H100_PCIE_80GB::1", "A100-80GB", "V100-32Gx4") and the
// provider's documented VM families (Azure NC: PCIe cards; ND: SXM boards; IBM gx2: V100 PCIe).
#pragma once

#include <string>

#include "absl/strings/string_view.h"

namespace capplan::store {

struct GpuVariant {
  // The catalog GPU name; empty when the accelerator is not a family with variants (the
  // accelerator aliases in price_layouts.h decide then).
  std::string gpu_name;
  // What decided the form factor or memory, for the import report ("instance type
  // gpu_1x_h100_pcie says PCIe"); empty when the family's default (the SXM part) was taken.
  std::string evidence;
};

// The variant of `accelerator` (a SkyPilot accelerator name) on `instance_type` at `provider`.
// `stated_mib_per_gpu`: the memory per GPU the row's GpuInfo states (0: none), read only when
// neither name gives the memory.
GpuVariant ResolveGpuVariant(absl::string_view provider, absl::string_view instance_type, absl::string_view accelerator,
                             double stated_mib_per_gpu);

// The memory per GPU a SkyPilot GpuInfo cell states: its TotalGpuMemoryInMiB over the row's GPU
// count (Cudo lists each GPU in MemoryInfo, Vast the offer's total; the total reads the same in
// both). 0 when the cell states none.
double StatedMibPerGpu(absl::string_view gpu_info, double gpu_count);

}  // namespace capplan::store
