#include "core/planner/supply.h"

#include <algorithm>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace capplan::core::planner {

const char* PriceKindNote(PriceKind kind) {
  switch (kind) {
    case PriceKind::kSpot:
      return "spot: capacity can be reclaimed with 2 minutes' notice (AWS). Indicative interruption rates: the AWS "
             "Spot Instance Advisor (aws.amazon.com/ec2/spot/instance-advisor) bands each instance type by how often "
             "it was interrupted over the past month: <5%, 5-10%, 10-15%, 15-20%, >20%. Look up the type and "
             "region there: rates vary by type, region and time. Checkpoint training; keep serving headroom on other "
             "capacity";
    case PriceKind::kReserved1y:
      return "reserved_1y: a 1-year commitment, paid for every hour of the term whether used or not";
    case PriceKind::kReserved3y:
      return "reserved_3y: a 3-year commitment, paid for every hour of the term whether used or not";
    case PriceKind::kOnDemand:
      break;
  }
  return "";
}

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

absl::Status ResolveFabric(const CatalogView& catalog, const GpuRow& gpu, const InstanceRow* instance,
                           const FabricOverride& override, absl::string_view field, Supply* out) {
  const FabricRow* row = nullptr;
  if (instance != nullptr && !instance->fabric_name.empty()) row = catalog.FindFabric(instance->fabric_name);
  if (row == nullptr && !gpu.default_fabric_name.empty()) row = catalog.FindFabric(gpu.default_fabric_name);
  if (!override.fabric_name.empty()) {
    row = catalog.FindFabric(override.fabric_name);
    if (row == nullptr) {
      return absl::NotFoundError(
          absl::StrCat(field, ".name: no fabric named \"", override.fabric_name, "\" in the catalog"));
    }
  }
  out->fabric = row != nullptr ? row->fabric : FallbackFabric(gpu.spec);
  out->fabric_name = row != nullptr ? row->name : "";
  if (instance != nullptr) out->fabric.gpus_per_node = std::min(out->fabric.gpus_per_node, instance->gpu_count);
  if (override.ChangesFields()) {
    out->fabric = ApplyOverride(out->fabric, override);
    absl::StrAppend(&out->fabric_name, "+override");
  }
  return ValidateFabric(out->fabric, field);
}

std::vector<Supply> BuildSupplies(const CatalogView& catalog, const PlanQuery& q, int max_gpus) {
  const Constraints& c = q.constraints;
  std::vector<Supply> out;
  const std::vector<InstanceRow>& instances = catalog.Instances();
  // The asked kind; with on-demand, spot too when allowed.
  std::vector<PriceKind> kinds = {c.price_kind};
  if (c.price_kind == PriceKind::kOnDemand && c.spot_allowed) kinds.push_back(PriceKind::kSpot);
  out.reserve(instances.size() * kinds.size() + c.owned_pools.size());
  // What an offer's GPU and fabric resolve to depends on its GPU name, fabric name and GPU
  // count only: offers of one shape in many regions look them up (and validate) once.
  absl::flat_hash_map<std::tuple<absl::string_view, absl::string_view, int>, Supply> shapes;
  for (const InstanceRow& i : instances) {
    if (i.gpu_count < 1 || i.gpu_count > kMaxGpusPerInstance) continue;
    if (!c.InstanceOk(i)) continue;
    auto [shape, inserted] = shapes.try_emplace({i.gpu_name, i.fabric_name, i.gpu_count});
    if (inserted) {
      Supply& r = shape->second;
      r.gpu = catalog.FindGpu(i.gpu_name);
      // A hand-edited fabric the store would refuse: plan on the fallback rather than fail.
      if (r.gpu != nullptr && !ResolveFabric(catalog, *r.gpu, &i, {}, "fabric", &r).ok()) {
        r.fabric = FallbackFabric(r.gpu->spec);
        r.fabric.gpus_per_node = std::min(r.fabric.gpus_per_node, i.gpu_count);
        r.fabric_name = "";
      }
    }
    const GpuRow* gpu = shape->second.gpu;
    if (gpu == nullptr) continue;
    Supply base{gpu, &i, nullptr, nullptr, max_gpus / i.gpu_count, shape->second.fabric, shape->second.fabric_name};
    for (PriceKind kind : kinds) {
      const PriceRow* p = catalog.PriceAt(i, kind, q.prices_as_of_unix_seconds);
      if (p == nullptr) continue;
      out.push_back(base);
      out.back().price = p;
    }
  }
  for (const OwnedPool& p : c.owned_pools) {
    if (!c.GpuOk(p.gpu_name)) continue;
    const GpuRow* gpu = catalog.FindGpu(p.gpu_name);
    if (gpu == nullptr) continue;
    Supply s{gpu, nullptr, nullptr, &p, std::min(p.gpu_count, max_gpus), {}, ""};
    // Checked by ValidatePlanQuery, so this cannot fail here.
    if (ResolveFabric(catalog, *gpu, nullptr, p.fabric, "fabric", &s).ok()) out.push_back(std::move(s));
  }
  return out;
}

