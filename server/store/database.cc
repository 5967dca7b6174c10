// Opening the catalog database durably and applying the embedded migrations.
#include "server/store/database.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "absl/strings/str_cat.h"
#include "server/store/database_impl.h"
#include "server/store/pg_connection.h"
#include "server/store/pg_dsn.h"
#include "server/store/sqlite_connection.h"

namespace capplan::store {

Database::Database(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Database::~Database() = default;

const std::string& Database::path() const { return impl_->path; }

bool Database::is_postgres() const { return impl_->conn->dialect() == sql::Dialect::kPostgres; }

const std::vector<Migration>& Database::DialectMigrations() const {
  return is_postgres() ? EmbeddedPostgresMigrations() : EmbeddedMigrations();
}

absl::StatusOr<std::unique_ptr<Database>> Database::Open(const DatabaseOptions& options) {
  if (options.path.empty()) {
    return absl::InvalidArgumentError("database path: must not be empty");
  }
  auto impl = std::make_unique<Impl>();
  if (IsPostgresDsn(options.path)) {
    absl::Status dsn_ok = CheckDsn(options.path);
    if (!dsn_ok.ok()) return absl::InvalidArgumentError(absl::StrCat("--db: ", dsn_ok.message()));
    impl->path = RedactedDsn(options.path);
    impl->dsn = WithConnectDefaults(options.path);
    try {
      impl->conn = PgConnection::Open(impl->dsn);
    } catch (const sql::Error& e) {
      return e.WithContext(absl::StrCat("database ", impl->path));
    }
    return std::unique_ptr<Database>(new Database(std::move(impl)));
  }
  impl->path = options.path;
  try {
    impl->conn = OpenSqliteConnection(options.path, options.create_if_missing, options.busy_timeout_ms);
    sql::Connection& db = *impl->conn;
    // The first statement reads the header: a file that is not SQLite fails here.
    const std::string mode = db.QueryText("PRAGMA journal_mode=WAL");
    if (mode != "wal") {
      return absl::FailedPreconditionError(
          absl::StrCat("database ", options.path, ": cannot enable WAL (journal_mode=", mode, ")"));
    }
    db.Exec("PRAGMA synchronous=FULL");
    db.Exec("PRAGMA foreign_keys=ON");
    if (options.max_page_count > 0) {
      db.QueryText(absl::StrCat("PRAGMA max_page_count=", options.max_page_count));
    }
    impl->identity_fd = ::open(options.path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (impl->identity_fd < 0 || ::fstat(impl->identity_fd, &st) != 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("database ", options.path, ": cannot stat: ", std::strerror(errno)));
    }
    impl->dev = st.st_dev;
    impl->ino = st.st_ino;
    return std::unique_ptr<Database>(new Database(std::move(impl)));
  } catch (const sql::Error& e) {
    return e.WithContext(absl::StrCat("database ", options.path));
  }
}

absl::Status Database::CheckFileIdentity() const {
  if (impl_->identity_fd < 0) return absl::OkStatus();  // PostgreSQL
  struct stat opened;
  if (::fstat(impl_->identity_fd, &opened) != 0) {
    return absl::DataLossError(
        absl::StrCat("database ", impl_->path, ": cannot fstat the open file: ", std::strerror(errno)));
  }
  if (opened.st_nlink == 0) {
    return absl::DataLossError(absl::StrCat("database ", impl_->path,
                                            ": the file was deleted while the server had it open; "
                                            "writes are refused because they would be lost at restart"));
  }
  struct stat now;
  if (::stat(impl_->path.c_str(), &now) != 0) {
    return absl::DataLossError(absl::StrCat("database ", impl_->path, ": the path no longer names the open file (",
                                            std::strerror(errno), "); writes are refused"));
  }
  if (now.st_dev != impl_->dev || now.st_ino != impl_->ino) {
    return absl::DataLossError(absl::StrCat("database ", impl_->path,
                                            ": the path now names another file (device/inode ", impl_->dev, "/",
                                            impl_->ino, " at open, ", now.st_dev, "/", now.st_ino,
                                            " now); writes are refused because they would go to the replaced file"));
  }
  return absl::OkStatus();
}

absl::StatusOr<int> Database::SchemaVersion() {
  try {
    sql::Connection& db = *impl_->conn;
    const bool exists =
        db.QueryInt64(is_postgres() ? "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = "
                                      "current_schema() AND table_name = 'schema_migrations'"
                                    : "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND "
                                      "name = 'schema_migrations'") > 0;
    if (!exists) return 0;
    return static_cast<int>(db.QueryInt64("SELECT COALESCE(MAX(version), 0) FROM schema_migrations"));
  } catch (const sql::Error& e) {
    return e.WithContext(absl::StrCat("database ", impl_->path, ": reading schema version"));
  }
}

namespace {

// Holds PostgreSQL's migration lock for as long as it lives (a session lock: released too
// when the connection drops).
class MigrationLock {
 public:
  MigrationLock(sql::Connection& db, bool postgres) : db_(db), held_(postgres) {
    if (held_) db_.Exec(absl::StrCat("SELECT pg_advisory_lock(", kPgMigrationLock, ")"));
  }
  ~MigrationLock() {
    if (!held_) return;
    try {
      db_.Exec(absl::StrCat("SELECT pg_advisory_unlock(", kPgMigrationLock, ")"));
    } catch (const sql::Error&) {
      // The connection is gone, and the lock with it.
    }
  }
  MigrationLock(const MigrationLock&) = delete;
  MigrationLock& operator=(const MigrationLock&) = delete;

 private:
  sql::Connection& db_;
  bool held_;
};

}  // namespace

absl::StatusOr<int> Database::Migrate(const std::vector<Migration>& migrations) {
  for (size_t i = 0; i < migrations.size(); ++i) {
    if (migrations[i].version != static_cast<int>(i) + 1) {
      return absl::InternalError(
          absl::StrCat("migration list is not numbered 1..n: entry ", i, " has version ", migrations[i].version));
    }
  }
  const int newest_known = static_cast<int>(migrations.size());
  sql::Connection& db = *impl_->conn;
  std::unique_ptr<MigrationLock> lock;
  try {
    lock = std::make_unique<MigrationLock>(db, is_postgres());
    db.Exec(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version INTEGER PRIMARY KEY,"
        " name TEXT NOT NULL,"
        " applied_unix_seconds BIGINT NOT NULL)");
  } catch (const sql::Error& e) {
    return e.WithContext(absl::StrCat("database ", impl_->path, ": creating schema_migrations"));
  }
  absl::StatusOr<int> current = SchemaVersion();
  if (!current.ok()) return current.status();
  if (*current > newest_known) {
    return absl::FailedPreconditionError(absl::StrCat("database ", impl_->path, " has schema version ", *current,
                                                      ", newer than this binary knows (", newest_known,
                                                      "); upgrade capplan-server"));
  }
  for (const Migration& m : migrations) {
    if (m.version <= *current) continue;
    const std::string label = absl::StrCat(m.version, "_", m.name);
    try {
      sql::Transaction tx(db, sql::TxKind::kWrite);
      db.Exec(m.sql);
      sql::Statement record(db, "INSERT INTO schema_migrations (version, name, applied_unix_seconds) VALUES (?, ?, ?)");
      record.bind(1, m.version);
      record.bind(2, m.name);
      record.bind(3, static_cast<int64_t>(std::time(nullptr)));
      record.exec();
      if (!is_postgres()) db.Exec(absl::StrCat("PRAGMA user_version = ", m.version));
      tx.commit();
    } catch (const sql::Error& e) {
      // The Transaction destructor has rolled back: the previous version stays intact.
      absl::Status s = e.WithContext(absl::StrCat("database ", impl_->path, ": migration ", label, " failed"));
      return absl::Status(s.code() == absl::StatusCode::kUnavailable ? s.code() : absl::StatusCode::kFailedPrecondition,
                          s.message());
    }
  }
  return SchemaVersion();
}

absl::StatusOr<std::string> Database::Pragma(const std::string& name) {
  if (name != "journal_mode" && name != "synchronous" && name != "foreign_keys" && name != "busy_timeout") {
    return absl::InvalidArgumentError(absl::StrCat("pragma: not one capplan sets: ", name));
  }
  if (is_postgres()) return absl::FailedPreconditionError("pragma: the catalog database is PostgreSQL, not SQLite");
  try {
    return impl_->conn->QueryText(absl::StrCat("PRAGMA ", name));
  } catch (const sql::Error& e) {
    return e.WithContext(absl::StrCat("database ", impl_->path, ": PRAGMA ", name));
  }
}

absl::Status Database::IntegrityCheck() {
  if (is_postgres()) return absl::OkStatus();
  try {
    const std::string result = impl_->conn->QueryText("PRAGMA integrity_check");
    if (result != "ok") {
      return absl::DataLossError(absl::StrCat("database ", impl_->path, ": integrity_check: ", result));
    }
    return absl::OkStatus();
  } catch (const sql::Error& e) {
    return e.WithContext(absl::StrCat("database ", impl_->path, ": integrity_check"));
  }
}

}  // namespace capplan::store
