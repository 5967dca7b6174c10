// Test support for the replica tests: a throwaway PostgreSQL 15 cluster and N real
// capplan-server processes on the same database (--db=postgresql://...), each on its own
// loopback port 0, with an admin token. Replicas can be killed and started again.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client/client.h"
#include "tests/integration/server_process.h"
#include "tests/pg/pg_cluster.h"

namespace capplan::testing {

inline constexpr char kReplicaAdminToken[] = "replica-admin-token-0123456789";
inline constexpr char kCatalogDb[] = "capplan";

class ReplicaCluster {
 public:
  // Starts PostgreSQL, creates the catalog database and starts `replicas` servers one after
  // the other (the first creates and migrates the schema). Unavailable with the reason (and
  // the failing server's stderr) when any of it does not start.
  static absl::StatusOr<std::unique_ptr<ReplicaCluster>> Start(int replicas);
  ReplicaCluster(const ReplicaCluster&) = delete;
  ReplicaCluster& operator=(const ReplicaCluster&) = delete;
  ~ReplicaCluster();

  PgCluster& pg() { return *pg_; }
  int size() const { return static_cast<int>(servers_.size()); }
  ServerProcess& replica(int i) { return *servers_[static_cast<size_t>(i)]; }
  // The arguments every replica runs with (the DSN, port 0 everywhere, the token file).
  std::vector<std::string> ServerArgs() const;
  // (Re)starts replica i with ServerArgs(); the old process must have exited.
  absl::Status StartReplica(int i);

  // A client of replica i with the admin token, `attempts` tries per call (1: no retry, so
  // every UNAVAILABLE the server answers is seen) and a per-call deadline.
  client::Client MakeClient(int i, int attempts = 1,
                            std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));

  // One integer from PostgreSQL (the first column of the first row of `sql`); -1 on error.
  int64_t QueryPg(const std::string& sql);
  // Polls every replica until each reports a catalog version >= `version`; the versions
  // last seen (one per replica) either way. ok() only when all caught up in time.
  absl::StatusOr<std::vector<int64_t>> WaitForVersion(int64_t version, std::chrono::milliseconds timeout);

 private:
  ReplicaCluster() = default;

  TempDir dir_;
  std::unique_ptr<PgCluster> pg_;
  std::vector<std::unique_ptr<ServerProcess>> servers_;
};

// A SetPrice on aws p5.48xlarge us-east-1 (a shipped offer, migration 0002) of kind spot,
// so on-demand plans stay as shipped; `usd` tells the writes apart.
capplan::v1::SetPriceRequest SpotPrice(double usd, const std::string& citation);

// The ids of every price row of aws p5.48xlarge us-east-1 (any kind) that replica `c`
// lists (ListPriceHistory, all pages); empty when the call fails.
std::set<int64_t> P5UsEast1PriceIds(client::Client& c);

// Percentile `q` in [0, 1] of `samples` (nearest rank); 0 for none.
double Percentile(std::vector<double> samples, double q);

}  // namespace capplan::testing
