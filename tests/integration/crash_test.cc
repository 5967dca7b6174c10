// Durability with real crashes: a client streams admin writes, the server is SIGKILLed at a
// random moment, restarted, and every acknowledged write must be there, each with exactly one
// audit row, in a database that passes PRAGMA integrity_check. Trials: CAPPLAN_CRASH_TRIALS
// (default 5).
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>

#include <atomic>
#include <cstdlib>
#include <random>
#include <set>
#include <thread>

#include "client/client.h"
#include "server_process.h"

namespace capplan::testing {
namespace {

constexpr char kToken[] = "crash-test-token-0123456789";

int64_t QueryInt(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
  int64_t v = -1;
  if (sqlite3_step(stmt) == SQLITE_ROW) v = sqlite3_column_int64(stmt, 0);
  sqlite3_finalize(stmt);
  return v;
}

TEST(CrashTest, AcknowledgedWritesSurviveSigkill) {
  TempDir dir;
  WriteTokenFile(dir.path() + "/tokens", std::string(kToken) + " crash-tester admin\n");
  const std::vector<std::string> args = {"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0",
                                         "--db=" + dir.path() + "/c.db",
                                         "--admin_token_file=" + dir.path() + "/tokens"};
  const char* env = std::getenv("CAPPLAN_CRASH_TRIALS");
  const int trials = env != nullptr ? std::max(1, std::atoi(env)) : 5;
  std::mt19937 rng(20261130);
  std::set<int64_t> acked;
  int64_t total_acked = 0;
  for (int trial = 0; trial < trials; ++trial) {
    ServerProcess server(args);
    ASSERT_TRUE(server.started()) << server.Wait(0).stderr_text;
    client::ClientOptions o;
    o.server = server.grpc_address();
    o.admin_token = kToken;
    o.timeout = std::chrono::milliseconds(3000);
    client::Client c(o);
    std::atomic<bool> stop{false};
    std::thread writer([&] {
      for (int i = 0; !stop.load(); ++i) {
        capplan::v1::SetPriceRequest r;
        capplan::v1::Price* p = r.mutable_price();
        p->set_provider("aws");
        p->set_instance_type(i % 2 == 0 ? "p5.48xlarge" : "g5.xlarge");
        p->set_region("us-east-1");
        p->set_kind(capplan::v1::PRICE_KIND_SPOT);
        p->set_price_usd_per_hour(1.0 + trial + i * 0.001);
        p->mutable_source()->set_citation("crash-test");
        p->mutable_source()->set_as_of_date("2026-11-30");
        absl::StatusOr<capplan::v1::WriteResponse> w = c.SetPrice(r);
        if (!w.ok()) break;  // the server is gone
        acked.insert(w->id());
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(80, 400)(rng)));
    server.Signal(SIGKILL);
    ExitResult killed = server.Wait(10000);
    stop = true;
    writer.join();
    EXPECT_EQ(killed.signal, SIGKILL);
    total_acked = static_cast<int64_t>(acked.size());
  }
  ASSERT_GT(total_acked, 0) << "no write was acknowledged before the kills";

  // Restart once more: the server must come up on the crashed database...
  {
    ServerProcess server(args);
    ASSERT_TRUE(server.started()) << server.Wait(0).stderr_text;
    server.Signal(SIGTERM);
    EXPECT_EQ(server.Wait(15000).exit_code, 0);
  }
  // ...and the file must hold every acknowledged write with one audit row each.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2((dir.path() + "/c.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &stmt, nullptr);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)), "ok");
  sqlite3_finalize(stmt);
  for (int64_t id : acked) {
    EXPECT_EQ(QueryInt(db, "SELECT COUNT(*) FROM prices WHERE id = " + std::to_string(id) +
                               " AND source_citation = 'crash-test'"),
              1)
        << "acked write " << id << " lost";
    EXPECT_EQ(QueryInt(db, "SELECT COUNT(*) FROM audit_log WHERE method = 'SetPrice' AND entity = 'prices/" +
                               std::to_string(id) + "'"),
              1)
        << id;
  }
  // Committed writes (acknowledged or cut off before the answer) and audit rows match 1:1.
  const int64_t written = QueryInt(db, "SELECT COUNT(*) FROM prices WHERE source_citation = 'crash-test'");
  const int64_t audited = QueryInt(db, "SELECT COUNT(*) FROM audit_log WHERE method = 'SetPrice'");
  EXPECT_EQ(written, audited);
  EXPECT_GE(written, total_acked);
  EXPECT_LE(written - total_acked, trials);  // at most one in flight per kill
  EXPECT_EQ(QueryInt(db, "SELECT catalog_version FROM catalog_meta"), 1 + written);
  sqlite3_close(db);
  std::cout << "crash test: " << trials << " trials, " << total_acked << " acknowledged writes, " << written
            << " committed\n";
}

}  // namespace
}  // namespace capplan::testing
