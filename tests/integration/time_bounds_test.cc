// Times at and past their limits, against the real server: a price list dated in
// milliseconds by mistake, reads and watches as of the largest int64, and a database that
// already holds a row dated past google.protobuf.Timestamp's range (year 9999). Converting
// such a time to a Timestamp used to fail protobuf's check and abort the process.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "admin_server.h"

namespace capplan::testing {
namespace {

namespace v1 = capplan::v1;

// 2024-12-01T01:33:20Z in milliseconds: a date in the wrong unit, as a script would send it.
constexpr int64_t kMillisecondsDate = 1733000000000;
// Timestamp's last second (timestamp.proto): 9999-12-31T23:59:59Z.
constexpr int64_t kTimestampMaxSeconds = 253402300799;

// One g6.xlarge offer at the shipped AWS on-demand price ($0.8048/h, as admin_test.cc).
v1::ImportPricesCsvRequest G6Import() {
  v1::ImportPricesCsvRequest r;
  r.set_provider("aws");
  r.set_csv(
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\n"
      "g6.xlarge,L4,1,4,16,0.8048,eu-west-1\n");
  r.mutable_source()->set_citation("test");
  r.mutable_source()->set_as_of_date("2025-11-01");
  return r;
}

// A 7B LoRA fine-tune of 2e9 tokens, as the README's first example.
v1::PlanRequest SevenBLora() {
  v1::PlanRequest r;
  r.mutable_training()->set_model_name("Llama-2-7B");
  r.mutable_training()->set_tokens(2e9);
  r.mutable_training()->set_method(v1::TRAINING_METHOD_LORA);
  r.set_view(v1::VIEW_BASIC);
  return r;
}

using TimeBoundsTest = AdminServerTest;

TEST_F(TimeBoundsTest, AnImportDatedInMillisecondsIsRefusedAndWritesNothing) {
  client::Client admin = MakeClient(kAdminToken);
  client::Client reader = MakeClient("");
  const int64_t before = reader.GetCatalogVersion()->catalog_version();
  v1::ImportPricesCsvRequest r = G6Import();
  r.set_effective_unix_seconds(kMillisecondsDate);
  absl::StatusOr<v1::ImportPricesCsvResponse> refused = admin.ImportPricesCsv(r);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument) << refused.status();
  EXPECT_NE(refused.status().message().find(
                "effective_unix_seconds: must be a time from 2000-01-01T00:00:00Z to 2100-01-01T00:00:00Z"),
            std::string::npos)
      << refused.status();
  // The Timestamp twin at Timestamp's own limit, likewise, named as sent.
  v1::ImportPricesCsvRequest by_time = G6Import();
  by_time.mutable_effective_time()->set_seconds(kTimestampMaxSeconds);
  absl::Status s = admin.ImportPricesCsv(by_time).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("effective_time: must be a time from"), std::string::npos) << s;
  // Nothing was written: no new catalog version, no g6 offer in eu-west-1.
  EXPECT_EQ(reader.GetCatalogVersion()->catalog_version(), before);
  v1::ListPriceHistoryRequest history;
  history.set_provider("aws");
  history.set_instance_type("g6.xlarge");
  history.set_region("eu-west-1");
  absl::StatusOr<v1::ListPriceHistoryResponse> none = reader.ListPriceHistory(history);
  EXPECT_TRUE(!none.ok() || none->prices_size() == 0) << none->DebugString();
  // SetPrice refuses the same date the same way.
  v1::SetPriceRequest price;
  v1::Price* p = price.mutable_price();
  p->set_provider("aws");
  p->set_instance_type("p5.48xlarge");
  p->set_region("us-east-1");
  p->set_kind(v1::PRICE_KIND_ON_DEMAND);
  p->set_price_usd_per_hour(98.32);  // the shipped AWS list price (2024-06-01)
  p->set_effective_unix_seconds(kMillisecondsDate);
  p->mutable_source()->set_citation("test");
  p->mutable_source()->set_as_of_date("2025-11-01");
  s = admin.SetPrice(price).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("price.effective_unix_seconds"), std::string::npos) << s;
  // The same date in seconds is taken.
  r.set_effective_unix_seconds(kMillisecondsDate / 1000);
  absl::StatusOr<v1::ImportPricesCsvResponse> taken = admin.ImportPricesCsv(r);
  ASSERT_TRUE(taken.ok()) << taken.status();
  EXPECT_EQ(taken->rows_imported(), 1);
}

