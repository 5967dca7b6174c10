// capplan admin upsert-tco-scenario|delete-tco-scenario and capplan catalog tco-scenarios:
// the standing TCO scenarios the server reprices on every catalog change and exports as
// capplan_tco_* gauges (see the README's "TCO scenarios").
#include <google/protobuf/util/json_util.h>

#include <iostream>

#include "absl/strings/str_cat.h"
#include "client/cli/admin.h"
#include "client/cli/commands.h"

namespace capplan::cli {
namespace {

const CommandInfo kUpsert = {
    "admin upsert-tco-scenario",
    "add or replace a standing TCO scenario: a name and a TcoRequest (a TcoRequest in protobuf JSON)",
    "--name=NAME --request_json=PATH [--request_id=ID]",
    R"(  capplan admin upsert-tco-scenario --name=a100-8x-own-vs-flat-rent --request_json=scenario.json
  # scenario.json: {"horizon_months": 36, "fleets": [{"gpu_name": "A100-SXM4-80GB", "gpu_count": 8,
  #   "own": {"capex_usd": 250000, "ops_usd_per_month": 5000, "power_watts": 0},
  #   "rent": {"price_usd_per_month": 15000}}]})"};
const CommandInfo kDelete = {"admin delete-tco-scenario", "delete a standing TCO scenario and its gauges",
                             "--name=NAME [--request_id=ID]",
                             "  capplan admin delete-tco-scenario --name=a100-8x-own-vs-flat-rent"};
const CommandInfo kList = {"catalog tco-scenarios", "the standing TCO scenarios (capplan_tco_* gauges)", "",
                           "  capplan --json catalog tco-scenarios"};

}  // namespace

int UpsertTcoScenario(const std::vector<std::string>& args, GlobalOptions* global) {
  FlagSet flags;
  v1::UpsertTcoScenarioRequest r;
  std::string file, request_id;
  flags.Custom("name", "NAME", "1-64 of [A-Za-z0-9_.-]; the Prometheus label value", "",
               [&r](const std::string& v) { return r.mutable_scenario()->set_name(v), absl::OkStatus(); });
  flags.String("request_json", "PATH", "a TcoRequest in protobuf JSON (required)", &file);
  flags.String("request_id", "ID", "idempotency key (default: random)", &request_id);
  const int rc = ParseCommandFlags(kUpsert, args, &flags, global);
  if (rc >= 0) return rc;
  if (file.empty()) return UsageError(kUpsert.path, "--request_json is required");
  absl::StatusOr<std::string> text = ReadFile(file);
  if (!text.ok()) return UsageError(kUpsert.path, absl::StrCat("--request_json: ", text.status().message()));
  auto parsed = google::protobuf::util::JsonStringToMessage(*text, r.mutable_scenario()->mutable_request());
  if (!parsed.ok()) {
    return UsageError(kUpsert.path, absl::StrCat("--request_json: not a TcoRequest: ", parsed.ToString()));
  }
  r.set_request_id(request_id);
  return Send(
      *global, r, [](client::Client& c, const v1::UpsertTcoScenarioRequest& q) { return c.UpsertTcoScenario(q); },
      "TCO scenario " + r.scenario().name() + " written");
}

int DeleteTcoScenario(const std::vector<std::string>& args, GlobalOptions* global) {
  FlagSet flags;
  v1::DeleteTcoScenarioRequest r;
  std::string request_id;
  flags.Custom("name", "NAME", "the scenario to delete", "",
               [&r](const std::string& v) { return r.set_name(v), absl::OkStatus(); });
  flags.String("request_id", "ID", "idempotency key (default: random)", &request_id);
  const int rc = ParseCommandFlags(kDelete, args, &flags, global);
  if (rc >= 0) return rc;
  r.set_request_id(request_id);
  return Send(
      *global, r, [](client::Client& c, const v1::DeleteTcoScenarioRequest& q) { return c.DeleteTcoScenario(q); },
      "TCO scenario " + r.name() + " deleted");
}

int ListTcoScenarios(const std::vector<std::string>& args, GlobalOptions* global) {
  FlagSet flags;
  const int rc = ParseCommandFlags(kList, args, &flags, global);
  if (rc >= 0) return rc;
  client::Client c(global->client);
  auto r = c.ListTcoScenarios();
  if (!r.ok()) return Fail(r.status());
  if (global->json) return PrintJson(*r), 0;
  Table t({"name", "months", "fleets", "serving", "updated by", "updated"});
  for (const v1::TcoScenario& s : r->scenarios()) {
    std::string fleets;
    for (const v1::TcoFleet& f : s.request().fleets()) {
      absl::StrAppend(&fleets, fleets.empty() ? "" : ", ", f.gpu_count(), " x ", f.gpu_name());
    }
    t.Add({s.name(), absl::StrCat(s.request().horizon_months()), fleets,
           s.request().has_serving() ? s.request().serving().model_name() : "-", s.updated_by(),
           IsoDate(s.updated_unix_seconds())});
  }
  t.Print();
  return 0;
}

}  // namespace capplan::cli
