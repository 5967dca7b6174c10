// Page sizes and opaque page tokens for the list RPCs. A token names the last item returned
// (not a position), so a page boundary stays put when other rows are added or removed.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace capplan::server {

inline constexpr int kDefaultPageSize = 500;
inline constexpr int kMaxPageSize = 1000;

// The page size a request asks for: 0 -> kDefaultPageSize; outside [0, kMaxPageSize]
// InvalidArgument naming page_size and the range.
absl::StatusOr<int> PageSize(int requested);

// Encodes the key parts of the last item of a page.
std::string PageToken(const std::vector<std::string>& last_key);
// Decodes a token into `parts` key parts; "" -> an empty vector (the first page).
// InvalidArgument naming page_token for anything this server did not issue.
absl::StatusOr<std::vector<std::string>> ParsePageToken(const std::string& token, size_t parts);

}  // namespace capplan::server
