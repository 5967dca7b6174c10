// Private to capplan_store: catalog rows to and from the database. The stored spelling of each
// enum, and one reader per table (rows in the order the snapshot keeps them).
#pragma once

#include <string>
#include <vector>

#include "server/store/catalog.h"
#include "server/store/sql.h"

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
// Throws sql::Error.
absl::Status CheckFabricExists(sql::Connection& db, const std::string& name, const std::string& field);

// Each throws sql::Error; the caller maps it (and holds the read transaction).
std::vector<GpuRow> ReadGpus(sql::Connection& db);
std::vector<ModelRow> ReadModels(sql::Connection& db);
std::vector<InstanceRow> ReadInstances(sql::Connection& db);
std::vector<PriceRow> ReadPrices(sql::Connection& db);
std::vector<BenchmarkRow> ReadBenchmarks(sql::Connection& db);
std::vector<FabricRow> ReadFabrics(sql::Connection& db);
std::vector<ElectricityRow> ReadElectricity(sql::Connection& db);
std::vector<TcoScenarioRow> ReadTcoScenarios(sql::Connection& db);

}  // namespace capplan::store
