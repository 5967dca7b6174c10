// How the GPUs of one offer or owned pool talk to each other: the fast link inside a node
// (NVLink/NVSwitch, Infinity Fabric, or only PCIe) and the network between nodes (EFA,
// InfiniBand, RoCE, plain Ethernet). Catalog data with a source per row; the training and
// serving estimators read every size and speed from here, never from a constant.
#pragma once

#include <array>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/gpu.h"

namespace capplan::core {

enum class NetworkKind { kNone = 0, kEthernet, kEfa, kInfiniband, kRoce };
inline constexpr int kNumNetworkKinds = 5;
// The stored names, in enum order (core/enum_names.h).
inline constexpr std::array<const char*, kNumNetworkKinds> kNetworkKindNames = {"none", "ethernet", "efa", "infiniband",
                                                                                "roce"};
const char* NetworkKindName(NetworkKind k);  // none, ethernet, efa, infiniband, roce

struct Fabric {
  // GPUs that share the fast intra-node link (the NVLink domain); 1 when every GPU is alone.
  int gpus_per_node = 0;
  Interconnect intra_link = Interconnect::kPcie;
  // Per GPU, one direction, inside a node.
  double intra_node_bytes_per_second_per_gpu = 0;
  // Between nodes: per GPU, one direction (a node's NIC bandwidth over its GPUs). 0 and
  // kNone when the offer cannot be clustered.
  NetworkKind network = NetworkKind::kNone;
  double network_bytes_per_second_per_gpu = 0;
  double network_latency_seconds = 0;  // one small message, end to end

  bool Known() const { return gpus_per_node > 0; }
};

// InvalidArgument naming the field (prefix + "." + field) and its range.
absl::Status ValidateFabric(const Fabric& f, absl::string_view prefix = "fabric");

// A caller's change to a fabric: a named catalog fabric to start from and any fields to
// replace. Zero numbers and unset enums keep the base value.
struct FabricOverride {
  std::string fabric_name;
  int gpus_per_node = 0;
  std::optional<Interconnect> intra_link;
  double intra_node_bytes_per_second_per_gpu = 0;
  std::optional<NetworkKind> network;
  double network_bytes_per_second_per_gpu = 0;
  double network_latency_seconds = 0;

  bool Empty() const;
  bool ChangesFields() const;  // any field besides fabric_name
};
Fabric ApplyOverride(Fabric base, const FabricOverride& o);

// When nothing better is known (a GPU named without an offer, a catalog without a fabric
// for it): the GPU datasheet's node, and 100 Gbit/s Ethernet per 8 GPUs between nodes
// (a common non-HPC cluster NIC; deliberately pessimistic so that a missing fabric never
// flatters a plan).
Fabric FallbackFabric(const GpuSpec& gpu);

}  // namespace capplan::core
