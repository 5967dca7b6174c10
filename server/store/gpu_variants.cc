// Form factor and memory of an imported GPU offer, from its instance type, its accelerator
// name and the provider's VM families. Catalog names as in migrations 0002, 0008 and 0014.
#include "server/store/gpu_variants.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace capplan::store {

namespace {

enum class Form { kUnknown, kSxm, kPcie, kNvl };

// One family with variants: its catalog names by form and memory (GB as sold).
struct Family {
  const char* prefix;  // the accelerator name starts with it ("A100", "A100-80GB")
  int default_gb;      // the memory when nothing names one
  int other_gb;        // the other memory size sold (0: none)
  const char* sxm[2];  // {default_gb, other_gb}
  const char* pcie[2];
  const char* nvl;  // null: no NVL card
};

// A100: SXM4 and PCIe in 40 and 80 GB (NVIDIA A100 datasheet). H100: SXM5 and PCIe 80 GB, NVL
// 94 GB (NVIDIA H100 datasheet). V100: SXM2 and PCIe in 16 and 32 GB (NVIDIA V100 datasheet).
constexpr Family kFamilies[] = {
    {"A100", 40, 80, {"A100-SXM4-40GB", "A100-SXM4-80GB"}, {"A100-PCIe-40GB", "A100-PCIe-80GB"}, nullptr},
    {"H100", 80, 94, {"H100-SXM5-80GB", nullptr}, {"H100-PCIe-80GB", "H100-NVL-94GB"}, "H100-NVL-94GB"},
    {"V100", 16, 32, {"V100-SXM2-16GB", "V100-SXM2-32GB"}, {"V100-PCIe-16GB", "V100-PCIe-32GB"}, nullptr},
};

// "NVL" as a word part that is not "NVLINK" (an SXM board's NVLink is not the NVL card).
bool NamesNvl(const std::string& upper) {
  for (size_t at = upper.find("NVL"); at != std::string::npos; at = upper.find("NVL", at + 1)) {
    if (upper.compare(at, 6, "NVLINK") != 0) return true;
  }
  return false;
}

// The form `text` (upper case) names, if any. NVL first: the H100 NVL is a PCIe card, and
// Cudo's "epyc-genoa-h100-nvl-pcie" names both. "PCI" covers Cudo's "a100-pci".
Form FormNamed(const std::string& upper) {
  if (NamesNvl(upper)) return Form::kNvl;
  if (absl::StrContains(upper, "PCI")) return Form::kPcie;
  if (absl::StrContains(upper, "SXM") || absl::StrContains(upper, "NVLINK")) return Form::kSxm;
  return Form::kUnknown;
}

// The first "<digits>G" or "<digits>GB" in `upper` whose number is `a` or `b`; 0 when none.
int MemoryNamed(const std::string& upper, int a, int b) {
  for (size_t i = 0; i < upper.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(upper[i])) ||
        (i > 0 && std::isdigit(static_cast<unsigned char>(upper[i - 1])))) {
      continue;
    }
    size_t j = i;
    while (j < upper.size() && std::isdigit(static_cast<unsigned char>(upper[j]))) ++j;
    if (j - i > 4 || j >= upper.size() || upper[j] != 'G') continue;
    const int gb = std::atoi(upper.substr(i, j - i).c_str());
    if (gb == a || (b > 0 && gb == b)) return gb;
  }
  return 0;
}

// SkyPilot's GpuInfo counts a GB as sold as 1024 MiB (A100 80GB: 81920 MiB; H100 NVL: 96256);
// nvidia-smi's smaller figure (an H100 80GB reports 81559 MiB) is within kStatedMemoryTolerance.
constexpr double kMibPerSoldGb = 1024;
constexpr double kStatedMemoryTolerance = 0.05;
constexpr size_t kMaxMibDigits = 9;

// The family's memory size (GB as sold) that `mib` states; 0 when neither is close.
int MemoryStated(double mib, const Family& f) {
  for (int gb : {f.default_gb, f.other_gb}) {
    if (gb > 0 && std::fabs(mib - gb * kMibPerSoldGb) <= kStatedMemoryTolerance * gb * kMibPerSoldGb) return gb;
  }
  return 0;
}

// Azure's GPU VM families: NC-series carry PCIe cards (NCv3: V100 PCIe; NC A100 v4: A100 PCIe
// 80 GB; NCads H100 v5: H100 NVL), ND-series SXM boards (ND A100 v4, ND H100 v5, NDv2). From
// the Azure NCv3, NC A100 v4, NCads H100 v5, ND A100 v4 and NDv2 series pages.
Form AzureForm(const std::string& upper_type, const Family& f) {
  if (absl::StartsWith(upper_type, "STANDARD_NCC")) return Form::kUnknown;  // confidential VMs
  if (absl::StartsWith(upper_type, "STANDARD_NC")) {
    return f.nvl != nullptr ? Form::kNvl : Form::kPcie;
  }
  if (absl::StartsWith(upper_type, "STANDARD_ND")) return Form::kSxm;
  return Form::kUnknown;
}

