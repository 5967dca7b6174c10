// The WatchHub (server/watch_hub.h) on a real catalog store: one recomputation per distinct
// watched request and catalog change however many watch it, a burst of writes recomputed on
// the newest snapshot rather than once per write, the bounds, Remove and Close. The planner
// is replaced by a function that reports the snapshot's p5.48xlarge price, so that what is
// recomputed, and on which version, can be counted exactly.
#include "server/watch/watch_hub.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "tests/store/temp_store.h"

namespace capplan::server {
namespace {

namespace v1 = capplan::v1;
using store::P5Price;

// Shipped AWS list price (2024-06-01) and the June 2025 cut, both p5.48xlarge us-east-1.
constexpr double kP5ListUsdPerHour = 98.32;
constexpr double kP5CutUsdPerHour = 55.04;
constexpr int64_t k20250605 = 1749081600;

class FakeSink : public WatchSink {
 public:
  void OnResult(const std::shared_ptr<const WatchResult>& result) override {
    std::lock_guard<std::mutex> lock(mu_);
    versions_.push_back(result->catalog_version);
    cv_.notify_all();
  }
  void OnHubClosed() override {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  // Waits up to 10 s for a result at `version`.
  bool WaitFor(int64_t version) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(10),
                        [&] { return !versions_.empty() && versions_.back() >= version; });
  }
  std::vector<int64_t> versions() {
    std::lock_guard<std::mutex> lock(mu_);
    return versions_;
  }
  bool closed() {
    std::lock_guard<std::mutex> lock(mu_);
    return closed_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<int64_t> versions_;
  bool closed_ = false;
};

class WatchHubTest : public store::TempStoreTest {
 protected:
  // The hub, planning with a function that can be held at a gate.
  std::unique_ptr<WatchHub> MakeHub(WatchHubOptions options = {}) {
    options.refresh_interval = std::chrono::milliseconds(0);
    return std::make_unique<WatchHub>(
        store_.get(),
        [this](const store::CatalogSnapshot& snap, const v1::PlanRequest&, v1::PlanResponse* resp, bool) {
          std::unique_lock<std::mutex> lock(gate_mu_);
          gate_cv_.wait(lock, [&] { return open_; });
          const store::InstanceRow* p5 = snap.FindInstance("aws", "p5.48xlarge", "us-east-1");
          resp->add_options()->set_cost_usd_per_hour(
              snap.PriceAt(*p5, store::PriceKind::kOnDemand, 0)->price_usd_per_hour);
          resp->set_catalog_version(snap.catalog_version);
          return absl::OkStatus();
        },
        options, WatchMetrics::Register(registry_));
  }
  std::shared_ptr<const WatchResult> Initial() {
    auto r = std::make_shared<WatchResult>();
    r->catalog_version = store_->Snapshot()->catalog_version;
    return r;
  }
  static v1::PlanRequest Request(double tokens) {
    v1::PlanRequest r;
    r.mutable_training()->set_model_name("Llama-2-7B");  // seeds/000: a 7B fine-tune
    r.mutable_training()->set_tokens(tokens);
    return r;
  }
  int64_t SetP5(double usd) {
    absl::StatusOr<store::WriteResult> w = store_->SetPrice(ops_, P5Price(usd, k20250605));
    EXPECT_TRUE(w.ok()) << w.status();
    return w.ok() ? w->catalog_version : -1;
  }
  void SetGate(bool open) {
    std::lock_guard<std::mutex> lock(gate_mu_);
    open_ = open;
    gate_cv_.notify_all();
  }

  const store::WriteContext ops_{"alice", "SetPrice"};
  prometheus::Registry registry_;
  std::mutex gate_mu_;
  std::condition_variable gate_cv_;
  bool open_ = true;
};

TEST_F(WatchHubTest, TwoWatchersOfOneRequestCostOneRecomputePerChange) {
  FakeSink a, b, other;  // before the hub, which calls them until it is gone
  std::unique_ptr<WatchHub> hub = MakeHub();
  ASSERT_TRUE(hub->Add(&a, Request(2e9), Initial()).ok());
  ASSERT_TRUE(hub->Add(&b, Request(2e9), Initial()).ok());
  ASSERT_TRUE(hub->Add(&other, Request(3e9), Initial()).ok());
  const int64_t v = SetP5(kP5CutUsdPerHour);
  ASSERT_TRUE(a.WaitFor(v));
  ASSERT_TRUE(b.WaitFor(v));
  ASSERT_TRUE(other.WaitFor(v));
  EXPECT_EQ(hub->recomputes(), 2);  // two distinct requests, one change
  EXPECT_EQ(hub->watches(), 3);
  EXPECT_EQ(hub->metrics().recomputes->Value(), 2);
  EXPECT_EQ(hub->metrics().open->Value(), 3);
}

TEST_F(WatchHubTest, ABurstOfWritesIsRecomputedOnTheNewestSnapshot) {
  FakeSink sink;
  std::unique_ptr<WatchHub> hub = MakeHub();
  ASSERT_TRUE(hub->Add(&sink, Request(2e9), Initial()).ok());
  SetGate(false);  // the first recomputation will wait here while the burst lands
  SetP5(kP5CutUsdPerHour);
  int64_t last = 0;
  for (int i = 0; i < 20; ++i) last = SetP5(i % 2 == 0 ? kP5ListUsdPerHour : kP5CutUsdPerHour);
  SetGate(true);
  ASSERT_TRUE(sink.WaitFor(last));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  // The one held at the gate, then one on the newest snapshot: not 21.
  EXPECT_LE(hub->recomputes(), 2);
  EXPECT_EQ(sink.versions().back(), last);
}

TEST_F(WatchHubTest, BoundsOnWatchesAndDistinctRequests) {
  WatchHubOptions options;
  options.max_watches = 2;
  options.max_workloads = 1;
  FakeSink a, b, c;
  std::unique_ptr<WatchHub> hub = MakeHub(options);
  ASSERT_TRUE(hub->Add(&a, Request(2e9), Initial()).ok());
  absl::Status another = hub->Add(&b, Request(3e9), Initial());
  EXPECT_EQ(another.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(another.message().find("--max_watched_workloads"), std::string::npos) << another;
  ASSERT_TRUE(hub->Add(&b, Request(2e9), Initial()).ok());  // the same request shares the one
  absl::Status third = hub->Add(&c, Request(2e9), Initial());
  EXPECT_EQ(third.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(third.message().find("--max_watches"), std::string::npos) << third;
}

TEST_F(WatchHubTest, RemovedWatchersHearNothingAndCloseTellsTheRest) {
  FakeSink gone, staying, late;
  std::unique_ptr<WatchHub> hub = MakeHub();
  ASSERT_TRUE(hub->Add(&gone, Request(2e9), Initial()).ok());
  ASSERT_TRUE(hub->Add(&staying, Request(2e9), Initial()).ok());
  hub->Remove(&gone);
  EXPECT_EQ(hub->watches(), 1);
  const int64_t v = SetP5(kP5CutUsdPerHour);
  ASSERT_TRUE(staying.WaitFor(v));
  EXPECT_TRUE(gone.versions().empty());
  hub->Close();
  EXPECT_TRUE(staying.closed());
  EXPECT_FALSE(gone.closed());
  EXPECT_EQ(hub->Add(&late, Request(2e9), Initial()).code(), absl::StatusCode::kUnavailable);
  hub->Remove(&staying);
  EXPECT_EQ(hub->watches(), 0);
}

}  // namespace
}  // namespace capplan::server
