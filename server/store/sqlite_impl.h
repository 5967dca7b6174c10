// Private to capplan_store: the SQLiteCpp handle behind Database, and the one place SQLite
// exceptions become absl::Status.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>
#include <sys/types.h>
#include <unistd.h>

#include <string>

#include "absl/status/status.h"
#include "server/store/database.h"

namespace capplan::store {

struct Database::Impl {
  Impl(const std::string& p, int flags) : path(p), db(p, flags) {}
  ~Impl() {
    if (identity_fd >= 0) ::close(identity_fd);
  }
  std::string path;
  SQLite::Database db;
  // The file as opened: a descriptor of our own (so fstat sees nlink drop to 0 when the file
  // is unlinked) and its (st_dev, st_ino), to notice the path now naming another file.
  int identity_fd = -1;
  dev_t dev = 0;
  ino_t ino = 0;
};

// Maps SQLite result codes: busy/locked -> Unavailable, corrupt/not-a-db -> DataLoss,
// constraint -> InvalidArgument (unique/primary key -> AlreadyExists), cannot open or
// read-only -> FailedPrecondition, full (disk or max_page_count) -> ResourceExhausted,
// anything else -> Internal.
absl::Status SqliteError(const SQLite::Exception& e, const std::string& context);
// The same for a failed write on `db`, which also reads the OS error behind an I/O error: a
// disk that filled up during a write or fsync (ENOSPC) is ResourceExhausted as well.
absl::Status SqliteWriteError(const SQLite::Exception& e, SQLite::Database& db, const std::string& context);

}  // namespace capplan::store
