// The PostgreSQL backend of sql.h: connecting, transactions, error mapping and reconnecting.
#include "server/store/pg_connection.h"

#include <libpq-fe.h>

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "server/store/pg_dsn.h"

namespace capplan::store {

namespace {

// libpq's messages span lines ("...failed: Connection refused\n\tIs the server running...");
// capplan reports one.
std::string OneLine(const char* message) {
  std::string s = absl::StrReplaceAll(message == nullptr ? "" : message, {{"\n\t", " "}, {"\n", " "}});
  return std::string(absl::StripAsciiWhitespace(s));
}

// Server NOTICEs ("relation already exists, skipping") are not errors; libpq would print them
// on stderr.
void IgnoreNotice(void* /*arg*/, const char* /*message*/) {}

std::string Field(const PGresult* r, int field) {
  const char* v = r == nullptr ? nullptr : PQresultErrorField(r, field);
  return v == nullptr ? std::string() : std::string(v);
}

}  // namespace

absl::StatusCode PgCode(const std::string& sqlstate) {
  if (absl::StartsWith(sqlstate, "08") || sqlstate == "57P01" || sqlstate == "57P02" || sqlstate == "57P03" ||
      sqlstate == "40001" || sqlstate == "40P01") {
    return absl::StatusCode::kUnavailable;
  }
  // lock_not_available: another replica's write held the write lock past lock_timeout.
  if (sqlstate == "55P03") return absl::StatusCode::kUnavailable;
  // read_only_sql_transaction: the DSN reached a standby (a failover in progress, or a
  // read-only host listed first). The write was not applied; another try may find the primary.
  if (sqlstate == "25006") return absl::StatusCode::kUnavailable;
  if (sqlstate == "23505") return absl::StatusCode::kAlreadyExists;
  if (sqlstate == "23503") return absl::StatusCode::kFailedPrecondition;
  if (absl::StartsWith(sqlstate, "23") || absl::StartsWith(sqlstate, "22")) return absl::StatusCode::kInvalidArgument;
  if (absl::StartsWith(sqlstate, "53")) return absl::StatusCode::kResourceExhausted;
  return absl::StatusCode::kInternal;
}

PgConnection::PgConnection(std::string dsn, pg_conn* conn)
    : dsn_(std::move(dsn)), host_(DsnHost(dsn_)), secrets_(DsnSecrets(dsn_)), conn_(conn) {}

PgConnection::~PgConnection() {
  if (conn_ != nullptr) PQfinish(conn_);
}

std::unique_ptr<PgConnection> PgConnection::Open(const std::string& dsn) {
  std::unique_ptr<PgConnection> out(new PgConnection(dsn, nullptr));
  out->Reconnect();
  return out;
}

bool PgConnection::Connected() const { return conn_ != nullptr && !broken_ && PQstatus(conn_) == CONNECTION_OK; }

std::string PgConnection::Scrubbed(const std::string& message) const {
  std::string out = message;
  for (const std::string& secret : secrets_) out = absl::StrReplaceAll(out, {{secret, "(password)"}});
  return out;
}

void PgConnection::Reconnect() {
  in_tx_ = false;
  broken_ = false;
  if (conn_ != nullptr) PQfinish(conn_);
  conn_ = PQconnectdb(dsn_.c_str());
  if (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK) {
    throw sql::Error(absl::UnavailableError(
        absl::StrCat("catalog database unreachable at ", host_, ": ",
                     Scrubbed(OneLine(conn_ == nullptr ? "out of memory" : PQerrorMessage(conn_))))));
  }
  PQsetNoticeProcessor(conn_, IgnoreNotice, nullptr);
  ProbeEpoch();
  // Acknowledged means durable: never weaker than the server's default, whatever the role or
  // database was configured with.
  Exec("SET synchronous_commit TO on");
  // A replica frozen or cut off inside a write transaction must not hold the write lock (and
  // with it every other replica's writes) until TCP gives up: the server ends such a session.
  Exec("SET idle_in_transaction_session_timeout TO '60s'");
}

void PgConnection::ProbeEpoch() {
  // The system identifier is fixed at initdb (a standby shares its primary's); the timeline
  // goes up at every promotion and point-in-time recovery. A primary's current timeline is in
  // its WAL file names; pg_control_checkpoint's lags a promotion until the next checkpoint.
  static constexpr char kEpoch[] =
      "((SELECT system_identifier FROM pg_control_system())::text || '/' || (CASE WHEN pg_is_in_recovery() "
      "THEN (SELECT timeline_id FROM pg_control_checkpoint())::bigint "
      "ELSE ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::bigint END)::text)";
  PGresult* r = PQexec(conn_, absl::StrCat("SELECT ", kEpoch).c_str());
  const bool ok = r != nullptr && PQresultStatus(r) == PGRES_TUPLES_OK;
  if (r != nullptr) PQclear(r);
  // A role without EXECUTE on them (some managed services revoke it) still gets the catalog
  // version and write token comparison.
  epoch_sql_ = ok ? kEpoch : "''";
}

bool PgConnection::Lost(const PGresult* r) {
  const std::string sqlstate = Field(r, PG_DIAG_SQLSTATE);
  if (r == nullptr || PQstatus(conn_) != CONNECTION_OK || sqlstate.empty() || absl::StartsWith(sqlstate, "08") ||
      sqlstate == "57P01" || sqlstate == "57P02" || sqlstate == "57P03") {
    broken_ = true;
  }
  return broken_;
}

void PgConnection::Fail(PGresult* result, const std::string& what) {
  const bool lost = Lost(result);
  std::string sqlstate = Field(result, PG_DIAG_SQLSTATE);
  std::string message = Field(result, PG_DIAG_MESSAGE_PRIMARY);
  const std::string detail = Field(result, PG_DIAG_MESSAGE_DETAIL);
  if (!detail.empty()) absl::StrAppend(&message, " (", detail, ")");
  if (message.empty()) message = OneLine(PQerrorMessage(conn_));
  message = Scrubbed(message);
  if (result != nullptr) PQclear(result);
  // An error without a SQLSTATE comes from libpq itself, not from the server: in practice the
  // connection failing ("server closed the connection unexpectedly" after PostgreSQL went
  // away). Retryable, not Internal.
  if (lost) {
    in_tx_ = false;
    throw sql::Error(absl::UnavailableError(absl::StrCat("catalog database unreachable at ", host_, ": ", message)));
  }
  throw sql::Error(absl::Status(PgCode(sqlstate), absl::StrCat(what, message)));
}

template <typename Send>
pg_result* PgConnection::Retrying(const Send& send) {
  // Inside a transaction a lost connection has lost the transaction: report it. Outside one,
  // capplan runs only reads and idempotent statements (schema checks, CREATE ... IF NOT
  // EXISTS, SET, BEGIN), so a broken or dropped connection is replaced and the statement sent
  // again once: the first call after the server came back succeeds. The first statement on a
  // connection whose server restarted is where libpq finds out (and it still reports
  // CONNECTION_OK then), so Lost() decides, not PQstatus.
  const bool may_retry = !in_tx_ && reconnect_;
  if (!Connected()) {
    if (!may_retry) {
      throw sql::Error(
          absl::UnavailableError(absl::StrCat("catalog database unreachable at ", host_, ": the connection was lost")));
    }
    Reconnect();
  }
  for (int attempt = 0;; ++attempt) {
    PGresult* r = send(conn_);
    const ExecStatusType st = r == nullptr ? PGRES_FATAL_ERROR : PQresultStatus(r);
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) return r;
    if (may_retry && attempt == 0 && Lost(r)) {
      if (r != nullptr) PQclear(r);
      Reconnect();
      continue;
    }
    Fail(r, "");
  }
}