bool ClusterFabric(const Fabric& f) {
  switch (f.network) {
    case NetworkKind::kEfa:
    case NetworkKind::kInfiniband:
    case NetworkKind::kRoce:
      return true;
    case NetworkKind::kEthernet:
      return f.network_bytes_per_second_per_gpu >= kClusterEthernetBytesPerSecondPerGpu;
    case NetworkKind::kNone:
      break;
  }
  return false;
}

bool MayCluster(const Supply& s, const Constraints& c) {
  if (s.instance == nullptr) return true;
  if (s.fabric.network == NetworkKind::kNone) return false;
  return ClusterFabric(s.fabric) || c.allow_ethernet_clusters;
}

std::string NotClusteredReason(const Supply& s) {
  const double gbit_per_gpu = s.fabric.network_bytes_per_second_per_gpu * 8 / 1e9;
  return absl::StrCat("not planned across instances: ", s.instance->instance_type, " is sold as a single VM on ",
                      NetworkKindName(s.fabric.network), " (", absl::StrFormat("%.1f", gbit_per_gpu),
                      " Gbit/s per GPU; no placement group, EFA, InfiniBand or RoCE)",
                      s.fabric.network == NetworkKind::kNone ? ""
                                                             : "; set constraints.allow_ethernet_clusters to plan "
                                                               "it clustered anyway");
}

std::vector<Rejection> UnofferedGpus(const CatalogView& catalog, const PlanQuery& q,
                                     const std::vector<Supply>& supplies) {
  const Constraints& c = q.constraints;
  absl::flat_hash_set<absl::string_view> supplied;
  const GpuRow* last = nullptr;  // supplies of one GPU come in runs
  for (const Supply& s : supplies) {
    if (s.gpu != last) supplied.insert(s.gpu->spec.name);
    last = s.gpu;
  }
  // Only the GPUs nothing supplies need the offers read again: whether any is listed, and
  // whether any of those is allowed.
  struct Seen {
    bool listed = false, allowed = false;
  };
  absl::flat_hash_map<absl::string_view, Seen> missing;
  for (const GpuRow& g : catalog.Gpus()) {
    if (supplied.count(g.spec.name) == 0) missing.try_emplace(g.spec.name);
  }
  std::vector<Rejection> out;
  if (missing.empty()) return out;
  for (const InstanceRow& i : catalog.Instances()) {
    auto it = missing.find(i.gpu_name);
    if (it == missing.end()) continue;
    it->second.listed = true;
    if (!it->second.allowed && c.InstanceOk(i)) it->second.allowed = true;
  }
  for (const GpuRow& g : catalog.Gpus()) {
    const std::string& name = g.spec.name;
    auto it = missing.find(name);
    if (it == missing.end()) continue;
    std::string why;
    if (!c.GpuOk(name)) {
      why = "left out by constraints.allowed_gpus / excluded_gpus";
    } else if (!it->second.listed) {
      why = "no offer in the catalog (owned GPUs: constraints.owned_pools)";
    } else if (!it->second.allowed) {
      why = "no offer from the allowed providers and regions";
    } else {
      why = absl::StrCat("no ", PriceKindName(c.price_kind), " price at the prices' date");
    }
    out.push_back({name, why, RejectionReason::kNoOffer, 1, name});
  }
  return out;
}

std::optional<OfferKey> SameOfferKey(const Supply& s, int units) {
  if (s.instance == nullptr) return std::nullopt;
  return OfferKey{s.instance->provider, s.instance->instance_type, units, static_cast<int>(s.price->kind),
                  s.price->price_usd_per_hour};
}

}  // namespace capplan::core::planner
