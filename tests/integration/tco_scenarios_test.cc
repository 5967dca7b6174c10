// Standing TCO scenarios over the real server: written through the admin RPCs and the CLI,
// listed, repriced after every catalog write and exported as capplan_tco_* gauges on
// /metrics; refused like the Tco RPC refuses; removed with their series.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "admin_server.h"
#include "capplan/v1/planner.pb.h"

namespace capplan::testing {
namespace {

namespace v1 = capplan::v1;

// 8 x H100 rented as one aws p5.48xlarge in us-east-1 at the catalog's on-demand price (a
// shipped offer), against buying for $300,000.
v1::TcoRequest P5Rent() {
  v1::TcoRequest r;
  r.set_horizon_months(36);
  v1::TcoFleet* f = r.add_fleets();
  f->set_gpu_name("H100-SXM5-80GB");
  f->set_gpu_count(8);
  f->mutable_own()->set_capex_usd(300000);
  f->mutable_rent()->set_provider("aws");
  f->mutable_rent()->set_instance_type("p5.48xlarge");
  f->mutable_rent()->set_region("us-east-1");
  return r;
}

v1::UpsertTcoScenarioRequest Upsert(const std::string& name, const v1::TcoRequest& req) {
  v1::UpsertTcoScenarioRequest r;
  r.mutable_scenario()->set_name(name);
  *r.mutable_scenario()->mutable_request() = req;
  return r;
}

// The value of `series{scenario="<scenario>"}` in a Prometheus text page; none if absent.
std::optional<double> Gauge(const std::string& page, const std::string& series, const std::string& scenario) {
  const std::string head = series + "{scenario=\"" + scenario + "\"} ";
  const size_t at = page.find("\n" + head);
  if (at == std::string::npos) return std::nullopt;
  return std::strtod(page.c_str() + at + 1 + head.size(), nullptr);
}

class TcoScenariosTest : public AdminServerTest {
 protected:
  // /metrics once the scenario gauges are at `version` or later (they are computed off the
  // write's path, so they follow it by a moment).
  std::string MetricsAt(int64_t version) {
    std::string page;
    for (int i = 0; i < 100; ++i) {
      int code = 0;
      page = HttpGet(server_->metrics_port(), "/metrics", &code);
      static const std::string kVersion = "\ncapplan_tco_scenarios_catalog_version ";
      const size_t at = page.find(kVersion);
      if (at != std::string::npos &&
          std::strtod(page.c_str() + at + kVersion.size(), nullptr) >= static_cast<double>(version)) {
        // A scrape reads family by family, so the one that saw the version (set last in a
        // pass) may have read a scenario's family before that pass set it; a scrape begun
        // now reads the whole pass.
        return HttpGet(server_->metrics_port(), "/metrics", &code);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ADD_FAILURE() << "scenario gauges never reached catalog version " << version << "\n" << page;
    return page;
  }
};

TEST_F(TcoScenariosTest, ExportedGaugesFollowEveryCatalogWrite) {
  client::Client admin = MakeClient(kAdminToken);
  absl::StatusOr<v1::WriteResponse> written =
      admin.UpsertTcoScenario(Upsert("own-or-rent-a100", ReadmeOwnOrRentRequest()));
  ASSERT_TRUE(written.ok()) << written.status();
  absl::StatusOr<v1::WriteResponse> p5 = admin.UpsertTcoScenario(Upsert("p5-rent", P5Rent()));
  ASSERT_TRUE(p5.ok()) << p5.status();

  std::string page = MetricsAt(p5->catalog_version());
  EXPECT_EQ(Gauge(page, "capplan_tco_scenario_ok", "own-or-rent-a100"), 1.0);
  EXPECT_EQ(Gauge(page, "capplan_tco_break_even_month", "own-or-rent-a100"), 25.0);
  EXPECT_EQ(Gauge(page, "capplan_tco_break_even_never", "own-or-rent-a100"), 0.0);
  // $15,000 / (8 GPUs x 730 h): the README's "$2.57 per GPU-hour".
  ASSERT_TRUE(Gauge(page, "capplan_tco_rent_usd_per_used_gpu_hour", "own-or-rent-a100").has_value());
  EXPECT_NEAR(*Gauge(page, "capplan_tco_rent_usd_per_used_gpu_hour", "own-or-rent-a100"), 15000.0 / (8 * 730), 1e-9);
  // No serving workload: no cost per 1M requests.
  EXPECT_FALSE(Gauge(page, "capplan_tco_rent_usd_per_million_requests", "own-or-rent-a100").has_value());
  const std::optional<double> p5_before = Gauge(page, "capplan_tco_rent_usd_per_used_gpu_hour", "p5-rent");
  ASSERT_TRUE(p5_before.has_value()) << page;

  // A new on-demand price for the rented offer: every GPU busy all month, so the rent per
  // used GPU-hour is the instance price over its 8 GPUs.
  absl::StatusOr<v1::WriteResponse> price = admin.SetPrice(P5Price(60.0));
  ASSERT_TRUE(price.ok()) << price.status();
  page = MetricsAt(price->catalog_version());
  EXPECT_NEAR(*Gauge(page, "capplan_tco_rent_usd_per_used_gpu_hour", "p5-rent"), 60.0 / 8, 1e-9);
  EXPECT_NE(*Gauge(page, "capplan_tco_rent_usd_per_used_gpu_hour", "p5-rent"), *p5_before);
  EXPECT_EQ(Gauge(page, "capplan_tco_break_even_month", "own-or-rent-a100"), 25.0);

  v1::DeleteTcoScenarioRequest del;
  del.set_name("p5-rent");
  absl::StatusOr<v1::WriteResponse> deleted = admin.DeleteTcoScenario(del);
  ASSERT_TRUE(deleted.ok()) << deleted.status();
  page = MetricsAt(deleted->catalog_version());
  EXPECT_EQ(page.find("scenario=\"p5-rent\""), std::string::npos) << page;
  EXPECT_EQ(Gauge(page, "capplan_tco_break_even_month", "own-or-rent-a100"), 25.0);
  EXPECT_EQ(admin.DeleteTcoScenario(del).status().code(), absl::StatusCode::kNotFound);

  absl::StatusOr<v1::ListTcoScenariosResponse> listed = MakeClient("").ListTcoScenarios();
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->scenarios_size(), 1);
  EXPECT_EQ(listed->scenarios(0).name(), "own-or-rent-a100");
  EXPECT_EQ(listed->scenarios(0).updated_by(), "alice");
  EXPECT_EQ(listed->scenarios(0).request().SerializeAsString(), ReadmeOwnOrRentRequest().SerializeAsString());
}

TEST_F(TcoScenariosTest, ScenarioThatStopsPricingKeepsNoStaleValues) {
  client::Client admin = MakeClient(kAdminToken);
  ASSERT_TRUE(admin.UpsertTcoScenario(Upsert("p5-rent", P5Rent())).ok());
  v1::DeleteInstanceTypeRequest gone;
  gone.set_provider("aws");
  gone.set_instance_type("p5.48xlarge");
  gone.set_region("us-east-1");
  absl::StatusOr<v1::WriteResponse> w = admin.DeleteInstanceType(gone);
  ASSERT_TRUE(w.ok()) << w.status();
  const std::string page = MetricsAt(w->catalog_version());
  EXPECT_EQ(Gauge(page, "capplan_tco_scenario_ok", "p5-rent"), 0.0);
  EXPECT_FALSE(Gauge(page, "capplan_tco_break_even_month", "p5-rent").has_value()) << page;
  EXPECT_FALSE(Gauge(page, "capplan_tco_rent_usd_per_used_gpu_hour", "p5-rent").has_value()) << page;
}

TEST_F(TcoScenariosTest, RefusedLikeTheTcoCallAndOnlyForAdmins) {
  client::Client admin = MakeClient(kAdminToken);
  v1::TcoRequest no_horizon = ReadmeOwnOrRentRequest();
  no_horizon.set_horizon_months(0);
  absl::Status s = admin.UpsertTcoScenario(Upsert("own-or-rent", no_horizon)).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("scenario.request.horizon_months"), absl::string_view::npos) << s;
  v1::TcoRequest unknown_gpu = ReadmeOwnOrRentRequest();
  unknown_gpu.mutable_fleets(0)->set_gpu_name("no-such-gpu");
  s = admin.UpsertTcoScenario(Upsert("own-or-rent", unknown_gpu)).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("scenario.request.fleets[0]"), absl::string_view::npos) << s;
  s = admin.UpsertTcoScenario(Upsert("has space", ReadmeOwnOrRentRequest())).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("scenario.name"), absl::string_view::npos) << s;
  EXPECT_EQ(MakeClient(kReadToken).UpsertTcoScenario(Upsert("own-or-rent", ReadmeOwnOrRentRequest())).status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(MakeClient("").UpsertTcoScenario(Upsert("own-or-rent", ReadmeOwnOrRentRequest())).status().code(),
            absl::StatusCode::kUnauthenticated);
  absl::StatusOr<v1::ListTcoScenariosResponse> listed = MakeClient("").ListTcoScenarios();
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->scenarios_size(), 0);
  EXPECT_EQ(listed->catalog_version(), 1);  // nothing was written
}

