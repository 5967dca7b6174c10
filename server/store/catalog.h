// Catalog rows and the immutable snapshot the planner reads. Plain structs over core types;
// no SQLite here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/catalog.h"
#include "core/efficiency.h"
#include "core/gpu.h"
#include "core/model.h"
#include "core/serving/serving.h"
#include "core/training/training.h"

namespace capplan::store {

// The row types are core's (core/catalog.h); the store names them as its own.
using core::BenchmarkRow;
using core::ElectricityRow;
using core::FabricRow;
using core::GpuRow;
using core::InstanceRow;
using core::kNumPriceKinds;
using core::ModelRow;
using core::PriceKind;
using core::PriceKindName;
using core::PriceRow;
using core::Source;

// One table of a snapshot, immutable once published and shared by every snapshot in which it
// did not change.
template <typename Row>
struct Table {
  std::vector<Row> rows;
  std::unordered_map<std::string, size_t> index;  // key -> position in rows
};

// A standing TCO scenario: a name (a Prometheus label value) and the TcoRequest it prices,
// as protobuf JSON the server writes and reads (the store does not look inside).
struct TcoScenarioRow {
  std::string name;
  std::string request_json;
  std::string updated_by;  // the caller of the last write
  int64_t updated_unix_seconds = 0;
};

// Scenario names: 1-64 of [A-Za-z0-9_.-], at most this many scenarios.
inline constexpr size_t kMaxTcoScenarioNameBytes = 64;
inline constexpr size_t kMaxTcoScenarioRequestBytes = 65536;
inline constexpr int64_t kMaxTcoScenarios = 256;

// One offer's price history, sorted by kind, effective time, id.
using PriceList = std::vector<PriceRow>;

// Benchmarks with their models resolved, for the estimators' calibration.
struct Calibration {
  std::vector<core::TrainingBenchmark> training;
  std::vector<core::ServingBenchmark> serving;
};

// The parts of a snapshot. A write copies these pointers from the previous snapshot and
// replaces only what it changed, so it costs in proportion to the change.
struct CatalogTables {
  std::shared_ptr<const Table<GpuRow>> gpus;            // by name
  std::shared_ptr<const Table<ModelRow>> models;        // by name
  std::shared_ptr<const Table<InstanceRow>> instances;  // by provider, type, region
  // Parallel to instances->rows: each offer's prices (null: none).
  std::shared_ptr<const std::vector<std::shared_ptr<const PriceList>>> prices;
  std::shared_ptr<const std::vector<BenchmarkRow>> benchmarks;  // by id
  std::shared_ptr<const Calibration> calibration;
  std::shared_ptr<const Table<FabricRow>> fabrics;                   // by name
  std::shared_ptr<const Table<ElectricityRow>> electricity;          // by region
  std::shared_ptr<const std::vector<TcoScenarioRow>> tco_scenarios;  // by name
};

// Table builders: sort and index rows; group prices by offer; resolve benchmarks.
std::shared_ptr<const Table<GpuRow>> MakeGpuTable(std::vector<GpuRow> rows);
std::shared_ptr<const Table<ModelRow>> MakeModelTable(std::vector<ModelRow> rows);
std::shared_ptr<const Table<InstanceRow>> MakeInstanceTable(std::vector<InstanceRow> rows);
std::shared_ptr<const Table<FabricRow>> MakeFabricTable(std::vector<FabricRow> rows);
std::shared_ptr<const Table<ElectricityRow>> MakeElectricityTable(std::vector<ElectricityRow> rows);
std::shared_ptr<const std::vector<std::shared_ptr<const PriceList>>> MakePriceLists(const Table<InstanceRow>& instances,
                                                                                    std::vector<PriceRow> prices);
// Training benchmarks carry their published layout and their fabric: the benchmark's own
// fabric_name, else its GPU's default fabric, else none (not Known()).
std::shared_ptr<const Calibration> MakeCalibration(const Table<ModelRow>& models,
                                                   const std::vector<BenchmarkRow>& benchmarks,
                                                   const Table<GpuRow>& gpus, const Table<FabricRow>& fabrics);
// `lists` with `row` added to the list at `position` (a copy of the outer vector of
// pointers; the other offers' lists are shared).
std::shared_ptr<const std::vector<std::shared_ptr<const PriceList>>> WithPrice(
    const std::vector<std::shared_ptr<const PriceList>>& lists, size_t position, const PriceRow& row);

// `tables` with the offer `row` inserted, or replacing the row with its key; or, with
// `row` null, with the offer `erase_key` (and its prices) removed. The instance table is
// copied (rows and index) and the price lists shifted; every other table is shared.
CatalogTables WithInstance(const CatalogTables& tables, const InstanceRow* row, const std::string& erase_key);

// Which state of which database a snapshot holds. Replicas compare it with the database's: a
// different one means a full reload, whether the database's version is higher (another
// replica wrote), lower (a lossy failover or a restore lost writes), the same but reached by
// other writes (another write token), or its epoch changed (a promoted standby).
struct CatalogIdentity {
  int64_t catalog_version = 0;
  std::string write_token;  // random, written by the write that set catalog_version
  std::string epoch;        // sql::Connection::DatabaseEpochSql's value; empty on SQLite
  bool operator==(const CatalogIdentity& o) const {
    return catalog_version == o.catalog_version && write_token == o.write_token && epoch == o.epoch;
  }
  bool operator!=(const CatalogIdentity& o) const { return !(*this == o); }
};

// What the planner reads: immutable, built once from its tables and never changed.
class CatalogSnapshot final : public core::CatalogView {
  CatalogTables tables_;  // first: the references below point into it

