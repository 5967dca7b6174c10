// One WatchPlan stream: a gRPC callback reactor (no thread of its own) that the WatchHub
// hands each new result of its workload. It compares the result with what this watcher was
// last sent (its own fraction and top_n) and writes only changes worth a message. At most
// one message waits behind the one being written, replaced by anything newer, so a slow
// reader never makes the server buffer without bound.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "capplan/v1/planner.pb.h"
#include "server/watch/watch_diff.h"
#include "server/watch/watch_hub.h"

namespace capplan::server {

class WatchPlanReactor final : public grpc::ServerWriteReactor<capplan::v1::WatchPlanResponse>, public WatchSink {
 public:
  // Starts the stream: validates `request`, plans it on the current snapshot and writes the
  // answer, or finishes with the error Plan would answer (field paths under "plan.").
  static WatchPlanReactor* Start(WatchHub* hub, const store::CatalogStore* store,
                                 const capplan::v1::WatchPlanRequest& request);

  void OnResult(const std::shared_ptr<const WatchResult>& result) override ABSL_LOCKS_EXCLUDED(mu_);
  void OnHubClosed() override ABSL_LOCKS_EXCLUDED(mu_);

  void OnWriteDone(bool ok) override ABSL_LOCKS_EXCLUDED(mu_);
  void OnCancel() override ABSL_LOCKS_EXCLUDED(mu_);
  void OnDone() override ABSL_LOCKS_EXCLUDED(mu_);

 private:
  WatchPlanReactor(WatchHub* hub, double fraction, int top_n) : hub_(hub), fraction_(fraction), top_n_(top_n) {}
  // Writes `result` if it differs enough from the baseline. Needs no write in flight.
  void Consider(const std::shared_ptr<const WatchResult>& result) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FinishOnce(const grpc::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  WatchHub* const hub_;
  const double fraction_;
  const int top_n_;
  absl::Mutex mu_;
  // Set before the first write, read in OnDone. Under the lock although the two never overlap:
  // the order between them is gRPC's, which a race detector cannot see.
  bool registered_ ABSL_GUARDED_BY(mu_) = false;
  capplan::v1::WatchPlanResponse message_ ABSL_GUARDED_BY(mu_);  // the one being written
  WatchBaseline baseline_ ABSL_GUARDED_BY(mu_);                  // what the caller was last sent
  std::shared_ptr<const WatchResult> pending_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;    // the hub closed: finish after the write in flight
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;  // OnCancel ran: finish after the write in flight
};

}  // namespace capplan::server
