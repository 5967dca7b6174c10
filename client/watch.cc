// Client::WatchPlan (declared in client.h) and its canceller.
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "client/client.h"

namespace capplan::client {

void WatchCanceller::Cancel() {
  absl::MutexLock lock(&mu_);
  cancelled_ = true;
  if (context_ != nullptr) context_->TryCancel();
}

bool WatchCanceller::cancelled() const {
  absl::MutexLock lock(&mu_);
  return cancelled_;
}

bool WatchCanceller::Attach(grpc::ClientContext* context) {
  absl::MutexLock lock(&mu_);
  if (cancelled_) return false;
  context_ = context;
  return true;
}

void WatchCanceller::Detach() {
  absl::MutexLock lock(&mu_);
  context_ = nullptr;
}

bool WatchCanceller::SleepUnlessCancelled(std::chrono::milliseconds duration) {
  absl::MutexLock lock(&mu_);
  return mu_.AwaitWithTimeout(absl::Condition(&cancelled_), absl::FromChrono(duration));
}

namespace {

// One stream: reads until it ends. `stop` is set when the callback asked to end. `received`
// counts the updates handed on.
grpc::Status ReadStream(capplan::v1::PlannerService::Stub* stub, const capplan::v1::WatchPlanRequest& request,
                        const WatchCallback& on_update, WatchCanceller* canceller, bool* stop, int* received) {
  grpc::ClientContext context;
  if (canceller != nullptr && !canceller->Attach(&context)) return grpc::Status::CANCELLED;
  std::unique_ptr<grpc::ClientReader<capplan::v1::WatchPlanResponse>> reader = stub->WatchPlan(&context, request);
  capplan::v1::WatchPlanResponse update;
  while (reader->Read(&update)) {
    ++*received;
    if (!on_update(update)) {
      *stop = true;
      context.TryCancel();
      break;
    }
  }
  grpc::Status status = reader->Finish();
  if (canceller != nullptr) canceller->Detach();
  return status;
}

}  // namespace

absl::Status Client::WatchPlan(const capplan::v1::WatchPlanRequest& request, const WatchCallback& on_update,
                               WatchCanceller* canceller, const WatchOptions& options) {
  if (!setup_.ok()) return setup_;
  std::chrono::milliseconds backoff = options.initial_backoff;
  int reconnects = 0;
  for (;;) {
    bool stop = false;
    int received = 0;
    const grpc::Status s = ReadStream(planner_.get(), request, on_update, canceller, &stop, &received);
    if (stop || (canceller != nullptr && canceller->cancelled())) return absl::OkStatus();
    // UNAVAILABLE: the server is going away or unreachable. CANCELLED, which this client did
    // not ask for: the server cancelled the stream (e.g. at the end of its shutdown grace).
    if (s.error_code() != grpc::StatusCode::UNAVAILABLE && s.error_code() != grpc::StatusCode::CANCELLED) {
      return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
    }
    if (received > 0) {  // it worked for a while: start the backoff again
      backoff = options.initial_backoff;
      reconnects = 0;
    }
    if (options.max_reconnects > 0 && ++reconnects > options.max_reconnects) {
      return absl::UnavailableError(
          absl::StrCat("the watch ended and ", options.max_reconnects, " reconnects failed: ", s.error_message()));
    }
    if (options.on_reconnect) {
      options.on_reconnect(absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message()), backoff);
    }
    if (canceller != nullptr) {
      if (canceller->SleepUnlessCancelled(backoff)) return absl::OkStatus();
    } else {
      std::this_thread::sleep_for(backoff);
    }
    backoff = std::min(backoff * 2, options.max_backoff);
  }
}

}  // namespace capplan::client
