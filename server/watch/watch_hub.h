// The WatchHub behind WatchPlan: every distinct watched workload (keyed by the Plan request's
// deterministic serialization) is held once, whatever the number of its watchers. On each
// catalog publish its one worker thread recomputes every workload once, on the newest
// snapshot (a burst of writes coalesces into one recompute), and hands the shared result to
// each watcher, which decides for itself whether the change is worth a message. No thread is
// parked per watcher: a watcher is a gRPC callback reactor (watch_reactor.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "capplan/v1/planner.pb.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"
#include "server/store/catalog_store.h"

namespace capplan::server {

// One computation of a workload on one catalog version, shared by all its watchers.
struct WatchResult {
  int64_t catalog_version = 0;
  absl::Status status;  // not OK: the workload fits nowhere (or no longer converts)
  capplan::v1::PlanResponse plan;
};

// A watcher as the hub sees it. Called with the hub's lock held: must not block nor call
// back into the hub.
class WatchSink {
 public:
  virtual ~WatchSink() = default;
  virtual void OnResult(const std::shared_ptr<const WatchResult>& result) = 0;
  // The hub is closing (server shutdown): end the stream.
  virtual void OnHubClosed() = 0;
};

struct WatchHubOptions {
  int max_watches = 10000;   // open streams; ResourceExhausted beyond
  int max_workloads = 1000;  // distinct watched Plan requests; ResourceExhausted beyond
  // Every workload is also recomputed this often without a catalog change, because a price
  // dated in the future takes effect without one (Plan reads prices "as of now"). 0: never.
  std::chrono::milliseconds refresh_interval{60000};
};

// capplan_watches_open, capplan_watch_recomputes_total, capplan_watch_updates_sent_total.
struct WatchMetrics {
  static WatchMetrics Register(prometheus::Registry& registry);
  prometheus::Gauge* open = nullptr;
  prometheus::Counter* recomputes = nullptr;
  prometheus::Counter* updates_sent = nullptr;
};

// Plans `request` on `snapshot` (the Plan RPC's own path, memo included; `fresh`: not from
// the memo).
using WatchPlanFn =
    std::function<absl::Status(const store::CatalogSnapshot& snapshot, const capplan::v1::PlanRequest& request,
                               capplan::v1::PlanResponse* response, bool fresh)>;

class WatchHub {
 public:
  WatchHub(store::CatalogStore* store, WatchPlanFn plan, WatchHubOptions options, WatchMetrics metrics);
  ~WatchHub();  // Close(), detach from the store, join the worker
  WatchHub(const WatchHub&) = delete;
  WatchHub& operator=(const WatchHub&) = delete;

  // Registers `sink` under `request`'s workload; `initial` is what the sink was sent first.
  // ResourceExhausted over a bound, Unavailable once closed.
  absl::Status Add(WatchSink* sink, const capplan::v1::PlanRequest& request,
                   const std::shared_ptr<const WatchResult>& initial) ABSL_LOCKS_EXCLUDED(mu_);
  // What Add would refuse a new watch for before its request is known (closed, or the
  // watches bound reached), so that a refused call does not plan first.
  absl::Status CheckRoom() const ABSL_LOCKS_EXCLUDED(mu_);
  // After this returns the hub never calls `sink` again. Unknown sinks are ignored.
  void Remove(WatchSink* sink) ABSL_LOCKS_EXCLUDED(mu_);
  // Every sink is told OnHubClosed; later Adds are refused. Idempotent.
  void Close() ABSL_LOCKS_EXCLUDED(mu_);

  const WatchPlanFn& plan() const { return plan_; }
  const WatchMetrics& metrics() const { return metrics_; }
  // Recomputations since start (a test hook; the metric counts the same).
  int64_t recomputes() const ABSL_LOCKS_EXCLUDED(mu_);
  int watches() const ABSL_LOCKS_EXCLUDED(mu_);
  int workloads() const ABSL_LOCKS_EXCLUDED(mu_);  // distinct watched requests held (a test hook)
  // Times freed memory was handed back to the system after a crowd of watches left (a test
  // hook).
  int64_t trims() const ABSL_LOCKS_EXCLUDED(mu_);

  // Each open watch holds ~20 KiB (its gRPC call and stream buffers, measured with
  // capplan-loadgen --watches=5000: 25 -> 123 MB resident). Freed, that memory stays in the
  // allocator's per-thread arenas (126 MB resident with none open), so after every this many
  // watches leave, and when the last one leaves after a sixteenth as many, the worker asks
  // the allocator to return what is free (43 MB after 5,000 closed).
  static constexpr int kTrimAfterWatches = 1024;

 private:
  struct Workload {
    capplan::v1::PlanRequest request;
    std::shared_ptr<const WatchResult> latest;  // newest result its sinks were handed
    std::vector<WatchSink*> sinks;
  };
  absl::Status CheckRoomLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Run() ABSL_LOCKS_EXCLUDED(mu_);
  // One pass: every workload older than the newest snapshot (all of them with `refresh`)
  // recomputed once, then fanned out.
  void RecomputeAll(bool refresh) ABSL_LOCKS_EXCLUDED(mu_);

  store::CatalogStore* store_;
  const WatchPlanFn plan_;
  const WatchHubOptions options_;
  const WatchMetrics metrics_;

  // The worker waits on mu_ with Await/AwaitWithTimeout over the flags below, so every
  // change to them under the lock wakes it: no separate condition variable to forget.
  mutable absl::Mutex mu_;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  int64_t published_ ABSL_GUARDED_BY(mu_) = 0;  // bumped by every publish (and a late Add)
  int64_t recomputes_ ABSL_GUARDED_BY(mu_) = 0;
  int left_since_trim_ ABSL_GUARDED_BY(mu_) = 0;  // watches removed
  bool trim_ ABSL_GUARDED_BY(mu_) = false;        // the worker is to trim
  int64_t trims_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<std::string, std::shared_ptr<Workload>> workloads_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<WatchSink*, std::string> sink_keys_ ABSL_GUARDED_BY(mu_);
  int listener_ = 0;
  std::thread thread_;
};

}  // namespace capplan::server
