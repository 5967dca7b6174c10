// SkyPilot CSV rows to offers: column lookup, strict numbers, bounded text, duplicate keys,
// and GCP's host + accelerator rows joined into whole-VM offers.
#include "server/store/price_csv.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "core/validate.h"
#include "server/store/csv.h"
#include "server/store/gpu_variants.h"

namespace capplan::store {

namespace {

using Columns = std::map<std::string, size_t>;
using Cells = std::vector<std::string>;

// One data row's cells by column name.
class Row {
 public:
  Row(const Columns& col, const Cells& cells, int row_no, std::vector<CsvRowError>* errors)
      : col_(col), cells_(cells), row_no_(row_no), errors_(errors) {}

  std::string Cell(const char* name) const {
    auto it = col_.find(name);
    if (it == col_.end() || it->second >= cells_.size()) return std::string();
    return std::string(absl::StripAsciiWhitespace(cells_[it->second]));
  }

  bool Fail(const char* field, const std::string& message, bool unsupported = false) {
    errors_->push_back({row_no_, field, message, unsupported});
    return false;
  }

  // A plain decimal in [lo, hi] (whole when `whole`); false after recording the error.
  bool Number(const char* name, double lo, double hi, bool whole, double* out) {
    const std::string text = Cell(name);
    if (!ParsePlainDecimal(text, out) || *out < lo || *out > hi || (whole && *out != std::floor(*out))) {
      return Fail(name, absl::StrCat("must be a plain decimal", whole ? " whole number" : "", " in [", lo, ", ", hi,
                                     "], got \"", text, "\""));
    }
    return true;
  }

  // The on-demand price; an empty cell is its own reason (the catalog publishes none).
  bool Price(double* out) {
    if (Cell("Price").empty()) {
      return Fail("Price", "empty: the catalog publishes no on-demand price for this offer, so it is not imported");
    }
    return Number("Price", 0, 10000, false, out);
  }

  // The spot price, or -1 when the cell is empty.
  bool Spot(double* out) {
    *out = -1;
    return Cell("SpotPrice").empty() || Number("SpotPrice", 0, 10000, false, out);
  }

  bool Text(const char* name, std::string* out) {
    *out = Cell(name);
    absl::Status s = CheckText(name, *out, kMaxNameBytes, true);
    return s.ok() || Fail(name, std::string(s.message().substr(std::string(name).size() + 2)));
  }

  int row_no() const { return row_no_; }

 private:
  const Columns& col_;
  const Cells& cells_;
  int row_no_;
  std::vector<CsvRowError>* errors_;
};

// The catalog GPU an accelerator name means on `type` at `provider` (null when none), whether
// only an alias or a family default found it, and what decided its variant (gpu_variants.h).
const GpuRow* ResolveGpu(const CatalogSnapshot& catalog, const std::string& provider, const std::string& type,
                         const std::string& accel, double stated_mib_per_gpu, bool* via_alias, std::string* evidence,
                         std::string* wanted) {
  *via_alias = false;
  evidence->clear();
  *wanted = accel;
  if (const GpuRow* g = catalog.FindGpu(accel)) return g;
  const GpuVariant variant = ResolveGpuVariant(provider, type, accel, stated_mib_per_gpu);
  if (!variant.gpu_name.empty()) {
    *via_alias = variant.evidence.empty();
    *evidence = variant.evidence;
    *wanted = variant.gpu_name;
    return catalog.FindGpu(variant.gpu_name);
  }
  auto alias = AcceleratorAliases().find(accel);
  if (alias == AcceleratorAliases().end()) return nullptr;
  *via_alias = true;
  *wanted = alias->second;
  return catalog.FindGpu(alias->second);
}

// What one row (or one GCP host + accelerator pair) says about an offer.
struct RowOffer {
  std::string type, region, accel;
  const GpuRow* gpu = nullptr;
  bool via_alias = false;
  std::string variant_evidence;
  double count = 0, vcpus = 0, mem_gib = 0, price = 0, spot = -1;
};

// Offers by (type, region). Zones of one region repeat an offer; rows that disagree about
// it drop the offer whole, since picking either would be a guess.
class OfferSet {
 public:
  OfferSet(std::string provider, Source source) : provider_(std::move(provider)), source_(std::move(source)) {}

