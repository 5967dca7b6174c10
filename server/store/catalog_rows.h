// Private to capplan_store: catalog rows to and from SQLite. The stored spelling of each
// enum, and one reader per table (rows in the order the snapshot keeps them).
#pragma once

#include <string>
#include <vector>

#include "server/store/catalog.h"
#include "server/store/sqlite_impl.h"

namespace capplan::store {

const char* InterconnectText(core::Interconnect i);
core::Interconnect InterconnectFrom(const std::string& s);
core::Precision PrecisionFrom(const std::string& s);
const char* WorkloadText(core::WorkloadKind w);
core::WorkloadKind WorkloadFrom(const std::string& s);
const char* MethodText(core::TrainingMethod m);
core::TrainingMethod MethodFrom(const std::string& s);
const char* UnitText(core::MeasuredUnit u);
core::MeasuredUnit UnitFrom(const std::string& s);
PriceKind PriceKindFrom(const std::string& s);
core::NetworkKind NetworkKindFrom(const std::string& s);
core::BenchmarkFigure FigureFrom(const std::string& s);
core::ServingEngine EngineFrom(const std::string& s);

// Ok when `name` is empty or names a fabric; otherwise InvalidArgument naming `field`.
// Throws SQLite::Exception.
absl::Status CheckFabricExists(SQLite::Database& db, const std::string& name, const std::string& field);

// Each throws SQLite::Exception; the caller maps it (and holds the read transaction).
std::vector<GpuRow> ReadGpus(SQLite::Database& db);
std::vector<ModelRow> ReadModels(SQLite::Database& db);
std::vector<InstanceRow> ReadInstances(SQLite::Database& db);
std::vector<PriceRow> ReadPrices(SQLite::Database& db);
std::vector<BenchmarkRow> ReadBenchmarks(SQLite::Database& db);
std::vector<FabricRow> ReadFabrics(SQLite::Database& db);
std::vector<ElectricityRow> ReadElectricity(SQLite::Database& db);

}  // namespace capplan::store
