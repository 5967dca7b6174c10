#include "server/auth.h"

#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace capplan::server {

namespace {

// Constant-time in the length of `presented`; the stored token's length is not secret-free,
// but its content is never compared with an early exit.
bool ConstantTimeEquals(absl::string_view stored, absl::string_view presented) {
  unsigned char diff = stored.size() == presented.size() ? 0 : 1;
  for (size_t i = 0; i < presented.size(); ++i) {
    const unsigned char s = stored.empty() ? 0 : stored[i % stored.size()];
    diff |= static_cast<unsigned char>(s ^ static_cast<unsigned char>(presented[i]));
  }
  return diff == 0;
}

}  // namespace

absl::StatusOr<TokenTable> TokenTable::Parse(absl::string_view content) {
  TokenTable table;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(content, '\n')) {
    ++line_no;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    std::vector<absl::string_view> parts = absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (parts.size() != 3) {
      return absl::InvalidArgumentError(absl::StrCat(
          "admin token file line ", line_no, ": want \"<token> <caller> <role>\", got ",
          parts.size(), " fields"));
    }
    if (parts[0].size() < 16) {
      return absl::InvalidArgumentError(
          absl::StrCat("admin token file line ", line_no, ": token shorter than 16 characters"));
    }
    Entry e;
    e.token = std::string(parts[0]);
    e.caller.name = std::string(parts[1]);
    if (parts[2] == "admin") {
      e.caller.role = Role::kAdmin;
    } else if (parts[2] == "read") {
      e.caller.role = Role::kRead;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "admin token file line ", line_no, ": role must be admin or read, got ", parts[2]));
    }
    table.entries_.push_back(std::move(e));
  }
  return table;
}

absl::StatusOr<TokenTable> TokenTable::LoadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return absl::FailedPreconditionError(absl::StrCat("admin token file ", path, ": cannot read"));
  }
  std::stringstream buf;
  buf << in.rdbuf();
  absl::StatusOr<TokenTable> t = Parse(buf.str());
  if (!t.ok()) {
    return absl::Status(t.status().code(), absl::StrCat(path, ": ", t.status().message()));
  }
  return t;
}

absl::StatusOr<Caller> TokenTable::Authenticate(absl::string_view authorization) const {
  absl::string_view token = authorization;
  if (!absl::ConsumePrefix(&token, "Bearer ") && !absl::ConsumePrefix(&token, "bearer ")) {
    return absl::UnauthenticatedError("authorization: want \"Bearer <token>\" metadata");
  }
  const Entry* match = nullptr;
  for (const Entry& e : entries_) {
    if (ConstantTimeEquals(e.token, token) && match == nullptr) match = &e;
  }
  if (match == nullptr) return absl::UnauthenticatedError("authorization: unknown token");
  return match->caller;
}

}  // namespace capplan::server
