// Shared CLI pieces: global flags, command flag parsing, output and value
// parsers.
#include "client/cli/common.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"

namespace capplan::cli {

void AddGlobalFlags(FlagSet* flags, GlobalOptions* global) {
  client::ClientOptions* c = &global->client;
  flags->String("server", "HOST:PORT", "capplan-server address", &c->server);
  flags->Custom("timeout", "DURATION", "deadline for each call, e.g. 5s, 500ms", "5s", [c](const std::string& v) {
    absl::Duration d;
    if (!absl::ParseDuration(v, &d) || d <= absl::ZeroDuration()) {
      return absl::InvalidArgumentError("want a positive duration, e.g. 5s");
    }
    c->timeout = absl::ToChronoMilliseconds(d);
    return absl::OkStatus();
  });
  flags->Bool("json", "print responses as JSON (protobuf's JSON mapping)", &global->json);
  flags->String("tls_ca_file", "PATH", "PEM CA of the server's certificate; enables TLS", &c->tls_ca_file);
  flags->String("tls_cert_file", "PATH", "PEM client certificate (mTLS)", &c->tls_cert_file);
  flags->String("tls_key_file", "PATH", "PEM client key (mTLS)", &c->tls_key_file);
}

int ParseCommandFlags(const CommandInfo& info, const std::vector<std::string>& args, FlagSet* flags,
                      GlobalOptions* global) {
  FlagSet globals;
  AddGlobalFlags(&globals, global);
  const std::string visible = flags->Help();
  flags->Hidden(std::move(globals));
  std::vector<std::string> positional;
  bool help = false;
  absl::Status s = flags->Parse(args, false, &positional, &help);
  if (help) {
    std::cout << "capplan " << info.path << ": " << info.summary << "\n\nUsage: capplan " << info.path << " "
              << info.usage << "\n\nFlags:\n"
              << (visible.empty() ? "  (none)\n" : visible) << "\nExample:\n"
              << info.example
              << "\n\nGlobal flags (--server, --timeout, --json, --tls_*): see "
                 "capplan --help\n";
    return 0;
  }
  if (!s.ok()) return UsageError(info.path, std::string(s.message()));
  if (!positional.empty()) {
    return UsageError(info.path, absl::StrCat("unexpected argument \"", positional[0], "\""));
  }
  return -1;
}

int UsageError(const std::string& path, const std::string& why) {
  std::cerr << "capplan " << path << ": " << why << "\nSee: capplan " << path << " --help\n";
  return kExitUsage;
}

int SubcommandUsage(const std::string& group, const std::vector<std::string>& subcommands,
                    const std::vector<std::string>& args) {
  const std::string list = absl::StrJoin(subcommands, "|");
  const std::string first = args.empty() ? "" : args[0];
  if (first == "--help" || first == "-help" || first == "-h") {
    std::cout << "Usage: capplan " << group << " " << list << " [flags]\n\n"
              << "Each has its own flags: capplan " << group << " " << subcommands[0] << " --help\n";
    return 0;
  }
  std::cerr << "capplan " << group << ": want " << group << " " << list
            << (first.empty() ? "" : absl::StrCat(", got \"", first, "\"")) << "\nSee: capplan " << group << " "
            << subcommands[0] << " --help\n";
  return kExitUsage;
}

int Fail(const absl::Status& status) {
  std::cerr << "capplan: " << absl::StatusCodeToString(status.code()) << ": " << status.message() << "\n";
  return kExitRpcError;
}

void PrintJson(const google::protobuf::Message& message) {
  std::string out;
  google::protobuf::util::JsonPrintOptions opts;
  opts.add_whitespace = true;
  opts.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(message, &out, opts);
  std::cout << out;
}

void Table::Print() const {
  std::vector<size_t> w(rows_[0].size(), 0);
  for (const auto& r : rows_) {
    for (size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], r[i].size());
  }
  for (const auto& r : rows_) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      const bool last = i + 1 == r.size() || i + 1 >= w.size();
      absl::StrAppend(&line, r[i], last ? "" : std::string(w[i] - r[i].size() + 2, ' '));
    }
    line.erase(line.find_last_not_of(' ') + 1);  // an empty last column leaves no padding
    std::cout << line << "\n";
  }
}

std::string Gib(double bytes) { return absl::StrFormat("%.1f", bytes / (1024.0 * 1024.0 * 1024.0)); }

std::string Usd(double usd) { return usd >= 100 ? absl::StrFormat("$%.0f", usd) : absl::StrFormat("$%.2f", usd); }

std::string IsoDate(int64_t unix_seconds) {
  return absl::FormatTime("%Y-%m-%d", absl::FromUnixSeconds(unix_seconds), absl::UTCTimeZone());
}

