// SkyPilot CSV rows to offers: column lookup, strict numbers, bounded text, duplicate keys.
#include "server/store/price_csv.h"

#include <cmath>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/validate.h"
#include "server/store/csv.h"

namespace capplan::store {

namespace {

// SkyPilot accelerator names -> catalog GPU names. Exact catalog names are accepted too.
const std::map<std::string, std::string>& AcceleratorAliases() {
  static const std::map<std::string, std::string> kAliases = {
      {"A100", "A100-SXM4-40GB"},
      {"A100-80GB", "A100-SXM4-80GB"},
      {"H100", "H100-SXM5-80GB"},
      {"H200", "H200-SXM-141GB"},
      {"V100", "V100-SXM2-16GB"},
      {"V100-32GB", "V100-SXM2-32GB"},
      {"A6000", "RTX-A6000"},
      {"RTX6000-Ada", "RTX-6000-Ada"},
      {"RTX4090", "RTX-4090"},
      {"RTX3090", "RTX-3090"},
      {"MI300X", "MI300X"},
      {"A10G", "A10G"},
      {"T4", "T4"},
      {"L4", "L4"},
      {"L40S", "L40S"},
      {"P40", "P40"},
  };
  return kAliases;
}

// One data row's cells by column name.
class Row {
 public:
  Row(const std::map<std::string, size_t>& col, const std::vector<std::string>& cells, int row_no,
      std::vector<CsvRowError>* errors)
      : col_(col), cells_(cells), row_no_(row_no), errors_(errors) {}

  std::string Cell(const char* name) const {
    auto it = col_.find(name);
    if (it == col_.end() || it->second >= cells_.size()) return std::string();
    return std::string(absl::StripAsciiWhitespace(cells_[it->second]));
  }

  bool Fail(const char* field, const std::string& message) {
    errors_->push_back({row_no_, field, message});
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

  bool Text(const char* name, std::string* out) {
    *out = Cell(name);
    absl::Status s = CheckText(name, *out, kMaxNameBytes, true);
    return s.ok() || Fail(name, std::string(s.message().substr(std::string(name).size() + 2)));
  }

  int row_no() const { return row_no_; }

 private:
  const std::map<std::string, size_t>& col_;
  const std::vector<std::string>& cells_;
  int row_no_;
  std::vector<CsvRowError>* errors_;
};

// The catalog GPU an accelerator name means, or null.
const GpuRow* ResolveGpu(const CatalogSnapshot& catalog, const std::string& accel) {
  if (const GpuRow* g = catalog.FindGpu(accel)) return g;
  auto alias = AcceleratorAliases().find(accel);
  return alias == AcceleratorAliases().end() ? nullptr : catalog.FindGpu(alias->second);
}

// Reads one data row into `offers`; false (with errors recorded) when it is bad.
bool ReadOfferRow(Row& r, const std::string& provider, const Source& source, const CatalogSnapshot& catalog,
                  std::map<std::pair<std::string, std::string>, CsvOffer>* offers) {
  std::string accel, type, region;
  if (!r.Text("AcceleratorName", &accel)) return false;
  const GpuRow* gpu = ResolveGpu(catalog, accel);
  if (gpu == nullptr) return r.Fail("AcceleratorName", absl::StrCat("no GPU named \"", accel, "\" in the catalog"));
  double count = 0, vcpus = 0, mem_gib = 0, price = 0, spot = -1;
  if (!r.Number("AcceleratorCount", 1, 64, true, &count) || !r.Number("vCPUs", 0, 4096, true, &vcpus) ||
      !r.Number("MemoryGiB", 0, 32768, false, &mem_gib) || !r.Number("Price", 0, 10000, false, &price)) {
    return false;
  }
  if (!r.Cell("SpotPrice").empty() && !r.Number("SpotPrice", 0, 10000, false, &spot)) return false;
  if (!r.Text("InstanceType", &type) || !r.Text("Region", &region)) return false;
  auto [it, inserted] = offers->try_emplace({type, region});
  CsvOffer& o = it->second;
  if (inserted) {
    o.instance = {provider,
                  type,
                  region,
                  gpu->spec.name,
                  static_cast<int>(count),
                  static_cast<int>(vcpus),
                  static_cast<int64_t>(std::llround(mem_gib * 1024.0 * 1024.0 * 1024.0)),
                  "",
                  source};
    o.on_demand_usd_per_hour = price;
    o.first_row = r.row_no();
  } else if (o.on_demand_usd_per_hour != price || o.instance.gpu_name != gpu->spec.name ||
             o.instance.gpu_count != static_cast<int>(count)) {
    // Availability zones of one region repeat the offer; a different price or accelerator
    // means the file contradicts itself, and picking either would be a guess.
    return r.Fail("Price", absl::StrCat(type, " in ", region, " appears in rows ", o.first_row, " and ", r.row_no(),
                                        " with different on-demand prices or accelerators (", o.on_demand_usd_per_hour,
                                        " vs ", price, ")"));
  }
  // Keep the cheapest spot price across zones.
  if (spot >= 0 && (o.spot_usd_per_hour < 0 || spot < o.spot_usd_per_hour)) o.spot_usd_per_hour = spot;
  return true;
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
                                      const CatalogSnapshot& catalog) {
  CAPPLAN_RETURN_IF_ERROR(CheckText("provider", provider, kMaxNameBytes, true));
  CAPPLAN_RETURN_IF_ERROR(ValidateSource(source, "source"));
  absl::StatusOr<std::vector<std::vector<std::string>>> table = ParseCsv(csv);
  if (!table.ok()) return table.status();
  if (table->empty()) return absl::InvalidArgumentError("csv: empty");
  std::map<std::string, size_t> col;
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
  std::map<std::pair<std::string, std::string>, CsvOffer> offers;  // (type, region)
  for (size_t r = 1; r < table->size(); ++r) {
    Row row(col, (*table)[r], static_cast<int>(r) + 1, &out.errors);
    if (row.Cell("AcceleratorName").empty()) {
      ++out.rows_skipped;
      continue;
    }
    ReadOfferRow(row, provider, source, catalog, &offers);
  }
  if (out.errors.empty() && offers.empty()) {
    return absl::InvalidArgumentError("csv: no GPU instance rows");
  }
  out.offers.reserve(offers.size());
  for (auto& kv : offers) out.offers.push_back(std::move(kv.second));
  return out;
}

}  // namespace capplan::store
