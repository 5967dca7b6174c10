#include "server/api/fabric_proto.h"

#include "absl/strings/str_cat.h"
#include "server/api/catalog_proto.h"

namespace capplan::server {

namespace v1 = capplan::v1;

namespace {

// A fabric inside every range core::ValidateFabric checks (8 GPUs on NVLink at 300 GB/s,
// 100 Gbit/s Ethernet per GPU, 10 us): the override's own numbers are checked by applying
// them to it, so that an override is held to exactly the ranges of a catalog fabric.
core::Fabric InRangeFabric() {
  core::Fabric f;
  f.gpus_per_node = 8;
  f.intra_link = core::Interconnect::kNvlink;
  f.intra_node_bytes_per_second_per_gpu = 300e9;
  f.network = core::NetworkKind::kEthernet;
  f.network_bytes_per_second_per_gpu = 100e9 / 8;
  f.network_latency_seconds = 10e-6;
  return f;
}

}  // namespace

absl::StatusOr<core::FabricOverride> FabricOverrideFrom(const core::CatalogView& catalog, const v1::Fabric& f,
                                                        const std::string& field) {
  core::FabricOverride o;
  if (!f.name().empty()) {
    if (catalog.FindFabric(f.name()) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".name: no fabric named \"", f.name(), "\" in the catalog (ListFabrics lists them)"));
    }
    o.fabric_name = f.name();
  }
  o.gpus_per_node = f.gpus_per_node();
  // UNSPECIFIED keeps the base fabric's link and network.
  if (f.intra_link() != v1::INTERCONNECT_KIND_UNSPECIFIED) {
    absl::StatusOr<core::Interconnect> link = InterconnectFromProto(f.intra_link(), field + ".intra_link");
    if (!link.ok()) return link.status();
    o.intra_link = *link;
  }
  o.intra_node_bytes_per_second_per_gpu = f.intra_node_bytes_per_second_per_gpu();
  if (f.network() != v1::NETWORK_KIND_UNSPECIFIED) {
    absl::StatusOr<core::NetworkKind> network = NetworkKindFromProto(f.network(), field + ".network");
    if (!network.ok()) return network.status();
    o.network = *network;
  }
  o.network_bytes_per_second_per_gpu = f.network_bytes_per_second_per_gpu();
  o.network_latency_seconds = f.network_latency_seconds();
  absl::Status s = core::ValidateFabric(core::ApplyOverride(InRangeFabric(), o), field);
  if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat(s.message(), " (0 keeps the base fabric's value)"));
  return o;
}

}  // namespace capplan::server
