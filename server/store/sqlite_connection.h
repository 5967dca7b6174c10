// Private to capplan_store: the SQLite backend of the SQL interface (sql.h), over SQLiteCpp.
#pragma once

#include <memory>
#include <string>

#include "server/store/sql.h"

namespace capplan::store {

// Opens `path` (creating it when `create` is set) with the busy timeout given. Throws
// sql::Error when SQLite cannot open it.
std::unique_ptr<sql::Connection> OpenSqliteConnection(const std::string& path, bool create, int busy_timeout_ms);

}  // namespace capplan::store
