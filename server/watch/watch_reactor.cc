#include "server/watch/watch_reactor.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "server/rpc/request_limits.h"
#include "server/rpc/status.h"

namespace capplan::server {

namespace v1 = capplan::v1;

namespace {

// Plan's own errors name fields of the PlanRequest; here that request is `plan`.
absl::Status UnderPlan(const absl::Status& s) {
  if (s.code() != absl::StatusCode::kInvalidArgument) return s;
  return absl::InvalidArgumentError(absl::StrCat("plan.", s.message()));
}

}  // namespace

WatchPlanReactor* WatchPlanReactor::Start(WatchHub* hub, const store::CatalogStore* store,
                                          const v1::WatchPlanRequest& request) {
  auto* r = new WatchPlanReactor(hub, CostChangeFraction(request), WatchTopN(request));
  absl::Status s = CheckRequest(request);
  if (s.ok()) s = CheckWatchOptions(request);
  if (s.ok()) s = hub->CheckRoom();
  auto initial = std::make_shared<WatchResult>();
  if (s.ok()) {
    const std::shared_ptr<const store::CatalogSnapshot> snap = store->Snapshot();
    initial->catalog_version = snap->catalog_version;
    s = UnderPlan(hub->plan()(*snap, request.plan(), &initial->plan, /*fresh=*/false));
  }
  // gRPC calls no reaction (OnDone included) before this handler returns the reactor.
  // Locked by hand (not a scoped lock): it is released around hub->Add below.
  r->mu_.Lock();
  if (!s.ok()) {
    r->FinishOnce(ToGrpcStatus(s));
    r->mu_.Unlock();
    return r;
  }
  r->baseline_ = TopOptions(initial->plan, r->top_n_);
  *r->message_.mutable_plan() = initial->plan;
  r->message_.set_catalog_version(initial->catalog_version);
  r->message_.set_reason(v1::WATCH_REASON_INITIAL);
  // Marked as writing before the hub knows it, so that results arriving meanwhile wait in
  // pending_. The hub's lock comes before ours: Add runs without ours held.
  r->writing_ = true;
  r->mu_.Unlock();
  s = hub->Add(r, request.plan(), initial);
  r->mu_.Lock();
  if (!s.ok()) {
    r->writing_ = false;
    r->FinishOnce(ToGrpcStatus(s));
    r->mu_.Unlock();
    return r;
  }
  r->registered_ = true;
  hub->metrics().updates_sent->Increment();
  r->StartWrite(&r->message_);
  r->mu_.Unlock();
  return r;
}

void WatchPlanReactor::OnResult(const std::shared_ptr<const WatchResult>& result) {
  absl::MutexLock lock(&mu_);
  if (finished_ || closing_ || cancelled_) return;
  if (writing_) {
    pending_ = result;  // replaces an older one: only the newest matters
    return;
  }
  Consider(result);
}

void WatchPlanReactor::Consider(const std::shared_ptr<const WatchResult>& result) {
  const WatchBaseline after = result->status.ok() ? TopOptions(result->plan, top_n_) : Infeasible();
  message_.Clear();
  const v1::WatchReason reason = CompareTopOptions(baseline_, after, fraction_, message_.mutable_changes());
  if (reason == v1::WATCH_REASON_UNSPECIFIED) return;
  baseline_ = after;
  if (result->status.ok()) *message_.mutable_plan() = result->plan;
  message_.set_catalog_version(result->catalog_version);
  message_.set_reason(reason);
  if (!result->status.ok()) {
    message_.set_plan_status_code(static_cast<int>(result->status.code()));
    message_.set_plan_status_message(std::string(result->status.message()));
  }
  writing_ = true;
  hub_->metrics().updates_sent->Increment();
  StartWrite(&message_);
}

void WatchPlanReactor::OnHubClosed() {
  absl::MutexLock lock(&mu_);
  closing_ = true;
  pending_.reset();
  if (!writing_) FinishOnce(grpc::Status(grpc::StatusCode::UNAVAILABLE, "server is shutting down; watch again"));
}

void WatchPlanReactor::OnWriteDone(bool ok) {
  absl::MutexLock lock(&mu_);
  writing_ = false;
  v1::WatchPlanResponse().Swap(&message_);  // an idle watch keeps no copy of the answer
  // The stream broke or was cancelled: nothing more can be written. A write can complete ok
  // after OnCancel ran (the two race), so the cancellation counts too: without it the stream
  // never finished, OnDone never ran, and the watch stayed open and counted until shutdown.
  if (!ok || cancelled_) {
    FinishOnce(grpc::Status(grpc::StatusCode::CANCELLED, "the stream ended"));
  } else if (closing_) {
    FinishOnce(grpc::Status(grpc::StatusCode::UNAVAILABLE, "server is shutting down; watch again"));
  } else if (pending_ != nullptr && !finished_) {
    std::shared_ptr<const WatchResult> next = std::move(pending_);
    pending_.reset();
    Consider(next);
  }
}

void WatchPlanReactor::OnCancel() {
  absl::MutexLock lock(&mu_);
  cancelled_ = true;
  pending_.reset();
  // A write in flight completes (not ok) and finishes then; otherwise finish now.
  if (!writing_) FinishOnce(grpc::Status::CANCELLED);
}

void WatchPlanReactor::OnDone() {
  bool registered = false;
  {
    absl::MutexLock lock(&mu_);
    registered = registered_;
  }
  // Outside our lock: the hub's lock comes first (the hub calls OnResult holding it).
  if (registered) hub_->Remove(this);
  delete this;
}

void WatchPlanReactor::FinishOnce(const grpc::Status& status) {
  if (finished_) return;
  finished_ = true;
  Finish(status);
}

}  // namespace capplan::server
