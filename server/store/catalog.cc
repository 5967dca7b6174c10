// The field checks every catalog write passes.
#include "server/store/catalog.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "core/validate.h"

namespace capplan::store {

absl::Status CheckText(const std::string& field, absl::string_view value, size_t max_bytes, bool required) {
  if (required && value.empty()) return core::FieldError(field, "must not be empty");
  if (value.size() > max_bytes) {
    return core::FieldError(field, absl::StrCat("must be at most ", max_bytes, " bytes, got ", value.size()));
  }
  for (size_t i = 0; i < value.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(value[i]);
    if (c < 0x20 || c == 0x7f) {
      return core::FieldError(field, absl::StrCat("must not contain control characters (byte ", static_cast<int>(c),
                                                  " at offset ", i, ")"));
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
  absl::Status bad = core::FieldError(
      field,
      absl::StrCat("must be a date YYYY-MM-DD between 1990-01-01 and 2100-12-31, got \"", value.substr(0, 32), "\""));
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
  // A whole server per GPU: up to 10 kW (a liquid-cooled rack's share is far below that).
  CAPPLAN_RETURN_IF_ERROR(
      core::CheckRange("gpu.system_power_watts_per_gpu", row.system_power_watts_per_gpu, 0.0, 10000.0));
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("gpu.idle_power_fraction", row.idle_power_fraction, 0.0, 1.0));
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("gpu.system_price_usd_per_gpu", row.system_price_usd_per_gpu, 0.0, 1e7));
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("gpu.price_uncertainty_fraction", row.price_uncertainty_fraction, 0.0, 1.0));
  CAPPLAN_RETURN_IF_ERROR(CheckText("gpu.default_fabric_name", row.default_fabric_name, kMaxNameBytes, false));
  return ValidateSource(row.source, "gpu.source");
}

absl::Status ValidateModelRow(const ModelRow& row) {
  CAPPLAN_RETURN_IF_ERROR(CheckText("model.name", row.arch.name, kMaxNameBytes, true));
  CAPPLAN_RETURN_IF_ERROR(core::ValidateModel(row.arch));
  CAPPLAN_RETURN_IF_ERROR(
      core::CheckRange("model.max_context_tokens", row.max_context_tokens, int64_t{0}, int64_t{1} << 24));
  return ValidateSource(row.source, "model.source");
}

absl::Status ValidateOfferKey(const std::string& prefix, const std::string& provider, const std::string& instance_type,
                              const std::string& region) {
  CAPPLAN_RETURN_IF_ERROR(CheckText(prefix + ".provider", provider, kMaxNameBytes, true));
  CAPPLAN_RETURN_IF_ERROR(CheckText(prefix + ".instance_type", instance_type, kMaxNameBytes, true));
  return CheckText(prefix + ".region", region, kMaxNameBytes, true);
}

absl::Status ValidateInstanceRow(const InstanceRow& row) {
  CAPPLAN_RETURN_IF_ERROR(ValidateOfferKey("instance", row.provider, row.instance_type, row.region));
  CAPPLAN_RETURN_IF_ERROR(CheckText("instance.gpu_name", row.gpu_name, kMaxNameBytes, true));
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("instance.gpu_count", static_cast<int64_t>(row.gpu_count), 1, 64));
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("instance.vcpus", static_cast<int64_t>(row.vcpus), 0, 4096));
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("instance.memory_bytes", row.memory_bytes, int64_t{0}, int64_t{1} << 45));
  CAPPLAN_RETURN_IF_ERROR(CheckText("instance.fabric_name", row.fabric_name, kMaxNameBytes, false));
  return ValidateSource(row.source, "instance.source");
}

absl::Status ValidatePriceRow(const PriceRow& row) {
  CAPPLAN_RETURN_IF_ERROR(ValidateOfferKey("price", row.provider, row.instance_type, row.region));
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("price.price_usd_per_hour", row.price_usd_per_hour, 0.0, 10000.0));
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("price.effective_unix_seconds", row.effective_unix_seconds,
                                           kEarliestPriceUnixSeconds, kLatestPriceUnixSeconds));
  return ValidateSource(row.source, "price.source");
}

