// Private to capplan_store: the PostgreSQL backend of the SQL interface (sql.h), over libpq.
// Also the pieces the catalog sync thread needs from a connection: its socket, LISTEN and the
// notifications received.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "server/store/sql.h"

struct pg_conn;
struct pg_result;

namespace capplan::store {

// Advisory lock keys: every write transaction takes kPgWriteLock (so writers on every replica
// run one at a time, as SQLite's single writer does); migrations take kPgMigrationLock.
inline constexpr int64_t kPgWriteLock = 0x6361706c616e01;
inline constexpr int64_t kPgMigrationLock = 0x6361706c616e02;

class PgConnection final : public sql::Connection {
 public:
  // Connects to `dsn` (with WithConnectDefaults applied by the caller). Throws sql::Error,
  // Unavailable naming the host (never the password) when the server cannot be reached.
  static std::unique_ptr<PgConnection> Open(const std::string& dsn);
  ~PgConnection() override;
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  sql::Dialect dialect() const override { return sql::Dialect::kPostgres; }
  void Exec(const std::string& sql) override;
  std::unique_ptr<sql::StatementImpl> Prepare(const std::string& sql) override;
  // Reconnects first when the connection is known to be broken (and once more when BEGIN
  // finds it dropped while idle): a write after the server returns needs no restart.
  void Begin(sql::TxKind kind) override;
  void Commit() override;
  void Rollback() noexcept override;

  // Runs `sql` ($n placeholders) with text parameters; types[i] 0 lets the server infer.
  // Returns the result (owned by the caller); throws sql::Error.
  pg_result* Run(const std::string& sql, const std::vector<unsigned>& types, const std::vector<const char*>& values);

  // An SQL expression for this database cluster's epoch (pg_control_system's identifier and
  // the current timeline): it changes when a standby is promoted or a backup is restored to a
  // point in time (a new timeline), or another cluster answers. '' where the role may not
  // read them (checked once per connection).
  std::string DatabaseEpochSql() const override { return epoch_sql_; }

  // False once the connection is known to be broken: libpq still says CONNECTION_OK after the
  // first statement on a connection whose server died, so a lost-connection error marks it.
  bool Connected() const;
  // A fresh connection; throws sql::Error (Unavailable) when the server is still away.
  void Reconnect();
  int Socket() const;
  // Reads what the server sent; false when the connection is lost.
  bool ConsumeInput();
  // libpq's last error on this connection, on one line, without the password.
  std::string ErrorMessage() const;
  // The payloads of the notifications received so far.
  std::vector<std::string> TakeNotifications();
  const std::string& host() const { return host_; }
  // Off for the sync thread's connection: a replacement made behind its back would not be
  // LISTENing, so a lost connection must reach the thread, which reconnects and LISTENs again.
  void set_reconnect(bool reconnect) { reconnect_ = reconnect; }

 private:
  PgConnection(std::string dsn, pg_conn* conn);
  // Throws the mapped error for a failed `result` (which it frees).
  [[noreturn]] void Fail(pg_result* result, const std::string& what);
  // Whether the failed `result` means the connection is gone (marking it broken): no result,
  // libpq's own error (no SQLSTATE: "server closed the connection unexpectedly"), or a
  // connection or shutdown SQLSTATE (08xxx, 57P0x).
  bool Lost(const pg_result* result);
  // `message` (from libpq or the server) with the DSN's password, as given and percent-
  // decoded, blotted out.
  std::string Scrubbed(const std::string& message) const;
  // Sets epoch_sql_ to the epoch expression, or '' when this role may not evaluate it.
  void ProbeEpoch();
  // Sends with `send(conn)`, reconnecting (and, outside a transaction, resending once) when the
  // connection turns out to be lost. Returns a successful result.
  template <typename Send>
  pg_result* Retrying(const Send& send);

  std::string dsn_;
  std::string host_;
  std::vector<std::string> secrets_;  // the password, decoded and as written in the DSN
  pg_conn* conn_;
  bool broken_ = false;
  bool in_tx_ = false;
  std::string epoch_sql_ = "''";
  bool reconnect_ = true;
};

// A statement on `conn` (pg_statement.cc): `sql` with SQLite-style placeholders.
std::unique_ptr<sql::StatementImpl> NewPgStatement(PgConnection& conn, const std::string& sql);

// The absl code for a PostgreSQL SQLSTATE: 08xxx and 57P0x (the connection or the server went
// away), 40001 and 40P01 (serialisation failure, deadlock) -> Unavailable; 23505 ->
// AlreadyExists; 23503 -> FailedPrecondition; other 23xxx and 22xxx -> InvalidArgument; 53xxx ->
// ResourceExhausted; otherwise Internal.
absl::StatusCode PgCode(const std::string& sqlstate);

}  // namespace capplan::store
