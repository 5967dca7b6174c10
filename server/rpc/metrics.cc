#include "server/rpc/metrics.h"

#include <google/protobuf/descriptor.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "capplan/v1/admin.grpc.pb.h"
#include "capplan/v1/planner.grpc.pb.h"
#include "server/rpc/accept_guard.h"
#include "server/rpc/status.h"

namespace capplan::server {

namespace {

std::string TypeOf(const google::protobuf::MethodDescriptor* m) {
  if (m->client_streaming() && m->server_streaming()) return "bidi_stream";
  if (m->client_streaming()) return "client_stream";
  if (m->server_streaming()) return "server_stream";
  return "unary";
}

// Buckets from 50 µs: the planner answers in well under a millisecond, so the
// go-grpc-prometheus defaults (from 5 ms) would put every call in the first bucket.
const prometheus::Histogram::BucketBoundaries& Buckets() {
  static const prometheus::Histogram::BucketBoundaries kBuckets = {
      0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0};
  return kBuckets;
}

class MetricsInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit MetricsInterceptor(const ServerMetrics::PerMethod* m) : m_(m), start_(std::chrono::steady_clock::now()) {
    m_->started->Increment();
  }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(grpc::experimental::InterceptionHookPoints::PRE_SEND_STATUS)) {
      const int code = static_cast<int>(methods->GetSendStatus().error_code());
      if (code >= 0 && code < 17) m_->handled[code]->Increment();
      const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
      m_->seconds->Observe(elapsed.count());
    }
    methods->Proceed();
  }

 private:
  const ServerMetrics::PerMethod* m_;
  std::chrono::steady_clock::time_point start_;
};

class MetricsInterceptorFactory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit MetricsInterceptorFactory(const ServerMetrics* metrics) : metrics_(metrics) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override {
    const ServerMetrics::PerMethod* m = metrics_->Find(info->method());
    return m == nullptr ? nullptr : new MetricsInterceptor(m);
  }

 private:
  const ServerMetrics* metrics_;
};

}  // namespace

std::vector<MethodDescription> ServedMethods() {
  std::vector<MethodDescription> out;
  // Reach the services through a message of each file: that links the generated code and
  // registers its descriptors, which a bare pool lookup by name does not guarantee.
  for (const google::protobuf::FileDescriptor* file :
       {capplan::v1::PlanRequest::descriptor()->file(), capplan::v1::WriteResponse::descriptor()->file()}) {
    for (int si = 0; si < file->service_count(); ++si) {
      const google::protobuf::ServiceDescriptor* s = file->service(si);
      for (int i = 0; i < s->method_count(); ++i) {
        const google::protobuf::MethodDescriptor* m = s->method(i);
        out.push_back({"/" + s->full_name() + "/" + m->name(), TypeOf(m)});
      }
    }
  }
  out.push_back({"/grpc.health.v1.Health/Check", "unary"});
  out.push_back({"/grpc.health.v1.Health/Watch", "server_stream"});
  return out;
}

ServerMetrics::ServerMetrics(std::shared_ptr<prometheus::Registry> registry,
                             const std::vector<MethodDescription>& methods, const std::string& version)
    : registry_(std::move(registry)) {
  auto& started = prometheus::BuildCounter()
                      .Name("grpc_server_started_total")
                      .Help("Total number of RPCs started on the server.")
                      .Register(*registry_);
  auto& handled = prometheus::BuildCounter()
                      .Name("grpc_server_handled_total")
                      .Help("Total number of RPCs completed on the server, regardless of success or failure.")
                      .Register(*registry_);
  auto& seconds =
      prometheus::BuildHistogram()
          .Name("grpc_server_handling_seconds")
          .Help(
              "Histogram of response latency (seconds) of gRPC that had been application-level handled by the server.")
          .Register(*registry_);
  for (const MethodDescription& d : methods) {
    const size_t slash = d.full_name.rfind('/');
    const std::string service = d.full_name.substr(1, slash - 1);
    const std::string method = d.full_name.substr(slash + 1);
    const prometheus::Labels labels = {{"grpc_type", d.type}, {"grpc_service", service}, {"grpc_method", method}};
    PerMethod pm;
    pm.started = &started.Add(labels);
    for (int code = 0; code < 17; ++code) {
      prometheus::Labels with_code = labels;
      with_code["grpc_code"] = GrpcCodeName(static_cast<grpc::StatusCode>(code));
      pm.handled[code] = &handled.Add(with_code);
    }
    pm.seconds = &seconds.Add(labels, Buckets());
    methods_.emplace(d.full_name, pm);
  }
  prometheus::BuildGauge()
      .Name("capplan_build_info")
      .Help("capplan build; the value is always 1.")
      .Register(*registry_)
      .Add({{"version", version}})
      .Set(1);
  oldest_price_ = &prometheus::BuildGauge()
                       .Name("capplan_catalog_oldest_price_timestamp_seconds")
                       .Help("Effective time (Unix seconds) of the oldest current on-demand price in the catalog.")
                       .Register(*registry_)
                       .Add({});
  last_import_ = &prometheus::BuildGauge()
                      .Name("capplan_price_import_last_success_timestamp_seconds")
                      .Help("When a price import (ImportPricesCsv, not a dry run) last wrote, by provider.")
                      .Register(*registry_);
  catalog_version_ = &prometheus::BuildGauge()
                          .Name("capplan_catalog_version")
                          .Help("Version of the catalog snapshot the planner is serving.")
                          .Register(*registry_)
                          .Add({});
}

