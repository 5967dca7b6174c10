#include "core/catalog.h"

namespace capplan::core {

const char* PriceKindName(PriceKind k) {
  switch (k) {
    case PriceKind::kOnDemand:
      return "on_demand";
    case PriceKind::kSpot:
      return "spot";
    case PriceKind::kReserved1y:
      return "reserved_1y";
    case PriceKind::kReserved3y:
      return "reserved_3y";
  }
  return "on_demand";
}

const char* BenchmarkFigureName(BenchmarkFigure f) {
  return f == BenchmarkFigure::kEndToEnd ? "end_to_end" : "steady_state";
}

}  // namespace capplan::core
