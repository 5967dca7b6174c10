#include "server/watch/watch_hub.h"

#include <malloc.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/planning/answer_memo.h"

namespace capplan::server {

namespace v1 = capplan::v1;

WatchMetrics WatchMetrics::Register(prometheus::Registry& registry) {
  WatchMetrics m;
  m.open =
      &prometheus::BuildGauge().Name("capplan_watches_open").Help("Open WatchPlan streams.").Register(registry).Add({});
  m.recomputes = &prometheus::BuildCounter()
                      .Name("capplan_watch_recomputes_total")
                      .Help("Watched workloads recomputed after a catalog change (once per distinct workload).")
                      .Register(registry)
                      .Add({});
  m.updates_sent = &prometheus::BuildCounter()
                        .Name("capplan_watch_updates_sent_total")
                        .Help("WatchPlan messages started, the initial answers included.")
                        .Register(registry)
                        .Add({});
  return m;
}

WatchHub::WatchHub(store::CatalogStore* store, WatchPlanFn plan, WatchHubOptions options, WatchMetrics metrics)
    : store_(store), plan_(std::move(plan)), options_(options), metrics_(metrics) {
  // Runs with the store's write lock held: only wake the worker.
  listener_ = store_->AddPublishListener([this](int64_t) {
    absl::MutexLock lock(&mu_);
    ++published_;
  });
  thread_ = std::thread([this] { Run(); });
}

WatchHub::~WatchHub() {
  Close();
  store_->RemovePublishListener(listener_);
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  thread_.join();
}

absl::Status WatchHub::Add(WatchSink* sink, const v1::PlanRequest& request,
                           const std::shared_ptr<const WatchResult>& initial) {
  std::string key = AnswerMemo::Key(0, request);
  absl::MutexLock lock(&mu_);
  if (absl::Status room = CheckRoomLocked(); !room.ok()) return room;
  auto it = workloads_.find(key);
  if (it == workloads_.end()) {
    if (static_cast<int>(workloads_.size()) >= options_.max_workloads) {
      return absl::ResourceExhaustedError(absl::StrCat("the server watches its limit of ", options_.max_workloads,
                                                       " distinct workloads (--max_watched_workloads)"));
    }
    auto w = std::make_shared<Workload>();
    w->request = request;
    w->latest = initial;
    it = workloads_.emplace(key, std::move(w)).first;
  } else if (it->second->latest->catalog_version > initial->catalog_version) {
    sink->OnResult(it->second->latest);  // the workload moved on since the sink's answer
  }
  it->second->sinks.push_back(sink);
  sink_keys_.emplace(sink, std::move(key));
  // A publish between the sink's answer and now must not be missed, nor a sink's answer
  // newer than its workload's keep the others behind: let the worker look.
  if (store_->Snapshot()->catalog_version != it->second->latest->catalog_version) ++published_;
  metrics_.open->Set(static_cast<double>(sink_keys_.size()));
  return absl::OkStatus();
}

absl::Status WatchHub::CheckRoom() const {
  absl::MutexLock lock(&mu_);
  return CheckRoomLocked();
}

absl::Status WatchHub::CheckRoomLocked() const {
  if (closed_) return absl::UnavailableError("server is shutting down; watch again on another replica or later");
  if (static_cast<int>(sink_keys_.size()) >= options_.max_watches) {
    return absl::ResourceExhaustedError(
        absl::StrCat("the server holds its limit of ", options_.max_watches, " open watches (--max_watches)"));
  }
  return absl::OkStatus();
}

void WatchHub::Remove(WatchSink* sink) {
  absl::MutexLock lock(&mu_);
  auto k = sink_keys_.find(sink);
  if (k == sink_keys_.end()) return;
  auto it = workloads_.find(k->second);
  if (it != workloads_.end()) {
    std::vector<WatchSink*>& sinks = it->second->sinks;
    // Order does not matter to the fan-out: the last takes the leaver's place, instead of
    // every later one shifting down.
    auto pos = std::find(sinks.begin(), sinks.end(), sink);
    if (pos != sinks.end()) {
      *pos = sinks.back();
      sinks.pop_back();
    }
    if (sinks.empty()) workloads_.erase(it);
  }
  sink_keys_.erase(k);
  if (sink_keys_.empty()) {
    // Erasing never shrinks a flat_hash_map: after a crowd of watches has gone, give back
    // the tables sized for it (their workloads' results went with the last erase).
    absl::flat_hash_map<WatchSink*, std::string>().swap(sink_keys_);
    absl::flat_hash_map<std::string, std::shared_ptr<Workload>>().swap(workloads_);
  }
  metrics_.open->Set(static_cast<double>(sink_keys_.size()));
  ++left_since_trim_;
  if (left_since_trim_ >= kTrimAfterWatches || (sink_keys_.empty() && left_since_trim_ >= kTrimAfterWatches / 16)) {
    left_since_trim_ = 0;
    trim_ = true;
  }
}

void WatchHub::Close() {
  absl::MutexLock lock(&mu_);
  if (closed_) return;
  closed_ = true;
  for (const auto& [sink, key] : sink_keys_) sink->OnHubClosed();
}

int64_t WatchHub::recomputes() const {
  absl::MutexLock lock(&mu_);
  return recomputes_;
}

int WatchHub::watches() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(sink_keys_.size());
}

