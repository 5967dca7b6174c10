// Admin bearer tokens: loaded from a file (never a flag value), compared in constant time,
// each mapped to a caller name and a role. No error message ever quotes a field of the file:
// any of them might be a token pasted in the wrong column.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace capplan::server {

enum class Role { kRead, kAdmin };

struct Caller {
  std::string name;
  Role role = Role::kRead;
};

// Bounds on a token file, checked before anything is stored.
inline constexpr size_t kMaxTokenFileBytes = size_t{1} << 20;
inline constexpr int kMaxTokenFileLines = 10000;
inline constexpr size_t kMinTokenLength = 16;
inline constexpr size_t kMaxTokenLength = 256;
inline constexpr size_t kMaxCallerNameLength = 64;

struct TokenFileOptions {
  // Accept a file whose group may read it (mode 0440/0640), as a Kubernetes secret mounted
  // with an fsGroup is. Off by default: like ssh with a private key, a token file anyone but
  // its owner can read is refused. Writable by group/others, or readable by others, is always
  // refused.
  bool allow_group_read = false;
};

class TokenTable {
 public:
  // One token per line: "<token> <caller-name> <role>", role "admin" or "read"; blank lines
  // and lines starting with '#' are skipped. Tokens are 16-256 visible ASCII characters and
  // unique; caller names 1-64 of [A-Za-z0-9._@-]. Errors name line and field, never content.
  static absl::StatusOr<TokenTable> Parse(absl::string_view content);

  // Refuses a file that is not a regular file, larger than kMaxTokenFileBytes, or whose mode
  // lets others than its owner read or write it (see TokenFileOptions).
  static absl::StatusOr<TokenTable> LoadFile(const std::string& path, const TokenFileOptions& options);
  // As above, with allow_group_read taken from CAPPLAN_ADMIN_TOKEN_FILE_ALLOW_GROUP_READ=1:
  // the server's start-up (server.cc) calls this form.
  static absl::StatusOr<TokenTable> LoadFile(const std::string& path);

  // `authorization` is the metadata value, "Bearer <token>". Unauthenticated when missing or
  // unknown. Every stored token is compared, without early exit.
  absl::StatusOr<Caller> Authenticate(absl::string_view authorization) const;

  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::string token;
    Caller caller;
  };
  std::vector<Entry> entries_;
};

}  // namespace capplan::server
