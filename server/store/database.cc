// Opening the catalog database durably and applying the embedded migrations.
#include "server/store/database.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "absl/strings/str_cat.h"
#include "server/store/sqlite_impl.h"

namespace capplan::store {

absl::Status SqliteError(const SQLite::Exception& e, const std::string& context) {
  const std::string msg = absl::StrCat(context, ": ", e.what());
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
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return absl::FailedPreconditionError(msg);
    default:
      return absl::InternalError(msg);
  }
}

absl::Status SqliteWriteError(const SQLite::Exception& e, SQLite::Database& db, const std::string& context) {
  if ((e.getErrorCode() & 0xff) == SQLITE_IOERR && sqlite3_system_errno(db.getHandle()) == ENOSPC) {
    return absl::ResourceExhaustedError(
        absl::StrCat(context, ": ", e.what(), " (no space left on the device; the write was rolled back)"));
  }
  return SqliteError(e, context);
}

Database::Database(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Database::~Database() = default;

const std::string& Database::path() const { return impl_->path; }

absl::StatusOr<std::unique_ptr<Database>> Database::Open(const DatabaseOptions& options) {
  if (options.path.empty()) {
    return absl::InvalidArgumentError("database path: must not be empty");
  }
  const int flags =
      SQLite::OPEN_READWRITE | (options.create_if_missing ? SQLite::OPEN_CREATE : 0) | SQLITE_OPEN_FULLMUTEX;
  try {
    auto impl = std::make_unique<Impl>(options.path, flags);
    SQLite::Database& db = impl->db;
    db.setBusyTimeout(options.busy_timeout_ms);
    // The first statement reads the header: a file that is not SQLite fails here.
    const std::string mode = db.execAndGet("PRAGMA journal_mode=WAL").getString();
    if (mode != "wal") {
      return absl::FailedPreconditionError(
          absl::StrCat("database ", options.path, ": cannot enable WAL (journal_mode=", mode, ")"));
    }
    db.exec("PRAGMA synchronous=FULL");
    db.exec("PRAGMA foreign_keys=ON");
    if (options.max_page_count > 0) {
      db.exec(absl::StrCat("PRAGMA max_page_count=", options.max_page_count));
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
  } catch (const SQLite::Exception& e) {
    return SqliteError(e, absl::StrCat("database ", options.path));
  }
}

absl::Status Database::CheckFileIdentity() const {
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
    SQLite::Database& db = impl_->db;
    if (!db.tableExists("schema_migrations")) return 0;
    return db.execAndGet("SELECT COALESCE(MAX(version), 0) FROM schema_migrations").getInt();
  } catch (const SQLite::Exception& e) {
    return SqliteError(e, absl::StrCat("database ", impl_->path, ": reading schema version"));
  }
}

absl::StatusOr<int> Database::Migrate(const std::vector<Migration>& migrations) {
  for (size_t i = 0; i < migrations.size(); ++i) {
    if (migrations[i].version != static_cast<int>(i) + 1) {
      return absl::InternalError(
          absl::StrCat("migration list is not numbered 1..n: entry ", i, " has version ", migrations[i].version));
    }
  }
  const int newest_known = static_cast<int>(migrations.size());
  SQLite::Database& db = impl_->db;
  try {
    db.exec(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version INTEGER PRIMARY KEY,"
        " name TEXT NOT NULL,"
        " applied_unix_seconds INTEGER NOT NULL)");
  } catch (const SQLite::Exception& e) {
    return SqliteError(e, absl::StrCat("database ", impl_->path, ": creating schema_migrations"));
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
      SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
      db.exec(m.sql);
      SQLite::Statement record(db,
                               "INSERT INTO schema_migrations (version, name, applied_unix_seconds) VALUES (?, ?, ?)");
      record.bind(1, m.version);
      record.bind(2, m.name);
      record.bind(3, static_cast<int64_t>(std::time(nullptr)));
      record.exec();
      db.exec(absl::StrCat("PRAGMA user_version = ", m.version));
      tx.commit();
    } catch (const SQLite::Exception& e) {
      // The Transaction destructor has rolled back: the previous version stays intact.
      absl::Status s = SqliteError(e, absl::StrCat("database ", impl_->path, ": migration ", label, " failed"));
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
  try {
    return impl_->db.execAndGet(absl::StrCat("PRAGMA ", name)).getString();
  } catch (const SQLite::Exception& e) {
    return SqliteError(e, absl::StrCat("database ", impl_->path, ": PRAGMA ", name));
  }
}

absl::Status Database::IntegrityCheck() {
  try {
    const std::string result = impl_->db.execAndGet("PRAGMA integrity_check").getString();
    if (result != "ok") {
      return absl::DataLossError(absl::StrCat("database ", impl_->path, ": integrity_check: ", result));
    }
    return absl::OkStatus();
  } catch (const SQLite::Exception& e) {
    return SqliteError(e, absl::StrCat("database ", impl_->path, ": integrity_check"));
  }
}

}  // namespace capplan::store
