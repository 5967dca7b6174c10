// What every CLI command shares: the global options, running a command's flag
// table (help, unknown flags), output (tables, JSON, money) and the parsers for
// dates, enums and lists that several commands read.
#pragma once

#include <google/protobuf/message.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "capplan/v1/catalog.pb.h"
#include "capplan/v1/planner.pb.h"
#include "client/cli/flag_parser.h"
#include "client/client.h"

namespace capplan::cli {

// Exit codes: 0 success, 1 an RPC (or server-side) error, 2 a usage error.
inline constexpr int kExitRpcError = 1;
inline constexpr int kExitUsage = 2;

// Flags every command accepts, before or after the command name.
struct GlobalOptions {
  client::ClientOptions client;
  bool json = false;
};

// Adds --server, --timeout, --json and the TLS files to `flags`.
void AddGlobalFlags(FlagSet* flags, GlobalOptions* global);

// What one command (e.g. "plan training") shows in its --help.
struct CommandInfo {
  std::string path;     // "plan training"
  std::string summary;  // one line
  std::string usage;    // the arguments after the path
  std::string example;  // one or more full command lines
};

// Parses `args` (what follows the command path) with `flags` plus the global
// flags. Returns -1 to go on, or the exit code: 0 after printing --help,
// kExitUsage after an error that names the flag and points at --help.
int ParseCommandFlags(const CommandInfo& info, const std::vector<std::string>& args, FlagSet* flags,
                      GlobalOptions* global);

// "capplan: <why>" and a pointer at --help on stderr; returns kExitUsage.
int UsageError(const std::string& path, const std::string& why);
// A group ("plan") without a known subcommand: its subcommands on stdout and 0
// for --help, else an error naming them and kExitUsage.
int SubcommandUsage(const std::string& group, const std::vector<std::string>& subcommands,
                    const std::vector<std::string>& args);
// "capplan: CODE: message" on stderr; returns kExitRpcError.
int Fail(const absl::Status& status);

void PrintJson(const google::protobuf::Message& message);

// Column-aligned text table.
class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void Add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void Print() const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

std::string Gib(double bytes);  // bytes in GiB, one decimal
std::string Usd(double usd);
// A Unix time as an ISO 8601 date (UTC), the way people read it.
std::string IsoDate(int64_t unix_seconds);
// Comma-separated list, empty items dropped.
std::vector<std::string> SplitList(const std::string& csv);
// Reads a whole file; NotFound naming the path when it cannot.
absl::StatusOr<std::string> ReadFile(const std::string& path);

// ISO 8601 date (midnight UTC) or date-time (Z, an offset, or none for UTC) ->
// Unix seconds.
absl::StatusOr<int64_t> ParseIsoTime(const std::string& text);
// Checks a YYYY-MM-DD calendar date.
absl::Status CheckIsoDate(const std::string& text);

// Lower-case names without the enum prefix: "bf16", "on_demand", "reserved_1y",
// ...
absl::StatusOr<v1::Precision> ParsePrecision(const std::string& text);
absl::StatusOr<v1::PriceKind> ParsePriceKind(const std::string& text);
absl::StatusOr<v1::View> ParseView(const std::string& text);
// An enum value's name less `prefix`, in lower case ("BOTTLENECK_COMPUTE" ->
// "compute").
std::string EnumLabel(const std::string& name, const std::string& prefix);

// Flag helpers that parse into a proto field through the parsers above.
void PrecisionFlag(FlagSet* flags, const std::string& name, const std::string& help, v1::Precision* out);
void IsoTimeFlag(FlagSet* flags, const std::string& name, const std::string& help,
                 std::function<void(int64_t)> set_unix_seconds);
void IsoDateFlag(FlagSet* flags, const std::string& name, const std::string& help, std::string* out);
void ViewFlag(FlagSet* flags, std::function<void(v1::View)> set);

// A whole-number flag in [min, max] that hands the value to `set`.
void IntField(FlagSet* flags, const std::string& name, const std::string& help, const std::string& default_text,
              int64_t min, int64_t max, std::function<void(int64_t)> set);

// A number flag in (low, high] (or [low, high] with `low_inclusive`).
void NumberField(FlagSet* flags, const std::string& name, const std::string& value_name, const std::string& help,
                 const std::string& default_text, double low, bool low_inclusive, double high,
                 std::function<void(double)> set);

// An enum flag: `text` upper-cased after `prefix` must name a value other than
// UNSPECIFIED.
template <typename Enum>
void EnumField(FlagSet* flags, const std::string& name, const std::string& choices, const std::string& help,
               const std::string& default_text, const std::string& prefix, bool (*parse)(const std::string&, Enum*),
               std::function<void(Enum)> set) {
  flags->Custom(name, choices, help, default_text, [=](const std::string& v) {
    Enum e{};
    const std::string upper = absl::AsciiStrToUpper(v);
    if (v.empty() || upper == "UNSPECIFIED" || !parse(prefix + upper, &e)) {
      return absl::InvalidArgumentError(absl::StrCat("want one of ", choices));
    }
    set(e);
    return absl::OkStatus();
  });
}

}  // namespace capplan::cli
