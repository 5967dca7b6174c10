// Where GPUs come from and what an hour of them costs: every catalog offer the constraints
// allow, priced at the query's time (on-demand, and spot when allowed), and every owned
// pool. Offers are grouped by their GPU shape by the searches, which estimate each shape
// once and price it per supply.
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/catalog.h"
#include "core/planner/query.h"
#include "core/planner/rejection.h"

namespace capplan::core::planner {

// What a price kind implies for whoever runs on it; "" for on-demand. Spot: an indicative
// interruption rate with its public source; reserved: the commitment.
const char* PriceKindNote(PriceKind kind);

struct Supply {
  const GpuRow* gpu = nullptr;
  const InstanceRow* instance = nullptr;  // a cloud offer...
  const PriceRow* price = nullptr;
  const OwnedPool* pool = nullptr;  // ...or an owned pool
  int units_max = 0;                // instances (cloud) or GPUs (pool) available
  // How the GPUs are wired: the offer's or pool's catalog fabric, else the GPU's default,
  // else FallbackFabric; with any caller override applied. fabric_name says which catalog
  // row it came from ("" for the fallback; "+override" appended when the caller changed it).
  Fabric fabric;
  std::string fabric_name;

  // "aws p4d.24xlarge x2 (16 x A100-SXM4-40GB, us-east-1, on_demand)".
  std::string Label(int units) const;
  int GpusPerUnit() const { return instance != nullptr ? instance->gpu_count : 1; }
  double UsdPerUnitHour() const;
};

// Every supply the query allows. Instance rows outside the store's limits (a hand-edited
// database) are never planned on. The supplies point into `catalog` and `q`.
// `max_gpus` caps the GPUs of one supply (PlanQuery's, or kMaxGpus for training without one).
std::vector<Supply> BuildSupplies(const CatalogView& catalog, const PlanQuery& q, int max_gpus);

// The fabric of an offer (instance != null) or a GPU alone: the instance's catalog fabric,
// else the GPU's default fabric, else FallbackFabric; an instance's node is at most its GPUs.
// Then the caller's override. NotFound naming `field` for an unknown fabric name.
absl::Status ResolveFabric(const CatalogView& catalog, const GpuRow& gpu, const InstanceRow* instance,
                           const FabricOverride& override, absl::string_view field, Supply* out);

// Ethernet fast enough to be sold as a cluster product: Google Cloud's A3 with
// GPUDirect-TCPX, 4 x 200 Gbit/s GPU NICs over 8 GPUs (cloud.google.com/compute/docs/gpus/
// gpudirect), i.e. 100 Gbit/s = 12.5 GB/s per GPU. Slower Ethernet is a VM's ordinary NIC.
inline constexpr double kClusterEthernetBytesPerSecondPerGpu = 12.5e9;

// Whether instances of this fabric are sold to be clustered: an RDMA network (EFA,
// InfiniBand, RoCE) or cluster-class Ethernet. Owned pools are the caller's own cluster.
bool ClusterFabric(const Fabric& f);
// Whether a plan may span more than one unit of this supply.
bool MayCluster(const Supply& s, const Constraints& c);
// Why a supply is planned one instance at a time (for the answer).
std::string NotClusteredReason(const Supply& s);

// A line for each catalog GPU type no supply offers, saying why: the caller's GPU filter, no
// offer at all, none from the allowed providers or regions, or none priced at the asked kind.
std::vector<Rejection> UnofferedGpus(const CatalogView& catalog, const PlanQuery& q,
                                     const std::vector<Supply>& supplies);

// Options that differ only by region (same provider, instance, count, price kind and price)
// are shown once; this is their common key (none for owned pools).
using OfferKey = std::tuple<absl::string_view, absl::string_view, int, int, double>;
std::optional<OfferKey> SameOfferKey(const Supply& s, int units);

}  // namespace capplan::core::planner
