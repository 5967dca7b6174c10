// Reading a SkyPilot price catalog (CSV) into checked instance offers, before any write.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/store/catalog.h"

namespace capplan::store {

struct CsvRowError {
  int row = 0;  // 1-based; the header is row 1
  std::string field;
  std::string message;
};

// One instance type in one region, with availability zones folded in.
struct CsvOffer {
  InstanceRow instance;
  double on_demand_usd_per_hour = 0;
  double spot_usd_per_hour = -1;  // < 0: none
  int first_row = 0;
};

struct PriceCsv {
  std::vector<CsvOffer> offers;
  int rows_skipped = 0;             // rows without an accelerator (CPU instances)
  std::vector<CsvRowError> errors;  // non-empty: import nothing
};

// Columns InstanceType, AcceleratorName, AcceleratorCount, vCPUs, MemoryGiB, Price, Region
// (SpotPrice, AvailabilityZone optional). Numbers are plain decimals, range-checked; text is
// bounded and free of control characters; one (InstanceType, Region) with two different
// on-demand prices or accelerators is an error naming both rows. A malformed file or a
// missing column is InvalidArgument; bad rows come back in `errors`.
absl::StatusOr<PriceCsv> ReadPriceCsv(const std::string& provider, const std::string& csv, const Source& source,
                                      const CatalogSnapshot& catalog);

// Parses a plain decimal ("12", "-0.5", "3.25"): no exponent, hex, NaN or infinity.
bool ParsePlainDecimal(absl::string_view text, double* out);

}  // namespace capplan::store
