// Sanity rules for imported offers, the import diff, and its audit record.
#include "server/store/import_checks.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "server/store/price_bands.h"

namespace capplan::store {

namespace {

constexpr size_t kAuditListEntries = 100;

// The family a catalog GPU name belongs to: "A100" for A100-SXM4-80GB and A100-PCIe-80GB,
// "RTX-4090" for RTX-4090.
std::string Family(const std::string& gpu) {
  std::vector<std::string> parts = absl::StrSplit(gpu, '-');
  if (parts.size() >= 2 && parts[0] == "RTX") return parts[0] + "-" + parts[1];
  return parts.empty() ? gpu : parts[0];
}

// The GPU counts the catalog sells each GPU in.
std::map<std::string, std::set<int>> Counts(const CatalogSnapshot& catalog) {
  std::map<std::string, std::set<int>> out;
  for (const InstanceRow& i : catalog.instances) out[i.gpu_name].insert(i.gpu_count);
  return out;
}

// The first rule `o` breaks as {field, reason}; empty when none. May relabel `o` back to the
// GPU its existing offer has (an alias names a family), noting that in `note`.
std::pair<std::string, std::string> BrokenRule(const CatalogSnapshot& catalog, const std::string& provider,
                                               const std::map<std::string, std::set<int>>& counts, CsvOffer* o,
                                               std::string* note) {
  InstanceRow& in = o->instance;
  if (const InstanceRow* existing = catalog.FindInstance(provider, in.instance_type, in.region)) {
    if (existing->gpu_name != in.gpu_name && !o->variant_evidence.empty() &&
        Family(existing->gpu_name) == Family(in.gpu_name)) {
      // The offer itself names its card (gpu_variants.h): an earlier import that filed it under
      // the family's SXM part was wrong, and is corrected.
      *note = absl::StrCat("relabelled from ", existing->gpu_name, " to ", in.gpu_name, ": ", o->variant_evidence);
    } else if (existing->gpu_name != in.gpu_name) {
      if (!o->via_alias || Family(existing->gpu_name) != Family(in.gpu_name)) {
        return {"AcceleratorName",
                absl::StrCat("the catalog's offer has GPU ", existing->gpu_name, "; the file says \"", o->accelerator,
                             "\" (", in.gpu_name, "); not relabelled")};
      }
      *note = absl::StrCat("\"", o->accelerator, "\" is a family alias: the offer keeps its catalog GPU ",
                           existing->gpu_name, " (not relabelled ", in.gpu_name, ")");
      in.gpu_name = existing->gpu_name;
    }
  }
  auto m = counts.find(in.gpu_name);
  const bool usual =
      in.gpu_count == 1 || in.gpu_count == 2 || in.gpu_count == 4 || in.gpu_count == 8 || in.gpu_count == 16;
  if (!usual && (m == counts.end() || m->second.count(in.gpu_count) == 0)) {
    return {"AcceleratorCount", absl::StrCat(in.gpu_count, " x ", in.gpu_name,
                                             " is not a shape VMs are sold in (1, 2, 4, 8 or 16 GPUs, or a count "
                                             "the catalog already has for it)")};
  }
  if (o->on_demand_usd_per_hour <= 0) {
    return {"Price", "0 USD per hour: a free offer would rank first in every plan"};
  }
  if (const PriceBand* band = ReferencePriceBand(in.gpu_name)) {
    const double per_gpu = o->on_demand_usd_per_hour / in.gpu_count;
    if (per_gpu < band->low_usd_per_gpu_hour / kPriceBandFactor ||
        per_gpu > band->high_usd_per_gpu_hour * kPriceBandFactor) {
      return {"Price", absl::StrFormat("%.6g USD per GPU-hour for %s is more than %gx outside the reference range "
                                       "%.6g..%.6g (%s)",
                                       per_gpu, in.gpu_name, kPriceBandFactor, band->low_usd_per_gpu_hour,
                                       band->high_usd_per_gpu_hour, band->source)};
    }
  }
  return {};
}

void AppendJsonString(std::string* out, const std::string& s) {
  out->push_back('"');
  for (char c : s) {
    if (c == '"' || c == '\\') out->push_back('\\');
    out->push_back(c);
  }
  out->push_back('"');
}

std::string Num(double v) { return absl::StrFormat("%.10g", v); }

void AppendChanges(std::string* out, const char* name, const std::vector<OfferChange>& list) {
  absl::StrAppend(out, ",\"", name, "\":[");
  for (size_t i = 0; i < list.size() && i < kAuditListEntries; ++i) {
    const OfferChange& c = list[i];
    if (i > 0) out->push_back(',');
    out->append("{\"instance_type\":");
    AppendJsonString(out, c.instance_type);
    out->append(",\"region\":");
    AppendJsonString(out, c.region);
    out->append(",\"gpu\":");
    AppendJsonString(out, c.gpu_name);
    absl::StrAppend(out, ",\"gpu_count\":", c.gpu_count, ",\"row\":", c.row);
    if (c.old_on_demand_usd_per_hour >= 0) {
      absl::StrAppend(out, ",\"old_on_demand_usd_per_hour\":", Num(c.old_on_demand_usd_per_hour));
    }
    absl::StrAppend(out, ",\"new_on_demand_usd_per_hour\":", Num(c.new_on_demand_usd_per_hour));
    if (c.old_spot_usd_per_hour >= 0) absl::StrAppend(out, ",\"old_spot_usd_per_hour\":", Num(c.old_spot_usd_per_hour));
    if (c.new_spot_usd_per_hour >= 0) absl::StrAppend(out, ",\"new_spot_usd_per_hour\":", Num(c.new_spot_usd_per_hour));
    out->push_back('}');
  }
  out->push_back(']');
}

void AppendRows(std::string* out, const char* name, const std::vector<CsvRowError>& list) {
  absl::StrAppend(out, ",\"", name, "\":[");
  for (size_t i = 0; i < list.size() && i < kAuditListEntries; ++i) {
    if (i > 0) out->push_back(',');
    absl::StrAppend(out, "{\"row\":", list[i].row, ",\"field\":");
    AppendJsonString(out, list[i].field);
    out->append(",\"reason\":");
    AppendJsonString(out, list[i].message);
    out->push_back('}');
  }
  out->push_back(']');
}

}  // namespace

void CheckOffers(const CatalogSnapshot& catalog, const std::string& provider, bool force, PriceCsv* csv) {
  const std::map<std::string, std::set<int>> counts = Counts(catalog);
  std::vector<CsvOffer> kept;
  kept.reserve(csv->offers.size());
  for (CsvOffer& o : csv->offers) {
    std::string note;
    auto [field, reason] = BrokenRule(catalog, provider, counts, &o, &note);
    if (!note.empty()) csv->warnings.push_back({o.first_row, "AcceleratorName", note});
    if (field.empty()) {
      kept.push_back(std::move(o));
    } else if (force) {
      csv->warnings.push_back({o.first_row, field, absl::StrCat("accepted with force: ", reason)});
      kept.push_back(std::move(o));
    } else {
      csv->errors.push_back(
          {o.first_row, field, absl::StrCat(o.instance.instance_type, " in ", o.instance.region, ": ", reason)});
    }
  }
  csv->offers = std::move(kept);
  auto by_row = [](const CsvRowError& a, const CsvRowError& b) { return a.row < b.row; };
  std::stable_sort(csv->errors.begin(), csv->errors.end(), by_row);
  std::stable_sort(csv->warnings.begin(), csv->warnings.end(), by_row);
}

ImportDiff DiffOffers(const CatalogSnapshot& catalog, const std::string& provider, const std::vector<CsvOffer>& offers,
                      int64_t effective_unix_seconds, std::vector<CsvRowError>* warnings) {
  ImportDiff diff;
  for (size_t i = 0; i < offers.size(); ++i) {
    const CsvOffer& o = offers[i];
    const InstanceRow& in = o.instance;
    OfferChange c{in.instance_type,         in.region, in.gpu_name,         in.gpu_count, -1,
                  o.on_demand_usd_per_hour, -1,        o.spot_usd_per_hour, o.first_row};
    const InstanceRow* existing = catalog.FindInstance(provider, in.instance_type, in.region);
    if (existing == nullptr) {
      diff.new_offers.push_back(std::move(c));
      diff.writes.push_back({i, true, true, o.spot_usd_per_hour >= 0});
      continue;
    }
    OfferWrite w{i,
                 existing->gpu_name != in.gpu_name || existing->gpu_count != in.gpu_count ||
                     existing->vcpus != in.vcpus || existing->memory_bytes != in.memory_bytes,
                 false, false};
    bool superseded = false;
    // One price kind: written when it differs from the price in force at the list's effective
    // time (so re-importing a list writes nothing); a newer current price stays current.
    auto judge = [&](PriceKind kind, double new_price, double* old_price) {
      const PriceRow* now = catalog.PriceAt(*existing, kind, 0);
      if (now != nullptr) *old_price = now->price_usd_per_hour;
      if (new_price < 0) return false;
      const PriceRow* then = catalog.PriceAt(*existing, kind, effective_unix_seconds);
      if (then != nullptr && then->price_usd_per_hour == new_price) return false;
      if (now != nullptr && now->effective_unix_seconds > effective_unix_seconds) superseded = true;
      return true;
    };
    w.on_demand = judge(PriceKind::kOnDemand, o.on_demand_usd_per_hour, &c.old_on_demand_usd_per_hour);
    w.spot = judge(PriceKind::kSpot, o.spot_usd_per_hour, &c.old_spot_usd_per_hour);
    if (superseded) {
      ++diff.superseded;
      warnings->push_back({o.first_row, "Price",
                           absl::StrCat(in.instance_type, " in ", in.region,
                                        ": the catalog's current price took effect after this list's effective "
                                        "time (",
                                        effective_unix_seconds,
                                        "); this list's price is kept in the history and the newer price stays")});
    }
    if (w.instance || w.on_demand || w.spot) {
      diff.changed.push_back(std::move(c));
      diff.writes.push_back(w);
    } else {
      ++diff.unchanged;
    }
  }
  return diff;
}

std::string ImportAuditJson(const ImportOptions& options, const PriceCsv& csv, const ImportDiff& diff) {
  std::string out = absl::StrCat(
      "{\"layout\":\"", PriceLayoutName(csv.layout), "\",\"mode\":\"", options.partial ? "partial" : "strict",
      "\",\"force\":", options.force ? "true" : "false", ",\"gpu_rows\":", csv.gpu_rows,
      ",\"rows_without_gpu\":", csv.rows_skipped, ",\"offers\":", csv.offers.size(),
      ",\"offers_new\":", diff.new_offers.size(), ",\"offers_changed\":", diff.changed.size(),
      ",\"offers_unchanged\":", diff.unchanged, ",\"offers_superseded\":", diff.superseded,
      ",\"rows_skipped\":", csv.errors.size(), ",\"list_limit\":", kAuditListEntries);
  AppendChanges(&out, "new_offers", diff.new_offers);
  AppendChanges(&out, "changed_prices", diff.changed);
  AppendRows(&out, "skipped_rows", csv.errors);
  AppendRows(&out, "warnings", csv.warnings);
  out.push_back('}');
  return out;
}

}  // namespace capplan::store
