// Following the writes of other replicas on a shared PostgreSQL catalog. A thread with its own
// connection LISTENs on capplan_catalog (every write NOTIFYs the new catalog version at
// commit) and, every poll interval, also reads catalog_meta in case a notification was missed.
// When the database is ahead of the snapshot it reloads every table once, however many
// notifications came in meanwhile; the store's publish listeners then fire as for a local
// write. A lost connection is retried with backoff (100 ms doubling to 2 s), and after
// reconnecting it checks the version at once, since notifications sent meanwhile are gone.
#pragma once

#include <atomic>
#include <cstdint>
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
  // Snapshots reloaded because another replica wrote.
  int64_t reloads() const { return reloads_.load(); }

 private:
  void Run();
  // Connects (and LISTENs); false when the database is away.
  bool Connect();
  // Reloads when the database's version (or a notified one) is ahead of the snapshot.
  void CatchUp(int64_t seen_version);
  // Catches up to the newest notified version among those libpq has queued.
  void TakeNotified();
  // Waits for a notification, the poll interval or Stop; false when the connection is lost.
  bool WaitAndDrain();
  // Sleeps `ms` unless stopped first.
  void Nap(int ms);

  const CatalogSyncOptions options_;
  CatalogStore* const store_;
  std::unique_ptr<PgConnection> conn_;  // used by the thread only
  int wake_[2] = {-1, -1};              // a pipe: writing to it interrupts the wait
  std::atomic<bool> stop_{false};
  std::atomic<bool> up_{false};
  std::atomic<int64_t> reloads_{0};
  std::thread thread_;
};

}  // namespace capplan::store
