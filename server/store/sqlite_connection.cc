// The SQLite backend of sql.h: SQLiteCpp calls, with SQLite's result codes mapped to absl
// codes in one place.
#include "server/store/sqlite_connection.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include <cerrno>
#include <utility>

#include "absl/strings/str_cat.h"

namespace capplan::store {

namespace {

// busy/locked -> Unavailable, corrupt/not-a-db -> DataLoss, constraint -> InvalidArgument
// (unique/primary key -> AlreadyExists, foreign key -> FailedPrecondition), cannot open or
// read-only -> FailedPrecondition, full (disk or max_page_count, or an I/O error that is
// ENOSPC) -> ResourceExhausted, anything else -> Internal.
absl::Status SqliteStatus(const SQLite::Exception& e, sqlite3* handle) {
  const std::string msg = e.what();
  switch (e.getErrorCode() & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return absl::UnavailableError(msg);
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return absl::DataLossError(msg);
    case SQLITE_CONSTRAINT:
      if (e.getExtendedErrorCode() == SQLITE_CONSTRAINT_PRIMARYKEY ||
          e.getExtendedErrorCode() == SQLITE_CONSTRAINT_UNIQUE) {
        return absl::AlreadyExistsError(msg);
      }
      if (e.getExtendedErrorCode() == SQLITE_CONSTRAINT_FOREIGNKEY) {
        return absl::FailedPreconditionError(msg);
      }
      return absl::InvalidArgumentError(msg);
    case SQLITE_FULL:
      return absl::ResourceExhaustedError(
          absl::StrCat(msg, " (the database or its disk is full; the write was rolled back, nothing changed)"));
    case SQLITE_IOERR:
      if (handle != nullptr && sqlite3_system_errno(handle) == ENOSPC) {
        return absl::ResourceExhaustedError(
            absl::StrCat(msg, " (no space left on the device; the write was rolled back)"));
      }
      return absl::InternalError(msg);
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return absl::FailedPreconditionError(msg);
    default:
      return absl::InternalError(msg);
  }
}

class SqliteStatement final : public sql::StatementImpl {
 public:
  SqliteStatement(SQLite::Database& db, const std::string& sql) try : db_(db), q_(db, sql) {
  } catch (const SQLite::Exception& e) {
    throw sql::Error(SqliteStatus(e, db.getHandle()));
  }
  void BindNull(int index) override {
    Guard([&] { q_.bind(index); });
  }
  void BindInt64(int index, int64_t value) override {
    Guard([&] { q_.bind(index, static_cast<int64_t>(value)); });
  }
  void BindDouble(int index, double value) override {
    Guard([&] { q_.bind(index, value); });
  }
  void BindText(int index, const std::string& value) override {
    Guard([&] { q_.bind(index, value); });
  }
  bool Step() override {
    bool row = false;
    Guard([&] { row = q_.executeStep(); });
    return row;
  }
  int64_t Exec() override {
    int64_t changed = 0;
    Guard([&] { changed = q_.exec(); });
    return changed;
  }
  void Reset() override {
    Guard([&] { q_.reset(); });
  }
  bool IsNull(int column) override {
    bool null = false;
    Guard([&] { null = q_.getColumn(column).isNull(); });
    return null;
  }
  int64_t Int64(int column) override {
    int64_t v = 0;
    Guard([&] { v = q_.getColumn(column).getInt64(); });
    return v;
  }
  double Double(int column) override {
    double v = 0;
    Guard([&] { v = q_.getColumn(column).getDouble(); });
    return v;
  }
  std::string Text(int column) override {
    std::string v;
    Guard([&] { v = q_.getColumn(column).getString(); });
    return v;
  }

 private:
  template <typename F>
  void Guard(F&& f) {
    try {
      f();
    } catch (const SQLite::Exception& e) {
      throw sql::Error(SqliteStatus(e, db_.getHandle()));
    }
  }

  SQLite::Database& db_;
  SQLite::Statement q_;
};

class SqliteConnection final : public sql::Connection {
 public:
  SqliteConnection(const std::string& path, int flags) : db_(path, flags) {}
  sql::Dialect dialect() const override { return sql::Dialect::kSqlite; }
  void Exec(const std::string& sql) override { Run(sql); }
  std::unique_ptr<sql::StatementImpl> Prepare(const std::string& sql) override {
    return std::make_unique<SqliteStatement>(db_, sql);
  }
  void Begin(sql::TxKind kind) override { Run(kind == sql::TxKind::kWrite ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED"); }
  void Commit() override { Run("COMMIT"); }
  void Rollback() noexcept override {
    try {
      db_.exec("ROLLBACK");
    } catch (const SQLite::Exception&) {
      // Nothing to roll back (SQLite ended the transaction itself after the error).
    }
  }
  SQLite::Database& db() { return db_; }

 private:
  void Run(const std::string& sql) {
    try {
      db_.exec(sql);
    } catch (const SQLite::Exception& e) {
      throw sql::Error(SqliteStatus(e, db_.getHandle()));
    }
  }

  SQLite::Database db_;
};

}  // namespace

std::unique_ptr<sql::Connection> OpenSqliteConnection(const std::string& path, bool create, int busy_timeout_ms) {
  const int flags = SQLite::OPEN_READWRITE | (create ? SQLite::OPEN_CREATE : 0) | SQLITE_OPEN_FULLMUTEX;
  try {
    auto conn = std::make_unique<SqliteConnection>(path, flags);
    conn->db().setBusyTimeout(busy_timeout_ms);
    return conn;
  } catch (const SQLite::Exception& e) {
    throw sql::Error(SqliteStatus(e, nullptr));
  }
}

}  // namespace capplan::store
