// What a price import checks against the catalog before it writes (sanity rules), what it
// would change (the diff a dry run returns and the audit row records), and its options.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "server/store/catalog.h"
#include "server/store/price_csv.h"

namespace capplan::store {

struct ImportOptions {
  // false (strict): any row that cannot be imported and nothing is written. true: every good
  // row is written and every other row is listed with its reason.
  bool partial = false;
  bool dry_run = false;  // check and diff, write nothing
  // Accept what the sanity rules refuse: a price of 0, a per-GPU price far outside the
  // catalog's range for that GPU, a GPU count no VM is sold with, relabelling an offer's GPU.
  bool force = false;
  size_t max_rows = 200000;  // CSV rows including the header
};

struct OfferChange {
  std::string instance_type, region, gpu_name;
  int gpu_count = 0;
  double old_on_demand_usd_per_hour = -1;  // < 0: a new offer (or none before)
  double new_on_demand_usd_per_hour = 0;
  double old_spot_usd_per_hour = -1;  // < 0: none
  double new_spot_usd_per_hour = -1;  // < 0: none in the file (the current spot price stays)
  int row = 0;                        // the first CSV row of the offer
};

// The rows an import writes for one offer (an index into the offers).
struct OfferWrite {
  size_t offer = 0;
  bool instance = false;   // the instance row is new or differs (GPU, count, vCPUs, memory)
  bool on_demand = false;  // an on-demand price row to add
  bool spot = false;       // a spot price row to add
};

struct ImportDiff {
  std::vector<OfferChange> new_offers;
  std::vector<OfferChange> changed;  // on-demand or spot price, GPU, GPU count or host differ
  int unchanged = 0;
  // Of `changed`, offers whose list is older than the catalog's current price: their rows go
  // into the history (prices as of an earlier date see them) and the current price stays.
  int superseded = 0;
  std::vector<OfferWrite> writes;  // empty: the import writes nothing (no row, no version)
};

// The sanity rules, applied to csv->offers against `catalog`: an offer that breaks one moves
// to csv->errors with its reason (with `force` it stays and the reason goes to warnings).
//  - GPU count: one of 1, 2, 4, 8, 16 or a count the catalog already sells that GPU in.
//  - on-demand price 0, or a per-GPU price outside the GPU's reference band (price_bands.h) by
//    more than kPriceBandFactor: the same file is judged the same whatever was imported before.
//  - an offer the catalog has keeps its GPU when the file names it through an alias of the
//    same family (A100-80GB for A100-PCIe-80GB); a different GPU is refused, unless the offer
//    itself names its variant (gpu_variants.h), which corrects an earlier mislabel.
void CheckOffers(const CatalogSnapshot& catalog, const std::string& provider, bool force, PriceCsv* csv);

// What writing `offers` would change, against the prices in force now, and the rows to write:
// none for an offer whose prices equal those in force at `effective_unix_seconds` (a list
// imported twice writes nothing the second time). A price row dated before the catalog's
// current one never replaces it (each such offer gets a warning).
ImportDiff DiffOffers(const CatalogSnapshot& catalog, const std::string& provider, const std::vector<CsvOffer>& offers,
                      int64_t effective_unix_seconds, std::vector<CsvRowError>* warnings);

// The audit row's after_json for an import: counts, and the first entries of each list.
std::string ImportAuditJson(const ImportOptions& options, const PriceCsv& csv, const ImportDiff& diff);

}  // namespace capplan::store
