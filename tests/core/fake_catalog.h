// A catalog of plain vectors for the planner tests: no proto, no SQLite. GPU figures come
// from the datasheets in fixtures.h; prices are whatever a test adds.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "core/catalog.h"
#include "fixtures.h"

namespace capplan::core::planner {

// A catalog of plain vectors, as a test builds it.
class FakeCatalog final : public CatalogView {
 public:
  FakeCatalog() {
    using namespace capplan::core::testing;  // NOLINT(build/namespaces): datasheet fixtures
    for (const GpuSpec& g : {A100_80GB(), H100_SXM(), T4()}) {
      GpuRow row;
      row.spec = g;
      row.vendor = "NVIDIA";
      row.form_factor = "SXM";
      gpus_.push_back(row);
    }
    models_.push_back({Llama2_7B(), 4096, {}});
  }
  // A further datasheet GPU type (the constructor adds A100-SXM4-80GB, H100-SXM5-80GB and T4).
  void AddGpu(const GpuSpec& g) {
    GpuRow row;
    row.spec = g;
    row.vendor = "NVIDIA";
    row.form_factor = "SXM";
    gpus_.push_back(row);
  }
  // An offer of `count` GPUs at `usd_per_hour`, effective from `from` (0: 2024-01-01).
  void AddOffer(const std::string& provider, const std::string& type, const std::string& region, const std::string& gpu,
                int count, double usd_per_hour, int64_t from = 1704067200, PriceKind kind = PriceKind::kOnDemand) {
    if (FindInstance(provider, type, region) == nullptr) {
      instances_.push_back({provider, type, region, gpu, count, 96, 0, "", {}});
    }
    prices_[{provider, type, region}].push_back({0, provider, type, region, kind, usd_per_hour, from, {}});
  }

  // A catalog fabric for every offer of instance type `type`.
  void SetFabric(const std::string& type, const FabricRow& f) {
    fabrics_.push_back(f);
    for (InstanceRow& i : instances_) {
      if (i.instance_type == type) i.fabric_name = f.name;
    }
  }

  int64_t Version() const override { return 7; }
  const std::vector<InstanceRow>& Instances() const override { return instances_; }
  const GpuRow* FindGpu(absl::string_view name) const override {
    for (const GpuRow& g : gpus_) {
      if (g.spec.name == name) return &g;
    }
    return nullptr;
  }
  const ModelRow* FindModel(absl::string_view name) const override {
    for (const ModelRow& m : models_) {
      if (m.arch.name == name) return &m;
    }
    return nullptr;
  }
  const FabricRow* FindFabric(absl::string_view name) const override {
    for (const FabricRow& f : fabrics_) {
      if (f.name == name) return &f;
    }
    return nullptr;
  }
  const PriceRow* PriceAt(const InstanceRow& i, PriceKind kind, int64_t as_of) const override {
    auto it = prices_.find({i.provider, i.instance_type, i.region});
    if (it == prices_.end()) return nullptr;
    const PriceRow* best = nullptr;
    for (const PriceRow& p : it->second) {
      if (p.kind == kind && p.effective_unix_seconds <= as_of) best = &p;
    }
    return best;
  }
  const std::vector<TrainingBenchmark>& TrainingBenchmarks() const override { return training_; }
  const std::vector<ServingBenchmark>& ServingBenchmarks() const override { return serving_; }

 private:
  const InstanceRow* FindInstance(const std::string& p, const std::string& t, const std::string& r) const {
    for (const InstanceRow& i : instances_) {
      if (i.provider == p && i.instance_type == t && i.region == r) return &i;
    }
    return nullptr;
  }
  std::vector<GpuRow> gpus_;
  std::vector<ModelRow> models_;
  std::vector<FabricRow> fabrics_;
  std::vector<InstanceRow> instances_;
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<PriceRow>> prices_;
  std::vector<TrainingBenchmark> training_;
  std::vector<ServingBenchmark> serving_;
};

}  // namespace capplan::core::planner
