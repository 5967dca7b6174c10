// Catalog stores on PostgreSQL when the database behind them loses or replaces writes, or
// restarts after a crash. A failover to a standby that missed acknowledged writes (the
// database comes back at a lower catalog version, on a new timeline) and a restore of an
// earlier copy that then reached the same version through other writes (same number, other
// content): every store must come to hold the database's content, not only its version. After
// PostgreSQL's immediate stop and restart, the first write succeeds, and a store whose
// connections died while idle follows the next write without waiting for its poll interval.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <set>
#include <string>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "pg_store_fixture.h"
#include "server/store/pg_connection.h"

namespace capplan::store {
namespace {

using Clock = std::chrono::steady_clock;

// Polls `done` every 20 ms for up to `limit_seconds`; whether it came true.
bool Eventually(const std::function<bool()>& done, double limit_seconds) {
  const auto t0 = Clock::now();
  while (!done()) {
    if (std::chrono::duration<double>(Clock::now() - t0).count() > limit_seconds) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// The price history of aws p5.48xlarge us-east-1 as "id|price in 1/10000 USD" entries.
using Prices = std::set<std::string>;

Prices SnapshotPrices(const CatalogStore& store) {
  Prices out;
  // Held for the loop: the rows point into it, and the sync thread may publish a newer one
  // (a temporary in the range expression would be released before the loop runs).
  const std::shared_ptr<const CatalogSnapshot> snapshot = store.Snapshot();
  for (const PriceRow* p : snapshot->PriceHistory("aws", "p5.48xlarge", "us-east-1")) {
    out.insert(absl::StrCat(p->id, "|", std::llround(p->price_usd_per_hour * 10000)));
  }
  return out;
}

Prices DatabasePrices(testing::PgCluster& cluster, const std::string& db) {
  absl::StatusOr<std::string> rows = cluster.Psql(
      db,
      "SELECT id || '|' || round(price_usd_per_hour * 10000)::bigint FROM prices WHERE provider = 'aws' AND "
      "instance_type = 'p5.48xlarge' AND region = 'us-east-1'");
  EXPECT_TRUE(rows.ok()) << rows.status();
  Prices out;
  if (!rows.ok()) return out;
  for (absl::string_view line : absl::StrSplit(*rows, '\n', absl::SkipEmpty())) out.insert(std::string(line));
  return out;
}

int64_t DatabaseVersion(testing::PgCluster& cluster, const std::string& db) {
  absl::StatusOr<std::string> v = cluster.Psql(db, "SELECT catalog_version FROM catalog_meta");
  int64_t out = -1;
  if (!v.ok() || !absl::SimpleAtoi(absl::StripAsciiWhitespace(*v), &out)) return -1;
  return out;
}

std::string DbName(const std::string& dsn) {
  return dsn.substr(dsn.find("@/") + 2, dsn.find('?') - dsn.find("@/") - 2);
}

class PgFailoverTest : public PgStoreTest {
 protected:
  // `n` price writes through `store` at `usd`, `usd` + 1, ...; each must be acknowledged.
  static int64_t WritePrices(CatalogStore& store, int n, double usd) {
    int64_t version = 0;
    for (int i = 0; i < n; ++i) {
      absl::StatusOr<WriteResult> w = store.SetPrice({"ops", "SetPrice"}, P5Price(usd + i, 1750000000 + i));
      EXPECT_TRUE(w.ok()) << w.status();
      if (w.ok()) version = w->catalog_version;
    }
    return version;
  }
};

TEST_F(PgFailoverTest, FailoverToAStandbyThatMissedWritesBringsEveryStoreBackToTheDatabase) {
  absl::StatusOr<std::unique_ptr<testing::PgCluster>> own = testing::PgCluster::Start();
  ASSERT_TRUE(own.ok()) << own.status();
  testing::PgCluster& pg = **own;
  const std::string dsn = FreshDatabase(&pg), db = DbName(dsn);
  // B's poll interval is far beyond the test: only the comparison made when it reconnects to
  // the new primary can explain its reload.
  std::unique_ptr<CatalogStore> a = OpenStore(dsn), b = OpenStore(dsn, true, 600000);
  ASSERT_TRUE(a != nullptr && b != nullptr);
  const int64_t kept = WritePrices(*a, 3, 60);
  ASSERT_TRUE(Eventually([&] { return b->Snapshot()->catalog_version == kept; }, 20));

  // The standby as it was when replication stopped reaching it.
  ASSERT_TRUE(pg.Stop("fast").ok());
  ASSERT_TRUE(pg.SaveCopy("standby").ok());
  ASSERT_TRUE(pg.Restart().ok()) << pg.Log();
  // Acknowledged on the old primary only.
  const int64_t lost = WritePrices(*a, 5, 70);
  ASSERT_EQ(lost, kept + 5);
  ASSERT_TRUE(Eventually([&] { return SnapshotPrices(*b) == DatabasePrices(pg, db); }, 20));
  const Prices with_lost = SnapshotPrices(*b);

  // The old primary dies; the standby is promoted behind the same address.
  ASSERT_TRUE(pg.Stop("immediate").ok());
  ASSERT_TRUE(pg.RestoreCopy("standby", /*as_standby=*/true).ok());
  ASSERT_TRUE(pg.Restart().ok()) << pg.Log();
  ASSERT_TRUE(pg.Promote().ok()) << pg.Log();
  ASSERT_EQ(DatabaseVersion(pg, db), kept);  // lower than every store's

  const Prices truth = DatabasePrices(pg, db);
  ASSERT_NE(truth, with_lost);
  EXPECT_TRUE(Eventually([&] { return SnapshotPrices(*b) == truth; }, 30))
      << "store B still serves prices the database lost (version " << b->Snapshot()->catalog_version << ")";
  EXPECT_TRUE(Eventually([&] { return SnapshotPrices(*a) == truth; }, 30)) << "store A";
  EXPECT_EQ(b->Snapshot()->catalog_version, kept);

  // Writing resumes on the new primary, and both stores follow it without the lost rows.
  absl::StatusOr<WriteResult> w = a->SetPrice({"ops", "SetPrice"}, P5Price(90, 1760000000));
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->catalog_version, kept + 1);
  EXPECT_TRUE(Eventually([&] { return SnapshotPrices(*b) == DatabasePrices(pg, db); }, 20));
  EXPECT_EQ(SnapshotPrices(*a), DatabasePrices(pg, db));
}

TEST_F(PgFailoverTest, ARestoredCopyThatReachedTheSameVersionByOtherWritesIsReloaded) {
  absl::StatusOr<std::unique_ptr<testing::PgCluster>> own = testing::PgCluster::Start();
  ASSERT_TRUE(own.ok()) << own.status();
  testing::PgCluster& pg = **own;
  const std::string dsn = FreshDatabase(&pg), db = DbName(dsn);
  const int port = pg.port();
  std::unique_ptr<CatalogStore> a = OpenStore(dsn), b = OpenStore(dsn, true, 600000);
  ASSERT_TRUE(a != nullptr && b != nullptr);
  WritePrices(*a, 1, 60);
  ASSERT_TRUE(pg.Stop("fast").ok());
  ASSERT_TRUE(pg.SaveCopy("backup").ok());
  ASSERT_TRUE(pg.Restart().ok()) << pg.Log();
  const int64_t before_restore = WritePrices(*a, 5, 70);
  ASSERT_TRUE(Eventually([&] { return SnapshotPrices(*b) == DatabasePrices(pg, db); }, 20));
  const Prices held = SnapshotPrices(*b);

  // The backup is restored and, out of the stores' reach (another port), takes five other
  // writes: the same catalog version as the stores hold, other prices.
  ASSERT_TRUE(pg.Stop("fast").ok());
  ASSERT_TRUE(pg.RestoreCopy("backup", /*as_standby=*/false).ok());
  ASSERT_TRUE(pg.Restart(port + 1).ok()) << pg.Log();
  {
    std::unique_ptr<CatalogStore> c = OpenStore(pg.Dsn(db));
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(WritePrices(*c, 5, 80), before_restore);
  }
  ASSERT_TRUE(pg.Stop("fast").ok());
  ASSERT_TRUE(pg.Restart(port).ok()) << pg.Log();
  ASSERT_EQ(DatabaseVersion(pg, db), b->Snapshot()->catalog_version);

  const Prices truth = DatabasePrices(pg, db);
  ASSERT_NE(truth, held);
  EXPECT_TRUE(Eventually([&] { return SnapshotPrices(*b) == truth; }, 30))
      << "store B kept its content because the version number matched";
  EXPECT_TRUE(Eventually([&] { return SnapshotPrices(*a) == truth; }, 30)) << "store A";
}

TEST_F(PgFailoverTest, FirstWriteAfterACrashRestartSucceedsAndIdleStoresFollowIt) {
  absl::StatusOr<std::unique_ptr<testing::PgCluster>> own = testing::PgCluster::Start();
  ASSERT_TRUE(own.ok()) << own.status();
  testing::PgCluster& pg = **own;
  const std::string dsn = FreshDatabase(&pg);
  // B polls far beyond the test and does not write: it follows A's write only by noticing its
  // dead connection, reconnecting, and reloading over its own stale main connection.
  std::unique_ptr<CatalogStore> a = OpenStore(dsn), b = OpenStore(dsn, true, 600000);
  ASSERT_TRUE(a != nullptr && b != nullptr);
  const int64_t v0 = WritePrices(*a, 1, 60);
  ASSERT_TRUE(Eventually([&] { return b->Snapshot()->catalog_version == v0; }, 20));

  ASSERT_TRUE(pg.Stop("immediate").ok());
  ASSERT_TRUE(pg.Restart().ok()) << pg.Log();
  absl::StatusOr<WriteResult> w = a->SetPrice({"ops", "SetPrice"}, P5Price(61, 1750000100));
  ASSERT_TRUE(w.ok()) << "the first write after the restart: " << w.status();
  EXPECT_EQ(w->catalog_version, v0 + 1);
  EXPECT_TRUE(Eventually([&] { return b->Snapshot()->catalog_version == w->catalog_version; }, 30))
      << "the idle store did not follow the write";
  EXPECT_TRUE(Eventually([&] { return b->database_up(); }, 10));
}

TEST_F(PgFailoverTest, AStatementInsideATransactionIsNeverResentOnANewConnection) {
  const std::string dsn = FreshDatabase(), db = DbName(dsn);
  std::unique_ptr<PgConnection> conn = PgConnection::Open(dsn);
  conn->Exec("CREATE TABLE t (x BIGINT)");
  conn->Begin(sql::TxKind::kWrite);
  conn->Exec("INSERT INTO t VALUES (1)");
  const int64_t pid = conn->QueryInt64("SELECT pg_backend_pid()");
  ASSERT_TRUE(cluster_->Psql(db, absl::StrCat("SELECT pg_terminate_backend(", pid, ")")).ok());
  try {
    conn->Exec("INSERT INTO t VALUES (2)");
    ADD_FAILURE() << "a statement on a dead connection inside a transaction succeeded";
  } catch (const sql::Error& e) {
    EXPECT_EQ(e.status().code(), absl::StatusCode::kUnavailable) << e.status();
  }
  conn->Rollback();
  // Outside a transaction the next statement reconnects by itself; neither row was applied.
  EXPECT_EQ(conn->QueryInt64("SELECT COUNT(*) FROM t"), 0);
}

}  // namespace
}  // namespace capplan::store
