// One name table per enum that is stored or sent by name. Each enum's table sits beside its
// declaration (kPrecisionNames in precision.h, ...), in enum order; this header gives every
// caller the same two conversions, and names the API enum each one mirrors, whose values are
// PREFIX + the upper-cased name at the core value + 1 (0 is UNSPECIFIED). The database's CHECK
// lists and the protos are tested against these tables (tests/server/enum_names_test.cc), so
// a new enum value is added in one place and a test says what else must follow.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "core/catalog.h"
#include "core/efficiency.h"
#include "core/fabric.h"
#include "core/gpu.h"
#include "core/precision.h"
#include "core/serving/serving_engine.h"
#include "core/training/training.h"

namespace capplan::core {

// kNames: the names in enum order. kProtoEnum: the full name of the API enum it mirrors
// (empty when the API carries it as a string). kProtoPrefix: that enum's value prefix.
template <typename E>
struct EnumNames;

template <>
struct EnumNames<Precision> {
  static constexpr const auto& kNames = kPrecisionNames;
  static constexpr const char* kProtoEnum = "capplan.v1.Precision";
  static constexpr const char* kProtoPrefix = "PRECISION_";
};
template <>
struct EnumNames<Interconnect> {
  static constexpr const auto& kNames = kInterconnectNames;
  static constexpr const char* kProtoEnum = "capplan.v1.InterconnectKind";
  static constexpr const char* kProtoPrefix = "INTERCONNECT_KIND_";
};
template <>
struct EnumNames<NetworkKind> {
  static constexpr const auto& kNames = kNetworkKindNames;
  static constexpr const char* kProtoEnum = "capplan.v1.NetworkKind";
  static constexpr const char* kProtoPrefix = "NETWORK_KIND_";
};
template <>
struct EnumNames<PriceKind> {
  static constexpr const auto& kNames = kPriceKindNames;
  static constexpr const char* kProtoEnum = "capplan.v1.PriceKind";
  static constexpr const char* kProtoPrefix = "PRICE_KIND_";
};
template <>
struct EnumNames<WorkloadKind> {
  static constexpr const auto& kNames = kWorkloadKindNames;
  static constexpr const char* kProtoEnum = "capplan.v1.WorkloadKind";
  static constexpr const char* kProtoPrefix = "WORKLOAD_KIND_";
};
template <>
struct EnumNames<MeasuredUnit> {
  static constexpr const auto& kNames = kMeasuredUnitNames;
  static constexpr const char* kProtoEnum = "";  // a string field on the API
  static constexpr const char* kProtoPrefix = "";
};
template <>
struct EnumNames<BenchmarkFigure> {
  static constexpr const auto& kNames = kBenchmarkFigureNames;
  static constexpr const char* kProtoEnum = "capplan.v1.BenchmarkFigure";
  static constexpr const char* kProtoPrefix = "BENCHMARK_FIGURE_";
};
template <>
struct EnumNames<TrainingMethod> {
  static constexpr const auto& kNames = kTrainingMethodNames;
  static constexpr const char* kProtoEnum = "capplan.v1.TrainingMethod";
  static constexpr const char* kProtoPrefix = "TRAINING_METHOD_";
};
template <>
struct EnumNames<ServingEngine> {
  static constexpr const auto& kNames = kServingEngineNames;
  static constexpr const char* kProtoEnum = "capplan.v1.ServingEngine";
  static constexpr const char* kProtoPrefix = "SERVING_ENGINE_";
};

// The name of `e`; "unknown" for a value outside the table.
template <typename E>
constexpr const char* EnumName(E e) {
  const auto& names = EnumNames<E>::kNames;
  const auto i = static_cast<std::size_t>(e);
  return i < names.size() ? names[i] : "unknown";
}

// The value named `name`, or nullopt.
template <typename E>
std::optional<E> EnumFromName(std::string_view name) {
  const auto& names = EnumNames<E>::kNames;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (name == names[i]) return static_cast<E>(i);
  }
  return std::nullopt;
}

}  // namespace capplan::core
