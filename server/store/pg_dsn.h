// Private to capplan_store: PostgreSQL connection strings and SQL spelling. Which --db values
// name PostgreSQL, the defaults capplan adds to a DSN, the DSN as it may be shown (no
// password), and SQLite-style placeholders rewritten for libpq.
#pragma once

#include <string>

namespace capplan::store {

// True for postgresql://... and postgres://... (anything else is a SQLite path).
bool IsPostgresDsn(const std::string& db);

// `dsn` with connect_timeout=3 (fail fast when the server is unreachable), TCP keepalives and a
// TCP user timeout (a dead peer is noticed in seconds, not at the kernel's retransmission
// limit) added where the DSN does not set them.
std::string WithConnectDefaults(const std::string& dsn);

// postgresql://user@host:port/dbname: what the DSN names, never its password. The host alone
// when the DSN does not parse.
std::string RedactedDsn(const std::string& dsn);

// The host (or socket directory) and port the DSN names, for error messages.
std::string DsnHost(const std::string& dsn);

// `?` and `?NNN` placeholders outside quotes and comments become $n (a bare `?` takes the
// next number after the highest used so far, as in SQLite).
std::string PgPlaceholders(const std::string& sql);

}  // namespace capplan::store
