#include "tests/replicas/replica_cluster.h"

#include <algorithm>
#include <cmath>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace capplan::testing {

absl::StatusOr<std::unique_ptr<ReplicaCluster>> ReplicaCluster::Start(int replicas) {
  std::unique_ptr<ReplicaCluster> cluster(new ReplicaCluster());
  absl::StatusOr<std::unique_ptr<PgCluster>> pg = PgCluster::Start();
  if (!pg.ok()) return pg.status();
  cluster->pg_ = std::move(*pg);
  absl::Status created = cluster->pg_->CreateDatabase(kCatalogDb);
  if (!created.ok()) return created;
  WriteTokenFile(cluster->dir_.path() + "/tokens", std::string(kReplicaAdminToken) + " replica-tester admin\n");
  cluster->servers_.resize(static_cast<size_t>(replicas));
  for (int i = 0; i < replicas; ++i) {
    absl::Status started = cluster->StartReplica(i);
    if (!started.ok()) return started;
  }
  return cluster;
}

ReplicaCluster::~ReplicaCluster() {
  // Servers first: they hold connections the cluster's immediate stop would cut anyway.
  for (std::unique_ptr<ServerProcess>& s : servers_) s.reset();
  pg_.reset();
}

std::vector<std::string> ReplicaCluster::ServerArgs() const {
  return {"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--http_listen=", "--db=" + pg_->Dsn(kCatalogDb),
          "--admin_token_file=" + dir_.path() + "/tokens"};
}

absl::Status ReplicaCluster::StartReplica(int i) {
  std::unique_ptr<ServerProcess>& slot = servers_[static_cast<size_t>(i)];
  slot.reset();
  slot = std::make_unique<ServerProcess>(ServerArgs());
  if (!slot->started()) {
    return absl::UnavailableError(absl::StrCat("replica ", i, " did not start: ", slot->Wait(0).stderr_text));
  }
  return absl::OkStatus();
}

client::Client ReplicaCluster::MakeClient(int i, int attempts, std::chrono::milliseconds timeout) {
  client::ClientOptions o;
  o.server = replica(i).grpc_address();
  o.admin_token = kReplicaAdminToken;
  o.max_read_attempts = attempts;
  o.timeout = timeout;
  return client::Client(o);
}

int64_t ReplicaCluster::QueryPg(const std::string& sql) {
  absl::StatusOr<std::string> out = pg_->Psql(kCatalogDb, sql);
  if (!out.ok()) return -1;
  int64_t v = -1;
  const std::string first_line = out->substr(0, out->find('\n'));
  if (!absl::SimpleAtoi(first_line, &v)) return -1;
  return v;
}

absl::StatusOr<std::vector<int64_t>> ReplicaCluster::WaitForVersion(int64_t version,
                                                                    std::chrono::milliseconds timeout) {
  std::vector<client::Client> clients;
  clients.reserve(servers_.size());
  for (int i = 0; i < size(); ++i) clients.push_back(MakeClient(i, 1, std::chrono::milliseconds(1000)));
  std::vector<int64_t> seen(clients.size(), -1);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    bool all = true;
    for (size_t i = 0; i < clients.size(); ++i) {
      if (seen[i] >= version) continue;
      absl::StatusOr<capplan::v1::GetCatalogVersionResponse> v = clients[i].GetCatalogVersion();
      if (v.ok()) seen[i] = v->catalog_version();
      all = all && seen[i] >= version;
    }
    if (all) return seen;
    if (std::chrono::steady_clock::now() > deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat("catalog version ", version, " not reached; last seen ", absl::StrJoin(seen, ", ")));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

capplan::v1::SetPriceRequest SpotPrice(double usd, const std::string& citation) {
  capplan::v1::SetPriceRequest r = P5Price(usd);
  r.mutable_price()->set_kind(capplan::v1::PRICE_KIND_SPOT);
  r.mutable_price()->mutable_source()->set_citation(citation);
  r.mutable_price()->mutable_source()->set_as_of_date("2026-12-01");
  return r;
}

std::set<int64_t> P5UsEast1PriceIds(client::Client& c) {
  capplan::v1::ListPriceHistoryRequest r;
  r.set_provider("aws");
  r.set_instance_type("p5.48xlarge");
  r.set_region("us-east-1");
  absl::StatusOr<capplan::v1::ListPriceHistoryResponse> h = c.ListPriceHistory(r);
  std::set<int64_t> ids;
  if (!h.ok()) return ids;
  for (const capplan::v1::Price& p : h->prices()) ids.insert(p.id());
  return ids;
}

double Percentile(std::vector<double> samples, double q) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  const double rank = std::ceil(q * static_cast<double>(samples.size()));
  const size_t index = static_cast<size_t>(std::max(1.0, rank)) - 1;
  return samples[std::min(index, samples.size() - 1)];
}

}  // namespace capplan::testing