TEST_F(TcoScenariosTest, CliWritesListsAndDeletes) {
  const std::string file = dir_.path() + "/scenario.json";
  std::ofstream(file) << R"({"horizon_months": 36, "fleets": [{"gpu_name": "A100-SXM4-80GB", "gpu_count": 8,
    "own": {"capex_usd": 250000, "ops_usd_per_month": 5000, "power_watts": 0,
    "electricity_usd_per_kwh": 0},
    "rent": {"price_usd_per_month": 15000}}]})";
  const std::map<std::string, std::string> env = {{"CAPPLAN_ADMIN_TOKEN", kAdminToken}};
  const std::string server = "--server=" + server_->grpc_address();
  ExitResult up = RunProgram(
      {CAPPLAN_CLI_BINARY, server, "admin", "upsert-tco-scenario", "--name=own-or-rent-a100", "--request_json=" + file},
      30000, env);
  ASSERT_EQ(up.exit_code, 0) << up.stderr_text;
  EXPECT_NE(up.stdout_text.find("TCO scenario own-or-rent-a100 written; catalog version 2"), std::string::npos)
      << up.stdout_text;
  EXPECT_EQ(Gauge(MetricsAt(2), "capplan_tco_break_even_month", "own-or-rent-a100"), 25.0);
  ExitResult list = RunProgram({CAPPLAN_CLI_BINARY, server, "catalog", "tco-scenarios"}, 30000);
  ASSERT_EQ(list.exit_code, 0) << list.stderr_text;
  EXPECT_NE(list.stdout_text.find("8 x A100-SXM4-80GB"), std::string::npos) << list.stdout_text;
  ExitResult del =
      RunProgram({CAPPLAN_CLI_BINARY, server, "admin", "delete-tco-scenario", "--name=own-or-rent-a100"}, 30000, env);
  ASSERT_EQ(del.exit_code, 0) << del.stderr_text;
  EXPECT_EQ(MetricsAt(3).find("own-or-rent-a100"), std::string::npos);
}

