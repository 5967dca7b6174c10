#include "server/rpc/auth.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
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

bool IsTokenChar(char c) { return c > ' ' && c <= '~'; }  // visible ASCII

bool IsCallerChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '@' || c == '-';
}

// "admin token file line 3, field 2 (caller): <what>". Never the field's content.
absl::Status LineError(int line_no, int field, absl::string_view field_name, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("admin token file line ", line_no, ", field ", field, " (", field_name, "): ", what));
}

absl::Status CheckToken(int line_no, absl::string_view token) {
  if (token.size() < kMinTokenLength || token.size() > kMaxTokenLength) {
    return LineError(line_no, 1, "token",
                     absl::StrCat("want ", kMinTokenLength, "-", kMaxTokenLength, " characters, got ", token.size()));
  }
  if (!std::all_of(token.begin(), token.end(), IsTokenChar)) {
    return LineError(line_no, 1, "token", "want visible ASCII characters only");
  }
  return absl::OkStatus();
}

absl::Status CheckCaller(int line_no, absl::string_view name) {
  if (name.size() > kMaxCallerNameLength || !std::all_of(name.begin(), name.end(), IsCallerChar)) {
    return LineError(line_no, 2, "caller", absl::StrCat("want 1-", kMaxCallerNameLength, " of [A-Za-z0-9._@-]"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TokenTable> TokenTable::Parse(absl::string_view content) {
  if (content.size() > kMaxTokenFileBytes) {
    return absl::InvalidArgumentError(absl::StrCat("admin token file: larger than ", kMaxTokenFileBytes, " bytes"));
  }
  if (std::count(content.begin(), content.end(), '\n') > kMaxTokenFileLines) {
    return absl::InvalidArgumentError(absl::StrCat("admin token file: more than ", kMaxTokenFileLines, " lines"));
  }
  TokenTable table;
  absl::flat_hash_map<absl::string_view, int> line_of_token;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(content, '\n')) {
    ++line_no;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    std::vector<absl::string_view> parts = absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    if (parts.size() != 3) {
      return absl::InvalidArgumentError(absl::StrCat(
          "admin token file line ", line_no, ": want \"<token> <caller> <role>\", got ", parts.size(), " fields"));
    }
    if (absl::Status s = CheckToken(line_no, parts[0]); !s.ok()) return s;
    if (absl::Status s = CheckCaller(line_no, parts[1]); !s.ok()) return s;
    Entry e;
    if (parts[2] == "admin") {
      e.caller.role = Role::kAdmin;
    } else if (parts[2] == "read") {
      e.caller.role = Role::kRead;
    } else {
      return LineError(line_no, 3, "role", "want admin or read");
    }
    auto [it, inserted] = line_of_token.emplace(parts[0], line_no);
    if (!inserted) {
      return LineError(line_no, 1, "token", absl::StrCat("same token as line ", it->second));
    }
    e.token = std::string(parts[0]);
    e.caller.name = std::string(parts[1]);
    table.entries_.push_back(std::move(e));
  }
  return table;
}

absl::StatusOr<TokenTable> TokenTable::LoadFile(const std::string& path) {
  const char* env = std::getenv("CAPPLAN_ADMIN_TOKEN_FILE_ALLOW_GROUP_READ");
  TokenFileOptions options;
  options.allow_group_read = env != nullptr && std::strcmp(env, "1") == 0;
  return LoadFile(path, options);
}

absl::StatusOr<TokenTable> TokenTable::LoadFile(const std::string& path, const TokenFileOptions& options) {
  // Mode and size come from the opened descriptor, so they describe the bytes read.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("admin token file ", path, ": cannot read: ", std::strerror(errno)));
  }
  struct stat st;
  std::string content;
  absl::Status status;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    status = absl::FailedPreconditionError(absl::StrCat("admin token file ", path, ": not a regular file"));
  } else if (const mode_t shared = st.st_mode & (options.allow_group_read ? 0026 : 0066); shared != 0) {
    status = absl::FailedPreconditionError(absl::StrFormat(
        "admin token file %s: mode %04o lets %s; run chmod 600 %s%s", path, st.st_mode & 07777,
        options.allow_group_read ? "others read it or group/others write it" : "group or others read or write it", path,
        options.allow_group_read ? ""
                                 : " (or, where the platform sets group read, e.g. a "
                                   "Kubernetes secret with fsGroup, set "
                                   "CAPPLAN_ADMIN_TOKEN_FILE_ALLOW_GROUP_READ=1)"));
  } else if (static_cast<uint64_t>(st.st_size) > kMaxTokenFileBytes) {
    status = absl::FailedPreconditionError(
        absl::StrCat("admin token file ", path, ": ", st.st_size, " bytes, more than ", kMaxTokenFileBytes));
  } else {
    // Read at most one byte past the limit, in case the file grew since fstat.
    content.resize(kMaxTokenFileBytes + 1);
    size_t got = 0;
    while (got < content.size()) {
      const ssize_t n = read(fd, content.data() + got, content.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    content.resize(got);
  }
  close(fd);
  if (!status.ok()) return status;
  absl::StatusOr<TokenTable> t = Parse(content);
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
  // No stored token is longer, and the comparison below costs entries x presented length.
  if (token.size() > kMaxTokenLength) {
    return absl::UnauthenticatedError("authorization: unknown token");
  }
  const Entry* match = nullptr;
  for (const Entry& e : entries_) {
    if (ConstantTimeEquals(e.token, token) && match == nullptr) match = &e;
  }
  if (match == nullptr) return absl::UnauthenticatedError("authorization: unknown token");
  return match->caller;
}

}  // namespace capplan::server
