// capplan admin upsert-model|delete-model: a catalog model's architecture from a JSON file
// (the same ModelArchitecture `plan --model_file` takes), and its removal.
#include <google/protobuf/util/json_util.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/cli/admin.h"

namespace capplan::cli {
namespace {

const CommandInfo kUpsertModel = {
    "admin upsert-model", "add or replace a catalog model from a ModelArchitecture in protobuf JSON",
    "--file=PATH [--request_id=ID]",
    "  capplan admin upsert-model --file=my-7b.json   # {\"name\":\"my-7b\",\"num_layers\":32,...,"
    "\"source\":{\"citation\":\"...\",\"asOfDate\":\"2026-11-30\"}}"};
const CommandInfo kDeleteModel = {"admin delete-model", "delete a catalog model (its benchmarks go with it)",
                                  "--name=NAME [--request_id=ID]", "  capplan admin delete-model --name=my-7b"};

}  // namespace

int UpsertModel(const std::vector<std::string>& args, GlobalOptions* global) {
  FlagSet flags;
  std::string file, request_id;
  flags.String("file", "PATH", "a ModelArchitecture in protobuf JSON, with its source", &file);
  flags.String("request_id", "ID", "idempotency key (default: random)", &request_id);
  const int rc = ParseCommandFlags(kUpsertModel, args, &flags, global);
  if (rc >= 0) return rc;
  if (file.empty()) return UsageError(kUpsertModel.path, "--file is required");
  absl::StatusOr<std::string> text = ReadFile(file);
  if (!text.ok()) return UsageError(kUpsertModel.path, absl::StrCat("--file: ", text.status().message()));
  v1::UpsertModelRequest r;
  auto parsed = google::protobuf::util::JsonStringToMessage(*text, r.mutable_model());
  if (!parsed.ok()) {
    return UsageError(kUpsertModel.path, absl::StrCat("--file: not a ModelArchitecture: ", parsed.ToString()));
  }
  r.set_request_id(request_id);
  return Send(
      *global, r, [](client::Client& c, const v1::UpsertModelRequest& q) { return c.UpsertModel(q); },
      "model " + r.model().name() + " written");
}

int DeleteModel(const std::vector<std::string>& args, GlobalOptions* global) {
  FlagSet flags;
  v1::DeleteModelRequest r;
  std::string request_id;
  flags.Custom("name", "NAME", "the model to delete (capplan catalog models)", "",
               [&r](const std::string& v) { return r.set_name(v), absl::OkStatus(); });
  flags.String("request_id", "ID", "idempotency key (default: random)", &request_id);
  const int rc = ParseCommandFlags(kDeleteModel, args, &flags, global);
  if (rc >= 0) return rc;
  if (r.name().empty()) return UsageError(kDeleteModel.path, "--name is required");
  r.set_request_id(request_id);
  return Send(
      *global, r, [](client::Client& c, const v1::DeleteModelRequest& q) { return c.DeleteModel(q); },
      "model " + r.name() + " deleted");
}

}  // namespace capplan::cli
