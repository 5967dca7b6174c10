// The report `capplan admin import-csv` prints: what the import read, wrote or would write,
// the rows it skipped and why; and the exit status a scheduled refresh alerts on.
#include <cstdio>
#include <iomanip>
#include <iostream>

#include "absl/strings/str_format.h"
#include "client/cli/admin.h"

namespace capplan::cli {
namespace {

constexpr int kListed = 50;

template <typename List, typename Print>
void PrintList(const char* title, int total, const List& list, Print print) {
  if (total == 0) return;
  std::cout << title << " (" << total << "):\n";
  int n = 0;
  for (const auto& item : list) {
    if (n++ == kListed) break;
    print(item);
  }
  if (total > kListed) std::cout << "  ... " << (total - kListed) << " more (--json lists up to 1,000)\n";
}

std::string Spot(const v1::ImportOfferChange& c) {
  if (!c.has_new_spot_usd_per_hour()) return "";
  if (c.has_old_spot_usd_per_hour() && c.old_spot_usd_per_hour() != c.new_spot_usd_per_hour()) {
    return absl::StrFormat("  spot %.10g -> %.10g", c.old_spot_usd_per_hour(), c.new_spot_usd_per_hour());
  }
  return absl::StrFormat("  spot %.10g", c.new_spot_usd_per_hour());
}

void PrintReport(const v1::ImportPricesCsvResponse& r) {
  std::cout << std::setprecision(10);  // prices as the file has them (40.96575, not 40.9657)
  std::cout << "layout " << r.layout() << ": " << r.gpu_rows() << " GPU rows, " << r.rows_without_gpu()
            << " rows without a GPU (CPU instances, TPUs, GCP host VM rows)\n";
  std::cout << r.rows_imported() << " offers " << (r.dry_run() ? "would be imported" : "imported") << " ("
            << r.offers_new() << " new, " << r.offers_changed() << " changed, " << r.offers_unchanged()
            << " unchanged); catalog version " << r.catalog_version() << "\n";
  if (r.offers_superseded() > 0) {
    std::cout << r.offers_superseded()
              << " offers have a newer price in the catalog than this list: it stays current (this list's prices "
                 "go into the history)\n";
  }
  if (r.dry_run() && r.rows_imported() == 0 && r.offers_unchanged() > 0) {
    std::cout << "unchanged: every price equals the current one; nothing written, catalog version stays\n";
  } else if (r.dry_run()) {
    std::cout << "dry run or nothing to import: nothing written\n";
  }
  auto change = [](const v1::ImportOfferChange& c) {
    std::cout << "  row " << c.row() << "  " << c.instance_type() << " " << c.region() << "  " << c.gpu_count() << " x "
              << c.gpu_name() << "  on-demand ";
    if (c.has_old_on_demand_usd_per_hour()) std::cout << c.old_on_demand_usd_per_hour() << " -> ";
    std::cout << c.new_on_demand_usd_per_hour() << " USD/h" << Spot(c) << "\n";
  };
  PrintList("new offers", r.offers_new(), r.new_offers(), change);
  PrintList("changed offers", r.offers_changed(), r.changed_prices(), change);
  auto issue = [](const v1::ImportRowIssue& i) {
    std::cout << "  row " << i.row() << " " << i.field() << (i.unsupported() ? " (unsupported)" : "") << ": "
              << i.reason() << "\n";
  };
  PrintList("skipped rows", r.rows_skipped(), r.skipped_rows(), issue);
  PrintList("warnings", r.warnings_size(), r.warnings(), issue);
}

}  // namespace

int ImportReport(const v1::ImportPricesCsvResponse& r, double max_skipped_fraction, bool json) {
  if (json) {
    PrintJson(r);
  } else {
    PrintReport(r);
  }
  // Rows capplan has nothing to file under (unknown GPUs, GCP N1 GPUs) are the steady state of
  // a public catalog; the threshold watches the rest, which mean a broken or changed file.
  const int base = r.gpu_rows() - r.rows_unsupported();
  const int bad = r.rows_skipped() - r.rows_unsupported();
  const double fraction = base > 0 ? static_cast<double>(bad) / base : 0;
  if (!json) {
    std::cout << absl::StrFormat("skipped %d of %d importable GPU rows (%.2f%%; limit %.2f%%), %d unsupported\n", bad,
                                 base, 100 * fraction, 100 * max_skipped_fraction, r.rows_unsupported());
  }
  // A file of GPUs the catalog lacks imports nothing: the refresh has achieved nothing.
  if (r.gpu_rows() > 0 && base == 0 && r.rows_imported() == 0 && r.offers_unchanged() == 0) {
    std::cerr << absl::StrFormat(
        "capplan: nothing imported: all %d GPU rows name GPUs or VM shapes the catalog has nothing to file under "
        "(see the skipped rows; add a GPU with admin upsert-gpu)\n",
        r.gpu_rows());
    return 3;
  }
  if (fraction > max_skipped_fraction) {
    std::cerr << absl::StrFormat("capplan: %.2f%% of the GPU rows were skipped, more than --max_skipped_fraction=%g\n",
                                 100 * fraction, max_skipped_fraction);
    return 3;
  }
  return 0;
}

}  // namespace capplan::cli