  void Add(const RowOffer& o, Row& r, std::vector<CsvRowError>* warnings) {
    double spot = o.spot;
    if (spot > o.price) {
      warnings->push_back({r.row_no(), "SpotPrice",
                           absl::StrCat("spot price ", spot, " is above the on-demand price ", o.price,
                                        "; the spot price is not imported")});
      spot = -1;
    }
    auto [it, inserted] = offers_.try_emplace({o.type, o.region});
    Entry& e = it->second;
    if (inserted) {
      e.offer.instance = {provider_,
                          o.type,
                          o.region,
                          o.gpu->spec.name,
                          static_cast<int>(o.count),
                          static_cast<int>(o.vcpus),
                          static_cast<int64_t>(std::llround(o.mem_gib * 1024.0 * 1024.0 * 1024.0)),
                          "",
                          source_};
      e.offer.on_demand_usd_per_hour = o.price;
      e.offer.first_row = r.row_no();
      e.offer.accelerator = o.accel;
      e.offer.via_alias = o.via_alias;
      e.offer.variant_evidence = o.variant_evidence;
    } else if (e.dropped) {
      r.Fail("Price", absl::StrCat(o.type, " in ", o.region, " was dropped: its rows disagree (first at row ",
                                   e.offer.first_row, ")"));
      return;
    } else if (e.offer.on_demand_usd_per_hour != o.price || e.offer.instance.gpu_name != o.gpu->spec.name ||
               e.offer.instance.gpu_count != static_cast<int>(o.count)) {
      r.Fail("Price", absl::StrCat(o.type, " in ", o.region, " appears in rows ", e.offer.first_row, " and ",
                                   r.row_no(), " with different on-demand prices or accelerators (",
                                   e.offer.on_demand_usd_per_hour, " vs ", o.price, "); the offer is not imported"));
      e.dropped = true;
      return;
    }
    // Keep the cheapest spot price across zones.
    if (spot >= 0 && (e.offer.spot_usd_per_hour < 0 || spot < e.offer.spot_usd_per_hour)) {
      e.offer.spot_usd_per_hour = spot;
    }
  }

  std::vector<CsvOffer> Take() {
    std::vector<CsvOffer> out;
    out.reserve(offers_.size());
    for (auto& kv : offers_) {
      if (!kv.second.dropped) out.push_back(std::move(kv.second.offer));
    }
    return out;
  }

