#include "core/planner/query.h"

#include "absl/strings/str_cat.h"
#include "core/planner/supply.h"
#include "core/validate.h"

namespace capplan::core::planner {

bool Constraints::GpuOk(absl::string_view gpu) const {
  return (allowed_gpus.empty() || allowed_gpus.count(gpu) > 0) && excluded_gpus.count(gpu) == 0;
}

bool Constraints::InstanceOk(const InstanceRow& i) const {
  return (providers.empty() || providers.count(i.provider) > 0) && (regions.empty() || regions.count(i.region) > 0) &&
         GpuOk(i.gpu_name);
}

namespace {

absl::Status KnownGpus(const CatalogView& catalog, const std::set<std::string, std::less<>>& names, const char* field) {
  for (const std::string& n : names) {
    if (catalog.FindGpu(n) == nullptr) {
      return absl::NotFoundError(absl::StrCat("constraints.", field, ": no GPU named \"", n, "\" in the catalog"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidatePlanQuery(const CatalogView& catalog, const PlanQuery& q) {
  CAPPLAN_RETURN_IF_ERROR(CheckRange("top_k", int64_t{q.top_k}, 1, kMaxTopK));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("max_rejected", int64_t{q.max_rejected}, 0, kMaxRejected));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("deadline_seconds", q.deadline_seconds, 0, 1e10));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("budget_usd", q.budget_usd, 0, 1e12));
  // Misses are measured as a ratio to the limit: a positive limit must be a real one
  // (found by rpc_fuzz: a subnormal budget made that ratio infinite).
  if (q.deadline_seconds > 0 && q.deadline_seconds < kMinDeadlineSeconds) {
    return FieldError("deadline_seconds",
                      absl::StrCat("must be 0 or in [", kMinDeadlineSeconds, ", 1e10], got ", q.deadline_seconds));
  }
  if (q.budget_usd > 0 && q.budget_usd < kMinBudgetUsd) {
    return FieldError("budget_usd", absl::StrCat("must be 0 or in [", kMinBudgetUsd, ", 1e12], got ", q.budget_usd));
  }
  if (q.objective == Objective::kCheapestWithinDeadline && !(q.deadline_seconds > 0)) {
    return FieldError("deadline_seconds", "must be > 0 for CHEAPEST_WITHIN_DEADLINE");
  }
  if (q.objective == Objective::kFastestWithinBudget && !(q.budget_usd > 0)) {
    return FieldError("budget_usd", "must be > 0 for FASTEST_WITHIN_BUDGET");
  }
  const Constraints& c = q.constraints;
  CAPPLAN_RETURN_IF_ERROR(CheckRange("constraints.max_gpus", int64_t{c.max_gpus}, 0, kMaxGpus));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("constraints.spot_interruption_fraction_per_month", c.spot_interruptions_per_month,
                                     0, kMaxSpotInterruptionsPerMonth));
  CAPPLAN_RETURN_IF_ERROR(KnownGpus(catalog, c.allowed_gpus, "allowed_gpus"));
  CAPPLAN_RETURN_IF_ERROR(KnownGpus(catalog, c.excluded_gpus, "excluded_gpus"));
  if (c.owned_pools.size() > static_cast<size_t>(kMaxOwnedPools)) {
    return FieldError("constraints.owned_pools",
                      absl::StrCat("at most ", kMaxOwnedPools, " pools, got ", c.owned_pools.size()));
  }
  for (size_t i = 0; i < c.owned_pools.size(); ++i) {
    const OwnedPool& p = c.owned_pools[i];
    const std::string field = absl::StrCat("constraints.owned_pools[", i, "]");
    if (p.name.empty() || p.name.size() > 128) {
      return FieldError(field + ".name", absl::StrCat("must be 1-128 bytes, got ", p.name.size()));
    }
    if (catalog.FindGpu(p.gpu_name) == nullptr) {
      return absl::NotFoundError(absl::StrCat(field, ".gpu_name: no GPU named \"", p.gpu_name, "\" in the catalog"));
    }
    CAPPLAN_RETURN_IF_ERROR(CheckRange(field + ".gpu_count", int64_t{p.gpu_count}, 1, kMaxGpus));
    CAPPLAN_RETURN_IF_ERROR(CheckRange(field + ".cost_usd_per_gpu_hour", p.cost_usd_per_gpu_hour, 0, 1000));
    Supply resolved;
    CAPPLAN_RETURN_IF_ERROR(
        ResolveFabric(catalog, *catalog.FindGpu(p.gpu_name), nullptr, p.fabric, field + ".fabric", &resolved));
  }
  return absl::OkStatus();
}

}  // namespace capplan::core::planner
