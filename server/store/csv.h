// A small RFC 4180 CSV reader (quoted fields, doubled quotes, CRLF) for price imports.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace capplan::store {

// Rows of fields. InvalidArgument naming the line when a quoted field never closes.
absl::StatusOr<std::vector<std::vector<std::string>>> ParseCsv(const std::string& text);

}  // namespace capplan::store
