// WatchPlan over the real server and the client library: the first answer at once, an update
// when a price change makes another option the cheapest, none when a cost moves less than
// the watcher's fraction, one recomputation per catalog change however many watch, the
// bounds, cancellation, and a shutdown that does not wait for open watches.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "admin_server.h"

namespace capplan::testing {
namespace {

namespace v1 = capplan::v1;
using WatchTest = AdminServerTest;

// The README's training example: fine-tuning a 7B model (LoRA, 2e9 tokens), here on AWS us-east-1's A100 (p4d)
// and H100 (p5) offers only. With the shipped prices (p4d $32.7726/h, AWS on-demand page,
// 2024-06-01; p5 $55.04/h after the June 2025 cut, migration 0015) the p5 runs it cheapest.
v1::WatchPlanRequest ReadmeFineTuneWatch(double fraction) {
  v1::WatchPlanRequest w;
  v1::PlanRequest* r = w.mutable_plan();
  r->mutable_training()->set_model_name("Llama-2-7B");
  r->mutable_training()->set_tokens(2e9);
  r->mutable_training()->set_method(v1::TRAINING_METHOD_LORA);
  r->mutable_constraints()->add_providers("aws");
  r->mutable_constraints()->add_regions("us-east-1");
  r->mutable_constraints()->add_allowed_gpus("H100-SXM5-80GB");
  r->mutable_constraints()->add_allowed_gpus("A100-SXM4-40GB");
  r->set_view(v1::VIEW_BASIC);
  w.set_min_cost_change_fraction(fraction);
  return w;
}

// Test input, not a quote: p4d.24xlarge in us-east-1 at $15/h, low enough that the p4d runs
// the fine-tune cheapest (AWS's own June 2025 cut, $21.95764/h, leaves the p5 ahead).
constexpr double kP4dTestUsdPerHour = 15.0;
v1::SetPriceRequest P4dPriceCut() {
  v1::SetPriceRequest r;
  v1::Price* p = r.mutable_price();
  p->set_provider("aws");
  p->set_instance_type("p4d.24xlarge");
  p->set_region("us-east-1");
  p->set_kind(v1::PRICE_KIND_ON_DEMAND);
  p->set_price_usd_per_hour(kP4dTestUsdPerHour);
  p->mutable_source()->set_citation("test input: a deep p4d cut");
  p->mutable_source()->set_as_of_date("2026-08-26");
  return r;
}

// A watch running on its own thread, collecting what it is sent.
class Watcher {
 public:
  Watcher(client::Client* c, const v1::WatchPlanRequest& request, const client::WatchOptions& options = {}) {
    thread_ = std::thread([this, c, request, options] {
      absl::Status s = c->WatchPlan(
          request,
          [this](const v1::WatchPlanResponse& u) {
            std::lock_guard<std::mutex> lock(mu_);
            updates_.push_back(u);
            return true;
          },
          &canceller_, options);
      std::lock_guard<std::mutex> lock(mu_);
      status_ = s;
      ended_ = true;
    });
  }
  ~Watcher() {
    canceller_.Cancel();
    thread_.join();
  }
  // Waits up to 10 s for `n` updates; the updates so far.
  std::vector<v1::WatchPlanResponse> WaitFor(size_t n) {
    for (int i = 0; i < 1000 && Updates().size() < n && !Ended(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return Updates();
  }
  std::vector<v1::WatchPlanResponse> Updates() {
    std::lock_guard<std::mutex> lock(mu_);
    return updates_;
  }
  bool Ended() {
    std::lock_guard<std::mutex> lock(mu_);
    return ended_;
  }
  // Waits up to 10 s for the watch to end; its status.
  absl::Status WaitEnd() {
    for (int i = 0; i < 1000 && !Ended(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::lock_guard<std::mutex> lock(mu_);
    return ended_ ? status_ : absl::DeadlineExceededError("the watch did not end");
  }
  void Cancel() { canceller_.Cancel(); }

 private:
  client::WatchCanceller canceller_;
  std::mutex mu_;
  std::vector<v1::WatchPlanResponse> updates_;
  absl::Status status_;
  bool ended_ = false;
  std::thread thread_;
};

// A metric's value from the server's /metrics (-1 when missing).
double Metric(int port, const std::string& name) {
  int code = 0;
  const std::string body = HttpGet(port, "/metrics", &code);
  for (absl::string_view line : absl::StrSplit(body, '\n')) {
    std::vector<absl::string_view> f = absl::StrSplit(line, ' ');
    double v = 0;
    if (f.size() == 2 && f[0] == name && absl::SimpleAtod(f[1], &v)) return v;
  }
  return -1;
}

// Waits up to 10 s for a metric to reach `want`.
double WaitMetric(int port, const std::string& name, double want) {
  double v = Metric(port, name);
  for (int i = 0; i < 200 && v != want; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    v = Metric(port, name);
  }
  return v;
}

const v1::WatchOptionChange* FindChange(const v1::WatchPlanResponse& u, v1::WatchChangeKind kind) {
  for (const v1::WatchOptionChange& c : u.changes()) {
    if (c.kind() == kind) return &c;
  }
  return nullptr;
}

TEST_F(WatchTest, FirstAnswerAtOnceThenAnUpdateWhenAnotherOptionBecomesCheapest) {
  client::Client reader = MakeClient("");
  Watcher w(&reader, ReadmeFineTuneWatch(0));
  std::vector<v1::WatchPlanResponse> u = w.WaitFor(1);
  ASSERT_EQ(u.size(), 1u) << w.WaitEnd();
  EXPECT_EQ(u[0].reason(), v1::WATCH_REASON_INITIAL);
  EXPECT_EQ(u[0].catalog_version(), 1);
  ASSERT_GT(u[0].plan().options_size(), 0);
  EXPECT_EQ(u[0].plan().options(0).instance_type(), "p5.48xlarge");

  client::Client admin = MakeClient(kAdminToken);
  absl::StatusOr<v1::WriteResponse> write = admin.SetPrice(P4dPriceCut());
  ASSERT_TRUE(write.ok()) << write.status();
  u = w.WaitFor(2);
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[1].reason(), v1::WATCH_REASON_TOP_OPTIONS_CHANGED);
  EXPECT_EQ(u[1].catalog_version(), write->catalog_version());
  ASSERT_GT(u[1].plan().options_size(), 0);
  EXPECT_EQ(u[1].plan().options(0).instance_type(), "p4d.24xlarge");
  const v1::WatchOptionChange* added = FindChange(u[1], v1::WATCH_CHANGE_KIND_ADDED);
  ASSERT_NE(added, nullptr);
  EXPECT_NE(added->option().find("p4d.24xlarge"), std::string::npos) << added->option();
  EXPECT_EQ(added->rank_after(), 1);
  EXPECT_EQ(added->rank_before(), 0);
  EXPECT_DOUBLE_EQ(added->cost_usd_per_hour_after(), kP4dTestUsdPerHour);
  const v1::WatchOptionChange* removed = FindChange(u[1], v1::WATCH_CHANGE_KIND_REMOVED);
  ASSERT_NE(removed, nullptr);
  EXPECT_NE(removed->option().find("p5.48xlarge"), std::string::npos) << removed->option();
}

TEST_F(WatchTest, ACostMoveBelowTheFractionIsNotSentAndTwoWatchersCostOneRecompute) {
  client::Client reader = MakeClient("");
  // A further P5 cut (test input), $55.04 -> $49.50/h, lowers every p5 option's cost by 10%:
  // the top options stay p5 in the same order. One watcher asks for moves over 50%, one over 1%.
  Watcher coarse(&reader, ReadmeFineTuneWatch(0.5));
  Watcher fine(&reader, ReadmeFineTuneWatch(0.01));
  ASSERT_EQ(coarse.WaitFor(1).size(), 1u);
  ASSERT_EQ(fine.WaitFor(1).size(), 1u);
  EXPECT_EQ(WaitMetric(server_->metrics_port(), "capplan_watches_open", 2), 2);
  const double recomputes = Metric(server_->metrics_port(), "capplan_watch_recomputes_total");

  ASSERT_TRUE(MakeClient(kAdminToken).SetPrice(P5Price(49.50)).ok());
  std::vector<v1::WatchPlanResponse> u = fine.WaitFor(2);
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[1].reason(), v1::WATCH_REASON_COST_CHANGED);
  const v1::WatchOptionChange* c = FindChange(u[1], v1::WATCH_CHANGE_KIND_COST_CHANGED);
  ASSERT_NE(c, nullptr);
  EXPECT_DOUBLE_EQ(c->cost_usd_per_hour_before(), 55.04);
  EXPECT_DOUBLE_EQ(c->cost_usd_per_hour_after(), 49.50);
  EXPECT_NEAR(c->cost_change_fraction(), 49.50 / 55.04 - 1, 0.01);
  // Both watchers were handed the same result in the same pass: the coarse one had its
  // chance before the fine one's update left the server.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(coarse.Updates().size(), 1u);
  EXPECT_EQ(Metric(server_->metrics_port(), "capplan_watch_recomputes_total"), recomputes + 1);
  EXPECT_GE(Metric(server_->metrics_port(), "capplan_watch_updates_sent_total"), 3);
}

TEST_F(WatchTest, AWorkloadThatStopsFittingIsToldWhy) {
  client::Client reader = MakeClient("");
  v1::WatchPlanRequest only_p4d = ReadmeFineTuneWatch(0);  // A100-SXM4-40GB in aws us-east-1: p4d only
  only_p4d.mutable_plan()->mutable_constraints()->clear_allowed_gpus();
  only_p4d.mutable_plan()->mutable_constraints()->add_allowed_gpus("A100-SXM4-40GB");
  Watcher w(&reader, only_p4d);
  std::vector<v1::WatchPlanResponse> u = w.WaitFor(1);
  ASSERT_EQ(u.size(), 1u) << w.WaitEnd();
  ASSERT_GT(u[0].plan().options_size(), 0);
  EXPECT_EQ(u[0].plan().options(0).instance_type(), "p4d.24xlarge");
  v1::DeleteInstanceTypeRequest gone;
  gone.set_provider("aws");
  gone.set_instance_type("p4d.24xlarge");
  gone.set_region("us-east-1");
  ASSERT_TRUE(MakeClient(kAdminToken).DeleteInstanceType(gone).ok());
  u = w.WaitFor(2);
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[1].reason(), v1::WATCH_REASON_NO_LONGER_FEASIBLE);
  EXPECT_EQ(u[1].plan().options_size(), 0);
  EXPECT_NE(u[1].plan_status_code(), 0);
  EXPECT_FALSE(u[1].plan_status_message().empty());
  const v1::WatchOptionChange* removed = FindChange(u[1], v1::WATCH_CHANGE_KIND_REMOVED);
  ASSERT_NE(removed, nullptr);
  EXPECT_NE(removed->option().find("p4d.24xlarge"), std::string::npos);
}

TEST_F(WatchTest, CancelRemovesTheWatch) {
  client::Client reader = MakeClient("");
  auto w = std::make_unique<Watcher>(&reader, ReadmeFineTuneWatch(0));
  ASSERT_EQ(w->WaitFor(1).size(), 1u);
  EXPECT_EQ(WaitMetric(server_->metrics_port(), "capplan_watches_open", 1), 1);
  w->Cancel();
  EXPECT_TRUE(w->WaitEnd().ok());
  EXPECT_EQ(WaitMetric(server_->metrics_port(), "capplan_watches_open", 0), 0);
  // With no watcher left, a catalog change recomputes nothing.
  const double recomputes = Metric(server_->metrics_port(), "capplan_watch_recomputes_total");
  ASSERT_TRUE(MakeClient(kAdminToken).SetPrice(P4dPriceCut()).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(Metric(server_->metrics_port(), "capplan_watch_recomputes_total"), recomputes);
}

TEST_F(WatchTest, AnInvalidRequestFailsBeforeStreaming) {
  client::Client reader = MakeClient("");
  auto expect_invalid = [&](const v1::WatchPlanRequest& r, const std::string& field) {
    int updates = 0;
    absl::Status s = reader.WatchPlan(r, [&](const v1::WatchPlanResponse&) { return ++updates < 100; });
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_NE(s.message().find(field), std::string::npos) << s;
    EXPECT_EQ(updates, 0);
  };
  expect_invalid(ReadmeFineTuneWatch(-0.1), "min_cost_change_fraction");
  expect_invalid(ReadmeFineTuneWatch(11), "min_cost_change_fraction");
  v1::WatchPlanRequest top = ReadmeFineTuneWatch(0);
  top.set_top_n(101);
  expect_invalid(top, "top_n");
  v1::WatchPlanRequest tokens = ReadmeFineTuneWatch(0);
  tokens.mutable_plan()->mutable_training()->set_tokens(-5);
  expect_invalid(tokens, "plan.training.tokens");
  expect_invalid(v1::WatchPlanRequest(), "plan");
}

TEST_F(WatchTest, ShutdownWithOpenWatchesIsPromptAndEndsThemUnavailable) {
  client::Client reader = MakeClient("");
  client::WatchOptions once;
  once.max_reconnects = 1;
  once.initial_backoff = std::chrono::milliseconds(50);
  std::vector<std::unique_ptr<Watcher>> watchers;
  watchers.reserve(3);
  for (int i = 0; i < 3; ++i) watchers.push_back(std::make_unique<Watcher>(&reader, ReadmeFineTuneWatch(0), once));
  for (auto& w : watchers) ASSERT_EQ(w->WaitFor(1).size(), 1u);
  // One more on a bare stub, to see the status the server ends it with.
  auto channel = grpc::CreateChannel(server_->grpc_address(), grpc::InsecureChannelCredentials());
  auto stub = v1::PlannerService::NewStub(channel);
  grpc::ClientContext ctx;
  std::unique_ptr<grpc::ClientReader<v1::WatchPlanResponse>> raw = stub->WatchPlan(&ctx, ReadmeFineTuneWatch(0));
  v1::WatchPlanResponse first;
  ASSERT_TRUE(raw->Read(&first));

  const auto start = std::chrono::steady_clock::now();
  server_->Signal(SIGTERM);
  while (raw->Read(&first)) {
  }
  const grpc::Status ended = raw->Finish();
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::UNAVAILABLE) << ended.error_message();
  ExitResult exit = server_->Wait(8000);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(exit.exit_code, 0) << exit.stderr_text;
  EXPECT_LT(seconds, 5) << "the shutdown waited for the open watches (grace is 10 s)";
  // The library's watches tried once more, found no server, and gave up as told.
  for (auto& w : watchers) EXPECT_EQ(w->WaitEnd().code(), absl::StatusCode::kUnavailable);
}

TEST_F(WatchTest, ACancelStormLeavesNoWatchOpenAndShutdownIsPrompt) {
  // 320 watches ended by the client while the server writes to them: half cancelled (some
  // before their first answer arrives, some after), half by a deadline of 1-20 ms (some
  // while the server still plans their first answer), with price changes meanwhile so that
  // updates are in flight as the streams end.
  auto channel = grpc::CreateChannel(server_->grpc_address(), grpc::InsecureChannelCredentials());
  std::unique_ptr<v1::PlannerService::Stub> stub = v1::PlannerService::NewStub(channel);
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    client::Client admin = MakeClient(kAdminToken);
    for (int i = 0; !stop.load(); ++i) {
      v1::SetPriceRequest r = P4dPriceCut();
      // Back and forth across the p5's price (see ReadmeFineTuneWatch), so each change is an update.
      if (i % 2 == 1) r.mutable_price()->set_price_usd_per_hour(120.0);
      EXPECT_TRUE(admin.SetPrice(r).ok());
    }
  });
  std::vector<std::thread> storm;
  for (int t = 0; t < 8; ++t) {
    storm.emplace_back([&stub] {
      for (int i = 0; i < 40; ++i) {
        grpc::ClientContext ctx;
        if (i % 2 == 1) ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(1 + i % 20));
        std::unique_ptr<grpc::ClientReader<v1::WatchPlanResponse>> reader =
            stub->WatchPlan(&ctx, ReadmeFineTuneWatch(0));
        v1::WatchPlanResponse update;
        if (i % 4 == 0) reader->Read(&update);
        if (i % 2 == 0) ctx.TryCancel();
        while (reader->Read(&update)) {
        }
        reader->Finish();
      }
    });
  }
  for (std::thread& t : storm) t.join();
  stop = true;
  writer.join();
  EXPECT_EQ(WaitMetric(server_->metrics_port(), "capplan_watches_open", 0), 0);
  // Nothing open, so SIGTERM has nothing to wait for: the server is gone well inside its
  // 10 s grace period (a stream the server still counted held it for the whole period).
  server_->Signal(SIGTERM);
  ExitResult exit = server_->Wait(8000);
  EXPECT_EQ(exit.exit_code, 0) << "-2: still running 8 s after SIGTERM\n" << exit.stderr_text;
}

