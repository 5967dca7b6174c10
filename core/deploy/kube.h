// Kubernetes manifest pieces the serving and training renderers share: object metadata and a
// pod spec with one GPU container.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/deploy/deploy.h"

namespace capplan::core::deploy {

using KeyValues = std::vector<std::pair<std::string, std::string>>;

// The device plugin's extended resource: nvidia.com/gpu (NVIDIA k8s-device-plugin,
// https://github.com/NVIDIA/k8s-device-plugin/tree/v0.17.0) or amd.com/gpu (ROCm
// k8s-device-plugin, https://github.com/ROCm/k8s-device-plugin).
const char* GpuResource(Accelerator a);
// The node label naming the GPU model: nvidia.com/gpu.product (NVIDIA GPU Feature Discovery,
// https://github.com/NVIDIA/k8s-device-plugin/blob/v0.17.0/docs/gpu-feature-discovery/README.md)
// or amd.com/gpu.product-name (ROCm node labeller).
const char* GpuProductLabel(Accelerator a);

// The value GPU Feature Discovery puts in nvidia.com/gpu.product for a catalog GPU: NVML's
// device name with spaces as dashes (GFD README, NVIDIA/k8s-device-plugin
// docs/gpu-feature-discovery/README.md at commit 3c6be400411aad793892e976824910d0880dd3a8),
// for the cards whose NVML name is listed here; the catalog's name otherwise (and for AMD).
std::string GpuProductValue(Accelerator a, const std::string& catalog_name);
// What the caller should check about that node selector.
std::string NodeSelectorNote(Accelerator a, const std::string& catalog_name);

struct Container {
  std::string name;
  std::string image;
  std::vector<std::string> command;  // argv; the image's entrypoint is replaced
  Accelerator accelerator = Accelerator::kNvidia;
  int gpus = 0;
  int port = 0;        // 0: none exposed
  std::string health;  // readiness probe path on `port`; empty: none
  KeyValues env;
};

// `metadata:` and its fields at `indent` spaces.
std::string Metadata(const std::string& name, const KeyValues& labels, const KeyValues& annotations, int indent);
// The fields of a pod's spec (what follows `spec:`) at `indent` spaces: the GPU node
// selector, shared memory for NCCL, restart policy and the container.
std::string PodSpec(const Container& c, const std::string& gpu_name, const char* restart_policy, int indent);

// "# " comment lines saying what the file was rendered from.
std::string ProvenanceComment(const Provenance& from, const char* comment);

}  // namespace capplan::core::deploy
