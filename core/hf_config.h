// Maps a Hugging Face config.json, already parsed into key -> value, to a ModelArchitecture.
// The JSON parsing lives in the server; this file only knows field names and meanings, per
// model_type, as the transformers configuration classes define them.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "core/model.h"

namespace capplan::core {

// One config.json value. Lists and objects keep only their size: no mapped field needs more.
struct HfConfigValue {
  enum class Kind { kNull, kNumber, kString, kBool, kList, kObject };
  Kind kind = Kind::kNull;
  double number = 0;
  std::string text;
  bool flag = false;
  int64_t size = 0;  // list or object length
};

// Keys as config.json spells them; the members of a nested object (Gemma 3's "text_config")
// appear as "text_config.<key>".
using HfConfig = std::map<std::string, HfConfigValue>;

struct HfModel {
  ModelArchitecture arch;
  int64_t max_context_tokens = 0;  // max_position_embeddings; 0 when absent
  std::string model_type;
};

// The model_type values understood, comma-separated, for messages and help text.
const char* HfSupportedModelTypes();

// InvalidArgument naming the config.json key (e.g. "intermediate_size: required for
// model_type llama") for an unknown model_type, a missing or malformed field, or a layout
// capplan cannot describe (e.g. MoE layers interleaved with dense ones).
absl::StatusOr<HfModel> ModelFromHfConfig(const HfConfig& config);

}  // namespace capplan::core
