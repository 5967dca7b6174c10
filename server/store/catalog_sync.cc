// The sync thread behind CatalogSync: LISTEN/NOTIFY with a periodic identity check.
#include "server/store/catalog_sync.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/store/catalog_store.h"
#include "server/store/pg_connection.h"

namespace capplan::store {

namespace {

constexpr int kMinBackoffMs = 100;
constexpr int kMaxBackoffMs = 2000;

}  // namespace

CatalogSync::CatalogSync(CatalogSyncOptions options, CatalogStore* store)
    : options_(std::move(options)), store_(store) {
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) wake_[0] = wake_[1] = -1;
  thread_ = std::thread([this] { Run(); });
}

CatalogSync::~CatalogSync() {
  stop_ = true;
  if (wake_[1] >= 0) {
    const char c = 'x';
    [[maybe_unused]] const ssize_t n = ::write(wake_[1], &c, 1);
  }
  thread_.join();
  for (int fd : wake_) {
    if (fd >= 0) ::close(fd);
  }
}

void CatalogSync::Log(const std::string& line) const {
  if (options_.log) {
    options_.log(line);
  } else {
    std::cerr << line << "\n";
  }
}

void CatalogSync::SetUp(bool up, const std::string& reason) {
  up_ = up;
  if (up == logged_up_) return;
  logged_up_ = up;
  const int64_t version = store_->Snapshot()->catalog_version;
  if (!up) {
    down_since_ = std::chrono::steady_clock::now();
    Log(absl::StrCat("catalog database ", options_.shown_dsn, " is down (", reason,
                     "); reads answer from catalog version ", version,
                     ", admin writes fail with UNAVAILABLE, reconnecting with backoff up to 2 s"));
    return;
  }
  const double down_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - down_since_).count();
  Log(absl::StrCat("catalog database ", options_.shown_dsn, " is back after ", absl::StrFormat("%.1f", down_s),
                   " s; reconnected and listening, catalog version ", version));
}

void CatalogSync::Nap(int ms) {
  pollfd p{wake_[0], POLLIN, 0};
  ::poll(&p, wake_[0] >= 0 ? 1 : 0, ms);
}

bool CatalogSync::Connect() {
  try {
    conn_ = PgConnection::Open(options_.dsn);
    conn_->set_reconnect(false);
    if (options_.listen) conn_->Exec(absl::StrCat("LISTEN ", kCatalogChannel));
    return true;
  } catch (const sql::Error& e) {
    conn_.reset();
    SetUp(false, std::string(e.status().message()));
    return false;
  }
}

bool CatalogSync::CatchUp() {
  // The reload reads the identity again under the store's write lock, so this replica's own
  // write (published meanwhile) costs nothing. A failure (the main connection is away too) is
  // retried with backoff.
  absl::StatusOr<bool> reloaded = store_->ReloadUnlessCurrent();
  if (reloaded.ok()) {
    retry_ms_ = 0;
    if (*reloaded) ++reloads_;
    return true;
  }
  retry_ms_ = retry_ms_ == 0 ? kMinBackoffMs : std::min(retry_ms_ * 2, kMaxBackoffMs);
  return false;
}

void CatalogSync::TakeNotified() {
  const int64_t have = store_->Snapshot()->catalog_version;
  bool other = false;
  for (const std::string& payload : conn_->TakeNotifications()) {
    int64_t v = 0;
    if (absl::SimpleAtoi(payload, &v) && v != have) other = true;
  }
  if (other) CatchUp();
}

bool CatalogSync::WaitAndDrain() {
  const int poll_ms = options_.poll_interval_ms > 0 ? options_.poll_interval_ms : -1;
  const int timeout_ms = retry_ms_ > 0 ? (poll_ms > 0 ? std::min(retry_ms_, poll_ms) : retry_ms_) : poll_ms;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    // A notification that arrived while the check (or a reload) ran is already in libpq's
    // queue and will not make the socket readable again: take it before waiting.
    TakeNotified();
    int wait_ms = -1;
    if (timeout_ms > 0) {
      wait_ms = static_cast<int>(std::max<int64_t>(
          0,
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count()));
    }
    // POLLRDHUP: the server closed its side. It never does on a live LISTEN connection, and a
    // crashed or stopped server's farewell notice would otherwise leave it looking alive until
    // the next read.
    pollfd fds[2] = {{conn_->Socket(), POLLIN | POLLRDHUP, 0}, {wake_[0], POLLIN, 0}};
    const int n = ::poll(fds, wake_[0] >= 0 ? 2 : 1, wait_ms);
    if (stop_) return true;
    if (n == 0) break;    // the poll interval (or the retry) is due: check below
    if (n < 0) continue;  // EINTR
    if ((fds[0].revents & (POLLIN | POLLERR | POLLHUP | POLLRDHUP)) == 0) continue;
    const bool alive = conn_->ConsumeInput();
    // Every notification queued so far, then one reload for all of them.
    TakeNotified();
    if (!alive || (fds[0].revents & (POLLERR | POLLHUP | POLLRDHUP)) != 0) {
      SetUp(false, alive ? "the server closed the connection" : conn_->ErrorMessage());
      return false;
    }
    if (timeout_ms < 0) continue;
    if (std::chrono::steady_clock::now() >= deadline) break;
  }
  try {
    if (ReadCatalogIdentity(*conn_) != store_->Snapshot()->Identity() || retry_ms_ > 0) CatchUp();
    return true;
  } catch (const sql::Error& e) {
    SetUp(false, std::string(e.status().message()));
    return false;
  }
}

void CatalogSync::Run() {
  int backoff_ms = kMinBackoffMs;
  while (!stop_) {
    if (conn_ == nullptr || !conn_->Connected()) {
      if (!Connect()) {
        Nap(backoff_ms);
        backoff_ms = std::min(backoff_ms * 2, kMaxBackoffMs);
        continue;
      }
      backoff_ms = kMinBackoffMs;
      // Notifications sent while this connection was down are lost, and the database that
      // answers now may have lost writes this snapshot holds (a failover): compare now.
      try {
        if (ReadCatalogIdentity(*conn_) != store_->Snapshot()->Identity()) CatchUp();
      } catch (const sql::Error& e) {
        SetUp(false, std::string(e.status().message()));
        conn_.reset();
        continue;
      }
      SetUp(true, "");
    }
    if (!WaitAndDrain()) conn_.reset();
  }
}

}  // namespace capplan::store