TEST(WatchLimitsTest, WatchesBeyondMaxWatchesAreRefused) {
  TempDir dir;
  ServerProcess server(
      {"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--db=" + dir.path() + "/c.db", "--max_watches=1"});
  ASSERT_TRUE(server.started()) << server.Wait(0).stderr_text;
  client::ClientOptions o;
  o.server = server.grpc_address();
  client::Client reader(o);
  Watcher first(&reader, ReadmeFineTuneWatch(0));
  ASSERT_EQ(first.WaitFor(1).size(), 1u);
  absl::Status s = reader.WatchPlan(ReadmeFineTuneWatch(0), [](const v1::WatchPlanResponse&) { return false; });
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_NE(s.message().find("--max_watches"), std::string::npos) << s;
}

TEST(WatchRefreshTest, APriceDatedAFewSecondsAheadReachesWatchersWhenItTakesEffect) {
  TempDir dir;
  WriteTokenFile(dir.path() + "/tokens", std::string(kAdminToken) + " alice admin\n");
  ServerProcess server({"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--db=" + dir.path() + "/c.db",
                        "--admin_token_file=" + dir.path() + "/tokens", "--watch_refresh=500ms"});
  ASSERT_TRUE(server.started()) << server.Wait(0).stderr_text;
  client::ClientOptions o;
  o.server = server.grpc_address();
  client::Client reader(o);
  Watcher w(&reader, ReadmeFineTuneWatch(0));
  ASSERT_EQ(w.WaitFor(1).size(), 1u);
  o.admin_token = kAdminToken;
  client::Client admin(o);
  v1::SetPriceRequest cut = P4dPriceCut();
  const int64_t effective = static_cast<int64_t>(std::time(nullptr)) + 2;
  cut.mutable_price()->set_effective_unix_seconds(effective);
  ASSERT_TRUE(admin.SetPrice(cut).ok());
  std::vector<v1::WatchPlanResponse> u = w.WaitFor(2);
  ASSERT_EQ(u.size(), 2u);
  EXPECT_GE(static_cast<int64_t>(std::time(nullptr)), effective) << "sent before the price took effect";
  EXPECT_EQ(u[1].reason(), v1::WATCH_REASON_TOP_OPTIONS_CHANGED);
  EXPECT_EQ(u[1].plan().options(0).instance_type(), "p4d.24xlarge");
}

