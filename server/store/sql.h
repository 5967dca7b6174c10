// Private to capplan_store: the one SQL interface the store is written against, with a SQLite
// backend (sqlite_connection.cc) and a PostgreSQL one (pg_connection.cc). Its shape mirrors
// SQLiteCpp (Statement with bind/executeStep/getColumn, RAII Transaction) so that the store
// code reads the same on both. Failures throw sql::Error, which carries the absl code the
// backend mapped; the store catches it at its public boundary, as it caught SQLite's.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "absl/status/status.h"

namespace capplan::store::sql {

enum class Dialect { kSqlite, kPostgres };

// A statement or connection failure, mapped to a canonical code: connection lost, busy or a
// serialisation failure -> Unavailable; unique key -> AlreadyExists; foreign key ->
// FailedPrecondition; check or not-null -> InvalidArgument; corrupt -> DataLoss; full ->
// ResourceExhausted; anything else -> Internal.
class Error : public std::runtime_error {
 public:
  explicit Error(absl::Status status) : std::runtime_error(std::string(status.message())), status_(std::move(status)) {}
  const absl::Status& status() const { return status_; }
  // The same code, the message led by `context: `.
  absl::Status WithContext(const std::string& context) const;

 private:
  absl::Status status_;
};

// One prepared statement of a backend. Parameters are numbered from 1, columns from 0.
class StatementImpl {
 public:
  virtual ~StatementImpl() = default;
  virtual void BindNull(int index) = 0;
  virtual void BindInt64(int index, int64_t value) = 0;
  virtual void BindDouble(int index, double value) = 0;
  virtual void BindText(int index, const std::string& value) = 0;
  // Runs the statement on the first call, then moves to the next row; false past the last.
  virtual bool Step() = 0;
  // Runs a statement that returns no rows; the number of rows it changed.
  virtual int64_t Exec() = 0;
  // Ready to run again; bindings are kept.
  virtual void Reset() = 0;
  virtual bool IsNull(int column) = 0;
  virtual int64_t Int64(int column) = 0;
  virtual double Double(int column) = 0;
  virtual std::string Text(int column) = 0;
};

enum class TxKind {
  kRead,   // a consistent read of every table (SQLite DEFERRED; PostgreSQL REPEATABLE READ READ ONLY)
  kWrite,  // one writer at a time across every process (SQLite IMMEDIATE; PostgreSQL an advisory lock)
};

// A database connection. Not thread-safe: the store serialises its use.
class Connection {
 public:
  virtual ~Connection() = default;
  virtual Dialect dialect() const = 0;
  // Runs one or more statements without parameters (migrations, pragmas).
  virtual void Exec(const std::string& sql) = 0;
  virtual std::unique_ptr<StatementImpl> Prepare(const std::string& sql) = 0;
  virtual void Begin(TxKind kind) = 0;
  // Unavailable when the outcome is unknown (the connection dropped during COMMIT).
  virtual void Commit() = 0;
  // Never throws; a lost connection has rolled back already.
  virtual void Rollback() noexcept = 0;
  // An SQL expression (text) naming the database's epoch: what changes when the database is
  // replaced under the same name (PostgreSQL: a promoted standby, a point-in-time restore,
  // another cluster); '' where there is none (SQLite: the file's identity is checked apart).
  virtual std::string DatabaseEpochSql() const { return "''"; }

  // The first column of the first row of `sql` (0 or "" when there is none).
  int64_t QueryInt64(const std::string& sql);
  std::string QueryText(const std::string& sql);
};

// One column of the current row.
class Column {
 public:
  Column(StatementImpl* statement, int index) : statement_(statement), index_(index) {}
  bool isNull() const { return statement_->IsNull(index_); }
  int64_t getInt64() const { return statement_->Int64(index_); }
  int getInt() const { return static_cast<int>(statement_->Int64(index_)); }
  double getDouble() const { return statement_->Double(index_); }
  std::string getString() const { return statement_->Text(index_); }

 private:
  StatementImpl* statement_;
  int index_;
};

// SQLiteCpp-shaped statement over either backend. `?` and `?NNN` are the placeholders.
class Statement {
 public:
  Statement(Connection& connection, const std::string& sql) : impl_(connection.Prepare(sql)) {}
  void bind(int index) { impl_->BindNull(index); }
  void bind(int index, int value) { impl_->BindInt64(index, value); }
  void bind(int index, int64_t value) { impl_->BindInt64(index, value); }
  void bind(int index, double value) { impl_->BindDouble(index, value); }
  void bind(int index, const std::string& value) { impl_->BindText(index, value); }
  void bind(int index, const char* value) { impl_->BindText(index, value); }
  bool executeStep() { return impl_->Step(); }
  int64_t exec() { return impl_->Exec(); }
  void reset() { impl_->Reset(); }
  Column getColumn(int index) { return Column(impl_.get(), index); }

 private:
  std::unique_ptr<StatementImpl> impl_;
};

// Begins on construction; rolls back on destruction unless committed.
class Transaction {
 public:
  Transaction(Connection& connection, TxKind kind) : connection_(connection) { connection_.Begin(kind); }
  ~Transaction() {
    if (!done_) connection_.Rollback();
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  // After a failed COMMIT the destructor still rolls back (SQLite keeps the transaction
  // open when COMMIT is busy).
  void commit() {
    connection_.Commit();
    done_ = true;
  }

 private:
  Connection& connection_;
  bool done_ = false;
};

}  // namespace capplan::store::sql
