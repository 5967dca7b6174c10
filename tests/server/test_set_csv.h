// Reads docs/validation/test-set.csv (RFC 4180: quoted fields may hold commas, doubled quotes
// and newlines) into rows keyed by the header's column names, and the small field parsers the
// frozen test-set harness needs.
#pragma once

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace capplan::server::testing {

using CsvRow = std::map<std::string, std::string>;

inline std::vector<std::vector<std::string>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> records(1);
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      records.back().push_back(field);
      field.clear();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      records.back().push_back(field);
      field.clear();
      records.emplace_back();
    } else {
      field += c;
    }
  }
  if (!field.empty() || !records.back().empty()) records.back().push_back(field);
  if (records.back().empty()) records.pop_back();
  return records;
}

// Rows keyed by column name; empty when the file cannot be read.
inline std::vector<CsvRow> ReadCsvRows(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::stringstream buf;
  buf << in.rdbuf();
  const std::vector<std::vector<std::string>> records = ParseCsv(buf.str());
  std::vector<CsvRow> rows;
  for (size_t r = 1; r < records.size(); ++r) {
    CsvRow row;
    for (size_t c = 0; c < records[0].size() && c < records[r].size(); ++c) row[records[0][c]] = records[r][c];
    rows.push_back(row);
  }
  return rows;
}

// A field that is a plain non-negative integer ("8192", "1,024" is not one); -1 otherwise,
// 0 when empty.
inline long long PlainInt(const std::string& s) {
  if (s.empty()) return 0;
  for (char c : s) {
    if (c < '0' || c > '9') return -1;
  }
  return std::atoll(s.c_str());
}

// The first integer after `key` in `s` ("max_num_seqs 3200" -> 3200); 0 when absent.
inline long long IntAfter(const std::string& s, const std::string& key) {
  const size_t at = s.find(key);
  if (at == std::string::npos) return 0;
  return std::atoll(s.c_str() + at + key.size());
}

inline bool StartsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }
inline bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace capplan::server::testing
