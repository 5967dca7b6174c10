#include "server/store/csv.h"

#include "absl/strings/str_cat.h"

namespace capplan::store {

absl::StatusOr<std::vector<std::vector<std::string>>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  bool row_has_content = false;
  int line = 1;
  int quote_line = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    switch (c) {
      case '"':
        quoted = true;
        quote_line = line;
        row_has_content = true;
        break;
      case ',':
        row.push_back(std::move(field));
        field.clear();
        row_has_content = true;
        break;
      case '\r':
        break;
      case '\n':
        ++line;
        if (row_has_content || !field.empty()) {
          row.push_back(std::move(field));
          rows.push_back(std::move(row));
        }
        row.clear();
        field.clear();
        row_has_content = false;
        break;
      default:
        field += c;
        row_has_content = true;
    }
  }
  if (quoted) {
    return absl::InvalidArgumentError(
        absl::StrCat("csv: quoted field opened on line ", quote_line, " never closes"));
  }
  if (row_has_content || !field.empty()) {
    row.push_back(std::move(field));
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace capplan::store