pg_result* PgConnection::Run(const std::string& sql, const std::vector<unsigned>& types,
                             const std::vector<const char*>& values) {
  return Retrying([&](PGconn* c) {
    return PQexecParams(c, sql.c_str(), static_cast<int>(values.size()), types.empty() ? nullptr : types.data(),
                        values.empty() ? nullptr : values.data(), nullptr, nullptr, 0);
  });
}

void PgConnection::Exec(const std::string& sql) {
  // PQexec runs several ;-separated statements (migrations) in one call.
  PQclear(Retrying([&](PGconn* c) { return PQexec(c, sql.c_str()); }));
}

std::unique_ptr<sql::StatementImpl> PgConnection::Prepare(const std::string& sql) { return NewPgStatement(*this, sql); }

void PgConnection::Begin(sql::TxKind kind) {
  // A connection the server dropped while it sat idle (a restart) fails only at BEGIN; nothing
  // of the transaction was sent yet, so Exec may reconnect and send BEGIN again.
  Exec(kind == sql::TxKind::kRead ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
                                  : "BEGIN ISOLATION LEVEL READ COMMITTED");
  in_tx_ = true;
  if (kind != sql::TxKind::kWrite) return;
  try {
    // Waiting for another replica's write is bounded like SQLite's busy timeout: past it the
    // write fails Unavailable (55P03) instead of pinning this replica's writers.
    Exec("SET LOCAL lock_timeout TO '10s'");
    Exec(absl::StrCat("SELECT pg_advisory_xact_lock(", kPgWriteLock, ")"));
  } catch (const sql::Error&) {
    Rollback();  // no Transaction object exists yet to do it
    throw;
  }
}