TEST_F(TimeBoundsTest, ReadsAndWatchesAsOfTheLargestInt64AreRefusedNotACrash) {
  client::Client reader = MakeClient("");
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  v1::PlanRequest plan = SevenBLora();
  plan.set_prices_as_of_unix_seconds(kMax);
  absl::Status s = reader.Plan(plan).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("prices_as_of_unix_seconds: must be a time from 1970-01-01T00:00:00Z to "
                             "2100-01-01T00:00:00Z"),
            std::string::npos)
      << s;
  // An anonymous watch: refused before it streams, on a bare stub to see the status itself.
  auto channel = grpc::CreateChannel(server_->grpc_address(), grpc::InsecureChannelCredentials());
  std::unique_ptr<v1::PlannerService::Stub> stub = v1::PlannerService::NewStub(channel);
  v1::WatchPlanRequest watch;
  *watch.mutable_plan() = plan;
  grpc::ClientContext ctx;
  std::unique_ptr<grpc::ClientReader<v1::WatchPlanResponse>> stream = stub->WatchPlan(&ctx, watch);
  v1::WatchPlanResponse update;
  EXPECT_FALSE(stream->Read(&update));
  const grpc::Status ended = stream->Finish();
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << ended.error_message();
  EXPECT_NE(ended.error_message().find("plan.prices_as_of_unix_seconds"), std::string::npos) << ended.error_message();
  // The Timestamp form at Timestamp's last second, and a catalog read.
  v1::PlanRequest by_time = SevenBLora();
  by_time.mutable_prices_as_of_time()->set_seconds(kTimestampMaxSeconds);
  EXPECT_EQ(reader.Plan(by_time).status().code(), absl::StatusCode::kInvalidArgument);
  v1::ListInstancesRequest list;
  list.set_prices_as_of_unix_seconds(kMax);
  EXPECT_EQ(reader.ListInstances(list).status().code(), absl::StatusCode::kInvalidArgument);
  // 2100-01-01 itself is the last instant read at.
  plan.set_prices_as_of_unix_seconds(4102444800);
  EXPECT_TRUE(reader.Plan(plan).ok());
  absl::StatusOr<std::string> health = reader.Health();
  ASSERT_TRUE(health.ok()) << health.status();
  EXPECT_EQ(*health, "SERVING");
}

// A labelled metric's value from the server's /metrics (-1 when missing).
double LabelledMetric(int port, const std::string& series) {
  int code = 0;
  const std::string body = HttpGet(port, "/metrics", &code);
  for (absl::string_view line : absl::StrSplit(body, '\n')) {
    std::vector<absl::string_view> f = absl::StrSplit(line, ' ');
    double v = 0;
    if (f.size() == 2 && f[0] == series && absl::SimpleAtod(f[1], &v)) return v;
  }
  return -1;
}

// Waits up to 10 s for a metric to reach `want`.
double WaitLabelledMetric(int port, const std::string& series, double want) {
  double v = LabelledMetric(port, series);
  for (int i = 0; i < 200 && v != want; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    v = LabelledMetric(port, series);
  }
  return v;
}