std::vector<std::string> SplitList(const std::string& csv) {
  std::vector<std::string> out;
  for (absl::string_view p : absl::StrSplit(csv, ',', absl::SkipEmpty())) out.emplace_back(p);
  return out;
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

absl::StatusOr<int64_t> ParseIsoTime(const std::string& text) {
  absl::Time t;
  std::string err;
  if (absl::ParseTime("%Y-%m-%d", text, absl::UTCTimeZone(), &t, &err) ||
      absl::ParseTime(absl::RFC3339_full, text, &t, &err) ||
      absl::ParseTime("%Y-%m-%dT%H:%M:%E*S", text, absl::UTCTimeZone(), &t, &err)) {
    // Within google.protobuf.Timestamp's range from 1970 (the flags become Timestamps, and
    // protobuf aborts on one outside its range); the server bounds each field further.
    const int64_t seconds = absl::ToUnixSeconds(t);
    if (seconds < 0 || seconds > int64_t{253402300799}) {
      return absl::InvalidArgumentError(absl::StrCat("want a date from 1970-01-01 to 9999-12-31, got \"", text, "\""));
    }
    return seconds;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("want an ISO 8601 date or date-time, e.g. 2025-06-05 or "
                   "2025-06-05T12:00:00Z, got \"",
                   text, "\""));
}

absl::Status CheckIsoDate(const std::string& text) {
  absl::Time t;
  std::string err;
  if (text.size() == 10 && absl::ParseTime("%Y-%m-%d", text, absl::UTCTimeZone(), &t, &err) &&
      IsoDate(absl::ToUnixSeconds(t)) == text) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat("want a YYYY-MM-DD date, got \"", text, "\""));
}

namespace {

// Finds "PREFIX" + upper(text) among an enum's names.
template <typename Enum, typename ParseFn>
absl::StatusOr<Enum> ParseEnum(const std::string& text, const std::string& prefix, ParseFn parse,
                               const std::string& choices) {
  std::string upper = text;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  Enum value{};
  if (!text.empty() && upper != "UNSPECIFIED" && parse(prefix + upper, &value)) return value;
  return absl::InvalidArgumentError(absl::StrCat("want one of ", choices, ", got \"", text, "\""));
}

}  // namespace

absl::StatusOr<v1::Precision> ParsePrecision(const std::string& text) {
  return ParseEnum<v1::Precision>(text, "PRECISION_", v1::Precision_Parse, "fp32|tf32|fp16|bf16|fp8|int8|int4");
}

absl::StatusOr<v1::PriceKind> ParsePriceKind(const std::string& text) {
  return ParseEnum<v1::PriceKind>(text, "PRICE_KIND_", v1::PriceKind_Parse, "on_demand|spot|reserved_1y|reserved_3y");
}

absl::StatusOr<v1::View> ParseView(const std::string& text) {
  return ParseEnum<v1::View>(text, "VIEW_", v1::View_Parse, "basic|full");
}

std::string EnumLabel(const std::string& name, const std::string& prefix) {
  std::string s = name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : name;
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

void PrecisionFlag(FlagSet* flags, const std::string& name, const std::string& help, v1::Precision* out) {
  flags->Custom(name, "PRECISION", help, "", [out](const std::string& v) {
    absl::StatusOr<v1::Precision> p = ParsePrecision(v);
    if (!p.ok()) return p.status();
    *out = *p;
    return absl::OkStatus();
  });
}

void IsoTimeFlag(FlagSet* flags, const std::string& name, const std::string& help,
                 std::function<void(int64_t)> set_unix_seconds) {
  flags->Custom(name, "DATE[THH:MM:SSZ]", help, "now",
                [set_unix_seconds = std::move(set_unix_seconds)](const std::string& v) {
                  absl::StatusOr<int64_t> t = ParseIsoTime(v);
                  if (!t.ok()) return t.status();
                  set_unix_seconds(*t);
                  return absl::OkStatus();
                });
}

void IsoDateFlag(FlagSet* flags, const std::string& name, const std::string& help, std::string* out) {
  flags->Custom(name, "YYYY-MM-DD", help, "", [out](const std::string& v) {
    absl::Status s = CheckIsoDate(v);
    if (s.ok()) *out = v;
    return s;
  });
}

void ViewFlag(FlagSet* flags, std::function<void(v1::View)> set) {
  flags->Custom("view", "basic|full", "basic: options only; full: also formulas and candidates not chosen", "full",
                [set = std::move(set)](const std::string& v) {
                  absl::StatusOr<v1::View> view = ParseView(v);
                  if (!view.ok()) return view.status();
                  set(*view);
                  return absl::OkStatus();
                });
}

// A whole-number flag in [min, max] that hands the value to `set`.
void IntField(FlagSet* flags, const std::string& name, const std::string& help, const std::string& default_text,
              int64_t min, int64_t max, std::function<void(int64_t)> set) {
  flags->Custom(name, "N", help, default_text, [min, max, set = std::move(set)](const std::string& v) {
    int64_t n = 0;
    if (!absl::SimpleAtoi(v, &n) || n < min || n > max) {
      return absl::InvalidArgumentError(absl::StrCat("want a whole number in [", min, ", ", max, "]"));
    }
    set(n);
    return absl::OkStatus();
  });
}

// A number flag in (low, high] (or [low, high] with `low_inclusive`).
void NumberField(FlagSet* flags, const std::string& name, const std::string& value_name, const std::string& help,
                 const std::string& default_text, double low, bool low_inclusive, double high,
                 std::function<void(double)> set) {
  flags->Custom(name, value_name, help, default_text,
                [low, low_inclusive, high, set = std::move(set)](const std::string& v) {
                  double d = 0;
                  const bool ok = absl::SimpleAtod(v, &d) && (low_inclusive ? d >= low : d > low) && d <= high;
                  if (!ok) {
                    return absl::InvalidArgumentError(
                        absl::StrCat("want a number in ", low_inclusive ? "[" : "(", low, ", ", high, "]"));
                  }
                  set(d);
                  return absl::OkStatus();
                });
}

}  // namespace capplan::cli
