// Private to capplan_store: the SQLiteCpp handle behind Database, and the one place SQLite
// exceptions become absl::Status.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <string>

#include "absl/status/status.h"
#include "server/store/database.h"

namespace capplan::store {

struct Database::Impl {
  Impl(const std::string& p, int flags) : path(p), db(p, flags) {}
  std::string path;
  SQLite::Database db;
};

// Maps SQLite result codes: busy/locked -> Unavailable, corrupt/not-a-db -> DataLoss,
// constraint -> InvalidArgument (unique/primary key -> AlreadyExists), cannot open or
// read-only -> FailedPrecondition, anything else -> Internal.
absl::Status SqliteError(const SQLite::Exception& e, const std::string& context);

}  // namespace capplan::store
