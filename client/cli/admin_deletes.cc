// capplan admin delete-gpu|delete-instance|delete-benchmark: removing catalog rows, each
// one flag per key of the row, through the admin client (token as for every admin write).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/cli/admin.h"

namespace capplan::cli {
namespace {

const CommandInfo kDeleteGpu = {"admin delete-gpu",
                                "delete a GPU type that no instance type still names (its benchmarks go with it)",
                                "--name=NAME [--request_id=ID]", "  capplan admin delete-gpu --name=P4"};
const CommandInfo kDeleteInstance = {
    "admin delete-instance", "delete an instance type in one region, with its price history",
    "--provider=NAME --instance_type=TYPE --region=REGION [--request_id=ID]",
    "  capplan admin delete-instance --provider=lab --instance_type=rig-4x-a10g --region=home"};
const CommandInfo kDeleteBenchmark = {"admin delete-benchmark",
                                      "delete a benchmark row by its id (capplan catalog benchmarks)",
                                      "--id=N [--request_id=ID]", "  capplan admin delete-benchmark --id=42"};

void AddRequestIdFlag(FlagSet* flags, std::string* request_id) {
  flags->String("request_id", "ID", "idempotency key (default: random)", request_id);
}

}  // namespace

int DeleteGpu(const std::vector<std::string>& args, GlobalOptions* global) {
  FlagSet flags;
  v1::DeleteGpuRequest r;
  std::string request_id;
  flags.Custom("name", "NAME", "the GPU to delete, e.g. P4", "",
               [&r](const std::string& v) { return r.set_name(v), absl::OkStatus(); });
  AddRequestIdFlag(&flags, &request_id);
  const int rc = ParseCommandFlags(kDeleteGpu, args, &flags, global);
  if (rc >= 0) return rc;
  if (r.name().empty()) return UsageError(kDeleteGpu.path, "--name is required");
  r.set_request_id(request_id);
  return Send(
      *global, r, [](client::Client& c, const v1::DeleteGpuRequest& q) { return c.DeleteGpu(q); },
      "GPU " + r.name() + " deleted");
}

int DeleteInstance(const std::vector<std::string>& args, GlobalOptions* global) {
  FlagSet flags;
  v1::DeleteInstanceTypeRequest r;
  std::string request_id;
  flags.Custom("provider", "NAME", "cloud provider, e.g. aws", "",
               [&r](const std::string& v) { return r.set_provider(v), absl::OkStatus(); });
  flags.Custom("instance_type", "TYPE", "instance type, e.g. p5.48xlarge", "",
               [&r](const std::string& v) { return r.set_instance_type(v), absl::OkStatus(); });
  flags.Custom("region", "REGION", "region, e.g. us-east-1", "",
               [&r](const std::string& v) { return r.set_region(v), absl::OkStatus(); });
  AddRequestIdFlag(&flags, &request_id);
  const int rc = ParseCommandFlags(kDeleteInstance, args, &flags, global);
  if (rc >= 0) return rc;
  r.set_request_id(request_id);
  return Send(
      *global, r, [](client::Client& c, const v1::DeleteInstanceTypeRequest& q) { return c.DeleteInstanceType(q); },
      absl::StrCat("instance type ", r.provider(), " ", r.instance_type(), " ", r.region(), " deleted"));
}

int DeleteBenchmark(const std::vector<std::string>& args, GlobalOptions* global) {
  FlagSet flags;
  v1::DeleteBenchmarkRequest r;
  std::string request_id;
  IntField(&flags, "id", "the benchmark's id", "", 1, INT64_MAX, [&r](int64_t n) { r.set_id(n); });
  AddRequestIdFlag(&flags, &request_id);
  const int rc = ParseCommandFlags(kDeleteBenchmark, args, &flags, global);
  if (rc >= 0) return rc;
  if (r.id() == 0) return UsageError(kDeleteBenchmark.path, "--id is required");
  r.set_request_id(request_id);
  return Send(
      *global, r, [](client::Client& c, const v1::DeleteBenchmarkRequest& q) { return c.DeleteBenchmark(q); },
      absl::StrCat("benchmark ", r.id(), " deleted"));
}

}  // namespace capplan::cli
