// Private to capplan_store: what a Database holds.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "server/store/database.h"
#include "server/store/sql.h"

namespace capplan::store {

struct Database::Impl {
  ~Impl() {
    if (identity_fd >= 0) ::close(identity_fd);
  }
  std::string path;  // the file, or the DSN without its password
  std::string dsn;   // PostgreSQL: the DSN connected with (for the sync thread's connection)
  std::unique_ptr<sql::Connection> conn;
  // SQLite: the file as opened: a descriptor of our own (so fstat sees nlink drop to 0 when
  // the file is unlinked) and its (st_dev, st_ino), to notice the path now naming another file.
  int identity_fd = -1;
  dev_t dev = 0;
  ino_t ino = 0;
};

}  // namespace capplan::store
