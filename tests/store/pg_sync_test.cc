// Two catalog stores on one PostgreSQL database, as two replicas: a write on one reaches the
// other's snapshot within 1 s through NOTIFY, or through the periodic version check alone;
// with the server stopped, writes fail fast as Unavailable while snapshots keep answering,
// and after a restart writes succeed again and the other store catches up by itself; an
// immediate (crash) stop loses no acknowledged write.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "pg_store_fixture.h"
#include "server/store/pg_connection.h"

namespace capplan::store {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Seconds until `store`'s snapshot reaches `version`, or -1 after `limit_seconds`.
double WaitForVersion(const CatalogStore& store, int64_t version, double limit_seconds) {
  const auto t0 = Clock::now();
  while (store.Snapshot()->catalog_version < version) {
    if (SecondsSince(t0) > limit_seconds) return -1;
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  return SecondsSince(t0);
}

using PgSyncTest = PgStoreTest;

TEST_F(PgSyncTest, WriteOnOneStoreReachesTheOtherWithinOneSecondByNotify) {
  const std::string dsn = FreshDatabase();
  // A poll interval far beyond the test: only NOTIFY can explain a prompt catch-up.
  std::unique_ptr<CatalogStore> a = OpenStore(dsn, true, 600000), b = OpenStore(dsn, true, 600000);
  ASSERT_TRUE(a != nullptr && b != nullptr);
  std::atomic<int64_t> heard{0};
  const int handle = b->AddPublishListener([&](int64_t v) { heard = v; });
  std::vector<double> seconds;
  for (int i = 0; i < 100; ++i) {
    // AWS EC2 P5 page: p5.48xlarge on demand in us-east-1, $55.04/h after the June 2025 cut;
    // a tenth of a cent more each time, so each write is a distinct price row.
    absl::StatusOr<WriteResult> w = a->SetPrice({"alice", "SetPrice"}, P5Price(55.04 + i / 1000.0, 1750000000 + i));
    ASSERT_TRUE(w.ok()) << w.status();
    const double s = WaitForVersion(*b, w->catalog_version, 5.0);
    ASSERT_GE(s, 0) << "store B never saw catalog version " << w->catalog_version;
    seconds.push_back(s);
  }
  b->RemovePublishListener(handle);
  EXPECT_EQ(heard.load(), b->Snapshot()->catalog_version);  // B's listeners fired for the reload
  EXPECT_GE(b->sync_reloads(), 1);
  EXPECT_EQ(a->sync_reloads(), 0);  // its own notifications cost the writer no reload
  const std::shared_ptr<const CatalogSnapshot> b_now = b->Snapshot();  // p points into it
  const PriceRow* p =
      b_now->PriceAt(*b_now->FindInstance("aws", "p5.48xlarge", "us-east-1"), PriceKind::kOnDemand, 1750000000 + 99);
  ASSERT_NE(p, nullptr);
  EXPECT_DOUBLE_EQ(p->price_usd_per_hour, 55.04 + 99 / 1000.0);
  std::sort(seconds.begin(), seconds.end());
  const double p50 = seconds[seconds.size() / 2], p99 = seconds[seconds.size() * 99 / 100];
  std::printf("cross-store visibility by NOTIFY over %zu writes: p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
              seconds.size(), p50 * 1e3, p99 * 1e3, seconds.back() * 1e3);
  EXPECT_LT(p99, 1.0);
}

TEST_F(PgSyncTest, PeriodicVersionCheckAloneCatchesUpWhenNotListening) {
  const std::string dsn = FreshDatabase();
  std::unique_ptr<CatalogStore> a = OpenStore(dsn), b = OpenStore(dsn, /*listen=*/false, /*poll_interval_ms=*/200);
  ASSERT_TRUE(a != nullptr && b != nullptr);
  GpuRow l4 = *a->Snapshot()->FindGpu("L4");
  l4.spec.tdp_watts = 72;  // NVIDIA L4 datasheet: 72 W
  absl::StatusOr<WriteResult> w = a->UpsertGpu({"bob", "UpsertGpu"}, l4);
  ASSERT_TRUE(w.ok()) << w.status();
  const double s = WaitForVersion(*b, w->catalog_version, 3.0);
  ASSERT_GE(s, 0);
  EXPECT_LT(s, 1.0);
  EXPECT_EQ(b->Snapshot()->FindGpu("L4")->spec.tdp_watts, 72);
}

TEST_F(PgSyncTest, ServerDownFailsWritesFastKeepsSnapshotsAndRecoversByItself) {
  absl::StatusOr<std::unique_ptr<testing::PgCluster>> own = testing::PgCluster::Start();
  ASSERT_TRUE(own.ok()) << own.status();
  const std::string dsn = FreshDatabase(own->get());
  std::unique_ptr<CatalogStore> a = OpenStore(dsn), b = OpenStore(dsn);
  ASSERT_TRUE(a != nullptr && b != nullptr);
  const int64_t v0 = a->Snapshot()->catalog_version;
  ASSERT_TRUE((*own)->Stop("fast").ok());

  const auto t0 = Clock::now();
  absl::StatusOr<WriteResult> refused = a->SetPrice({"alice", "SetPrice"}, P5Price(50, 1750000000));
  EXPECT_LT(SecondsSince(t0), 1.0);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnavailable) << refused.status();
  EXPECT_NE(refused.status().message().find("not applied"), std::string::npos) << refused.status();
  // Readers keep their snapshot.
  EXPECT_EQ(a->Snapshot()->catalog_version, v0);
  EXPECT_NE(b->Snapshot()->FindGpu("H100-SXM5-80GB"), nullptr);
  for (int i = 0; i < 100 && b->database_up(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_FALSE(b->database_up());

  ASSERT_TRUE((*own)->Restart().ok()) << (*own)->Log();
  absl::StatusOr<WriteResult> w = a->SetPrice({"alice", "SetPrice"}, P5Price(51, 1750000000));
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->catalog_version, v0 + 1);
  // The other store reconnects (backoff at most 2 s) and reloads: notifications sent while
  // it was away are lost, so it compares versions.
  EXPECT_GE(WaitForVersion(*b, w->catalog_version, 4.0), 0);
  for (int i = 0; i < 100 && !b->database_up(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_TRUE(b->database_up());
}

TEST_F(PgSyncTest, ConnectionsDroppedWhileIdleAreReplacedOnTheNextWrite) {
  const std::string dsn = FreshDatabase();
  std::unique_ptr<CatalogStore> a = OpenStore(dsn), b = OpenStore(dsn);
  ASSERT_TRUE(a != nullptr && b != nullptr);
  const std::string db = dsn.substr(dsn.find("@/") + 2, dsn.find('?') - dsn.find("@/") - 2);
  // As a restart or a failover proxy would: every capplan session of the database ends.
  absl::StatusOr<std::string> killed =
      cluster_->Psql(db,
                     "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() "
                     "AND backend_type = 'client backend' AND pid <> pg_backend_pid()");
  ASSERT_TRUE(killed.ok()) << killed.status();
  EXPECT_EQ(*killed, "4\n");  // each store's write and sync connections
  absl::StatusOr<WriteResult> w = a->SetPrice({"alice", "SetPrice"}, P5Price(52, 1750000000));
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_GE(WaitForVersion(*b, w->catalog_version, 4.0), 0);
}

TEST_F(PgSyncTest, ConnectionLostDuringCommitIsUnavailableNeverOk) {
  const std::string dsn = FreshDatabase();
  std::unique_ptr<CatalogStore> a = OpenStore(dsn);
  ASSERT_NE(a, nullptr);
  const std::string db = dsn.substr(dsn.find("@/") + 2, dsn.find('?') - dsn.find("@/") - 2);
  // A deferred trigger runs at COMMIT and ends its own session there: the client's COMMIT
  // gets no answer.
  ASSERT_TRUE(cluster_
                  ->Psql(db,
                         "CREATE FUNCTION end_session() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                         "PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NULL; END $$; "
                         "CREATE CONSTRAINT TRIGGER end_session AFTER INSERT ON audit_log DEFERRABLE INITIALLY "
                         "DEFERRED FOR EACH ROW EXECUTE FUNCTION end_session()")
                  .ok());
  const int64_t v0 = a->Snapshot()->catalog_version;
  absl::StatusOr<WriteResult> lost = a->SetPrice({"alice", "SetPrice", "req-commit", "fp"}, P5Price(53, 1750000000));
  EXPECT_EQ(lost.status().code(), absl::StatusCode::kUnavailable) << lost.status();
  EXPECT_NE(lost.status().message().find("COMMIT"), std::string::npos) << lost.status();
  ASSERT_TRUE(cluster_->Psql(db, "DROP TRIGGER end_session ON audit_log").ok());
  // The retry with the same request id applies it exactly once.
  absl::StatusOr<WriteResult> retry = a->SetPrice({"alice", "SetPrice", "req-commit", "fp"}, P5Price(53, 1750000000));
  ASSERT_TRUE(retry.ok()) << retry.status();
  EXPECT_EQ(retry->catalog_version, v0 + 1);
}

TEST_F(PgSyncTest, AWriterStuckHoldingTheWriteLockDelaysOthersBoundedly) {
  const std::string dsn = FreshDatabase();
  std::unique_ptr<CatalogStore> a = OpenStore(dsn);
  ASSERT_NE(a, nullptr);
  // A replica frozen inside a write transaction, as a session holding the write lock.
  std::unique_ptr<PgConnection> stuck = PgConnection::Open(dsn);
  stuck->Exec(absl::StrCat("SELECT pg_advisory_lock(", kPgWriteLock, ")"));
  const auto t0 = Clock::now();
  absl::StatusOr<WriteResult> blocked = a->SetPrice({"alice", "SetPrice"}, P5Price(54, 1750000000));
  const double waited = SecondsSince(t0);
  EXPECT_EQ(blocked.status().code(), absl::StatusCode::kUnavailable) << blocked.status();
  EXPECT_GE(waited, 9.0);   // the 10 s lock_timeout, not an immediate refusal
  EXPECT_LT(waited, 30.0);  // and not until TCP gives up
  stuck->Exec(absl::StrCat("SELECT pg_advisory_unlock(", kPgWriteLock, ")"));
  absl::StatusOr<WriteResult> after = a->SetPrice({"alice", "SetPrice"}, P5Price(54, 1750000000));
  EXPECT_TRUE(after.ok()) << after.status();
}

TEST_F(PgSyncTest, CrashStopLosesNoAcknowledgedWrite) {
  absl::StatusOr<std::unique_ptr<testing::PgCluster>> own = testing::PgCluster::Start();
  ASSERT_TRUE(own.ok()) << own.status();
  const std::string dsn = FreshDatabase(own->get());
  std::vector<int64_t> acknowledged;
  {
    std::unique_ptr<CatalogStore> a = OpenStore(dsn);
    ASSERT_NE(a, nullptr);
    for (int i = 0; i < 20; ++i) {
      absl::StatusOr<WriteResult> w = a->SetPrice({"alice", "SetPrice"}, P5Price(40 + i, 1750000000 + i));
      ASSERT_TRUE(w.ok()) << w.status();
      acknowledged.push_back(w->id);
    }
    ASSERT_TRUE((*own)->Stop("immediate").ok());
  }
  ASSERT_TRUE((*own)->Restart().ok()) << (*own)->Log();
  std::unique_ptr<CatalogStore> after = OpenStore(dsn);
  ASSERT_NE(after, nullptr);
  std::vector<int64_t> ids;
  const std::shared_ptr<const CatalogSnapshot> snapshot = after->Snapshot();  // the rows point into it
  for (const PriceRow* p : snapshot->PriceHistory("aws", "p5.48xlarge", "us-east-1")) ids.push_back(p->id);
  for (int64_t id : acknowledged) EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << "price " << id;
}

}  // namespace
}  // namespace capplan::store
