#include "server/http/request_policy.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace capplan::server::http {

namespace {

// Lower-cases the scheme and host of "scheme://host[:port]" (ports are digits already).
std::string Canonical(absl::string_view origin) { return absl::AsciiStrToLower(origin); }

absl::Status CheckOrigin(absl::string_view origin) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("http_cors_origins: \"", origin, "\": ", why,
                                                   "; want scheme://host[:port], e.g. https://planner.example"));
  };
  if (origin == "*") return bad("a wildcard is not allowed");
  absl::string_view rest = origin;
  if (!absl::ConsumePrefix(&rest, "https://") && !absl::ConsumePrefix(&rest, "http://")) {
    return bad("scheme must be http or https");
  }
  if (rest.empty()) return bad("no host");
  absl::string_view host = rest;
  if (const size_t colon = rest.rfind(':'); colon != absl::string_view::npos && rest.back() != ']') {
    host = rest.substr(0, colon);
    int port = 0;
    if (!absl::SimpleAtoi(rest.substr(colon + 1), &port) || port < 1 || port > 65535) return bad("bad port");
  }
  if (host.empty()) return bad("no host");
  const bool literal = host.size() > 2 && host.front() == '[' && host.back() == ']';
  if (literal) host = host.substr(1, host.size() - 2);
  for (const char c : host) {
    const bool ok = absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || (literal && c == ':');
    if (!ok) return bad("a host has only letters, digits, '-' and '.' (or is an [IPv6] literal), and no path");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ParseCorsOrigins(absl::string_view list) {
  std::vector<std::string> origins;
  for (absl::string_view part : absl::StrSplit(list, ',', absl::SkipWhitespace())) {
    const absl::string_view origin = absl::StripAsciiWhitespace(part);
    if (absl::Status s = CheckOrigin(origin); !s.ok()) return s;
    origins.push_back(Canonical(origin));
  }
  return origins;
}

bool CorsOriginAllowed(const std::vector<std::string>& allowed, absl::string_view origin) {
  if (origin.empty() || allowed.empty()) return false;
  const std::string canonical = Canonical(origin);
  for (const std::string& a : allowed) {
    if (a == canonical) return true;
  }
  return false;
}

bool IsJsonContentType(absl::string_view content_type) {
  std::vector<absl::string_view> parts = absl::StrSplit(content_type, ';');
  if (!absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(parts[0]), "application/json")) return false;
  for (size_t i = 1; i < parts.size(); ++i) {
    const absl::string_view param = absl::StripAsciiWhitespace(parts[i]);
    if (param.empty()) continue;
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(param, absl::MaxSplits('=', 1));
    absl::string_view value = absl::StripAsciiWhitespace(kv.second);
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    if (!absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(kv.first), "charset") ||
        !(absl::EqualsIgnoreCase(value, "utf-8") || absl::EqualsIgnoreCase(value, "utf8"))) {
      return false;
    }
  }
  return true;
}

}  // namespace capplan::server::http
