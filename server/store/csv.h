// A strict RFC 4180 CSV reader for price imports: quoted fields, doubled quotes, CRLF or LF
// line ends, an optional UTF-8 byte-order mark; bounded rows, columns and field lengths.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace capplan::store {

struct CsvOptions {
  size_t max_rows = 200000;  // including the header
  size_t max_columns = 64;
  size_t max_field_bytes = 256;
};

// Rows of fields; blank lines are skipped. InvalidArgument naming the row and line for a
// quote inside an unquoted field, text after a closing quote, a bare carriage return, a
// quoted field that never closes, or a bound exceeded.
absl::StatusOr<std::vector<std::vector<std::string>>> ParseCsv(const std::string& text, const CsvOptions& options);
// The same with the default bounds.
absl::StatusOr<std::vector<std::vector<std::string>>> ParseCsv(const std::string& text);

}  // namespace capplan::store
