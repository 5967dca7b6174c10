#include "client/loadgen_watch.h"

#include <chrono>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace capplan::loadgen {

namespace v1 = capplan::v1;

class WatchCrowd::Watch final : public grpc::ClientReadReactor<v1::WatchPlanResponse> {
 public:
  Watch(WatchCrowd* crowd, v1::PlannerService::Stub* stub, const v1::WatchPlanRequest& request) : crowd_(crowd) {
    stub->async()->WatchPlan(&context_, &request, this);
    StartRead(&update_);
    StartCall();
  }

  void OnReadDone(bool ok) override {
    if (!ok) return;  // the stream is ending: OnDone follows
    crowd_->updates_.fetch_add(1);
    if (!first_seen_) {
      first_seen_ = true;
      crowd_->open_.fetch_add(1);
    }
    StartRead(&update_);
  }

  void OnDone(const grpc::Status& s) override {
    if (!s.ok() && s.error_code() != grpc::StatusCode::CANCELLED) crowd_->failed_.fetch_add(1);
    absl::MutexLock lock(&mu_);
    done_ = true;
  }

  void CancelAndWait() {
    context_.TryCancel();
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(&done_));
  }

 private:
  WatchCrowd* crowd_;
  grpc::ClientContext context_;
  v1::WatchPlanResponse update_;
  bool first_seen_ = false;  // touched only by the reactions, which never overlap
  absl::Mutex mu_;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
};

WatchCrowd::WatchCrowd(const std::string& server, int count, int per_connection,
                       const std::vector<v1::WatchPlanRequest>& requests) {
  for (int i = 0; i < count; ++i) {
    if (i % per_connection == 0) {
      grpc::ChannelArguments args;
      args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // a connection of its own
      channels_.push_back(grpc::CreateCustomChannel(server, grpc::InsecureChannelCredentials(), args));
      stubs_.push_back(v1::PlannerService::NewStub(channels_.back()));
    }
    watches_.push_back(std::make_unique<Watch>(this, stubs_.back().get(), requests[i % requests.size()]));
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (open_.load() + failed_.load() < count && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

WatchCrowd::~WatchCrowd() {
  for (const std::unique_ptr<Watch>& w : watches_) w->CancelAndWait();
}

}  // namespace capplan::loadgen
