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

}  // namespace capplan::server
