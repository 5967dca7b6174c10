// One WatchPlan stream: a gRPC callback reactor (no thread of its own) that the WatchHub
// hands each new result of its workload. It compares the result with what this watcher was
// last sent (its own fraction and top_n) and writes only changes worth a message. At most
// one message waits behind the one being written, replaced by anything newer, so a slow
// reader never makes the server buffer without bound.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <mutex>

#include "absl/base/thread_annotations.h"
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

  void OnResult(const std::shared_ptr<const WatchResult>& result) override;
  void OnHubClosed() override;

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  WatchPlanReactor(WatchHub* hub, double fraction, int top_n) : hub_(hub), fraction_(fraction), top_n_(top_n) {}
  // Writes `result` if it differs enough from the baseline. Needs no write in flight.
  void Consider(const std::shared_ptr<const WatchResult>& result) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FinishOnce(const grpc::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  WatchHub* const hub_;
  const double fraction_;
  const int top_n_;
  std::mutex mu_;
  bool registered_ = false;                                      // set before the first write, read in OnDone
  capplan::v1::WatchPlanResponse message_ ABSL_GUARDED_BY(mu_);  // the one being written
  WatchBaseline baseline_ ABSL_GUARDED_BY(mu_);                  // what the caller was last sent
  std::shared_ptr<const WatchResult> pending_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;  // the hub closed: finish after the write in flight
};

}  // namespace capplan::server
