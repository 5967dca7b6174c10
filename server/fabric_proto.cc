#include "server/fabric_proto.h"

#include <optional>

#include "absl/strings/str_cat.h"

namespace capplan::server {

namespace v1 = capplan::v1;

namespace {

std::optional<core::Interconnect> IntraLinkFrom(v1::InterconnectKind k) {
  switch (k) {
    case v1::INTERCONNECT_KIND_PCIE:
      return core::Interconnect::kPcie;
    case v1::INTERCONNECT_KIND_NVLINK:
      return core::Interconnect::kNvlink;
    case v1::INTERCONNECT_KIND_INFINITY_FABRIC:
      return core::Interconnect::kInfinityFabric;
    case v1::INTERCONNECT_KIND_XE_LINK:
      return core::Interconnect::kXeLink;
    default:
      return std::nullopt;  // UNSPECIFIED: keep (unknown values never pass CheckRequest)
  }
}

v1::InterconnectKind IntraLinkToProto(core::Interconnect i) {
  switch (i) {
    case core::Interconnect::kPcie:
      return v1::INTERCONNECT_KIND_PCIE;
    case core::Interconnect::kNvlink:
      return v1::INTERCONNECT_KIND_NVLINK;
    case core::Interconnect::kInfinityFabric:
      return v1::INTERCONNECT_KIND_INFINITY_FABRIC;
    case core::Interconnect::kXeLink:
      return v1::INTERCONNECT_KIND_XE_LINK;
  }
  return v1::INTERCONNECT_KIND_UNSPECIFIED;
}

std::optional<core::NetworkKind> NetworkFrom(v1::NetworkKind k) {
  switch (k) {
    case v1::NETWORK_KIND_NONE:
      return core::NetworkKind::kNone;
    case v1::NETWORK_KIND_ETHERNET:
      return core::NetworkKind::kEthernet;
    case v1::NETWORK_KIND_EFA:
      return core::NetworkKind::kEfa;
    case v1::NETWORK_KIND_INFINIBAND:
      return core::NetworkKind::kInfiniband;
    case v1::NETWORK_KIND_ROCE:
      return core::NetworkKind::kRoce;
    default:
      return std::nullopt;  // UNSPECIFIED: keep
  }
}

v1::NetworkKind NetworkToProto(core::NetworkKind k) {
  switch (k) {
    case core::NetworkKind::kNone:
      return v1::NETWORK_KIND_NONE;
    case core::NetworkKind::kEthernet:
      return v1::NETWORK_KIND_ETHERNET;
    case core::NetworkKind::kEfa:
      return v1::NETWORK_KIND_EFA;
    case core::NetworkKind::kInfiniband:
      return v1::NETWORK_KIND_INFINIBAND;
    case core::NetworkKind::kRoce:
      return v1::NETWORK_KIND_ROCE;
  }
  return v1::NETWORK_KIND_UNSPECIFIED;
}

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
  o.intra_link = IntraLinkFrom(f.intra_link());
  o.intra_node_bytes_per_second_per_gpu = f.intra_node_bytes_per_second_per_gpu();
  o.network = NetworkFrom(f.network());
  o.network_bytes_per_second_per_gpu = f.network_bytes_per_second_per_gpu();
  o.network_latency_seconds = f.network_latency_seconds();
  absl::Status s = core::ValidateFabric(core::ApplyOverride(InRangeFabric(), o), field);
  if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat(s.message(), " (0 keeps the base fabric's value)"));
  return o;
}

void AssumedFabricToProto(const core::Fabric& f, const std::string& name, v1::Fabric* out) {
  out->set_name(name);
  out->set_gpus_per_node(f.gpus_per_node);
  out->set_intra_link(IntraLinkToProto(f.intra_link));
  out->set_intra_node_bytes_per_second_per_gpu(f.intra_node_bytes_per_second_per_gpu);
  out->set_network(NetworkToProto(f.network));
  out->set_network_bytes_per_second_per_gpu(f.network_bytes_per_second_per_gpu);
  out->set_network_latency_seconds(f.network_latency_seconds);
}

}  // namespace capplan::server
