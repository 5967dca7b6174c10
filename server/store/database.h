// The database behind the catalog, SQLite (a file path) or PostgreSQL (a postgresql:// DSN):
// opening with durable settings, and migrations. No database types appear here; callers see
// absl::Status only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/store/migrations.h"

namespace capplan::store {

struct DatabaseOptions {
  // A SQLite file, or a postgresql:// (or postgres://) DSN for a catalog shared by replicas.
  std::string path;
  int busy_timeout_ms = 5000;
  bool create_if_missing = true;
  // Upper bound on the file size in pages (PRAGMA max_page_count); 0 leaves SQLite's default.
  // A write that would grow past it fails with ResourceExhausted, as on a full disk.
  int64_t max_page_count = 0;
  // PostgreSQL only: follow the writes of other replicas (LISTEN capplan_catalog), and check
  // the catalog version every poll_interval_ms for a notification missed (0: never).
  bool listen_for_changes = true;
  int poll_interval_ms = 2000;
  // PostgreSQL only: receives one line (no password) when the database goes down and one
  // when it is back; stderr when unset.
  std::function<void(const std::string&)> log = nullptr;
};

class Database {
 public:
  // SQLite: opens (creating if allowed) with WAL, synchronous=FULL, foreign_keys=ON and a busy
  // timeout. Fails with a status naming the path when the file is unreadable or not SQLite.
  // PostgreSQL: connects (connect_timeout 3 s unless the DSN sets one); Unavailable naming the
  // host, never the password, when the server cannot be reached.
  static absl::StatusOr<std::unique_ptr<Database>> Open(const DatabaseOptions& options);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Applies every migration newer than the recorded version, each in its own write
  // transaction together with its version row, so a failure leaves the previous version
  // intact. Refuses a database whose version is newer than the newest migration given.
  // On PostgreSQL the whole run holds an advisory lock, so replicas starting together apply
  // each migration once. Returns the schema version afterwards.
  absl::StatusOr<int> Migrate(const std::vector<Migration>& migrations);

  // Highest applied migration version; 0 for a fresh database.
  absl::StatusOr<int> SchemaVersion();

  // The migrations for this database's dialect (migrations.h: as written, or respelled).
  const std::vector<Migration>& DialectMigrations() const;

  // SQLite: PRAGMA integrity_check; DataLoss with SQLite's first complaint otherwise.
  // PostgreSQL: Ok (the server checks its own pages).
  absl::Status IntegrityCheck();

  // The connection's value of one of the pragmas capplan sets (journal_mode, synchronous,
  // foreign_keys, busy_timeout), for diagnostics and tests.
  absl::StatusOr<std::string> Pragma(const std::string& name);

  // Ok while the path still names the file opened (same st_dev and st_ino) and that file is
  // still linked (always Ok on PostgreSQL). Otherwise DataLoss naming the path and what changed: a write would commit
  // to a file nobody will open again.
  absl::Status CheckFileIdentity() const;

  // The file, or the DSN without its password.
  const std::string& path() const;
  bool is_postgres() const;

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  explicit Database(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace capplan::store
