#include "core/fabric.h"

#include "core/enum_names.h"
#include "core/validate.h"

namespace capplan::core {

const char* NetworkKindName(NetworkKind k) { return EnumName(k); }

namespace {
// The checks, naming each field bare; the caller's prefix is added only to a failure.
absl::Status ValidateFabricFields(const Fabric& f) {
  CAPPLAN_RETURN_IF_ERROR(CheckRange("gpus_per_node", static_cast<int64_t>(f.gpus_per_node), int64_t{1}, int64_t{576}));
  CAPPLAN_RETURN_IF_ERROR(
      CheckRange("intra_node_bytes_per_second_per_gpu", f.intra_node_bytes_per_second_per_gpu, 1e8, 1e13));
  if (f.network == NetworkKind::kNone) {
    if (f.network_bytes_per_second_per_gpu != 0) {
      return FieldError("network_bytes_per_second_per_gpu", "must be 0 when the network kind is none");
    }
  } else {
    CAPPLAN_RETURN_IF_ERROR(
        CheckRange("network_bytes_per_second_per_gpu", f.network_bytes_per_second_per_gpu, 1e7, 1e12));
  }
  return CheckRange("network_latency_seconds", f.network_latency_seconds, 0.0, 1e-2);
}
}  // namespace

absl::Status ValidateFabric(const Fabric& f, absl::string_view prefix) {
  // Every estimate validates its fabric: the field's path is built only when a check fails.
  absl::Status s = ValidateFabricFields(f);
  if (ABSL_PREDICT_TRUE(s.ok()) || prefix.empty()) return s;
  return absl::InvalidArgumentError(absl::StrCat(prefix, ".", s.message()));
}

bool FabricOverride::ChangesFields() const {
  return gpus_per_node != 0 || intra_link.has_value() || intra_node_bytes_per_second_per_gpu != 0 ||
         network.has_value() || network_bytes_per_second_per_gpu != 0 || network_latency_seconds != 0;
}

bool FabricOverride::Empty() const { return fabric_name.empty() && !ChangesFields(); }

Fabric ApplyOverride(Fabric base, const FabricOverride& o) {
  if (o.gpus_per_node != 0) base.gpus_per_node = o.gpus_per_node;
  if (o.intra_link.has_value()) base.intra_link = *o.intra_link;
  if (o.intra_node_bytes_per_second_per_gpu != 0) {
    base.intra_node_bytes_per_second_per_gpu = o.intra_node_bytes_per_second_per_gpu;
  }
  if (o.network.has_value()) {
    base.network = *o.network;
    if (base.network == NetworkKind::kNone) base.network_bytes_per_second_per_gpu = 0;
  }
  if (o.network_bytes_per_second_per_gpu != 0)
    base.network_bytes_per_second_per_gpu = o.network_bytes_per_second_per_gpu;
  if (o.network_latency_seconds != 0) base.network_latency_seconds = o.network_latency_seconds;
  return base;
}

Fabric FallbackFabric(const GpuSpec& gpu) {
  Fabric f;
  f.gpus_per_node = gpu.gpus_per_node;
  f.intra_link = gpu.interconnect;
  f.intra_node_bytes_per_second_per_gpu = gpu.interconnect_bandwidth_bytes_per_second;
  f.network = NetworkKind::kEthernet;
  // 100 Gbit/s per 8 GPUs = 1.5625 GB/s per GPU; ~30 us for a small message over TCP.
  f.network_bytes_per_second_per_gpu = 100e9 / 8 / 8;
  f.network_latency_seconds = 30e-6;
  return f;
}

}  // namespace capplan::core
