// The fabric override a compare target or an owned pool may carry, written as "/key=value"
// segments after the target or pool: /fabric=NAME starts from a catalog fabric, and each
// other key replaces one of its figures, in the units people quote them in (Gbit/s for a
// NIC, GB/s for NVLink, microseconds for latency).
#pragma once

#include <string>

#include "absl/status/status.h"
#include "capplan/v1/catalog.pb.h"

namespace capplan::cli {

// One line per key, for a command's help.
extern const char kFabricKeysHelp[];

// True when `key` is one of the fabric keys.
bool IsFabricKey(const std::string& key);

// Sets the field `key` names from `value`; InvalidArgument naming the key and what it wants.
absl::Status SetFabricKey(const std::string& key, const std::string& value, v1::Fabric* fabric);

}  // namespace capplan::cli
