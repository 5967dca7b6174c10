// capplan: the command-line client. Readable output by default, --json for scripts.
#include <iostream>
#include <string>
#include <vector>

#include <google/protobuf/util/json_util.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "client/client.h"

ABSL_FLAG(std::string, server, "127.0.0.1:50051", "capplan-server address, host:port");
ABSL_FLAG(absl::Duration, timeout, absl::Seconds(5), "deadline for each call");
ABSL_FLAG(bool, json, false, "print responses as JSON (protobuf JSON mapping)");

namespace {

constexpr char kUsage[] = R"(capplan: GPU capacity planning for LLMs

Usage: capplan [--server=HOST:PORT] [--timeout=5s] [--json] COMMAND

Commands:
  health                 the server's gRPC health status; exit 0 only when SERVING
                           capplan --server=127.0.0.1:50051 health
  catalog version        the catalog snapshot the planner serves
                           capplan catalog version --json
)";

int Fail(const absl::Status& s) {
  std::cerr << "capplan: " << absl::StatusCodeToString(s.code()) << ": " << s.message() << "\n";
  return 1;
}

void PrintJson(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::util::JsonPrintOptions opts;
  opts.add_whitespace = true;
  opts.always_print_primitive_fields = true;
  opts.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(m, &out, opts);
  std::cout << out;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(kUsage);
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  if (args.size() < 2) {
    std::cerr << kUsage;
    return 2;
  }
  capplan::client::ClientOptions options;
  options.server = absl::GetFlag(FLAGS_server);
  options.timeout = absl::ToChronoMilliseconds(absl::GetFlag(FLAGS_timeout));
  capplan::client::Client client(options);
  const bool json = absl::GetFlag(FLAGS_json);
  const std::string command = args[1];

  if (command == "health") {
    absl::StatusOr<std::string> status = client.Health();
    if (!status.ok()) return Fail(status.status());
    std::cout << *status << "\n";
    return *status == "SERVING" ? 0 : 1;
  }
  if (command == "catalog" && args.size() >= 3 && std::string(args[2]) == "version") {
    auto r = client.GetCatalogVersion();
    if (!r.ok()) return Fail(r.status());
    if (json) {
      PrintJson(*r);
    } else {
      std::cout << "catalog version " << r->catalog_version() << " (schema "
                << r->schema_version() << ", loaded "
                << absl::FormatTime(absl::FromUnixSeconds(r->loaded_unix_seconds()),
                                    absl::UTCTimeZone())
                << ")\n";
    }
    return 0;
  }
  std::cerr << "capplan: unknown command \"" << command << "\"\n\n" << kUsage;
  return 2;
}
