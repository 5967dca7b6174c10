// Prometheus metrics: the de-facto gRPC server metric names community dashboards use
// (grpc_server_started_total, grpc_server_handled_total, grpc_server_handling_seconds),
// recorded by a server interceptor, plus capplan's own gauges.
#pragma once

#include <grpcpp/support/server_interceptor.h>

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "prometheus/collectable.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace capplan::server {

struct MethodDescription {
  std::string full_name;  // "/package.Service/Method"
  std::string type;       // unary, client_stream, server_stream, bidi_stream
};

// Methods of every service the server registers (ours plus grpc.health.v1.Health).
std::vector<MethodDescription> ServedMethods();

class ServerMetrics {
 public:
  ServerMetrics(std::shared_ptr<prometheus::Registry> registry, const std::vector<MethodDescription>& methods,
                const std::string& version);

  struct PerMethod {
    prometheus::Counter* started = nullptr;
    std::array<prometheus::Counter*, 17> handled{};
    prometheus::Histogram* seconds = nullptr;
  };
  // Null for a method the server does not serve.
  const PerMethod* Find(const char* full_name) const;

  // Catalog gauges from a published snapshot: its version and the effective time of the
  // oldest current on-demand price (alert on time() minus it).
  void SetCatalogVersion(int64_t version) { catalog_version_->Set(static_cast<double>(version)); }
  void SetOldestPrice(int64_t unix_seconds) { oldest_price_->Set(static_cast<double>(unix_seconds)); }
  // When a price import for `provider` last wrote (the scheduled refresh's heartbeat; alert
  // when it grows old).
  void SetLastPriceImport(const std::string& provider, int64_t unix_seconds) {
    last_import_->Add({{"provider", provider}}).Set(static_cast<double>(unix_seconds));
  }

  std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> InterceptorFactory();

  const std::shared_ptr<prometheus::Registry>& registry() const { return registry_; }

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  // Built once, read-only afterwards; looked up by string_view, so no key is built per call.
  absl::flat_hash_map<std::string, PerMethod> methods_;
  prometheus::Gauge* catalog_version_ = nullptr;
  prometheus::Gauge* oldest_price_ = nullptr;
  prometheus::Family<prometheus::Gauge>* last_import_ = nullptr;
};

// capplan_catalog_db_up (1 while the catalog database answers; SQLite: always 1) and
// capplan_catalog_sync_reloads_total (snapshots reloaded because another replica wrote), read
// from the store at scrape time.
class CatalogDbCollector final : public prometheus::Collectable {
 public:
  CatalogDbCollector(std::function<bool()> up, std::function<int64_t()> reloads)
      : up_(std::move(up)), reloads_(std::move(reloads)) {}
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  std::function<bool()> up_;
  std::function<int64_t()> reloads_;
};

// process_resident_memory_bytes, process_cpu_seconds_total, process_start_time_seconds and
// process_open_fds from /proc/self, read at scrape time (the names the Prometheus client
// libraries use; prometheus-cpp ships no process collector).
class ProcessCollector final : public prometheus::Collectable {
 public:
  ProcessCollector();
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  double start_time_seconds_ = 0;
};

}  // namespace capplan::server
