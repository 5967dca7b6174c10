// The sync thread behind CatalogSync: LISTEN/NOTIFY with a periodic version check.
#include "server/store/catalog_sync.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "server/store/catalog_store.h"
#include "server/store/pg_connection.h"

namespace capplan::store {

namespace {

constexpr int kMinBackoffMs = 100;
constexpr int kMaxBackoffMs = 2000;

int64_t DatabaseVersion(PgConnection& conn) {
  return conn.QueryInt64("SELECT catalog_version FROM catalog_meta WHERE id = 1");
}

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

void CatalogSync::Nap(int ms) {
  pollfd p{wake_[0], POLLIN, 0};
  ::poll(&p, wake_[0] >= 0 ? 1 : 0, ms);
}

bool CatalogSync::Connect() {
  try {
    conn_ = PgConnection::Open(options_.dsn);
    conn_->set_reconnect(false);
    if (options_.listen) conn_->Exec(absl::StrCat("LISTEN ", kCatalogChannel));
    up_ = true;
    return true;
  } catch (const sql::Error&) {
    conn_.reset();
    up_ = false;
    return false;
  }
}

void CatalogSync::CatchUp(int64_t seen_version) {
  if (seen_version <= store_->Snapshot()->catalog_version) return;
  // The reload reads the version itself: it may be newer still, never older. A failure (the
  // main connection is away too) is retried at the next notification or check.
  absl::StatusOr<bool> reloaded = store_->ReloadIfOlderThan(seen_version);
  if (reloaded.ok() && *reloaded) ++reloads_;
}

void CatalogSync::TakeNotified() {
  int64_t newest = 0;
  for (const std::string& payload : conn_->TakeNotifications()) {
    int64_t v = 0;
    if (absl::SimpleAtoi(payload, &v)) newest = std::max(newest, v);
  }
  CatchUp(newest);
}

bool CatalogSync::WaitAndDrain() {
  const int timeout_ms = options_.poll_interval_ms > 0 ? options_.poll_interval_ms : -1;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    // A notification that arrived while the version check (or a reload) ran is already in
    // libpq's queue and will not make the socket readable again: take it before waiting.
    TakeNotified();
    int wait_ms = -1;
    if (timeout_ms > 0) {
      wait_ms = static_cast<int>(std::max<int64_t>(
          0,
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count()));
    }
    pollfd fds[2] = {{conn_->Socket(), POLLIN, 0}, {wake_[0], POLLIN, 0}};
    const int n = ::poll(fds, wake_[0] >= 0 ? 2 : 1, wait_ms);
    if (stop_) return true;
    if (n == 0) break;    // the poll interval passed: check the version below
    if (n < 0) continue;  // EINTR
    if ((fds[0].revents & (POLLIN | POLLERR | POLLHUP)) == 0) continue;
    if (!conn_->ConsumeInput()) return false;
    // Every notification queued so far, then one reload for all of them.
    TakeNotified();
    if (timeout_ms < 0) continue;
    if (std::chrono::steady_clock::now() >= deadline) break;
  }
  try {
    CatchUp(DatabaseVersion(*conn_));
    return true;
  } catch (const sql::Error&) {
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
      // Notifications sent while this connection was down are lost: compare versions now.
      try {
        CatchUp(DatabaseVersion(*conn_));
      } catch (const sql::Error&) {
        up_ = false;
        continue;
      }
    }
    if (WaitAndDrain()) {
      up_ = true;
    } else {
      up_ = false;
      conn_.reset();
    }
  }
}

}  // namespace capplan::store
