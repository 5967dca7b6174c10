// A PostgreSQL statement behind sql::Statement: parameters bound as text (64-bit integers
// and doubles typed, so the server never guesses a narrower type), run with PQexecParams on
// the first step, rows read from the result.
#include <libpq-fe.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/store/pg_connection.h"
#include "server/store/pg_dsn.h"

namespace capplan::store {

namespace {

constexpr unsigned kInt8Oid = 20;
constexpr unsigned kFloat8Oid = 701;

class PgStatement final : public sql::StatementImpl {
 public:
  PgStatement(PgConnection& conn, const std::string& sql) : conn_(conn), sql_(PgPlaceholders(sql)) {}
  ~PgStatement() override { Clear(); }
  PgStatement(const PgStatement&) = delete;
  PgStatement& operator=(const PgStatement&) = delete;

  void BindNull(int index) override { Set(index, 0, std::nullopt); }
  void BindInt64(int index, int64_t value) override { Set(index, kInt8Oid, absl::StrCat(value)); }
  void BindDouble(int index, double value) override {
    char buf[64];
    // Shortest text that reads back as the same double.
    const std::to_chars_result r = std::to_chars(buf, buf + sizeof(buf), value);
    Set(index, kFloat8Oid, std::string(buf, r.ptr));
  }
  void BindText(int index, const std::string& value) override { Set(index, 0, value); }

  bool Step() override {
    if (result_ == nullptr) {
      Run();
      row_ = -1;
    }
    ++row_;
    return row_ < PQntuples(result_);
  }
  int64_t Exec() override {
    Clear();
    Run();
    const char* n = PQcmdTuples(result_);
    const int64_t changed = (n == nullptr || *n == '\0') ? 0 : std::strtoll(n, nullptr, 10);
    Clear();
    return changed;
  }
  void Reset() override { Clear(); }

  bool IsNull(int column) override { return PQgetisnull(Current(column), row_, column) == 1; }
  int64_t Int64(int column) override {
    const std::string v = Text(column);
    int64_t out = 0;
    const std::from_chars_result r = std::from_chars(v.data(), v.data() + v.size(), out);
    if (r.ec == std::errc() && r.ptr == v.data() + v.size()) return out;
    return static_cast<int64_t>(std::llround(std::strtod(v.c_str(), nullptr)));  // numeric
  }
  double Double(int column) override {
    const std::string v = Text(column);
    return v.empty() ? 0.0 : std::strtod(v.c_str(), nullptr);  // also reads Infinity and NaN
  }
  std::string Text(int column) override {
    PGresult* r = Current(column);
    if (PQgetisnull(r, row_, column) == 1) return std::string();
    return std::string(PQgetvalue(r, row_, column), static_cast<size_t>(PQgetlength(r, row_, column)));
  }

 private:
  void Set(int index, unsigned type, std::optional<std::string> value) {
    if (index < 1 || index > 65535) {
      throw sql::Error(absl::InternalError(absl::StrCat("parameter index out of range: ", index)));
    }
    const size_t i = static_cast<size_t>(index - 1);
    if (values_.size() <= i) {
      values_.resize(i + 1);
      types_.resize(i + 1, 0);
    }
    values_[i] = std::move(value);
    types_[i] = type;
  }
  void Run() {
    std::vector<const char*> values;
    values.reserve(values_.size());
    for (const std::optional<std::string>& v : values_) values.push_back(v.has_value() ? v->c_str() : nullptr);
    result_ = conn_.Run(sql_, types_, values);
  }
  PGresult* Current(int column) {
    if (result_ == nullptr || row_ < 0 || row_ >= PQntuples(result_) || column < 0 || column >= PQnfields(result_)) {
      throw sql::Error(absl::InternalError(absl::StrCat("no column ", column, " in the current row of: ", sql_)));
    }
    return result_;
  }
  void Clear() {
    if (result_ != nullptr) PQclear(result_);
    result_ = nullptr;
    row_ = -1;
  }

  PgConnection& conn_;
  const std::string sql_;
  std::vector<std::optional<std::string>> values_;
  std::vector<unsigned> types_;
  PGresult* result_ = nullptr;
  int row_ = -1;
};

}  // namespace

std::unique_ptr<sql::StatementImpl> NewPgStatement(PgConnection& conn, const std::string& sql) {
  return std::make_unique<PgStatement>(conn, sql);
}

}  // namespace capplan::store
