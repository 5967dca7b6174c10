// TCO scenarios as Prometheus gauges: every standing scenario is repriced once per catalog
// version, on a thread of its own (never on a request's path), with the Tco RPC's code, and
// its answer exported as capplan_tco_* gauges labelled scenario="<name>".
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"
#include "server/store/catalog_store.h"

namespace capplan::server {

class TcoScenarioExporter {
 public:
  // The gauges, in the order the exporter keeps them.
  enum Series {
    kOk,              // 1: priced at this catalog version; 0: failed (other series removed)
    kBreakEvenMonth,  // cash; absent when own never catches up within the horizon
    kBreakEvenNever,  // 1 when it never does
    kDiscountedBreakEvenMonth,
    kOwnUsdPerUsedGpuHour,
    kRentUsdPerUsedGpuHour,
    kOwnUsdPerMillionRequests,  // only for scenarios with a serving workload
    kRentUsdPerMillionRequests,
    kNpvOwnUsd,
    kNpvRentUsd,
    kOwnLevelisedUsdPerGpuHour,  // NPV of costs / present value of used GPU-hours
    kRentLevelisedUsdPerGpuHour,
    kBreakEvenUtilizationFraction,  // absent when flat rent (does not apply) or never
    kBreakEvenUsageNever,           // 1: no use level makes owning cheaper; absent with flat rent
    kHorizonMonths,                 // the scenario's inputs, as priced
    kFleetGpus,
    kDiscountRateFractionPerYear,
    kPricesAsOfTimestampSeconds,  // the instant prices were read at
    kStalePrices,                 // prices older than --tco_price_max_age_days
    kSeriesCount,
  };
  using Values = std::array<std::optional<double>, kSeriesCount>;

  explicit TcoScenarioExporter(prometheus::Registry& registry);

  // Reprices every scenario of `snap` and replaces the gauges: a deleted scenario's series are
  // removed, a failed one keeps only ok=0. Returns one line per failed scenario saying why.
  std::vector<std::string> Export(const store::CatalogSnapshot& snap) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  absl::Mutex mu_;  // one export at a time
  std::array<prometheus::Family<prometheus::Gauge>*, kSeriesCount> families_{};
  prometheus::Gauge* catalog_version_ = nullptr;
  prometheus::Gauge* scenarios_ = nullptr;
  // Per scenario, the gauge of each series it exports now (null: absent).
  std::map<std::string, std::array<prometheus::Gauge*, kSeriesCount>> exported_ ABSL_GUARDED_BY(mu_);
};

// Runs the exporter on its own thread: once at start, then after each published catalog
// version (the store's publish listener wakes it); a burst of writes is exported once, at the
// newest version.
class TcoScenarioWorker {
 public:
  TcoScenarioWorker(store::CatalogStore* store, TcoScenarioExporter* exporter);
  ~TcoScenarioWorker();  // detaches from the store, stops and joins the thread
  TcoScenarioWorker(const TcoScenarioWorker&) = delete;
  TcoScenarioWorker& operator=(const TcoScenarioWorker&) = delete;

 private:
  void Run() ABSL_LOCKS_EXCLUDED(mu_);

  store::CatalogStore* store_;
  TcoScenarioExporter* exporter_;
  absl::Mutex mu_;  // the worker Awaits stop_ or a newer published_
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  int64_t published_ ABSL_GUARDED_BY(mu_) = 0;  // newest version the store announced
  std::thread thread_;
  int listener_ = 0;  // handle of the store's publish listener
};

}  // namespace capplan::server
