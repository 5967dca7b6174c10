// The catalog as the planner reads it: GPU datasheets, models, cloud offers with their
// effective-dated prices, and measured benchmarks. Plain rows with their sources; the store
// loads, indexes and publishes them, and implements CatalogView over one immutable snapshot.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/efficiency.h"
#include "core/fabric.h"
#include "core/gpu.h"
#include "core/model.h"
#include "core/serving/serving.h"
#include "core/training/training.h"

namespace capplan::core {

struct Source {
  std::string citation;
  std::string as_of_date;  // ISO 8601 date
  std::string note;
};

enum class PriceKind { kOnDemand = 0, kSpot, kReserved1y, kReserved3y };
inline constexpr int kNumPriceKinds = 4;
// The stored names, in enum order (core/enum_names.h).
inline constexpr std::array<const char*, kNumPriceKinds> kPriceKindNames = {"on_demand", "spot", "reserved_1y",
                                                                            "reserved_3y"};
const char* PriceKindName(PriceKind k);  // on_demand, spot, reserved_1y, reserved_3y

struct GpuRow {
  core::GpuSpec spec;
  std::string vendor;
  std::string form_factor;
  double list_price_usd = 0;
  // The catalog fabric assumed for this GPU when no offer says otherwise (a GPU named
  // without an instance, an owned pool without a fabric); empty: FallbackFabric(spec).
  std::string default_fabric_name;
  // Owning it (issue 15), from the vendor's system specs; 0: not known.
  // A whole server's power at full load per GPU (e.g. DGX H100: 10.2 kW / 8), and its share
  // drawn when idle.
  double system_power_watts_per_gpu = 0;
  double idle_power_fraction = 0;
  // A whole server's price per GPU (e.g. an 8-GPU HGX system / 8), dated by `source`, and
  // the relative uncertainty of both prices (0.2: +-20%).
  double system_price_usd_per_gpu = 0;
  double price_uncertainty_fraction = 0;
  Source source;
};

// The price of electricity where a region's data centres are (for owning).
struct ElectricityRow {
  std::string region;  // a cloud region name (us-east-1, ...) or a country/state code
  double usd_per_kwh = 0;
  Source source;
};

// A named fabric: e.g. "aws-p5-efa" (8 x H100 on NVSwitch, 3,200 Gbit/s EFA per node).
struct FabricRow {
  std::string name;
  core::Fabric fabric;
  Source source;
};

struct ModelRow {
  core::ModelArchitecture arch;
  int64_t max_context_tokens = 0;
  Source source;
};

struct InstanceRow {
  std::string provider;
  std::string instance_type;
  std::string region;
  std::string gpu_name;
  int gpu_count = 0;
  int vcpus = 0;
  int64_t memory_bytes = 0;
  std::string fabric_name;  // a FabricRow; empty: the GPU's default fabric
  Source source;
};

struct PriceRow {
  int64_t id = 0;
  std::string provider;
  std::string instance_type;
  std::string region;
  PriceKind kind = PriceKind::kOnDemand;
  double price_usd_per_hour = 0;
  int64_t effective_unix_seconds = 0;
  Source source;
};

struct BenchmarkRow {
  int64_t id = 0;
  std::string gpu_name;
  std::string model_name;
  core::WorkloadKind workload = core::WorkloadKind::kServing;
  core::Precision precision = core::Precision::kFp16;
  core::TrainingMethod method = core::TrainingMethod::kFull;
  int gpu_count = 1;
  int64_t batch_size = 0;
  int64_t sequence_tokens = 0;
  int64_t output_tokens = 0;
  double measured_value = 0;
  core::MeasuredUnit unit = core::MeasuredUnit::kRequestsPerSecond;
  // Training runs: the published setup, so that calibration re-runs the estimator on it.
  // Zeros: not published (calibration searches that part of the layout).
  int tensor_parallel = 0, pipeline_parallel = 0, data_parallel = 0;
  int context_parallel = 0, expert_parallel = 0, virtual_pipeline_stages = 0;
  core::BenchmarkFigure figure = core::BenchmarkFigure::kSteadyState;
  std::string fabric_name;                                  // the cluster's fabric; empty: the GPU's default fabric
  core::ServingEngine engine = core::ServingEngine::kVllm;  // serving figures: the engine measured
  Source source;
};

// Read-only access to one consistent catalog version.
class CatalogView {
 public:
  virtual ~CatalogView() = default;
  virtual int64_t Version() const = 0;
  // Sorted by provider, instance type, region.
  virtual const std::vector<InstanceRow>& Instances() const = 0;
  virtual const GpuRow* FindGpu(absl::string_view name) const = 0;
  virtual const ModelRow* FindModel(absl::string_view name) const = 0;
  virtual const FabricRow* FindFabric(absl::string_view name) const = 0;
  // Electricity price for a region; null when the catalog has none.
  virtual const ElectricityRow* FindElectricity(absl::string_view /*region*/) const { return nullptr; }
  // The price of `kind` in force at `as_of_unix_seconds` (0 or less: now); null when none.
  virtual const PriceRow* PriceAt(const InstanceRow& instance, PriceKind kind, int64_t as_of_unix_seconds) const = 0;
  virtual const std::vector<TrainingBenchmark>& TrainingBenchmarks() const = 0;
  virtual const std::vector<ServingBenchmark>& ServingBenchmarks() const = 0;
};

}  // namespace capplan::core
