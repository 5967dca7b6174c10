// WatchPlan across replicas: a scheduler watching on replica B learns, within about a
// second, that a price written through replica A made another offer the cheapest.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>

#include "capplan/v1/planner.grpc.pb.h"
#include "tests/replicas/replica_cluster.h"

namespace capplan::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// Reads a WatchPlan stream on its own thread; the test takes the updates as they come.
class Watcher {
 public:
  Watcher(const std::string& address, const capplan::v1::WatchPlanRequest& request)
      : stub_(capplan::v1::PlannerService::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()))) {
    context_.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    reader_ = stub_->WatchPlan(&context_, request);
    thread_ = std::thread([this] {
      capplan::v1::WatchPlanResponse update;
      while (reader_->Read(&update)) {
        std::lock_guard<std::mutex> lock(mu_);
        updates_.push_back({steady_clock::now(), update});
        arrived_.notify_all();
      }
    });
  }
  ~Watcher() {
    context_.TryCancel();
    thread_.join();
    reader_->Finish().ok();
  }

  struct Update {
    steady_clock::time_point at;
    capplan::v1::WatchPlanResponse response;
  };
  // The next update, or false after `timeout` without one.
  bool Next(milliseconds timeout, Update* out) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!arrived_.wait_for(lock, timeout, [this] { return !updates_.empty(); })) return false;
    *out = updates_.front();
    updates_.pop_front();
    return true;
  }

 private:
  std::unique_ptr<capplan::v1::PlannerService::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReader<capplan::v1::WatchPlanResponse>> reader_;
  std::mutex mu_;
  std::condition_variable arrived_;
  std::deque<Update> updates_;
  std::thread thread_;
};

TEST(ReplicaWatchTest, AWatcherOnOneReplicaSeesAPriceWrittenOnAnother) {
  absl::StatusOr<std::unique_ptr<ReplicaCluster>> started = ReplicaCluster::Start(3);
  ASSERT_TRUE(started.ok()) << started.status();
  ReplicaCluster& cluster = **started;

  // The cheapest way to LoRA-tune Llama-2-7B on 2e9 tokens (the README's training example)
  // on AWS us-east-1, choosing between the two shipped 8-GPU offers there
  // (migrations/0002_shipped_catalog.sql, AWS EC2 On-Demand pricing page (Linux), 2024-06-01):
  // p5.48xlarge (8 x H100-SXM5-80GB) at $98.32/h and p4de.24xlarge (8 x A100-SXM4-80GB) at
  // $40.9657/h.
  capplan::v1::WatchPlanRequest watch;
  capplan::v1::PlanRequest* plan = watch.mutable_plan();
  plan->mutable_training()->set_model_name("Llama-2-7B");
  plan->mutable_training()->set_tokens(2e9);
  plan->mutable_training()->set_method(capplan::v1::TRAINING_METHOD_LORA);
  plan->set_objective(capplan::v1::OBJECTIVE_CHEAPEST);
  plan->mutable_constraints()->add_providers("aws");
  plan->mutable_constraints()->add_regions("us-east-1");
  plan->mutable_constraints()->add_allowed_gpus("H100-SXM5-80GB");
  plan->mutable_constraints()->add_allowed_gpus("A100-SXM4-80GB");
  plan->set_view(capplan::v1::VIEW_BASIC);
  watch.set_top_n(1);

  Watcher watcher(cluster.replica(1).grpc_address(), watch);
  Watcher::Update first;
  ASSERT_TRUE(watcher.Next(milliseconds(10000), &first)) << "no initial answer on replica 1";
  EXPECT_EQ(first.response.reason(), capplan::v1::WATCH_REASON_INITIAL);
  ASSERT_GT(first.response.plan().options_size(), 0);
  const std::string top = first.response.plan().options(0).instance_type();
  ASSERT_TRUE(top == "p5.48xlarge" || top == "p4de.24xlarge") << top;

  // Whichever is cheapest now, price it at $10,000/h on replica 0: over 100 times either
  // shipped price, while an H100 trains a dense model at most about 3.2 times as fast as an
  // A100 (989 vs 312 dense BF16 TFLOPS, NVIDIA H100 and A100 datasheets), so the other offer
  // must take the top.
  capplan::v1::SetPriceRequest price;
  capplan::v1::Price* p = price.mutable_price();
  p->set_provider("aws");
  p->set_instance_type(top);
  p->set_region("us-east-1");
  p->set_kind(capplan::v1::PRICE_KIND_ON_DEMAND);
  p->set_price_usd_per_hour(10000);
  p->mutable_source()->set_citation("replica watch test: a price that must change the top option");
  p->mutable_source()->set_as_of_date("2026-12-01");
  absl::StatusOr<capplan::v1::WriteResponse> w = cluster.MakeClient(0).SetPrice(price);
  ASSERT_TRUE(w.ok()) << w.status();
  const steady_clock::time_point acked = steady_clock::now();

  Watcher::Update next;
  ASSERT_TRUE(watcher.Next(milliseconds(5000), &next)) << "the watcher on replica 1 heard nothing in 5 s";
  const double ms = std::chrono::duration<double, std::milli>(next.at - acked).count();
  EXPECT_LE(ms, 2000) << "the update came " << ms << " ms after the write";
  EXPECT_EQ(next.response.reason(), capplan::v1::WATCH_REASON_TOP_OPTIONS_CHANGED);
  EXPECT_GE(next.response.catalog_version(), w->catalog_version());
  ASSERT_GT(next.response.plan().options_size(), 0);
  EXPECT_NE(next.response.plan().options(0).instance_type(), top);
  EXPECT_GT(next.response.changes_size(), 0);
  std::cout << "replica watch: top option " << top << " -> " << next.response.plan().options(0).instance_type()
            << " after a price written on replica 0; the watcher on replica 1 was told " << ms
            << " ms after the write was acknowledged\n";
}

}  // namespace
}  // namespace capplan::testing
