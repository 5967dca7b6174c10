#include "server/tco/tco_scenario.h"

#include <google/protobuf/util/json_util.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "server/planning/planning.h"
#include "server/rpc/request_limits.h"

namespace capplan::server {

namespace v1 = capplan::v1;

absl::Status PriceTco(const core::CatalogView& catalog, const v1::TcoRequest& req, v1::TcoResponse* resp) {
  absl::Status s = CheckRequest(req);
  if (s.ok()) s = Tco(catalog, req, resp);
  if (s.ok()) s = CheckResponseFinite(*resp);
  return s;
}

absl::StatusOr<store::TcoScenarioRow> TcoScenarioFromProto(const core::CatalogView& catalog,
                                                           const v1::TcoScenario& scenario) {
  store::TcoScenarioRow row;
  row.name = scenario.name();
  absl::Status name = store::CheckTcoScenarioName("scenario.name", row.name);
  if (!name.ok()) return name;
  if (!scenario.has_request()) return absl::InvalidArgumentError("scenario.request: required (a TcoRequest)");
  v1::TcoResponse priced;
  absl::Status s = PriceTco(catalog, scenario.request(), &priced);
  if (!s.ok()) {
    // Every refusal of the request is the writer's to fix, so all are InvalidArgument here;
    // the server's own failures keep their code.
    const bool callers = s.code() == absl::StatusCode::kInvalidArgument || s.code() == absl::StatusCode::kNotFound ||
                         s.code() == absl::StatusCode::kFailedPrecondition || s.code() == absl::StatusCode::kOutOfRange;
    const std::string message = absl::StrCat("scenario.request.", s.message());
    return callers ? absl::InvalidArgumentError(message) : absl::Status(s.code(), message);
  }
  google::protobuf::util::JsonPrintOptions o;
  o.preserve_proto_field_names = true;
  const auto printed = google::protobuf::util::MessageToJsonString(scenario.request(), &row.request_json, o);
  if (!printed.ok()) return absl::InternalError(absl::StrCat("scenario.request: as JSON: ", printed.ToString()));
  return row;
}

absl::StatusOr<v1::TcoRequest> TcoScenarioRequest(const store::TcoScenarioRow& row) {
  v1::TcoRequest req;
  const auto parsed = google::protobuf::util::JsonStringToMessage(row.request_json, &req);
  if (!parsed.ok()) {
    return absl::InternalError(
        absl::StrCat("TCO scenario \"", row.name, "\": stored request does not parse: ", parsed.ToString()));
  }
  return req;
}

absl::Status TcoScenarioToProto(const store::TcoScenarioRow& row, v1::TcoScenario* out) {
  absl::StatusOr<v1::TcoRequest> req = TcoScenarioRequest(row);
  if (!req.ok()) return req.status();
  out->set_name(row.name);
  *out->mutable_request() = std::move(*req);
  out->set_updated_by(row.updated_by);
  out->set_updated_unix_seconds(row.updated_unix_seconds);
  return absl::OkStatus();
}

absl::Status LoadTcoScenariosFile(const std::string& path, store::CatalogStore* store) {
  constexpr size_t kMaxFileBytes = 1 << 20;
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::FailedPreconditionError(absl::StrCat("tco_scenarios_file ", path, ": cannot read"));
  // Reads one byte past the limit at most, so a huge file is refused without reading it.
  std::string text(kMaxFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxFileBytes) {
    return absl::InvalidArgumentError(absl::StrCat("tco_scenarios_file ", path, ": over ", kMaxFileBytes, " bytes"));
  }
  // The array parses as ListTcoScenariosResponse.scenarios: protobuf's JSON reader, strict.
  v1::ListTcoScenariosResponse file;
  const auto parsed = google::protobuf::util::JsonStringToMessage(absl::StrCat("{\"scenarios\": ", text, "}"), &file);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tco_scenarios_file ", path, ": not a JSON array of {name, request}: ", parsed.ToString()));
  }
  if (file.scenarios_size() > store::kMaxTcoScenarios) {
    return absl::InvalidArgumentError(absl::StrCat("tco_scenarios_file ", path, ": at most ", store::kMaxTcoScenarios,
                                                   " scenarios, got ", file.scenarios_size()));
  }
  const std::shared_ptr<const store::CatalogSnapshot> snap = store->Snapshot();
  std::vector<store::TcoScenarioRow> rows;
  for (int i = 0; i < file.scenarios_size(); ++i) {
    absl::StatusOr<store::TcoScenarioRow> row = TcoScenarioFromProto(*snap, file.scenarios(i));
    if (!row.ok()) {
      absl::string_view why = row.status().message();
      absl::ConsumePrefix(&why, "scenario.");  // "scenarios[i].request.fleets[0]...", not "...scenario.request..."
      return absl::Status(row.status().code(), absl::StrCat("tco_scenarios_file ", path, ": scenarios[", i, "].", why));
    }
    rows.push_back(*std::move(row));
  }
  for (const store::TcoScenarioRow& row : rows) {
    bool unchanged = false;
    for (const store::TcoScenarioRow& held : snap->tco_scenarios) {
      unchanged = unchanged || (held.name == row.name && held.request_json == row.request_json);
    }
    if (unchanged) continue;
    absl::StatusOr<store::WriteResult> w =
        store->UpsertTcoScenario(store::WriteContext("tco_scenarios_file", "TcoScenariosFile"), row);
    if (!w.ok())
      return absl::Status(w.status().code(), absl::StrCat("tco_scenarios_file ", path, ": ", w.status().message()));
  }
  return absl::OkStatus();
}

}  // namespace capplan::server
