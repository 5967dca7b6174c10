// Catalog rows and the immutable snapshot the planner reads. Plain structs over core types;
// no SQLite here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/efficiency.h"
#include "core/gpu.h"
#include "core/model.h"
#include "core/serving.h"
#include "core/training.h"

namespace capplan::store {

struct Source {
  std::string citation;
  std::string as_of_date;  // ISO 8601 date
  std::string note;
};

enum class PriceKind { kOnDemand = 0, kSpot, kReserved1y, kReserved3y };
inline constexpr int kNumPriceKinds = 4;
const char* PriceKindName(PriceKind k);  // the store's spelling: on_demand, spot, ...

struct GpuRow {
  core::GpuSpec spec;
  std::string vendor;
  std::string form_factor;
  double list_price_usd = 0;
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
  Source source;
};

struct CatalogSnapshot {
  int64_t catalog_version = 0;
  int schema_version = 0;
  int64_t loaded_unix_seconds = 0;

  std::vector<GpuRow> gpus;                // by name
  std::vector<ModelRow> models;            // by name
  std::vector<InstanceRow> instances;      // by provider, type, region
  std::vector<PriceRow> prices;            // by offer, kind, effective time, id
  std::vector<BenchmarkRow> benchmarks;    // by id
  // Benchmarks with their models resolved, for the estimators' calibration.
  std::vector<core::TrainingBenchmark> training_benchmarks;
  std::vector<core::ServingBenchmark> serving_benchmarks;

  const GpuRow* FindGpu(absl::string_view name) const;
  const ModelRow* FindModel(absl::string_view name) const;
  const InstanceRow* FindInstance(absl::string_view provider, absl::string_view type,
                                  absl::string_view region) const;
  // The price in force at `as_of_unix_seconds` (0: the latest): the row with the greatest
  // effective time not after it; the highest id breaks ties. Null when none.
  const PriceRow* PriceAt(const InstanceRow& instance, PriceKind kind,
                          int64_t as_of_unix_seconds) const;
  // Every price row of one offer, oldest first.
  std::vector<const PriceRow*> PriceHistory(absl::string_view provider, absl::string_view type,
                                            absl::string_view region) const;
  // Effective time of the oldest price among the current on-demand prices: what an alert on
  // stale prices watches.
  int64_t OldestCurrentPriceUnixSeconds() const;

  // Builds the indexes and resolved benchmark lists; called once by the loader.
  void Index();

 private:
  std::unordered_map<std::string, size_t> gpu_index_;
  std::unordered_map<std::string, size_t> model_index_;
  std::unordered_map<std::string, size_t> instance_index_;
  // offer key -> [first, last) into prices
  std::unordered_map<std::string, std::pair<size_t, size_t>> price_ranges_;
  // The same ranges by position in `instances`, so the Plan path looks prices up without
  // building keys.
  std::vector<std::pair<size_t, size_t>> instance_price_ranges_;
};

// Bounds on free text in catalog rows, in bytes.
inline constexpr size_t kMaxNameBytes = 128;  // names, vendors, providers, types, regions
inline constexpr size_t kMaxCitationBytes = 512;
inline constexpr size_t kMaxNoteBytes = 2048;

// InvalidArgument naming `field` when `value` is longer than `max_bytes`, holds a control
// character, or is empty while `required`.
absl::Status CheckText(const std::string& field, absl::string_view value, size_t max_bytes,
                       bool required);
// InvalidArgument naming `field` unless `value` is a real calendar date YYYY-MM-DD in
// 1990-01-01..2100-12-31.
absl::Status CheckIsoDate(const std::string& field, absl::string_view value);

// Field checks for writes (InvalidArgument naming the field and its range).
absl::Status ValidateGpuRow(const GpuRow& row);
absl::Status ValidateModelRow(const ModelRow& row);
absl::Status ValidateInstanceRow(const InstanceRow& row);
absl::Status ValidatePriceRow(const PriceRow& row);
absl::Status ValidateBenchmarkRow(const BenchmarkRow& row);
absl::Status ValidateSource(const Source& source, const std::string& field);
// Provider, instance type and region, the key of an offer; fields named "<prefix>.provider"...
absl::Status ValidateOfferKey(const std::string& prefix, const std::string& provider,
                              const std::string& instance_type, const std::string& region);

}  // namespace capplan::store
