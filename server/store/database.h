// The SQLite database behind the catalog: opening with durable settings, and migrations.
// No SQLite types appear here; callers see absl::Status only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/store/migrations.h"

namespace capplan::store {

struct DatabaseOptions {
  std::string path;
  int busy_timeout_ms = 5000;
  bool create_if_missing = true;
  // Upper bound on the file size in pages (PRAGMA max_page_count); 0 leaves SQLite's default.
  // A write that would grow past it fails with ResourceExhausted, as on a full disk.
  int64_t max_page_count = 0;
};

class Database {
 public:
  // Opens (creating if allowed) with WAL, synchronous=FULL, foreign_keys=ON and a busy
  // timeout. Fails with a status naming the path when the file is unreadable or not SQLite.
  static absl::StatusOr<std::unique_ptr<Database>> Open(const DatabaseOptions& options);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Applies every migration newer than the recorded version, each in its own BEGIN IMMEDIATE
  // transaction together with its version row, so a failure leaves the previous version
  // intact. Refuses a database whose version is newer than the newest migration given.
  // Returns the schema version afterwards.
  absl::StatusOr<int> Migrate(const std::vector<Migration>& migrations);

  // Highest applied migration version; 0 for a fresh database.
  absl::StatusOr<int> SchemaVersion();

  // PRAGMA integrity_check; DataLoss with SQLite's first complaint otherwise.
  absl::Status IntegrityCheck();

  // The connection's value of one of the pragmas capplan sets (journal_mode, synchronous,
  // foreign_keys, busy_timeout), for diagnostics and tests.
  absl::StatusOr<std::string> Pragma(const std::string& name);

  // Ok while the path still names the file opened (same st_dev and st_ino) and that file is
  // still linked. Otherwise DataLoss naming the path and what changed: a write would commit
  // to a file nobody will open again.
  absl::Status CheckFileIdentity() const;

  const std::string& path() const;

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  explicit Database(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace capplan::store
