// Snapshot indexes and lookups, and the field checks every catalog write passes.
#include "server/store/catalog.h"

#include <algorithm>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "core/validate.h"

namespace capplan::store {

namespace {

std::string OfferKey(absl::string_view provider, absl::string_view type, absl::string_view region) {
  return absl::StrCat(provider, "\x1f", type, "\x1f", region);
}

}  // namespace

const char* PriceKindName(PriceKind k) {
  switch (k) {
    case PriceKind::kOnDemand: return "on_demand";
    case PriceKind::kSpot: return "spot";
    case PriceKind::kReserved1y: return "reserved_1y";
    case PriceKind::kReserved3y: return "reserved_3y";
  }
  return "on_demand";
}

void CatalogSnapshot::Index() {
  gpu_index_.clear();
  model_index_.clear();
  instance_index_.clear();
  price_ranges_.clear();
  for (size_t i = 0; i < gpus.size(); ++i) gpu_index_[gpus[i].spec.name] = i;
  for (size_t i = 0; i < models.size(); ++i) model_index_[models[i].arch.name] = i;
  for (size_t i = 0; i < instances.size(); ++i) {
    const InstanceRow& r = instances[i];
    instance_index_[OfferKey(r.provider, r.instance_type, r.region)] = i;
  }
  std::sort(prices.begin(), prices.end(), [](const PriceRow& a, const PriceRow& b) {
    return std::tie(a.provider, a.instance_type, a.region, a.kind, a.effective_unix_seconds, a.id) <
           std::tie(b.provider, b.instance_type, b.region, b.kind, b.effective_unix_seconds, b.id);
  });
  for (size_t i = 0; i < prices.size();) {
    const std::string key = OfferKey(prices[i].provider, prices[i].instance_type, prices[i].region);
    size_t j = i;
    while (j < prices.size() &&
           OfferKey(prices[j].provider, prices[j].instance_type, prices[j].region) == key) {
      ++j;
    }
    price_ranges_[key] = {i, j};
    i = j;
  }
  instance_price_ranges_.assign(instances.size(), {0, 0});
  for (size_t i = 0; i < instances.size(); ++i) {
    auto it = price_ranges_.find(OfferKey(instances[i].provider, instances[i].instance_type, instances[i].region));
    if (it != price_ranges_.end()) instance_price_ranges_[i] = it->second;
  }
  training_benchmarks.clear();
  serving_benchmarks.clear();
  for (const BenchmarkRow& b : benchmarks) {
    const ModelRow* m = FindModel(b.model_name);
    if (m == nullptr) continue;
    const std::string citation = b.source.citation;
    if (b.workload == core::WorkloadKind::kServing) {
      core::ServingBenchmark s;
      s.id = b.id;
      s.gpu_name = b.gpu_name;
      s.model = m->arch;
      s.precision = b.precision;
      s.gpu_count = b.gpu_count;
      s.batch = b.batch_size;
      s.prompt_tokens = b.sequence_tokens;
      s.output_tokens = b.output_tokens;
      s.value = b.measured_value;
      s.unit = b.unit;
      s.citation = citation;
      serving_benchmarks.push_back(std::move(s));
    } else {
      // A step time without the batch it was measured at says nothing about throughput.
      if (b.unit == core::MeasuredUnit::kSecondsPerStep && b.batch_size <= 0) continue;
      core::TrainingBenchmark t;
      t.id = b.id;
      t.gpu_name = b.gpu_name;
      t.model = m->arch;
      t.precision = b.precision;
      t.method = b.method;
      t.gpu_count = b.gpu_count;
      t.batch_sequences = b.batch_size;
      t.sequence_length = b.sequence_tokens;
      t.value = b.measured_value;
      t.unit = b.unit;
      t.citation = citation;
      training_benchmarks.push_back(std::move(t));
    }
  }
}

const GpuRow* CatalogSnapshot::FindGpu(absl::string_view name) const {
  auto it = gpu_index_.find(std::string(name));
  return it == gpu_index_.end() ? nullptr : &gpus[it->second];
}

const ModelRow* CatalogSnapshot::FindModel(absl::string_view name) const {
  auto it = model_index_.find(std::string(name));
  return it == model_index_.end() ? nullptr : &models[it->second];
}

const InstanceRow* CatalogSnapshot::FindInstance(absl::string_view provider,
                                                 absl::string_view type,
                                                 absl::string_view region) const {
  auto it = instance_index_.find(OfferKey(provider, type, region));
  return it == instance_index_.end() ? nullptr : &instances[it->second];
}

const PriceRow* CatalogSnapshot::PriceAt(const InstanceRow& instance, PriceKind kind,
                                         int64_t as_of_unix_seconds) const {
  std::pair<size_t, size_t> range;
  if (&instance >= instances.data() && &instance < instances.data() + instances.size()) {
    range = instance_price_ranges_[static_cast<size_t>(&instance - instances.data())];
  } else {
    auto it = price_ranges_.find(OfferKey(instance.provider, instance.instance_type, instance.region));
    if (it == price_ranges_.end()) return nullptr;
    range = it->second;
  }
  const PriceRow* best = nullptr;
  for (size_t i = range.first; i < range.second; ++i) {
    const PriceRow& p = prices[i];
    if (p.kind != kind) continue;
    if (as_of_unix_seconds > 0 && p.effective_unix_seconds > as_of_unix_seconds) continue;
    best = &p;  // sorted by effective time then id: the last match wins
  }
  return best;
}

std::vector<const PriceRow*> CatalogSnapshot::PriceHistory(absl::string_view provider,
                                                           absl::string_view type,
                                                           absl::string_view region) const {
  std::vector<const PriceRow*> out;
  auto it = price_ranges_.find(OfferKey(provider, type, region));
  if (it == price_ranges_.end()) return out;
  for (size_t i = it->second.first; i < it->second.second; ++i) out.push_back(&prices[i]);
  std::stable_sort(out.begin(), out.end(), [](const PriceRow* a, const PriceRow* b) {
    return std::tie(a->effective_unix_seconds, a->id) < std::tie(b->effective_unix_seconds, b->id);
  });
  return out;
}

int64_t CatalogSnapshot::OldestCurrentPriceUnixSeconds() const {
  int64_t oldest = 0;
  for (const InstanceRow& i : instances) {
    const PriceRow* p = PriceAt(i, PriceKind::kOnDemand, 0);
    if (p != nullptr && (oldest == 0 || p->effective_unix_seconds < oldest)) {
      oldest = p->effective_unix_seconds;
    }
  }
  return oldest;
}

absl::Status CheckText(const std::string& field, absl::string_view value, size_t max_bytes,
                       bool required) {
  if (required && value.empty()) return core::FieldError(field, "must not be empty");
  if (value.size() > max_bytes) {
    return core::FieldError(field, absl::StrCat("must be at most ", max_bytes, " bytes, got ",
                                                value.size()));
  }
  for (size_t i = 0; i < value.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(value[i]);
    if (c < 0x20 || c == 0x7f) {
      return core::FieldError(field, absl::StrCat("must not contain control characters (byte ",
                                                  static_cast<int>(c), " at offset ", i, ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckIsoDate(const std::string& field, absl::string_view value) {
  auto digits = [&](size_t from, size_t n) {
    int v = 0;
    for (size_t i = from; i < from + n; ++i) {
      if (value[i] < '0' || value[i] > '9') return -1;
      v = v * 10 + (value[i] - '0');
    }
    return v;
  };
  const absl::Status bad = core::FieldError(
      field, absl::StrCat("must be a date YYYY-MM-DD between 1990-01-01 and 2100-12-31, got \"",
                          value.substr(0, 32), "\""));
  if (value.size() != 10 || value[4] != '-' || value[7] != '-') return bad;
  const int year = digits(0, 4), month = digits(5, 2), day = digits(8, 2);
  if (year < 1990 || year > 2100 || month < 1 || month > 12 || day < 1) return bad;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (day > kDays[month - 1] + (month == 2 && leap ? 1 : 0)) return bad;
  return absl::OkStatus();
}

absl::Status ValidateSource(const Source& s, const std::string& field) {
  if (s.citation.empty()) {
    return core::FieldError(field + ".citation", "must name where the figure comes from");
  }
  CAPPLAN_RETURN_IF_ERROR(CheckText(field + ".citation", s.citation, kMaxCitationBytes, true));
  CAPPLAN_RETURN_IF_ERROR(CheckText(field + ".note", s.note, kMaxNoteBytes, false));
  return CheckIsoDate(field + ".as_of_date", s.as_of_date);
}

absl::Status ValidateGpuRow(const GpuRow& row) {
  CAPPLAN_RETURN_IF_ERROR(CheckText("gpu.name", row.spec.name, kMaxNameBytes, true));
  CAPPLAN_RETURN_IF_ERROR(core::ValidateGpu(row.spec));
  CAPPLAN_RETURN_IF_ERROR(CheckText("gpu.vendor", row.vendor, kMaxNameBytes, true));
  CAPPLAN_RETURN_IF_ERROR(CheckText("gpu.form_factor", row.form_factor, kMaxNameBytes, false));
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("gpu.list_price_usd", row.list_price_usd, 0.0, 1e7));
  return ValidateSource(row.source, "gpu.source");
}

absl::Status ValidateModelRow(const ModelRow& row) {
  CAPPLAN_RETURN_IF_ERROR(CheckText("model.name", row.arch.name, kMaxNameBytes, true));
  CAPPLAN_RETURN_IF_ERROR(core::ValidateModel(row.arch));
  CAPPLAN_RETURN_IF_ERROR(
      core::CheckRange("model.max_context_tokens", row.max_context_tokens, int64_t{0}, int64_t{1} << 24));
  return ValidateSource(row.source, "model.source");
}

absl::Status ValidateOfferKey(const std::string& prefix, const std::string& provider,
                              const std::string& instance_type, const std::string& region) {
  CAPPLAN_RETURN_IF_ERROR(CheckText(prefix + ".provider", provider, kMaxNameBytes, true));
  CAPPLAN_RETURN_IF_ERROR(CheckText(prefix + ".instance_type", instance_type, kMaxNameBytes, true));
  return CheckText(prefix + ".region", region, kMaxNameBytes, true);
}

absl::Status ValidateInstanceRow(const InstanceRow& row) {
  CAPPLAN_RETURN_IF_ERROR(ValidateOfferKey("instance", row.provider, row.instance_type, row.region));
  CAPPLAN_RETURN_IF_ERROR(CheckText("instance.gpu_name", row.gpu_name, kMaxNameBytes, true));
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("instance.gpu_count", static_cast<int64_t>(row.gpu_count), 1, 64));
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("instance.vcpus", static_cast<int64_t>(row.vcpus), 0, 4096));
  CAPPLAN_RETURN_IF_ERROR(
      core::CheckRange("instance.memory_bytes", row.memory_bytes, int64_t{0}, int64_t{1} << 45));
  return ValidateSource(row.source, "instance.source");
}

absl::Status ValidatePriceRow(const PriceRow& row) {
  CAPPLAN_RETURN_IF_ERROR(ValidateOfferKey("price", row.provider, row.instance_type, row.region));
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("price.price_usd_per_hour", row.price_usd_per_hour, 0.0, 10000.0));
  // 2000-01-01 .. 2100-01-01
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("price.effective_unix_seconds", row.effective_unix_seconds,
                                           int64_t{946684800}, int64_t{4102444800}));
  return ValidateSource(row.source, "price.source");
}

absl::Status ValidateBenchmarkRow(const BenchmarkRow& row) {
  CAPPLAN_RETURN_IF_ERROR(CheckText("benchmark.gpu_name", row.gpu_name, kMaxNameBytes, true));
  CAPPLAN_RETURN_IF_ERROR(CheckText("benchmark.model_name", row.model_name, kMaxNameBytes, true));
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("benchmark.gpu_count", static_cast<int64_t>(row.gpu_count), 1, 65536));
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("benchmark.batch_size", row.batch_size, int64_t{0}, int64_t{1} << 24));
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("benchmark.sequence_tokens", row.sequence_tokens, int64_t{0}, int64_t{1} << 24));
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("benchmark.output_tokens", row.output_tokens, int64_t{0}, int64_t{1} << 24));
  if (!(row.measured_value > 0) || row.measured_value > 1e12) {
    return core::FieldError("benchmark.measured_value", absl::StrCat("must be in (0, 1e12], got ", row.measured_value));
  }
  return ValidateSource(row.source, "benchmark.source");
}

}  // namespace capplan::store
