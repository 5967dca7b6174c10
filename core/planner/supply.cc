#include "core/planner/supply.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace capplan::core::planner {

std::string Supply::Label(int units) const {
  if (pool != nullptr) return absl::StrCat("owned pool \"", pool->name, "\": ", units, " x ", gpu->spec.name);
  if (instance == nullptr) return absl::StrCat(units, " x ", gpu->spec.name);
  return absl::StrCat(instance->provider, " ", instance->instance_type, " x", units, " (",
                      int64_t{units} * instance->gpu_count, " x ", gpu->spec.name, ", ", instance->region, ", ",
                      PriceKindName(price->kind), ")");
}

double Supply::UsdPerUnitHour() const {
  if (pool != nullptr) return pool->cost_usd_per_gpu_hour;
  return price != nullptr ? price->price_usd_per_hour : 0.0;
}

std::vector<Supply> BuildSupplies(const CatalogView& catalog, const PlanQuery& q) {
  const Constraints& c = q.constraints;
  std::vector<Supply> out;
  const std::vector<InstanceRow>& instances = catalog.Instances();
  out.reserve(instances.size() * (c.spot_allowed ? 2 : 1) + c.owned_pools.size());
  for (const InstanceRow& i : instances) {
    if (i.gpu_count < 1 || i.gpu_count > kMaxGpusPerInstance) continue;
    if (!c.InstanceOk(i)) continue;
    const GpuRow* gpu = catalog.FindGpu(i.gpu_name);
    if (gpu == nullptr) continue;
    for (PriceKind kind : {PriceKind::kOnDemand, PriceKind::kSpot}) {
      if (kind == PriceKind::kSpot && !c.spot_allowed) continue;
      const PriceRow* p = catalog.PriceAt(i, kind, q.prices_as_of_unix_seconds);
      if (p == nullptr) continue;
      out.push_back({gpu, &i, p, nullptr, c.max_gpus / i.gpu_count});
    }
  }
  for (const OwnedPool& p : c.owned_pools) {
    if (!c.GpuOk(p.gpu_name)) continue;
    const GpuRow* gpu = catalog.FindGpu(p.gpu_name);
    if (gpu == nullptr) continue;
    out.push_back({gpu, nullptr, nullptr, &p, std::min(p.gpu_count, c.max_gpus)});
  }
  return out;
}

std::optional<OfferKey> SameOfferKey(const Supply& s, int units) {
  if (s.instance == nullptr) return std::nullopt;
  return OfferKey{s.instance->provider, s.instance->instance_type, units, static_cast<int>(s.price->kind),
                  s.price->price_usd_per_hour};
}

}  // namespace capplan::core::planner
