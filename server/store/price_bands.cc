// Reference per-GPU price bands. Each bound is a row of a public price list divided by its GPU
// count: the SkyPilot catalogs (github.com/skypilot-org/skypilot-catalog, catalogs/<v>/<cloud>/
// vms.csv at the commit named, or the older unversioned catalogs/<cloud>/instances.csv) and the
// shipped catalog's own cited rows (migrations 0002, 0008). The P4 band is GCP's price for the
// accelerator alone (GCP attaches a P4 to an N1 VM billed apart), so a whole VM costs more.
// Bounds are wide on purpose: a 64-vCPU host with one GPU (AWS g4dn.16xlarge, g6.16xlarge) is a
// real offer at several times the per-GPU price of the smallest shape.
#include "server/store/price_bands.h"

namespace capplan::store {

namespace {

constexpr PriceBand kBands[] = {
    {"T4", 0.526, 6.702,
     "AWS g4dn.xlarge us-east-1 0.526 and g4dn.16xlarge ap-east-1 6.702 (1 GPU), aws/vms.csv v7 @ 001367d2; "
     "Azure NC4as_T4_v3 eastus 0.526, azure/vms.csv v6 @ 098741e7"},
    {"L4", 0.8048, 4.92637,
     "AWS g6.xlarge us-east-1 0.8048 (migration 0002); g6.16xlarge ap-northeast-1 4.92637 (1 GPU), aws/vms.csv "
     "v7 @ 001367d2"},
    {"A10G", 1.006, 2.0565225,
     "AWS g5.xlarge 1.006 (migration 0002); g5.12xlarge ap-northeast-1 8.22609 / 4, aws/vms.csv v7 @ 001367d2"},
    {"L40S", 1.5484, 2.7516,
     "Nebius gpu-l40s-a_1gpu-8vcpu-32gb 1.5484 and gpu-l40s-d_1gpu-48vcpu-288gb 2.7516, nebius/vms.csv v7 @ "
     "22fd1fea"},
    {"RTX-A6000", 0.8, 0.8, "Lambda gpu_1x_a6000 0.8 (and 4 x 3.2), lambda/vms.csv v7 @ 11580132"},
    {"V100-SXM2-16GB", 0.55, 3.06,
     "Lambda gpu_8x_v100 4.4 / 8, lambda/vms.csv v7 @ 11580132; AWS p3.2xlarge us-east-1 3.06 (migration 0002)"},
    {"V100-SXM2-32GB", 2.30, 3.9015,
     "Paperspace V100-32G 2.30, paperspace/vms.csv v6 @ e5200541; AWS p3dn.24xlarge 31.212 / 8 (migration 0002)"},
    {"V100-PCIe-16GB", 3.06, 4.37575,
     "Azure NC6s_v3 eastus 3.06 and NC24rs_v3 westus 17.503 / 4, azure/vms.csv v6 @ 098741e7"},
    {"A100-SXM4-40GB", 1.29, 4.4446125,
     "Lambda gpu_8x_a100 10.32 / 8, lambda/vms.csv v7 @ 11580132; AWS p4d.24xlarge sa-east-1 35.5569 / 8 "
     "(migration 0008)"},
    {"A100-SXM4-80GB", 2.94582, 5.12071875,
     "GCP a2-ultragpu-8g us-central1 (host 8.79698 + 8 x A100 80GB 14.76958) / 8, gcp/vms.csv v7 @ 017e2502; AWS "
     "p4de.24xlarge us-east-1 40.96575 / 8, aws/vms.csv v7 @ 001367d2"},
    {"A100-PCIe-80GB", 1.8, 4.775,
     "Fluidstack A100_PCIE_80GB::1 1.8, fluidstack/vms.csv v6 @ 002403bc; Azure NC24ads_A100_v4 westus 4.775, "
     "azure/vms.csv v6 @ 098741e7"},
    {"H100-SXM5-80GB", 2.95, 14.1335,
     "Nebius gpu-h100-sxm_1gpu-16vcpu-200gb 2.95, nebius/vms.csv v7 @ 22fd1fea; AWS p5.48xlarge ca-central-1 "
     "113.068 / 8, aws/vms.csv v7 @ 001367d2"},
    {"H100-PCIe-80GB", 2.49, 2.89,
     "Lambda gpu_1x_h100_pcie 2.49, lambda/vms.csv v7 @ 11580132; Fluidstack H100_PCIE_80GB::1 2.89, "
     "fluidstack/vms.csv v6 @ 002403bc"},
    {"H100-NVL-94GB", 6.98, 8.38,
     "Azure NC40ads_H100_v5 eastus 6.98 and southcentralus 8.38, azure/vms.csv v6 @ 098741e7"},
    {"H200-SXM-141GB", 3.50, 7.912,
     "Nebius gpu-h200-sxm_1gpu-16vcpu-200gb 3.50, nebius/vms.csv v7 @ 22fd1fea; AWS p5en.48xlarge us-east-1 "
     "63.296 / 8 (migration 0008)"},
    {"B200-SXM-180GB", 5.5, 5.5, "Nebius gpu-b200-sxm_8gpu-160vcpu-1792gb 44.00 / 8, nebius/vms.csv v7 @ 22fd1fea"},
    {"A10", 0.255, 5.876,
     "Vast 2x-A10-32-65536 The Netherlands 0.51 / 2, vast/vms.csv v7 @ 00690e76; Azure NV36adms_A10_v5 westus "
     "5.876 (1 GPU), azure/vms.csv v6 @ 098741e7"},
    {"P4", 0.60, 0.72,
     "GCP accelerator-only P4 (1 GPU, no host) us-central1 and us-east4 0.6, us-west2 0.72, gcp/vms.csv v7 @ "
     "017e2502"},
    {"P40", 2.07, 2.277,
     "Azure Standard_ND6s eastus 2.07 (1 GPU; ND12s 4.14 / 2, ND24s 8.28 / 4) and Standard_ND24rs eastus "
     "9.108 / 4, azure/instances.csv @ 5940ede7"},
    {"P100-PCIe-16GB", 1.275, 1.275,
     "OCI VM.GPU2.1 eu-amsterdam-1 1.275 and BM.GPU2.2 2.55 / 2, oci/vms.csv v6 @ 6e3a02d2"},
    {"RTX-3090", 0.225, 0.43,
     "Vast 2x-RTX_3090-32-65536 Quebec 0.45 / 2, vast/vms.csv v7 @ 00690e76; RunPod 1x_RTX3090_SECURE CA 0.43, "
     "runpod/vms.csv v7 @ 0727c2bd"},
    {"RTX-4090", 0.40, 0.69,
     "Vast 1x-RTX_4090-32-65536 Spain 0.40, vast/vms.csv v7 @ 00690e76; RunPod 1x_RTX4090_SECURE CA 0.69, "
     "runpod/vms.csv v7 @ 0727c2bd"},
    {"MI300X", 2.39, 6.0,
     "RunPod 2x_MI300X_SECURE US 4.78 / 2, runpod/vms.csv v8 @ 01acdfd4; OCI BM.GPU.MI300X.8 af-casablanca-1 48 / 8, "
     "oci/vms.csv v8 @ 05887511"},
    {"RTX-6000-Ada", 0.655, 0.77,
     "Vast 2x-RTX_6000Ada-32-65536 Estonia 1.31 / 2, vast/vms.csv v7 @ 00690e76; RunPod 1x_RTX6000-Ada_SECURE CA "
     "0.77, runpod/vms.csv v7 @ 0727c2bd"},
};

}  // namespace

const PriceBand* ReferencePriceBand(absl::string_view gpu_name) {
  for (const PriceBand& b : kBands) {
    if (gpu_name == b.gpu_name) return &b;
  }
  return nullptr;
}

}  // namespace capplan::store
