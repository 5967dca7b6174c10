// The JSON side of a config.json: protobuf's reader into a Struct, flattened to core's map.
#include "server/api/hf_config_json.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"

namespace capplan::server {

namespace {

namespace pb = google::protobuf;

core::HfConfigValue ValueOf(const pb::Value& v) {
  core::HfConfigValue out;
  switch (v.kind_case()) {
    case pb::Value::kNumberValue:
      out.kind = core::HfConfigValue::Kind::kNumber;
      out.number = v.number_value();
      break;
    case pb::Value::kStringValue:
      out.kind = core::HfConfigValue::Kind::kString;
      out.text = v.string_value();
      break;
    case pb::Value::kBoolValue:
      out.kind = core::HfConfigValue::Kind::kBool;
      out.flag = v.bool_value();
      break;
    case pb::Value::kListValue:
      out.kind = core::HfConfigValue::Kind::kList;
      out.size = v.list_value().values_size();
      break;
    case pb::Value::kStructValue:
      out.kind = core::HfConfigValue::Kind::kObject;
      out.size = v.struct_value().fields_size();
      break;
    default:
      break;  // null
  }
  return out;
}

// `json` with Python's bare Infinity, -Infinity and NaN (outside strings) quoted as "inf",
// "-inf" and "nan".
std::string QuotePythonSpecials(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      out.push_back(c);
      if (c == '\\' && i + 1 < json.size()) {
        out.push_back(json[++i]);
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    bool replaced = false;
    for (const auto& [word, text] : {std::pair<absl::string_view, absl::string_view>{"-Infinity", "\"-inf\""},
                                     {"Infinity", "\"inf\""},
                                     {"NaN", "\"nan\""}}) {
      if (absl::string_view(json).substr(i, word.size()) == word) {
        out.append(text.data(), text.size());
        i += word.size() - 1;
        replaced = true;
        break;
      }
    }
    if (replaced) continue;
    if (c == '"') in_string = true;
    out.push_back(c);
  }
  return out;
}

}  // namespace

absl::StatusOr<core::HfConfig> JsonObjectFields(const std::string& json, const std::string& field) {
  pb::Struct root;
  const auto parsed = pb::util::JsonStringToMessage(QuotePythonSpecials(json), &root, pb::util::JsonParseOptions());
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": not a JSON object (", absl::string_view(parsed.message().data(), parsed.message().size()), ")"));
  }
  core::HfConfig fields;
  for (const auto& [key, value] : root.fields()) fields[key] = ValueOf(value);
  return fields;
}

absl::StatusOr<core::HfModel> ModelFromHfConfigJson(const std::string& json, const std::string& field) {
  pb::Struct root;
  pb::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  const auto parsed = pb::util::JsonStringToMessage(json, &root, options);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": not a JSON object (", absl::string_view(parsed.message().data(), parsed.message().size()), ")"));
  }
  // Top-level keys, and one level of nesting for the wrappers that hold the language model's
  // config (Gemma 3's text_config); deeper values are not needed by any mapping.
  core::HfConfig config;
  for (const auto& [key, value] : root.fields()) {
    config[key] = ValueOf(value);
    if (value.kind_case() != pb::Value::kStructValue) continue;
    for (const auto& [inner, inner_value] : value.struct_value().fields()) {
      config[absl::StrCat(key, ".", inner)] = ValueOf(inner_value);
    }
  }
  absl::StatusOr<core::HfModel> model = core::ModelFromHfConfig(config);
  if (!model.ok()) {
    return absl::Status(model.status().code(), absl::StrCat(field, ".", model.status().message()));
  }
  return model;
}

}  // namespace capplan::server
