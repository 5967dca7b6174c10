// Following the writes of other replicas on a shared PostgreSQL catalog. A thread with its own
// connection LISTENs on capplan_catalog (every write NOTIFYs the new catalog version at
// commit) and, every poll interval, also reads the database's catalog identity (version,
// write token, epoch) in case a notification was missed. When the database differs from the
// snapshot (ahead, behind after a lossy failover, or the same version reached by other
// writes) it reloads every table once, however many notifications came in meanwhile; the
// store's publish listeners then fire as for a local write. A lost connection (the socket
// closed, or a statement failing) is retried with backoff (100 ms doubling to 2 s), and after
// reconnecting it compares at once, since notifications sent meanwhile are gone. A reload
// that fails is retried with the same backoff, not a poll interval later. Going down and
// coming back are logged, one line each.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace capplan::store {

class CatalogStore;
class PgConnection;

struct CatalogSyncOptions {
  std::string dsn;              // with WithConnectDefaults applied
  bool listen = true;           // false: the periodic check alone (tests of the fallback)
  int poll_interval_ms = 2000;  // 0: no periodic check (notifications only)
  std::string shown_dsn;        // the DSN without its password, for the log
  // Receives one line when the database goes down and one when it is back; stderr if unset.
  std::function<void(const std::string&)> log = nullptr;
};

class CatalogSync {
 public:
  // Starts the thread; `store` must outlive this object.
  CatalogSync(CatalogSyncOptions options, CatalogStore* store);
  // Stops and joins the thread.
  ~CatalogSync();
  CatalogSync(const CatalogSync&) = delete;
  CatalogSync& operator=(const CatalogSync&) = delete;

  // Whether the sync connection is up (the database answered its last call).
  bool up() const { return up_.load(); }
  // Snapshots reloaded because the database changed under this replica (another replica
  // wrote, or a failover or restore lost writes).
  int64_t reloads() const { return reloads_.load(); }

 private:
  void Run();
  // Connects (and LISTENs); false when the database is away.
  bool Connect();
  // Reloads unless the database's identity is the snapshot's; false when the reload failed
  // (it is then retried with backoff).
  bool CatchUp();
  // Catches up when a notification names another version than the snapshot's.
  void TakeNotified();
  // Waits for a notification, the poll interval (or the retry of a failed reload) or Stop;
  // false when the connection is lost.
  bool WaitAndDrain();
  // Sleeps `ms` unless stopped first.
  void Nap(int ms);
  // Logs the change when `up` differs from the last state logged.
  void SetUp(bool up, const std::string& reason);
  void Log(const std::string& line) const;

  const CatalogSyncOptions options_;
  CatalogStore* const store_;
  std::unique_ptr<PgConnection> conn_;  // used by the thread only
  int wake_[2] = {-1, -1};              // a pipe: writing to it interrupts the wait
  std::atomic<bool> stop_{false};
  std::atomic<bool> up_{true};  // the store has just loaded from the database
  std::atomic<int64_t> reloads_{0};
  // Used by the thread only.
  bool logged_up_ = true;  // the store opened on a reachable database
  std::chrono::steady_clock::time_point down_since_;
  int retry_ms_ = 0;  // > 0: a reload failed; check again this soon
  std::thread thread_;
};

}  // namespace capplan::store
