// The per-GPU on-demand price range a public cloud list is expected to fall in, by catalog GPU:
// a fixed reference table read from public price lists, so that what an import accepts does
// not depend on what earlier imports wrote.
#pragma once

#include "absl/strings/string_view.h"
#include "core/assumptions.h"

namespace capplan::store {

struct PriceBand {
  const char* gpu_name;
  double low_usd_per_gpu_hour;   // the cheapest per-GPU on-demand price seen in the sources
  double high_usd_per_gpu_hour;  // the dearest (a big host with one GPU counts whole)
  const char* source;            // the public rows the bounds come from
};

// An offer whose per-GPU price is more than this factor below `low` or above `high` is refused
// unless forced: a wrong unit (cents, per-month), a price per GPU read as per VM, a zero lost.
// The registered assumption `import.price_band_factor` (core/assumptions.h) says why 4.
inline constexpr double kPriceBandFactor = core::assumptions::kImportPriceBandFactor.value.point;

// The band for `gpu_name`; null for a GPU the table does not cover (only the price-above-zero
// rule applies then).
const PriceBand* ReferencePriceBand(absl::string_view gpu_name);

}  // namespace capplan::store
