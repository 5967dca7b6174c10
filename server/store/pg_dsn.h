// Private to capplan_store: PostgreSQL connection strings and SQL spelling. Which --db values
// name PostgreSQL, the defaults capplan adds to a DSN, the DSN as it may be shown (no
// password), and SQLite-style placeholders rewritten for libpq.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace capplan::store {

// True for postgresql://... and postgres://... (anything else is a SQLite path).
bool IsPostgresDsn(const std::string& db);

// Ok when `dsn` parses as a libpq URI naming what it seems to: every port a number, no `@` in
// a host or the database name. A password holding `/`, `@`, `?`, `#` or a `%` that starts no
// escape makes libpq read part of it as the port, host or database (or fail); that is
// InvalidArgument saying to percent-encode it, quoting nothing of the DSN, since any part of
// it may be the password.
absl::Status CheckDsn(const std::string& dsn);

// The DSN's password as libpq reads it (percent-decoded) and as written, for blotting out of
// messages; empty when it has none.
std::vector<std::string> DsnSecrets(const std::string& dsn);

// `dsn` with connect_timeout=3 (fail fast when the server is unreachable), TCP keepalives and a
// TCP user timeout (a dead peer is noticed in seconds, not at the kernel's retransmission
// limit) added where the DSN does not set them.
std::string WithConnectDefaults(const std::string& dsn);

// postgresql://user@host:port/dbname: what the DSN names, never its password. Nothing of it
// when CheckDsn refuses it (a misread password would show as the port or database).
std::string RedactedDsn(const std::string& dsn);

// The host (or socket directory) and port the DSN names, for error messages.
std::string DsnHost(const std::string& dsn);

// `?` and `?NNN` placeholders outside quotes and comments become $n (a bare `?` takes the
// next number after the highest used so far, as in SQLite).
std::string PgPlaceholders(const std::string& sql);

}  // namespace capplan::store
