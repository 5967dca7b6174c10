// Watching a Plan (PlannerService.WatchPlan): a blocking call that hands each update to a
// callback, reconnecting with backoff when the stream breaks (a server restarting or
// shutting down ends its watches with UNAVAILABLE) and re-sending the request. After a
// reconnect the first update is a full answer again (reason INITIAL).
#pragma once

#include <chrono>
#include <functional>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "capplan/v1/planner.pb.h"

namespace grpc {
class ClientContext;
}

namespace capplan::client {

struct WatchOptions {
  std::chrono::milliseconds initial_backoff{200};
  std::chrono::milliseconds max_backoff{10000};
  // Reconnects in a row without an update before giving up with the last status; 0: never
  // give up.
  int max_reconnects = 0;
  // Told each time the stream broke and is about to be opened again after `backoff`.
  std::function<void(const absl::Status& why, std::chrono::milliseconds backoff)> on_reconnect;
};

// Ends a watch from another thread (e.g. a signal handler's helper): the call returns OK.
class WatchCanceller {
 public:
  void Cancel() ABSL_LOCKS_EXCLUDED(mu_);
  bool cancelled() const ABSL_LOCKS_EXCLUDED(mu_);

  // For Client::WatchPlan: the stream now open (false, not attached, once cancelled), its
  // end, and a backoff sleep that a Cancel cuts short (true when cancelled).
  bool Attach(grpc::ClientContext* context) ABSL_LOCKS_EXCLUDED(mu_);
  void Detach() ABSL_LOCKS_EXCLUDED(mu_);
  bool SleepUnlessCancelled(std::chrono::milliseconds duration) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  mutable absl::Mutex mu_;
  grpc::ClientContext* context_ ABSL_GUARDED_BY(mu_) = nullptr;  // the stream open now, if any
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;                  // a sleeping SleepUnlessCancelled Awaits it
};

// Return false to end the watch (the call then returns OK).
using WatchCallback = std::function<bool(const capplan::v1::WatchPlanResponse& update)>;

}  // namespace capplan::client
