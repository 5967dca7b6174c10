#include "core/deploy/kube.h"

#include "absl/strings/str_cat.h"
#include "core/deploy/text.h"

namespace capplan::core::deploy {

namespace {

constexpr int kReadinessInitialDelaySeconds = 60;  // model loading; the probe retries after it
constexpr int kReadinessPeriodSeconds = 10;
constexpr int kStep = 2;  // YAML indent per level

std::string Pad(int indent) { return std::string(static_cast<size_t>(indent), ' '); }

std::string Map(const KeyValues& kv, int indent) {
  std::string out;
  for (const auto& [k, v] : kv) absl::StrAppend(&out, Pad(indent), k, ": ", YamlQuote(v), "\n");
  return out;
}

std::string ContainerYaml(const Container& c, int indent) {
  const std::string p = Pad(indent);
  std::string out = absl::StrCat(p, "- name: ", c.name, "\n", p, "  image: ", YamlQuote(c.image), "\n", p,
                                 "  command:\n", YamlList(c.command, indent + 2 * kStep));
  if (!c.env.empty()) {
    absl::StrAppend(&out, p, "  env:\n");
    for (const auto& [k, v] : c.env) {
      absl::StrAppend(&out, p, "    - name: ", k, "\n", p, "      value: ", YamlQuote(v), "\n");
    }
  }
  if (c.port > 0)
    absl::StrAppend(&out, p, "  ports:\n", p, "    - name: http\n", p, "      containerPort: ", c.port, "\n");
  absl::StrAppend(&out, p, "  resources:\n", p, "    limits:\n", p, "      ", GpuResource(c.accelerator), ": ", c.gpus,
                  "\n");
  if (c.port > 0 && !c.health.empty()) {
    absl::StrAppend(&out, p, "  readinessProbe:\n", p, "    httpGet:\n", p, "      path: ", c.health, "\n", p,
                    "      port: ", c.port, "\n", p, "    initialDelaySeconds: ", kReadinessInitialDelaySeconds, "\n",
                    p, "    periodSeconds: ", kReadinessPeriodSeconds, "\n");
  }
  absl::StrAppend(&out, p, "  volumeMounts:\n", p, "    - name: dshm\n", p, "      mountPath: /dev/shm\n");
  return out;
}

// Catalog name -> NVML device name as GFD labels it. NVML names: "NVIDIA H100 80GB HBM3" (SXM5),
// "NVIDIA A100-SXM4-80GB", "Tesla T4", "Tesla V100-SXM2-16GB", "NVIDIA A10G", "NVIDIA L4", as
// nvidia-smi prints them.
constexpr std::pair<const char*, const char*> kGfdProducts[] = {
    {"H100-SXM5-80GB", "NVIDIA-H100-80GB-HBM3"},
    {"A100-SXM4-80GB", "NVIDIA-A100-SXM4-80GB"},
    {"A100-SXM4-40GB", "NVIDIA-A100-SXM4-40GB"},
    {"V100-SXM2-16GB", "Tesla-V100-SXM2-16GB"},
    {"V100-SXM2-32GB", "Tesla-V100-SXM2-32GB"},
    {"T4", "Tesla-T4"},
    {"A10G", "NVIDIA-A10G"},
    {"A10", "NVIDIA-A10"},
    {"L4", "NVIDIA-L4"},
    {"L40S", "NVIDIA-L40S"},
};

const char* KnownGfdProduct(Accelerator a, const std::string& catalog_name) {
  if (a != Accelerator::kNvidia) return nullptr;
  for (const auto& [name, label] : kGfdProducts) {
    if (catalog_name == name) return label;
  }
  return nullptr;
}

}  // namespace

std::string GpuProductValue(Accelerator a, const std::string& catalog_name) {
  const char* known = KnownGfdProduct(a, catalog_name);
  return known != nullptr ? known : catalog_name;
}

std::string NodeSelectorNote(Accelerator a, const std::string& catalog_name) {
  if (KnownGfdProduct(a, catalog_name) != nullptr) {
    return absl::StrCat("nodeSelector ", GpuProductLabel(a), "=", GpuProductValue(a, catalog_name),
                        " is GPU Feature Discovery's label for ", catalog_name, "; check it with kubectl get nodes -L ",
                        GpuProductLabel(a));
  }
  return absl::StrCat("nodeSelector ", GpuProductLabel(a), " carries the catalog's GPU name \"", catalog_name,
                      "\"; set it to your nodes' label value");
}

const char* GpuResource(Accelerator a) { return a == Accelerator::kAmd ? "amd.com/gpu" : "nvidia.com/gpu"; }

const char* GpuProductLabel(Accelerator a) {
  return a == Accelerator::kAmd ? "amd.com/gpu.product-name" : "nvidia.com/gpu.product";
}

std::string Metadata(const std::string& name, const KeyValues& labels, const KeyValues& annotations, int indent) {
  std::string out = absl::StrCat(Pad(indent), "metadata:\n");
  if (!name.empty()) absl::StrAppend(&out, Pad(indent + kStep), "name: ", name, "\n");
  if (!labels.empty()) absl::StrAppend(&out, Pad(indent + kStep), "labels:\n", Map(labels, indent + 2 * kStep));
  if (!annotations.empty()) {
    absl::StrAppend(&out, Pad(indent + kStep), "annotations:\n", Map(annotations, indent + 2 * kStep));
  }
  return out;
}

std::string PodSpec(const Container& c, const std::string& gpu_name, const char* restart_policy, int indent) {
  const std::string p = Pad(indent);
  return absl::StrCat(p, "restartPolicy: ", restart_policy, "\n", p, "nodeSelector:\n", p, "  ",
                      GpuProductLabel(c.accelerator), ": ", YamlQuote(GpuProductValue(c.accelerator, gpu_name)), "\n",
                      p, "containers:\n", ContainerYaml(c, indent + kStep), p, "volumes:\n", p, "  - name: dshm\n", p,
                      "    emptyDir:\n", p, "      medium: Memory\n");
}

std::string ProvenanceComment(const Provenance& from, const char* comment) {
  return absl::StrCat(comment, " Rendered by capplan ", from.capplan_version, " from plan option #", from.option_rank,
                      " (catalog version ", from.catalog_version, "): ", from.gpu_name, ", ", from.where, ", $",
                      Figure(from.cost_usd_per_hour, 2), "/h.\n");
}

}  // namespace capplan::core::deploy