const ServerMetrics::PerMethod* ServerMetrics::Find(const char* full_name) const {
  if (full_name == nullptr) return nullptr;
  auto it = methods_.find(absl::string_view(full_name));
  return it == methods_.end() ? nullptr : &it->second;
}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> ServerMetrics::InterceptorFactory() {
  return std::make_unique<MetricsInterceptorFactory>(this);
}

namespace {

prometheus::MetricFamily OneValue(const char* name, const char* help, prometheus::MetricType type, double v) {
  prometheus::MetricFamily f;
  f.name = name;
  f.help = help;
  f.type = type;
  prometheus::ClientMetric m;
  if (type == prometheus::MetricType::Counter) {
    m.counter.value = v;
  } else {
    m.gauge.value = v;
  }
  f.metric.push_back(m);
  return f;
}

}  // namespace

ProcessCollector::ProcessCollector() {
  start_time_seconds_ = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::vector<prometheus::MetricFamily> ProcessCollector::Collect() const {
  std::vector<prometheus::MetricFamily> out;
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  std::ifstream statm("/proc/self/statm");
  double size_pages = 0, resident_pages = 0;
  if (statm >> size_pages >> resident_pages) {
    out.push_back(OneValue("process_resident_memory_bytes", "Resident memory size in bytes.",
                           prometheus::MetricType::Gauge, resident_pages * page));
    out.push_back(OneValue("process_virtual_memory_bytes", "Virtual memory size in bytes.",
                           prometheus::MetricType::Gauge, size_pages * page));
  }
  std::ifstream stat("/proc/self/stat");
  std::string line;
  if (std::getline(stat, line)) {
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const size_t close = line.rfind(')');
    std::istringstream rest(line.substr(close + 2));
    std::string field;
    double utime = 0, stime = 0;
    for (int i = 3; rest >> field; ++i) {
      if (i == 14) utime = std::atof(field.c_str());
      if (i == 15) {
        stime = std::atof(field.c_str());
        break;
      }
    }
    out.push_back(OneValue("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
                           prometheus::MetricType::Counter, (utime + stime) / ticks));
  }
  out.push_back(OneValue("process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
                         prometheus::MetricType::Gauge, start_time_seconds_));
  double fds = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++fds;
  }
  out.push_back(OneValue("process_open_fds", "Number of open file descriptors.", prometheus::MetricType::Gauge, fds));
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0) {
    out.push_back(OneValue("process_max_fds", "Maximum number of open file descriptors.", prometheus::MetricType::Gauge,
                           static_cast<double>(lim.rlim_cur)));
  }
  out.push_back(OneValue("capplan_connections_shed_total",
                         "Connections closed on accept: over --max_connections or while descriptors ran out.",
                         prometheus::MetricType::Counter, static_cast<double>(AcceptGuardShedConnections())));
  return out;
}

std::vector<prometheus::MetricFamily> CatalogDbCollector::Collect() const {
  return {OneValue("capplan_catalog_db_up",
                   "1 while the catalog database answers (PostgreSQL: the sync connection is up); SQLite: always 1.",
                   prometheus::MetricType::Gauge, up_() ? 1.0 : 0.0),
          OneValue("capplan_catalog_sync_reloads_total",
                   "Catalog snapshots reloaded because another replica wrote to the shared PostgreSQL catalog.",
                   prometheus::MetricType::Counter, static_cast<double>(reloads_()))};
}

}  // namespace capplan::server
