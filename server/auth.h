// Admin bearer tokens: loaded from a file (never a flag value), compared in constant time,
// each mapped to a caller name and a role.
#pragma once

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

class TokenTable {
 public:
  // One token per line: "<token> <caller-name> <role>", role "admin" or "read"; blank lines
  // and lines starting with '#' are skipped. Tokens must be at least 16 characters.
  static absl::StatusOr<TokenTable> Parse(absl::string_view content);
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
