// Page tokens: web-safe base64 of "p1" and the key parts, unit-separated.
#include "server/rpc/paging.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace capplan::server {

namespace {
constexpr char kTokenVersion[] = "p1";
constexpr size_t kMaxTokenBytes = 2048;
}  // namespace

absl::StatusOr<int> PageSize(int requested) {
  if (requested < 0 || requested > kMaxPageSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_size: must be in [0, ", kMaxPageSize, "] (0: ", kDefaultPageSize, "), got ", requested));
  }
  return requested == 0 ? kDefaultPageSize : requested;
}

std::string PageToken(const std::vector<std::string>& last_key) {
  std::vector<std::string> parts = {kTokenVersion};
  parts.insert(parts.end(), last_key.begin(), last_key.end());
  return absl::WebSafeBase64Escape(absl::StrJoin(parts, "\x1f"));
}

absl::StatusOr<std::vector<std::string>> ParsePageToken(const std::string& token, size_t parts) {
  if (token.empty()) return std::vector<std::string>();
  const absl::Status bad = absl::InvalidArgumentError(
      "page_token: not a next_page_token this server issued for this list; start again without one");
  std::string raw;
  if (token.size() > kMaxTokenBytes || !absl::WebSafeBase64Unescape(token, &raw)) return bad;
  std::vector<std::string> fields = absl::StrSplit(raw, '\x1f');
  if (fields.size() != parts + 1 || fields[0] != kTokenVersion) return bad;
  fields.erase(fields.begin());
  return fields;
}

}  // namespace capplan::server