namespace {

// The published layout: each degree in [0, 65536] (0: not published); with tensor, pipeline
// and data parallel all published, their product with context parallel (0 counts as 1) is
// the benchmark's GPU count.
absl::Status ValidateBenchmarkSetup(const BenchmarkRow& row) {
  const std::pair<const char*, int> degrees[] = {
      {"benchmark.tensor_parallel", row.tensor_parallel},
      {"benchmark.pipeline_parallel", row.pipeline_parallel},
      {"benchmark.data_parallel", row.data_parallel},
      {"benchmark.context_parallel", row.context_parallel},
      {"benchmark.expert_parallel", row.expert_parallel},
      {"benchmark.virtual_pipeline_stages", row.virtual_pipeline_stages},
  };
  for (const auto& [field, value] : degrees) {
    CAPPLAN_RETURN_IF_ERROR(core::CheckRange(field, static_cast<int64_t>(value), 0, 65536));
  }
  if (row.tensor_parallel == 0 || row.pipeline_parallel == 0 || row.data_parallel == 0) return absl::OkStatus();
  // Each factor is at most 2^16, so the product of four fits in 64 bits only stepwise:
  // stop as soon as it passes the GPU count.
  int64_t product = 1;
  for (int d : {row.tensor_parallel, row.pipeline_parallel, row.data_parallel, std::max(row.context_parallel, 1)}) {
    product *= d;
    if (product > row.gpu_count) break;
  }
  if (product != row.gpu_count) {
    return core::FieldError(
        "benchmark.data_parallel",
        absl::StrCat("tensor_parallel x pipeline_parallel x data_parallel x context_parallel (", row.tensor_parallel,
                     " x ", row.pipeline_parallel, " x ", row.data_parallel, " x ", std::max(row.context_parallel, 1),
                     ") must equal gpu_count ", row.gpu_count));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateBenchmarkRow(const BenchmarkRow& row) {
  CAPPLAN_RETURN_IF_ERROR(CheckText("benchmark.gpu_name", row.gpu_name, kMaxNameBytes, true));
  CAPPLAN_RETURN_IF_ERROR(CheckText("benchmark.model_name", row.model_name, kMaxNameBytes, true));
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("benchmark.gpu_count", static_cast<int64_t>(row.gpu_count), 1, 65536));
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("benchmark.batch_size", row.batch_size, int64_t{0}, int64_t{1} << 24));
  CAPPLAN_RETURN_IF_ERROR(
      core::CheckRange("benchmark.sequence_tokens", row.sequence_tokens, int64_t{0}, int64_t{1} << 24));
  CAPPLAN_RETURN_IF_ERROR(core::CheckRange("benchmark.output_tokens", row.output_tokens, int64_t{0}, int64_t{1} << 24));
  if (!(row.measured_value > 0) || row.measured_value > 1e12) {
    return core::FieldError("benchmark.measured_value", absl::StrCat("must be in (0, 1e12], got ", row.measured_value));
  }
  CAPPLAN_RETURN_IF_ERROR(ValidateBenchmarkSetup(row));
  CAPPLAN_RETURN_IF_ERROR(CheckText("benchmark.fabric_name", row.fabric_name, kMaxNameBytes, false));
  return ValidateSource(row.source, "benchmark.source");
}

absl::Status ValidateElectricityRow(const ElectricityRow& row) {
  CAPPLAN_RETURN_IF_ERROR(CheckText("electricity.region", row.region, kMaxNameBytes, true));
  // The schema's CHECK: positive and under $10/kWh (retail prices are cents).
  if (!std::isfinite(row.usd_per_kwh) || row.usd_per_kwh <= 0 || row.usd_per_kwh >= 10) {
    return core::FieldError("electricity.usd_per_kwh", absl::StrCat("must be in (0, 10), got ", row.usd_per_kwh));
  }
  return ValidateSource(row.source, "electricity.source");
}

absl::Status ValidateFabricRow(const FabricRow& row) {
  CAPPLAN_RETURN_IF_ERROR(CheckText("fabric.name", row.name, kMaxNameBytes, true));
  CAPPLAN_RETURN_IF_ERROR(core::ValidateFabric(row.fabric, "fabric"));
  return ValidateSource(row.source, "fabric.source");
}

}  // namespace capplan::store