TEST(FarFutureRowTest, AServerStartsAndAnswersOverARowDatedInMilliseconds) {
  TempDir dir;
  const std::string db = dir.path() + "/c.db";
  const std::vector<std::string> args{"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--db=" + db};
  {
    ServerProcess first(args);
    ASSERT_TRUE(first.started()) << first.Wait(0).stderr_text;
    first.Signal(SIGTERM);
    ASSERT_EQ(first.Wait(10000).exit_code, 0);
  }
  // What an older server accepted: a p4de price dated in milliseconds, and two standing TCO
  // scenarios renting that offer, one of them reading prices as of the largest int64.
  const std::string fleet = R"({"gpu_name":"A100-SXM4-80GB","gpu_count":8,"own":{"capex_usd":250000},)"
                            R"("rent":{"provider":"aws","instance_type":"p4de.24xlarge","region":"us-east-1"}})";
  const std::string sql =
      "INSERT INTO prices (provider, instance_type, region, kind, price_usd_per_hour, effective_unix_seconds, "
      "source_citation, source_as_of_date) VALUES ('aws', 'p4de.24xlarge', 'us-east-1', 'on_demand', 0.01, " +
      std::to_string(kMillisecondsDate) +
      ", 'a list dated in ms', '2024-12-01');"
      "INSERT INTO tco_scenarios (name, request_json, updated_by, updated_unix_seconds) VALUES ('rent_p4de', "
      "'{\"horizon_months\":36,\"fleets\":[" +
      fleet +
      "]}', 'test', 0), ('as_of_max', '{\"horizon_months\":36,"
      "\"prices_as_of_unix_seconds\":\"9223372036854775807\",\"fleets\":[" +
      fleet + "]}', 'test', 0);";
  ExitResult edit = RunProgram({"/usr/bin/sqlite3", db, sql}, 10000);
  ASSERT_EQ(edit.exit_code, 0) << edit.stderr_text;

  for (int start = 0; start < 2; ++start) {  // and again: no restart trips over it either
    ServerProcess server(args);
    ASSERT_TRUE(server.started()) << server.Wait(0).stderr_text;
    client::ClientOptions o;
    o.server = server.grpc_address();
    client::Client c(o);
    v1::ListPriceHistoryRequest history;
    history.set_provider("aws");
    history.set_instance_type("p4de.24xlarge");
    history.set_region("us-east-1");
    absl::StatusOr<v1::ListPriceHistoryResponse> h = c.ListPriceHistory(history);
    ASSERT_TRUE(h.ok()) << h.status();
    bool seen = false;
    for (const v1::Price& p : h->prices()) {
      if (p.effective_unix_seconds() != kMillisecondsDate) continue;
      seen = true;
      EXPECT_EQ(p.effective_time().seconds(), kTimestampMaxSeconds);  // shown at Timestamp's limit
    }
    EXPECT_TRUE(seen) << h->DebugString();
    // A row dated past 2100 never takes effect: today's p4de price is the shipped one.
    absl::StatusOr<v1::PlanResponse> plan = c.Plan(SevenBLora());
    ASSERT_TRUE(plan.ok()) << plan.status();
    // The scenario threads priced both: one fine, one refused for its time, neither fatal.
    EXPECT_EQ(WaitLabelledMetric(server.metrics_port(), R"(capplan_tco_scenario_ok{scenario="rent_p4de"})", 1), 1);
    EXPECT_EQ(WaitLabelledMetric(server.metrics_port(), R"(capplan_tco_scenario_ok{scenario="as_of_max"})", 0), 0);
    absl::StatusOr<std::string> health = c.Health();
    ASSERT_TRUE(health.ok()) << health.status();
    EXPECT_EQ(*health, "SERVING");
    server.Signal(SIGTERM);
    ExitResult exit = server.Wait(10000);
    EXPECT_EQ(exit.exit_code, 0) << exit.stderr_text;
    // The start-up said which row is out of range.
    EXPECT_NE(exit.stderr_text.find("effective_unix_seconds 1733000000000 is outside"), std::string::npos)
        << exit.stderr_text;
  }
}

}  // namespace
}  // namespace capplan::testing
