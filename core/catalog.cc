// Names of the catalog enums, from their tables.
#include "core/catalog.h"

#include "core/enum_names.h"

namespace capplan::core {

const char* PriceKindName(PriceKind k) { return EnumName(k); }

const char* BenchmarkFigureName(BenchmarkFigure f) { return EnumName(f); }

}  // namespace capplan::core
