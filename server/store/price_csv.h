// Reading a SkyPilot price catalog (CSV) into checked instance offers, before any write.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/store/catalog.h"
#include "server/store/price_layouts.h"

namespace capplan::store {

struct CsvRowError {
  int row = 0;  // 1-based; the header is row 1
  std::string field;
  std::string message;
  // Skipped because capplan has nothing to file it under (a GPU missing from the catalog, a
  // GCP GPU with no fixed VM shape, a GCP accelerator in a zone with no host VM for it, a GCP
  // host VM with no accelerator row), not because the row is wrong.
  bool unsupported = false;
};

// One instance type in one region, with availability zones folded in.
struct CsvOffer {
  InstanceRow instance;
  double on_demand_usd_per_hour = 0;
  double spot_usd_per_hour = -1;  // < 0: none
  int first_row = 0;
  std::string accelerator;  // the file's accelerator name
  bool via_alias = false;   // the GPU was found through an accelerator alias, not its catalog name
  // What decided the card's form (gpu_variants.h); empty when the family default was taken.
  std::string variant_evidence;
};

struct PriceCsv {
  PriceLayout layout = PriceLayout::kColumns;
  std::vector<CsvOffer> offers;
  int rows_skipped = 0;  // rows that name no GPU: CPU instances, TPUs, GCP host VM rows
  int gpu_rows = 0;      // rows that name a GPU (imported, folded into an offer, or in `errors`)
  // Rows that could not become an offer, each with its reason (an offer whose rows disagree
  // is dropped whole; its error names both rows). Strict imports write nothing when any.
  std::vector<CsvRowError> errors;
  // Rows imported with something left out (a spot price above on-demand).
  std::vector<CsvRowError> warnings;
};

struct PriceCsvOptions {
  size_t max_rows = 200000;  // including the header
};

// The layout comes from the header (price_layouts.h). Other headers need the columns
// InstanceType, AcceleratorName, AcceleratorCount, vCPUs, MemoryGiB, Price, Region
// (SpotPrice, AvailabilityZone optional), each row a whole VM. GCP v7 accelerator-only rows
// (empty InstanceType) join the host VM row of their zone: the offer's price is the sum.
// Numbers are plain decimals, range-checked; text is bounded and free of control
// characters. A malformed file or a missing column is InvalidArgument; bad rows come back
// in `errors`.
absl::StatusOr<PriceCsv> ReadPriceCsv(const std::string& provider, const std::string& csv, const Source& source,
                                      const CatalogSnapshot& catalog, const PriceCsvOptions& options = {});

// Parses a plain decimal ("12", "-0.5", "3.25"): no exponent, hex, NaN or infinity.
bool ParsePlainDecimal(absl::string_view text, double* out);

}  // namespace capplan::store