// Scenarios kept in a file and written at start-up: exported like written ones, not written
// again when unchanged, and a bad one stops the server naming the entry and field.
TEST(TcoScenariosFileTest, WrittenAtStartUpOnceAndCheckedLikeTheRpc) {
  TempDir dir;
  const std::string file = dir.path() + "/scenarios.json";
  std::ofstream(file) << R"([{"name": "own-or-rent-a100", "request": {"horizon_months": 36, "fleets": [{"gpu_name":
    "A100-SXM4-80GB", "gpu_count": 8, "own": {"capex_usd": 250000, "ops_usd_per_month": 5000, "power_watts": 0,
    "electricity_usd_per_kwh": 0},
    "rent": {"price_usd_per_month": 15000}}]}}])";
  const std::vector<std::string> args = {"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0",
                                         "--db=" + dir.path() + "/c.db", "--tco_scenarios_file=" + file};
  for (int start = 0; start < 2; ++start) {
    ServerProcess server(args);
    ASSERT_TRUE(server.started()) << server.Wait(0).stderr_text;
    client::ClientOptions o;
    o.server = server.grpc_address();
    absl::StatusOr<v1::ListTcoScenariosResponse> listed = client::Client(o).ListTcoScenarios();
    ASSERT_TRUE(listed.ok()) << listed.status();
    ASSERT_EQ(listed->scenarios_size(), 1);
    EXPECT_EQ(listed->scenarios(0).updated_by(), "tco_scenarios_file");
    EXPECT_EQ(listed->scenarios(0).request().SerializeAsString(), ReadmeOwnOrRentRequest().SerializeAsString());
    EXPECT_EQ(listed->catalog_version(), 2) << "start " << start;  // the second start writes nothing
    std::string page;
    for (int i = 0; i < 100 && !Gauge(page, "capplan_tco_break_even_month", "own-or-rent-a100").has_value(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      int code = 0;
      page = HttpGet(server.metrics_port(), "/metrics", &code);
    }
    EXPECT_EQ(Gauge(page, "capplan_tco_break_even_month", "own-or-rent-a100"), 25.0) << page;
    EXPECT_NE(page.find("\ncapplan_catalog_version 2\n"), std::string::npos) << page;
  }
  std::ofstream(file) << R"([{"name": "own-or-rent-a100", "request": {"horizon_months": 36, "fleets": [{"gpu_name":
    "A100-SXM4-80GB", "gpu_count": 0}]}}])";
  ServerProcess bad(args);
  EXPECT_FALSE(bad.started());
  const std::string err = bad.Wait(10000).stderr_text;
  EXPECT_NE(err.find("scenarios[0].request.fleets[0].gpu_count"), std::string::npos) << err;
}

}  // namespace
}  // namespace capplan::testing