void PgConnection::Commit() {
  if (!Connected()) {
    in_tx_ = false;
    throw sql::Error(absl::UnavailableError(
        absl::StrCat("catalog database unreachable at ", host_, ": the connection was lost before COMMIT")));
  }
  PGresult* r = PQexec(conn_, "COMMIT");
  in_tx_ = false;
  const ExecStatusType st = r == nullptr ? PGRES_FATAL_ERROR : PQresultStatus(r);
  if (st == PGRES_COMMAND_OK && std::string(PQcmdStatus(r)) == "COMMIT") {
    PQclear(r);
    return;
  }
  if (st == PGRES_COMMAND_OK) {  // COMMIT of a failed transaction answers ROLLBACK
    PQclear(r);
    throw sql::Error(absl::AbortedError("the transaction was rolled back by the database"));
  }
  if (Lost(r)) {
    if (r != nullptr) PQclear(r);
    // The COMMIT may have reached the server before the connection dropped: never resent.
    throw sql::Error(absl::UnavailableError(
        absl::StrCat("catalog database connection to ", host_,
                     " lost during COMMIT: the write may or may not have been applied; retry with the same "
                     "request_id to find out")));
  }
  Fail(r, "COMMIT: ");
}

void PgConnection::Rollback() noexcept {
  if (!in_tx_ || !Connected()) {
    in_tx_ = false;
    return;
  }
  in_tx_ = false;
  PGresult* r = PQexec(conn_, "ROLLBACK");
  if (r != nullptr) PQclear(r);
}

int PgConnection::Socket() const { return conn_ == nullptr ? -1 : PQsocket(conn_); }

std::string PgConnection::ErrorMessage() const {
  return Scrubbed(OneLine(conn_ == nullptr ? "no connection" : PQerrorMessage(conn_)));
}

bool PgConnection::ConsumeInput() { return conn_ != nullptr && PQconsumeInput(conn_) == 1 && Connected(); }

std::vector<std::string> PgConnection::TakeNotifications() {
  std::vector<std::string> out;
  if (conn_ == nullptr) return out;
  while (PGnotify* n = PQnotifies(conn_)) {
    out.emplace_back(n->extra == nullptr ? "" : n->extra);
    PQfreemem(n);
  }
  return out;
}

}  // namespace capplan::store
