// Test support: a throwaway PostgreSQL cluster (Debian's postgresql-15 server binaries) in a
// temporary directory, reachable only through a unix socket in that directory, so parallel
// tests never collide on a TCP port and nothing listens on the network. When the tests run
// as root (CI, a fresh Debian root) the cluster runs as the `postgres` user, because initdb
// and postgres refuse to run as root.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace capplan::testing {

class PgCluster {
 public:
  // initdb (trust authentication for local sockets, fsync off: the tests crash processes,
  // not the machine) and start the server; waits until it accepts connections. Unavailable
  // with the reason when the binaries are missing (scripts/install-deps.sh installs them) or
  // the server does not start (the server log is quoted).
  static absl::StatusOr<std::unique_ptr<PgCluster>> Start();
  // Stops the server immediately and removes the directory.
  ~PgCluster();
  PgCluster(const PgCluster&) = delete;
  PgCluster& operator=(const PgCluster&) = delete;

  // A libpq URI for `dbname` as the superuser, e.g.
  // postgresql://postgres@/capplan?host=/tmp/capplan-pg-XXXXXX&port=5432
  std::string Dsn(const std::string& dbname) const;
  // CREATE DATABASE `dbname` (a plain identifier: letters, digits, underscore).
  absl::Status CreateDatabase(const std::string& dbname);
  // Runs one SQL command through psql against `dbname`; returns psql's unaligned output.
  absl::StatusOr<std::string> Psql(const std::string& dbname, const std::string& sql);

  // pg_ctl stop: "fast" (clean shutdown, sessions disconnected) or "immediate" (as after a
  // crash: the next start replays the WAL).
  absl::Status Stop(const std::string& mode = "fast");
  // Starts the stopped server again on the same directory and socket; waits until ready.
  // A `port` other than 0 moves it there (the socket file is named by the port), so clients
  // of an earlier Dsn() cannot reach it.
  absl::Status Restart(int port = 0);

  // With the server stopped: copies the data directory aside as `name` (a plain identifier),
  // as a file-level backup, or a standby that stops receiving WAL, would hold it.
  absl::Status SaveCopy(const std::string& name);
  // With the server stopped: puts the copy `name` in place of the data directory, for
  // Restart. as_standby: it starts as a standby (standby.signal) to be Promote()d, as after a
  // failover to a standby that missed the last writes; otherwise as a restored file-level
  // backup (the same timeline).
  absl::Status RestoreCopy(const std::string& name, bool as_standby);
  // pg_ctl promote: the standby becomes a primary on a new timeline; waits until it is.
  absl::Status Promote();
  bool running() const { return running_; }

  const std::string& socket_dir() const { return dir_; }
  int port() const { return port_; }
  // The server log so far (for test failure messages).
  std::string Log() const;

 private:
  PgCluster() = default;
  // Runs a PostgreSQL binary from the server's bin directory (as `postgres` when root),
  // bounded by `timeout_ms`; InternalError with its output when it fails.
  absl::StatusOr<std::string> Run(const std::string& program, const std::vector<std::string>& args,
                                  int timeout_ms) const;
  absl::Status StartServer();

  std::string bin_dir_;
  std::string dir_;  // the socket directory; the data directory is dir_/data
  int port_ = 5432;
  bool running_ = false;
};

}  // namespace capplan::testing