TEST(WatchReconnectTest, TheClientWatchesAgainWhenTheServerComesBack) {
  TempDir dir;
  const int port = UnusedLoopbackPort();
  ASSERT_GT(port, 0);
  const std::vector<std::string> args = {"--listen=127.0.0.1:" + std::to_string(port), "--metrics_listen=127.0.0.1:0",
                                         "--db=" + dir.path() + "/c.db"};
  auto server = std::make_unique<ServerProcess>(args);
  ASSERT_TRUE(server->started()) << server->Wait(0).stderr_text;
  client::ClientOptions o;
  o.server = server->grpc_address();
  client::Client reader(o);
  client::WatchOptions fast;
  fast.initial_backoff = std::chrono::milliseconds(50);
  fast.max_backoff = std::chrono::milliseconds(200);
  Watcher w(&reader, ReadmeFineTuneWatch(0), fast);
  ASSERT_EQ(w.WaitFor(1).size(), 1u);
  server->Signal(SIGTERM);
  EXPECT_EQ(server->Wait(8000).exit_code, 0);
  server = std::make_unique<ServerProcess>(args);  // a restart on the same port and database
  ASSERT_TRUE(server->started()) << server->Wait(0).stderr_text;
  std::vector<v1::WatchPlanResponse> u = w.WaitFor(2);
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[1].reason(), v1::WATCH_REASON_INITIAL);  // the request sent again: a full answer
  EXPECT_FALSE(w.Ended());
}

}  // namespace
}  // namespace capplan::testing