 public:
  // Null tables become empty ones.
  explicit CatalogSnapshot(CatalogTables tables);
  CatalogSnapshot(const CatalogSnapshot&) = delete;
  CatalogSnapshot& operator=(const CatalogSnapshot&) = delete;

  int64_t catalog_version = 0;
  int schema_version = 0;
  int64_t loaded_unix_seconds = 0;
  std::string write_token;     // see CatalogIdentity
  std::string database_epoch;  // see CatalogIdentity
  CatalogIdentity Identity() const { return {catalog_version, write_token, database_epoch}; }

  const std::vector<GpuRow>& gpus;                   // by name
  const std::vector<ModelRow>& models;               // by name
  const std::vector<InstanceRow>& instances;         // by provider, type, region
  const std::vector<BenchmarkRow>& benchmarks;       // by id
  const std::vector<FabricRow>& fabrics;             // by name
  const std::vector<ElectricityRow>& electricity;    // by region
  const std::vector<TcoScenarioRow>& tco_scenarios;  // by name
  const std::vector<core::TrainingBenchmark>& training_benchmarks;
  const std::vector<core::ServingBenchmark>& serving_benchmarks;
  const size_t price_count;  // price rows across every offer

  const CatalogTables& tables() const { return tables_; }

  // core::CatalogView.
  int64_t Version() const override { return catalog_version; }
  const std::vector<InstanceRow>& Instances() const override { return instances; }
  const std::vector<core::TrainingBenchmark>& TrainingBenchmarks() const override { return training_benchmarks; }
  const std::vector<core::ServingBenchmark>& ServingBenchmarks() const override { return serving_benchmarks; }
  const GpuRow* FindGpu(absl::string_view name) const override;
  const std::vector<GpuRow>& Gpus() const override { return gpus; }
  const ModelRow* FindModel(absl::string_view name) const override;
  const FabricRow* FindFabric(absl::string_view name) const override;
  const ElectricityRow* FindElectricity(absl::string_view region) const override;
  const InstanceRow* FindInstance(absl::string_view provider, absl::string_view type, absl::string_view region) const;
  // Position of an offer in `instances`; -1 when absent.
  int64_t InstancePosition(absl::string_view provider, absl::string_view type, absl::string_view region) const;
  // The price in force at `as_of_unix_seconds` (0 or less: now): the row with the greatest
  // effective time not after it; the highest id breaks ties. Null when none. A price that
  // takes effect later is never the current one.
  const PriceRow* PriceAt(const InstanceRow& instance, PriceKind kind, int64_t as_of_unix_seconds) const override;
  // Every price row of one offer, oldest first.
  std::vector<const PriceRow*> PriceHistory(absl::string_view provider, absl::string_view type,
                                            absl::string_view region) const;
  // Effective time of the oldest price among the current on-demand prices: what an alert on
  // stale prices watches.
  int64_t OldestCurrentPriceUnixSeconds() const;
};

// The index key of an offer.
std::string OfferKey(absl::string_view provider, absl::string_view type, absl::string_view region);

// The effective times a price row may have: 2000-01-01T00:00:00Z to 2100-01-01T00:00:00Z.
inline constexpr int64_t kEarliestPriceUnixSeconds = 946684800;
inline constexpr int64_t kLatestPriceUnixSeconds = 4102444800;

// Bounds on free text in catalog rows, in bytes.
inline constexpr size_t kMaxNameBytes = 128;  // names, vendors, providers, types, regions
inline constexpr size_t kMaxCitationBytes = 512;
inline constexpr size_t kMaxNoteBytes = 2048;

// InvalidArgument naming `field` when `value` is longer than `max_bytes`, holds a control
// character, or is empty while `required`.
absl::Status CheckText(const std::string& field, absl::string_view value, size_t max_bytes, bool required);
// InvalidArgument naming `field` unless `value` is a real calendar date YYYY-MM-DD in
// 1990-01-01..2100-12-31.
absl::Status CheckIsoDate(const std::string& field, absl::string_view value);

// Field checks for writes (InvalidArgument naming the field and its range).
absl::Status ValidateGpuRow(const GpuRow& row);
absl::Status ValidateModelRow(const ModelRow& row);
absl::Status ValidateInstanceRow(const InstanceRow& row);
absl::Status ValidatePriceRow(const PriceRow& row);
absl::Status ValidateBenchmarkRow(const BenchmarkRow& row);
absl::Status ValidateFabricRow(const FabricRow& row);
absl::Status ValidateElectricityRow(const ElectricityRow& row);
// The name (charset, length) and the request's size; what the request means is the server's.
absl::Status ValidateTcoScenarioRow(const TcoScenarioRow& row);
// InvalidArgument naming `field` unless `name` is 1-64 of [A-Za-z0-9_.-].
absl::Status CheckTcoScenarioName(const std::string& field, absl::string_view name);
absl::Status ValidateSource(const Source& source, const std::string& field);
// Provider, instance type and region, the key of an offer; fields named "<prefix>.provider"...
absl::Status ValidateOfferKey(const std::string& prefix, const std::string& provider, const std::string& instance_type,
                              const std::string& region);

}  // namespace capplan::store
