// The strict CSV reader: a four-state machine over bytes, every fault named by row and line.
#include "server/store/csv.h"

#include "absl/strings/str_cat.h"

namespace capplan::store {

namespace {

constexpr char kUtf8Bom[] = "\xEF\xBB\xBF";

class CsvReader {
 public:
  CsvReader(const std::string& text, const CsvOptions& options) : text_(text), options_(options) {}

  absl::StatusOr<std::vector<std::vector<std::string>>> Read() {
    size_t i = text_.compare(0, 3, kUtf8Bom) == 0 ? 3 : 0;
    for (; i < text_.size(); ++i) {
      const char c = text_[i];
      absl::Status s;
      switch (state_) {
        case State::kFieldStart:
          if (c == '"') {
            state_ = State::kQuoted;
            quote_line_ = line_;
            row_started_ = true;
            break;
          }
          state_ = State::kUnquoted;
          s = Unquoted(c, i);
          break;
        case State::kUnquoted:
          s = Unquoted(c, i);
          break;
        case State::kQuoted:
          if (c == '"' && i + 1 < text_.size() && text_[i + 1] == '"') {
            s = Append('"');
            ++i;
          } else if (c == '"') {
            state_ = State::kAfterQuote;
          } else {
            if (c == '\n') ++line_;
            s = Append(c);
          }
          break;
        case State::kAfterQuote:
          if (c != ',' && c != '\n' && c != '\r') {
            return Error("text after the closing quote of a quoted field");
          }
          s = Unquoted(c, i);
          break;
      }
      if (!s.ok()) return s;
    }
    if (state_ == State::kQuoted) {
      return absl::InvalidArgumentError(
          absl::StrCat("csv: row ", rows_.size() + 1, ": quoted field opened on line ", quote_line_, " never closes"));
    }
    absl::Status s = EndRow();
    if (!s.ok()) return s;
    return std::move(rows_);
  }

 private:
  enum class State { kFieldStart, kUnquoted, kQuoted, kAfterQuote };

  // A byte outside quotes (or right after a closing quote).
  absl::Status Unquoted(char c, size_t& i) {
    switch (c) {
      case '"':
        return Error("quote inside an unquoted field (quote the whole field and double the quote)");
      case ',':
        row_started_ = true;
        return EndField();
      case '\r':
        if (i + 1 >= text_.size() || text_[i + 1] != '\n') return Error("carriage return not followed by a line feed");
        ++i;
        [[fallthrough]];
      case '\n': {
        absl::Status s = EndRow();
        ++line_;
        return s;
      }
      default:
        row_started_ = true;
        return Append(c);
    }
  }

  absl::Status Append(char c) {
    if (field_.size() >= options_.max_field_bytes) {
      return Error(absl::StrCat("column ", row_.size() + 1, " is longer than ", options_.max_field_bytes, " bytes"));
    }
    field_ += c;
    return absl::OkStatus();
  }

  absl::Status EndField() {
    if (row_.size() >= options_.max_columns) {
      return Error(absl::StrCat("more than ", options_.max_columns, " columns"));
    }
    row_.push_back(std::move(field_));
    field_.clear();
    state_ = State::kFieldStart;
    return absl::OkStatus();
  }

  absl::Status EndRow() {
    if (row_started_ || !field_.empty()) {
      absl::Status s = EndField();
      if (!s.ok()) return s;
      if (rows_.size() >= options_.max_rows) {
        return absl::InvalidArgumentError(
            absl::StrCat("csv: more than ", options_.max_rows, " rows (line ", line_, ")"));
      }
      rows_.push_back(std::move(row_));
    }
    row_.clear();
    field_.clear();
    row_started_ = false;
    state_ = State::kFieldStart;
    return absl::OkStatus();
  }

  absl::Status Error(const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat("csv: row ", rows_.size() + 1, " (line ", line_, "): ", what));
  }

  const std::string& text_;
  const CsvOptions& options_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<std::string> row_;
  std::string field_;
  State state_ = State::kFieldStart;
  bool row_started_ = false;
  int line_ = 1;
  int quote_line_ = 0;
};

}  // namespace

absl::StatusOr<std::vector<std::vector<std::string>>> ParseCsv(const std::string& text, const CsvOptions& options) {
  return CsvReader(text, options).Read();
}

absl::StatusOr<std::vector<std::vector<std::string>>> ParseCsv(const std::string& text) {
  return ParseCsv(text, CsvOptions());
}

}  // namespace capplan::store