 private:
  struct Entry {
    CsvOffer offer;
    bool dropped = false;
  };
  std::string provider_;
  Source source_;
  std::map<std::pair<std::string, std::string>, Entry> offers_;
};

// The accelerator of a row: its GPU and count. False (error recorded) when unknown or bad.
// `type` is the VM type the accelerator is sold on (empty for a GCP accelerator-only row).
bool ReadAccelerator(Row& r, const CatalogSnapshot& catalog, const std::string& provider, const std::string& type,
                     RowOffer* o) {
  if (!r.Text("AcceleratorName", &o->accel)) return false;
  std::string wanted;
  double count = 0;  // checked below; here only to read GpuInfo's memory per GPU
  const double stated_mib =
      ParsePlainDecimal(r.Cell("AcceleratorCount"), &count) ? StatedMibPerGpu(r.Cell("GpuInfo"), count) : 0;
  o->gpu = ResolveGpu(catalog, provider, type, o->accel, stated_mib, &o->via_alias, &o->variant_evidence, &wanted);
  if (o->gpu == nullptr) {
    const std::string which =
        wanted == o->accel ? absl::StrCat("\"", o->accel, "\"")
                           : absl::StrCat(wanted, " (\"", o->accel, "\" on ", type.empty() ? "this VM" : type, ")");
    return r.Fail("AcceleratorName",
                  absl::StrCat("no GPU named ", which,
                               " in the catalog; these rows are imported once it is added "
                               "(admin upsert-gpu)"),
                  true);
  }
  return r.Number("AcceleratorCount", 1, 64, true, &o->count);
}

// A row that is a whole VM with its GPUs (AWS, Azure, the generic columns).
void ReadVmRow(Row& r, const CatalogSnapshot& catalog, const std::string& provider, OfferSet* offers,
               std::vector<CsvRowError>* warnings) {
  RowOffer o;
  if (!ReadAccelerator(r, catalog, provider, r.Cell("InstanceType"), &o)) return;
  if (!r.Number("vCPUs", 0, 4096, true, &o.vcpus) || !r.Number("MemoryGiB", 0, 32768, false, &o.mem_gib) ||
      !r.Price(&o.price) || !r.Spot(&o.spot) || !r.Text("InstanceType", &o.type) || !r.Text("Region", &o.region)) {
    return;
  }
  offers->Add(o, r, warnings);
}

// GCP host VM rows by (instance type, zone): the rows an accelerator row joins.
using HostRows = std::map<std::pair<std::string, std::string>, size_t>;  // -> row index

std::string Zone(const Row& r) {
  std::string zone = r.Cell("AvailabilityZone");
  return zone.empty() ? r.Cell("Region") : zone;
}

// An accelerator-only GCP row: one offer per host VM type found in its zone, priced host +
// accelerator (spot likewise when both have one).
void ReadGcpAccelerator(Row& r, const std::vector<Cells>& table, const Columns& col, const HostRows& hosts,
                        const CatalogSnapshot& catalog, OfferSet* offers, PriceCsv* out,
                        std::set<size_t>* joined_hosts) {
  RowOffer acc;
  if (!r.Text("AcceleratorName", &acc.accel)) return;
  if (IsGcpAttachableGpu(acc.accel)) {
    r.Fail("AcceleratorName",
           absl::StrCat("GCP sells ", acc.accel,
                        " per GPU for any N1 VM; with no fixed VM shape there is no offer to "
                        "import"),
           true);
    return;
  }
  if (!ReadAccelerator(r, catalog, "gcp", "", &acc) || !r.Price(&acc.price) || !r.Spot(&acc.spot) ||
      !r.Text("Region", &acc.region)) {
    return;
  }
  const std::vector<std::string> types = GcpHostTypes(acc.accel, static_cast<int>(acc.count));
  if (types.empty()) {
    r.Fail("AcceleratorCount",
           absl::StrCat("no GCP VM type carries ", acc.count, " x ", acc.accel, " (A2/A3/G2/A4 series); not imported"),
           true);
    return;
  }
  const std::string zone = Zone(r);
  int joined = 0;
  std::vector<CsvRowError> host_errors;
  for (const std::string& type : types) {
    auto h = hosts.find({type, zone});
    if (h == hosts.end()) continue;
    Row host(col, table[h->second], static_cast<int>(h->second) + 1, &host_errors);
    RowOffer o = acc;
    double host_price = 0, host_spot = -1;
    if (!host.Number("vCPUs", 0, 4096, true, &o.vcpus) || !host.Number("MemoryGiB", 0, 32768, false, &o.mem_gib) ||
        !host.Price(&host_price) || !host.Spot(&host_spot)) {
      continue;
    }
    o.type = type;
    o.price = host_price + acc.price;
    o.spot = (host_spot >= 0 && acc.spot >= 0) ? host_spot + acc.spot : -1;
    offers->Add(o, r, &out->warnings);
    joined_hosts->insert(h->second);
    ++joined;
  }
  if (joined == 0 && host_errors.empty()) {
    // GCP lists accelerators in zones that sell no VM to carry them: nothing is sold there.
    r.Fail("InstanceType",
           absl::StrCat("no host VM (", absl::StrJoin(types, " or "), ") is listed in ", zone,
                        ", so the accelerator is not sold there; not imported"),
           true);
  } else if (joined == 0) {
    r.Fail("InstanceType", absl::StrCat("the accelerator adds to host VM ", absl::StrJoin(types, " or "), " in ", zone,
                                        ", but its row ", host_errors[0].row, " ", host_errors[0].field, ": ",
                                        host_errors[0].message, "; not imported"));
  }
}

// GCP host VM rows no accelerator row joined: listed, so that no GPU offer is dropped unseen.
void ListUnjoinedHosts(const std::vector<Cells>& table, const Columns& col, const HostRows& hosts,
                       const std::set<size_t>& joined, PriceCsv* out) {
  for (const auto& [key, i] : hosts) {
    if (joined.count(i) != 0) continue;
    Row row(col, table[i], static_cast<int>(i) + 1, &out->errors);
    ++out->gpu_rows;
    --out->rows_skipped;
    row.Fail("AcceleratorName",
             absl::StrCat("GPU host VM ", key.first, " in ", key.second,
                          " has no accelerator row for its GPUs in this zone, so its price is incomplete; not "
                          "imported"),
             true);
  }
}

void ReadGcpRows(const std::vector<Cells>& table, const Columns& col, const CatalogSnapshot& catalog, OfferSet* offers,
                 PriceCsv* out) {
  std::set<size_t> joined;
  HostRows hosts;
  std::vector<size_t> accelerators;
  for (size_t i = 1; i < table.size(); ++i) {
    Row row(col, table[i], static_cast<int>(i) + 1, &out->errors);
    const std::string type = row.Cell("InstanceType");
    if (!type.empty()) {
      if (IsGcpGpuHost(type)) hosts.emplace(std::make_pair(type, Zone(row)), i);
      if (row.Cell("AcceleratorName").empty() && LooksLikeGcpGpuHost(type) && !IsGcpGpuHost(type)) {
        ++out->gpu_rows;
        row.Fail("InstanceType",
                 absl::StrCat("GCP GPU VM type ", type,
                              " is not in capplan's host table (server/store/price_layouts.cc), so its "
                              "accelerator rows cannot be joined; not imported"),
                 true);
      } else if (row.Cell("AcceleratorName").empty()) {
        ++out->rows_skipped;  // a host or CPU VM: priced without its GPUs
      } else {
        ++out->gpu_rows;
        ReadVmRow(row, catalog, "gcp", offers, &out->warnings);
      }
    } else if (row.Cell("AcceleratorName").empty() || IsTpu(row.Cell("AcceleratorName"))) {
      ++out->rows_skipped;
    } else {
      accelerators.push_back(i);
    }
  }
  for (size_t i : accelerators) {
    ++out->gpu_rows;
    Row row(col, table[i], static_cast<int>(i) + 1, &out->errors);
    ReadGcpAccelerator(row, table, col, hosts, catalog, offers, out, &joined);
  }
  ListUnjoinedHosts(table, col, hosts, joined, out);
}

}  // namespace

bool ParsePlainDecimal(absl::string_view text, double* out) {
  size_t i = (!text.empty() && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
  size_t digits = 0, dots = 0;
  for (; i < text.size(); ++i) {
    if (text[i] >= '0' && text[i] <= '9') {
      ++digits;
    } else if (text[i] == '.' && dots == 0) {
      ++dots;
    } else {
      return false;
    }
  }
  return digits > 0 && digits <= 30 && absl::SimpleAtod(text, out) && std::isfinite(*out);
}

absl::StatusOr<PriceCsv> ReadPriceCsv(const std::string& provider, const std::string& csv, const Source& source,
                                      const CatalogSnapshot& catalog, const PriceCsvOptions& options) {
  CAPPLAN_RETURN_IF_ERROR(CheckText("provider", provider, kMaxNameBytes, true));
  CAPPLAN_RETURN_IF_ERROR(ValidateSource(source, "source"));
  CsvOptions csv_options;
  csv_options.max_rows = options.max_rows;
  absl::StatusOr<std::vector<Cells>> table = ParseCsv(csv, csv_options);
  if (!table.ok()) return table.status();
  if (table->empty()) return absl::InvalidArgumentError("csv: empty");
  Columns col;
  for (size_t i = 0; i < table->front().size(); ++i) {
    col[std::string(absl::StripAsciiWhitespace(table->front()[i]))] = i;
  }
  for (const char* required :
       {"InstanceType", "AcceleratorName", "AcceleratorCount", "vCPUs", "MemoryGiB", "Price", "Region"}) {
    if (col.count(required) == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("csv: missing column ", required, " (SkyPilot catalog columns expected)"));
    }
  }
  PriceCsv out;
  out.layout = DetectPriceLayout(table->front());
  OfferSet offers(provider, source);
  if (out.layout == PriceLayout::kGcpV7) {
    ReadGcpRows(*table, col, catalog, &offers, &out);
  } else {
    for (size_t r = 1; r < table->size(); ++r) {
      Row row(col, (*table)[r], static_cast<int>(r) + 1, &out.errors);
      const std::string accel = row.Cell("AcceleratorName");
      if (accel.empty() || IsTpu(accel)) {
        ++out.rows_skipped;
        continue;
      }
      ++out.gpu_rows;
      ReadVmRow(row, catalog, provider, &offers, &out.warnings);
    }
  }
  out.offers = offers.Take();
  // GCP accelerator rows are read after the host rows: report in file order.
  std::stable_sort(out.errors.begin(), out.errors.end(),
                   [](const CsvRowError& a, const CsvRowError& b) { return a.row < b.row; });
  if (out.gpu_rows == 0) return absl::InvalidArgumentError("csv: no GPU instance rows");
  return out;
}

}  // namespace capplan::store
