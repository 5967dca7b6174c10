// A Hugging Face config.json, as a request carries it, to a model architecture: JSON parsing
// here (protobuf's JSON reader into google.protobuf.Struct), field mapping in core.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "core/hf_config.h"

namespace capplan::server {

// `field` prefixes every error, e.g. "workload.hf_config_json": a missing key reads
// "workload.hf_config_json.intermediate_size: required for model_type llama".
absl::StatusOr<core::HfModel> ModelFromHfConfigJson(const std::string& json, const std::string& field);

// A JSON object's top-level members as core reads them (lists and objects by size only).
// Python's json module writes float infinities and NaN as the bare words Infinity, -Infinity
// and NaN, which JSON does not allow: outside strings they are read as the strings "inf",
// "-inf" and "nan". InvalidArgument naming `field` for anything but a JSON object.
absl::StatusOr<core::HfConfig> JsonObjectFields(const std::string& json, const std::string& field);

}  // namespace capplan::server
