#include "client/cli/fabric_spec.h"

#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace capplan::cli {

const char kFabricKeysHelp[] =
    "fabric=NAME (a catalog fabric to start from), gpus_per_node=N, "
    "intra_link=pcie|nvlink|infinity_fabric|xe_link, intra_node_gbyte_per_s_per_gpu=GB/s, "
    "network_kind=none|ethernet|efa|infiniband|roce, network_gbit_per_s_per_gpu=Gbit/s, network_latency_us=US";

namespace {

// A positive finite number in the key's unit, times `scale` to the API's unit.
absl::Status SetNumber(const std::string& key, const std::string& value, double scale, v1::Fabric* f,
                       void (v1::Fabric::*set)(double)) {
  double d = 0;
  if (!absl::SimpleAtod(value, &d) || !std::isfinite(d) || !(d > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(key, ": want a number > 0, got \"", value, "\""));
  }
  (f->*set)(d * scale);
  return absl::OkStatus();
}

}  // namespace

bool IsFabricKey(const std::string& key) {
  return key == "fabric" || key == "gpus_per_node" || key == "intra_link" || key == "intra_node_gbyte_per_s_per_gpu" ||
         key == "network_kind" || key == "network_gbit_per_s_per_gpu" || key == "network_latency_us";
}

absl::Status SetFabricKey(const std::string& key, const std::string& value, v1::Fabric* f) {
  const std::string upper = absl::AsciiStrToUpper(value);
  if (key == "fabric") {
    if (value.empty()) return absl::InvalidArgumentError("fabric: want a catalog fabric name");
    f->set_name(value);
  } else if (key == "gpus_per_node") {
    int n = 0;
    if (!absl::SimpleAtoi(value, &n) || n < 1) {
      return absl::InvalidArgumentError(absl::StrCat("gpus_per_node: want a whole number >= 1, got \"", value, "\""));
    }
    f->set_gpus_per_node(n);
  } else if (key == "intra_link") {
    v1::InterconnectKind k;
    if (upper.empty() || !v1::InterconnectKind_Parse("INTERCONNECT_KIND_" + upper, &k) ||
        k == v1::INTERCONNECT_KIND_UNSPECIFIED) {
      return absl::InvalidArgumentError("intra_link: want pcie, nvlink, infinity_fabric or xe_link");
    }
    f->set_intra_link(k);
  } else if (key == "network_kind") {
    v1::NetworkKind k;
    if (upper.empty() || !v1::NetworkKind_Parse("NETWORK_KIND_" + upper, &k) || k == v1::NETWORK_KIND_UNSPECIFIED) {
      return absl::InvalidArgumentError("network_kind: want none, ethernet, efa, infiniband or roce");
    }
    f->set_network(k);
  } else if (key == "intra_node_gbyte_per_s_per_gpu") {
    return SetNumber(key, value, 1e9, f, &v1::Fabric::set_intra_node_bytes_per_second_per_gpu);
  } else if (key == "network_gbit_per_s_per_gpu") {
    return SetNumber(key, value, 1e9 / 8, f, &v1::Fabric::set_network_bytes_per_second_per_gpu);
  } else if (key == "network_latency_us") {
    return SetNumber(key, value, 1e-6, f, &v1::Fabric::set_network_latency_seconds);
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown fabric key \"", key, "\""));
  }
  return absl::OkStatus();
}

}  // namespace capplan::cli