const char* FormName(Form form) {
  switch (form) {
    case Form::kPcie:
      return "PCIe";
    case Form::kNvl:
      return "NVL";
    case Form::kSxm:
      return "SXM";
    case Form::kUnknown:
      break;
  }
  return "unknown";
}

}  // namespace

double StatedMibPerGpu(absl::string_view gpu_info, double gpu_count) {
  const std::string lower = absl::AsciiStrToLower(gpu_info);
  constexpr char kKey[] = "totalgpumemoryinmib";
  size_t at = lower.find(kKey);
  if (at == std::string::npos || gpu_count < 1) return 0;
  at = lower.find_first_of("0123456789", at + sizeof(kKey) - 1);
  if (at == std::string::npos) return 0;
  const size_t end = std::min(lower.find_first_not_of("0123456789", at), lower.size());
  int64_t mib = 0;
  if (end - at > kMaxMibDigits || !absl::SimpleAtoi(lower.substr(at, end - at), &mib)) return 0;
  return static_cast<double>(mib) / gpu_count;
}

GpuVariant ResolveGpuVariant(absl::string_view provider, absl::string_view instance_type, absl::string_view accelerator,
                             double stated_mib_per_gpu) {
  const std::string accel = absl::AsciiStrToUpper(accelerator);
  const std::string type = absl::AsciiStrToUpper(instance_type);
  const Family* family = nullptr;
  for (const Family& f : kFamilies) {
    if (absl::StartsWith(accel, f.prefix)) family = &f;
  }
  GpuVariant out;
  if (family == nullptr) return out;
  // The accelerator name speaks first (Fluidstack's and RunPod's carry the form), then the
  // instance type (Lambda's gpu_1x_h100_pcie), then the provider's VM family.
  Form form = FormNamed(accel);
  std::string evidence;
  if (form != Form::kUnknown) {
    evidence = absl::StrCat("accelerator \"", accelerator, "\" names ", FormName(form));
  } else if ((form = FormNamed(type)) != Form::kUnknown) {
    evidence = absl::StrCat("instance type \"", instance_type, "\" names ", FormName(form));
  } else if (provider == "runpod") {
    // RunPod's catalog names its SXM parts ("A100-80GB-SXM", "H100-SXM"); its plain names are
    // the PCIe cards (RunPod GPU types: "A100 80GB PCIe", "A100 SXM 80GB").
    form = Form::kPcie;
    evidence = absl::StrCat("RunPod's \"", accelerator, "\" names no SXM part, so it is the PCIe card");
  } else if (provider == "azure" && (form = AzureForm(type, *family)) != Form::kUnknown) {
    evidence = absl::StrCat("Azure ", absl::StartsWith(type, "STANDARD_NC") ? "NC" : "ND", "-series VM \"",
                            instance_type, "\" carries ", FormName(form), " cards");
  } else if (provider == "ibm" && absl::StartsWith(type, "GX2-") && absl::string_view(family->prefix) == "V100") {
    // IBM Cloud VPC's gx2 profiles "include 1 or 2 NVIDIA V100 PCIe 16GB GPUs" (IBM Cloud docs,
    // Instance profiles, GPU: cloud.ibm.com/docs/vpc?topic=vpc-profiles#gpu).
    form = Form::kPcie;
    evidence = absl::StrCat("IBM gx2 profile \"", instance_type, "\" carries PCIe cards");
  }
  int gb = MemoryNamed(accel, family->default_gb, family->other_gb);
  if (gb == 0) gb = MemoryNamed(type, family->default_gb, family->other_gb);
  if (gb == 0 && (gb = MemoryStated(stated_mib_per_gpu, *family)) != 0) {
    absl::StrAppend(&evidence, evidence.empty() ? "" : "; ", "GpuInfo states ", stated_mib_per_gpu, " MiB per GPU");
  }
  if (gb == 0) gb = family->default_gb;
  const int slot = gb == family->default_gb ? 0 : 1;
  const char* name = nullptr;
  switch (form) {
    case Form::kNvl:
      name = family->nvl;
      break;
    case Form::kPcie:
      name = family->pcie[slot];
      break;
    case Form::kSxm:
    case Form::kUnknown:
      name = family->sxm[slot];
      break;
  }
  if (name == nullptr) {  // a form the family is not sold in: fall back to the SXM part
    name = family->sxm[0];
    evidence.clear();
  }
  out.gpu_name = name;
  out.evidence = std::move(evidence);
  return out;
}

}  // namespace capplan::store
