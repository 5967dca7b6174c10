// libFuzzer target for the price-import CSV reader (server/store/csv.h). Besides not
// crashing, for any input it accepts: writing its rows back out with every field quoted
// (RFC 4180: CRLF rows, doubled quotes) and reading that gives the same rows.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "server/store/csv.h"

namespace {

using Rows = std::vector<std::vector<std::string>>;

std::string Quote(const std::string& field) {
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// Rows with no field have no CSV spelling distinct from a blank line, so they are left out
// on both sides of the comparison.
std::string Write(const Rows& rows) {
  std::string out;
  for (const std::vector<std::string>& row : rows) {
    if (row.empty()) continue;
    for (size_t i = 0; i < row.size(); ++i) {
      if (i > 0) out += ',';
      out += Quote(row[i]);
    }
    out += "\r\n";
  }
  return out;
}

Rows NonEmpty(const Rows& rows) {
  Rows out;
  for (const std::vector<std::string>& row : rows) {
    if (!row.empty()) out.push_back(row);
  }
  return out;
}

void Fail(const char* what, const std::string& written) {
  std::fprintf(stderr, "csv_fuzz: %s; re-serialised text (%zu bytes) was:\n%s\n", what, written.size(),
               written.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<Rows> rows = capplan::store::ParseCsv(text);
  if (!rows.ok()) {
    if (rows.status().code() != absl::StatusCode::kInvalidArgument) {
      Fail("a rejection that is not InvalidArgument", "");
    }
    return 0;
  }
  const std::string written = Write(*rows);
  absl::StatusOr<Rows> again = capplan::store::ParseCsv(written);
  if (!again.ok()) Fail("rows it produced, quoted, do not parse", written);
  if (NonEmpty(*again) != NonEmpty(*rows)) Fail("rows changed across a write and read", written);
  return 0;
}
