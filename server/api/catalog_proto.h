// Conversions between the API's messages and the store's rows / core's structs. Inputs are
// checked on the way in: an unset or unknown enum is InvalidArgument naming the field path.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "capplan/v1/admin.pb.h"
#include "capplan/v1/catalog.pb.h"
#include "server/store/catalog.h"

namespace capplan::server {

absl::StatusOr<core::Precision> PrecisionFromProto(capplan::v1::Precision p, const std::string& field);
capplan::v1::Precision PrecisionToProto(core::Precision p);
// UNSPECIFIED reads as vLLM, the default engine.
absl::StatusOr<core::ServingEngine> ServingEngineFromProto(capplan::v1::ServingEngine e, const std::string& field);
capplan::v1::ServingEngine ServingEngineToProto(core::ServingEngine e);

absl::StatusOr<core::Interconnect> InterconnectFromProto(capplan::v1::InterconnectKind k, const std::string& field);
capplan::v1::InterconnectKind InterconnectToProto(core::Interconnect i);
absl::StatusOr<core::NetworkKind> NetworkKindFromProto(capplan::v1::NetworkKind k, const std::string& field);
capplan::v1::NetworkKind NetworkKindToProto(core::NetworkKind k);

// A catalog fabric row: every field must be set (an unset link or network kind is
// InvalidArgument naming fabric.intra_link / fabric.network); ranges are the store's check.
absl::StatusOr<store::FabricRow> FabricFromProto(const capplan::v1::Fabric& f);
void FabricToProto(const store::FabricRow& row, capplan::v1::Fabric* out);
// The fields of a fabric an estimate assumed (no source: the option's provenance has it).
void FabricToProto(const core::Fabric& f, const std::string& name, capplan::v1::Fabric* out);

absl::StatusOr<store::GpuRow> GpuFromProto(const capplan::v1::Gpu& g);
void GpuToProto(const store::GpuRow& row, capplan::v1::Gpu* out);

// A region's electricity price; ranges are the store's check.
store::ElectricityRow ElectricityFromProto(const capplan::v1::ElectricityPrice& e);
void ElectricityToProto(const store::ElectricityRow& row, capplan::v1::ElectricityPrice* out);

// Architecture fields only (no catalog metadata), for inline models in requests.
core::ModelArchitecture ArchitectureFromProto(const capplan::v1::ModelArchitecture& m);
absl::StatusOr<store::ModelRow> ModelFromProto(const capplan::v1::ModelArchitecture& m);
void ModelToProto(const store::ModelRow& row, capplan::v1::ModelArchitecture* out);

absl::StatusOr<store::InstanceRow> InstanceFromProto(const capplan::v1::InstanceType& i,
                                                     const capplan::v1::Source& source);
void InstanceToProto(const store::InstanceRow& row, capplan::v1::InstanceType* out);

absl::StatusOr<store::PriceKind> PriceKindFromProto(capplan::v1::PriceKind k, const std::string& field);
capplan::v1::PriceKind PriceKindToProto(store::PriceKind k);
absl::StatusOr<store::PriceRow> PriceFromProto(const capplan::v1::Price& p);
void PriceToProto(const store::PriceRow& row, capplan::v1::Price* out);

absl::StatusOr<store::BenchmarkRow> BenchmarkFromProto(const capplan::v1::Benchmark& b);
void BenchmarkToProto(const store::BenchmarkRow& row, capplan::v1::Benchmark* out);

store::Source SourceFromProto(const capplan::v1::Source& s);
void SourceToProto(const store::Source& s, capplan::v1::Source* out);

}  // namespace capplan::server
