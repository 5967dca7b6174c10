// Replicas over one PostgreSQL catalog, as a user sees them: a write taken by any replica is
// visible on the other two within a second (measured over 50 writes, p50/p99 printed), the
// replica that took it reads its own write at once, and a server whose database cannot be
// reached refuses to start with one line.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_split.h"
#include "tests/replicas/replica_cluster.h"

namespace capplan::testing {
namespace {

using std::chrono::steady_clock;

// Polls GetCatalogVersion on each of `readers` until it reports `version`; the milliseconds
// from `since` to each one's first sighting (-1 for one that did not within `timeout`).
std::vector<double> SightingsMs(std::vector<client::Client*> readers, int64_t version, steady_clock::time_point since,
                                std::chrono::milliseconds timeout) {
  std::vector<double> ms(readers.size(), -1);
  size_t pending = readers.size();
  while (pending > 0 && steady_clock::now() - since < timeout) {
    for (size_t i = 0; i < readers.size(); ++i) {
      if (ms[i] >= 0) continue;
      absl::StatusOr<capplan::v1::GetCatalogVersionResponse> v = readers[i]->GetCatalogVersion();
      if (v.ok() && v->catalog_version() >= version) {
        ms[i] = std::chrono::duration<double, std::milli>(steady_clock::now() - since).count();
        --pending;
      }
    }
    // 1 ms between rounds: the measurement's resolution, and CPU left to the replicas.
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return ms;
}

TEST(ReplicaTest, AWriteOnOneReplicaIsVisibleOnTheOthersWithinOneSecond) {
  absl::StatusOr<std::unique_ptr<ReplicaCluster>> started = ReplicaCluster::Start(3);
  ASSERT_TRUE(started.ok()) << started.status();
  ReplicaCluster& cluster = **started;
  std::vector<client::Client> clients;
  clients.reserve(3);
  for (int i = 0; i < 3; ++i) clients.push_back(cluster.MakeClient(i));

  constexpr int kWrites = 50;
  std::vector<double> visibility_ms;
  int64_t last_version = 0;
  for (int i = 0; i < kWrites; ++i) {
    const int writer = i % 3;
    absl::StatusOr<capplan::v1::WriteResponse> w =
        clients[writer].SetPrice(SpotPrice(20.0 + 0.01 * i, "replica visibility test"));
    ASSERT_TRUE(w.ok()) << "write " << i << " on replica " << writer << ": " << w.status();
    const steady_clock::time_point acked = steady_clock::now();
    EXPECT_GT(w->catalog_version(), last_version) << "every write raises the shared catalog version";
    last_version = w->catalog_version();
    // Read-your-writes on the replica that took it: no waiting.
    absl::StatusOr<capplan::v1::GetCatalogVersionResponse> own = clients[writer].GetCatalogVersion();
    ASSERT_TRUE(own.ok()) << own.status();
    EXPECT_GE(own->catalog_version(), w->catalog_version()) << "replica " << writer << " lost its own write";

    std::vector<client::Client*> others;
    for (int r = 0; r < 3; ++r) {
      if (r != writer) others.push_back(&clients[r]);
    }
    const std::vector<double> ms = SightingsMs(others, w->catalog_version(), acked, std::chrono::milliseconds(3000));
    for (double m : ms) {
      EXPECT_GE(m, 0) << "write " << i << " (version " << w->catalog_version() << ") not seen within 3 s";
      EXPECT_LE(m, 1000) << "write " << i << " took over 1 s to reach another replica";
      if (m >= 0) visibility_ms.push_back(m);
    }
    // The write itself (not only the version number) is there to read on the others.
    if (i % 10 == 0) {
      for (client::Client* other : others)
        EXPECT_EQ(P5UsEast1PriceIds(*other).count(w->id()), 1u) << "price " << w->id();
    }
  }
  // Every replica plans on the same catalog, and it is the one PostgreSQL holds.
  capplan::v1::PlanRequest plan;
  plan.mutable_serving()->set_model_name("Llama-2-7B");
  plan.mutable_serving()->set_prompt_tokens(512);
  plan.mutable_serving()->set_output_tokens(128);
  plan.mutable_serving()->set_requests_per_second(35);
  plan.set_view(capplan::v1::VIEW_BASIC);
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<capplan::v1::PlanResponse> p = clients[i].Plan(plan);
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_EQ(p->catalog_version(), last_version) << "replica " << i;
  }
  EXPECT_EQ(cluster.QueryPg("SELECT catalog_version FROM catalog_meta"), last_version);
  EXPECT_EQ(cluster.QueryPg("SELECT COUNT(*) FROM audit_log WHERE method = 'SetPrice'"), kWrites);
  // The gauge operators compare across replicas (deploy/README.md "Checking convergence")
  // follows the writes other replicas took, not only this replica's own.
  for (int i = 0; i < 3; ++i) {
    int status = 0;
    const std::string page = HttpGet(cluster.replica(i).metrics_port(), "/metrics", &status);
    EXPECT_NE(page.find("\ncapplan_catalog_version " + std::to_string(last_version) + "\n"), std::string::npos)
        << "replica " << i << " /metrics (HTTP " << status << ") does not report catalog version " << last_version;
  }
  std::cout << "replica visibility: " << visibility_ms.size() << " sightings of " << kWrites
            << " writes on the 2 other replicas: p50 " << Percentile(visibility_ms, 0.5) << " ms, p99 "
            << Percentile(visibility_ms, 0.99) << " ms, max " << Percentile(visibility_ms, 1.0) << " ms\n";
}

// A change that reaches PostgreSQL without a notification (an operator's SQL, a restored
// backup; here a price row and a version bump by psql) still reaches every replica through
// the periodic version check (default every 2 s).
TEST(ReplicaTest, AChangeWithoutANotificationArrivesWithTheVersionCheck) {
  absl::StatusOr<std::unique_ptr<ReplicaCluster>> started = ReplicaCluster::Start(3);
  ASSERT_TRUE(started.ok()) << started.status();
  ReplicaCluster& cluster = **started;
  const int64_t before = cluster.QueryPg("SELECT catalog_version FROM catalog_meta");
  ASSERT_GT(before, 0);
  // One statement, so one transaction: the version moves with the row.
  const int64_t id = cluster.QueryPg(
      "WITH bump AS (UPDATE catalog_meta SET catalog_version = catalog_version + 1 RETURNING 1) "
      "INSERT INTO prices (provider, instance_type, region, kind, price_usd_per_hour, effective_unix_seconds, "
      "source_citation, source_as_of_date) SELECT 'aws', 'p5.48xlarge', 'us-east-1', 'spot', 12.5, "
      "CAST(EXTRACT(EPOCH FROM now()) AS BIGINT), 'replica test: direct SQL', '2026-12-01' FROM bump RETURNING id");
  ASSERT_GT(id, 0);
  const steady_clock::time_point written = steady_clock::now();
  absl::StatusOr<std::vector<int64_t>> seen = cluster.WaitForVersion(before + 1, std::chrono::milliseconds(5000));
  ASSERT_TRUE(seen.ok()) << seen.status();
  const double ms = std::chrono::duration<double, std::milli>(steady_clock::now() - written).count();
  for (int i = 0; i < cluster.size(); ++i) {
    client::Client c = cluster.MakeClient(i);
    EXPECT_EQ(P5UsEast1PriceIds(c).count(id), 1u) << "replica " << i;
  }
  std::cout << "a change without NOTIFY reached all 3 replicas in " << ms << " ms (version check every 2 s)\n";
}

// The one-line start-up failure, for a database nobody listens on: over TCP on a loopback
// port that was free a moment ago, and over a unix socket directory that does not exist.
TEST(ReplicaTest, StartUpWithAnUnreachableDatabaseFailsWithOneLine) {
  TempDir dir;
  const int port = UnusedLoopbackPort();
  ASSERT_GT(port, 0);
  const std::vector<std::string> dsns = {
      "postgresql://capplan:not-a-real-password@127.0.0.1:" + std::to_string(port) + "/capplan?connect_timeout=2",
      "postgresql://capplan:not-a-real-password@/capplan?host=" + dir.path() + "/no-such-dir&port=5432"};
  for (const std::string& dsn : dsns) {
    const steady_clock::time_point t0 = steady_clock::now();
    ExitResult r = RunProgram({CAPPLAN_SERVER_BINARY, "--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0",
                               "--http_listen=", "--db=" + dsn},
                              20000);
    const double seconds = std::chrono::duration<double>(steady_clock::now() - t0).count();
    EXPECT_NE(r.exit_code, 0) << dsn;
    EXPECT_EQ(r.signal, 0) << "killed rather than exited: " << dsn;
    EXPECT_LT(seconds, 10) << "start-up failure took " << seconds << " s: " << dsn;
    const std::vector<std::string> lines = absl::StrSplit(r.stderr_text, '\n', absl::SkipEmpty());
    EXPECT_EQ(lines.size(), 1u) << "stderr:\n" << r.stderr_text;
    EXPECT_FALSE(r.stderr_text.empty());
    EXPECT_EQ(r.stderr_text.find("not-a-real-password"), std::string::npos)
        << "the password must not reach the log: " << r.stderr_text;
    EXPECT_EQ(r.stdout_text.find("serving"), std::string::npos) << r.stdout_text;
    std::cout << "unreachable database (" << seconds << " s): " << r.stderr_text;
  }
}

}  // namespace
}  // namespace capplan::testing