int64_t WatchHub::trims() const {
  absl::MutexLock lock(&mu_);
  return trims_;
}

int WatchHub::workloads() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(workloads_.size());
}

void WatchHub::Run() {
  // Recomputations yield to the calls being served (Linux: a thread's own nice value), so
  // that watches never slow Plan; coalescing absorbs the delay. Best effort.
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
  int64_t seen = 0;
  const bool refreshes = options_.refresh_interval.count() > 0;
  for (;;) {
    bool woken = false;
    bool published = false;
    bool trim = false;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stop_ || published_ > seen || trim_; };
      if (refreshes) {
        woken = mu_.AwaitWithTimeout(absl::Condition(&ready), absl::FromChrono(options_.refresh_interval));
      } else {
        mu_.Await(absl::Condition(&ready));
        woken = true;
      }
      if (stop_) return;
      published = published_ > seen;
      seen = published_;
      trim = std::exchange(trim_, false);
    }
    if (trim) {
#ifdef __GLIBC__
      malloc_trim(0);  // walks the arenas: here, off the gRPC threads and outside the lock
#endif
      absl::MutexLock lock(&mu_);
      ++trims_;
    }
    if (published || !woken) RecomputeAll(/*refresh=*/!woken);
  }
}

void WatchHub::RecomputeAll(bool refresh) {
  // The newest snapshot, whatever woke us: versions published meanwhile are skipped.
  const std::shared_ptr<const store::CatalogSnapshot> snap = store_->Snapshot();
  std::vector<std::shared_ptr<Workload>> stale;
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return;
    for (const auto& [key, w] : workloads_) {
      if (refresh || w->latest->catalog_version < snap->catalog_version) stale.push_back(w);
    }
  }
  for (const std::shared_ptr<Workload>& w : stale) {
    // Planning runs outside the lock: Add and Remove (gRPC threads) never wait for it. The
    // request is only read by this thread after Add, so it needs no lock.
    auto result = std::make_shared<WatchResult>();
    result->catalog_version = snap->catalog_version;
    result->status = plan_(*snap, w->request, &result->plan, /*fresh=*/refresh);
    if (!result->status.ok()) result->plan.Clear();
    metrics_.recomputes->Increment();
    absl::MutexLock lock(&mu_);
    ++recomputes_;
    if (closed_) return;
    // A sink brought a newer one (or, outside a refresh, the same version) meanwhile.
    const int64_t latest = w->latest->catalog_version;
    if (latest > result->catalog_version || (!refresh && latest == result->catalog_version)) continue;
    w->latest = result;
    for (WatchSink* sink : w->sinks) sink->OnResult(w->latest);  // an emptied workload has none
  }
}

}  // namespace capplan::server
