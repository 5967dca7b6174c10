// Owning over the real server (migration 0005): electricity prices listed and written through
// the admin RPCs and the CLI, and the GPU rows' system power and prices as clients see them.
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "admin_server.h"
#include "capplan/v1/planner.pb.h"

namespace capplan::testing {
namespace {

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class OwningTest : public AdminServerTest {
 protected:
  // The CLI against this server, with the admin token in its environment.
  ExitResult Cli(std::vector<std::string> args) {
    args.insert(args.begin(), {CAPPLAN_CLI_BINARY, "--server=" + server_->grpc_address()});
    return RunProgram(args, 30000, {{"CAPPLAN_ADMIN_TOKEN", kAdminToken}});
  }
};

// Ohio, commercial: 10.75 cents/kWh (EIA Electric Power Annual 2023, average revenue per kWh
// by state); AWS us-east-2 is in Ohio.
capplan::v1::UpsertElectricityPriceRequest Ohio(const std::string& request_id) {
  capplan::v1::UpsertElectricityPriceRequest r;
  capplan::v1::ElectricityPrice* e = r.mutable_price();
  e->set_region("us-east-2");
  e->set_usd_per_kwh(0.1075);
  e->mutable_source()->set_citation("EIA Electric Power Annual 2023, Ohio commercial");
  e->mutable_source()->set_as_of_date("2023-12-31");
  r.set_request_id(request_id);
  return r;
}

TEST_F(OwningTest, ListElectricityPricesCoversTheFirstShippedRegions) {
  client::Client c = MakeClient("");
  absl::StatusOr<capplan::v1::ListElectricityPricesResponse> prices = c.ListElectricityPrices();
  ASSERT_TRUE(prices.ok()) << prices.status();
  EXPECT_EQ(prices->catalog_version(), 1);
  std::set<std::string> priced;
  for (const capplan::v1::ElectricityPrice& e : prices->prices()) {
    EXPECT_FALSE(e.source().citation().empty()) << e.region();
    EXPECT_FALSE(e.source().as_of_date().empty()) << e.region();
    priced.insert(e.region());
    // EIA Electric Power Annual 2023: Oregon commercial 9.92 cents/kWh (AWS us-west-2).
    if (e.region() == "us-west-2") {
      EXPECT_DOUBLE_EQ(e.usd_per_kwh(), 0.0992);
    }
  }
  absl::StatusOr<capplan::v1::ListInstancesResponse> inst = c.ListInstances(capplan::v1::ListInstancesRequest());
  ASSERT_TRUE(inst.ok()) << inst.status();
  std::set<std::string> offered;
  for (const auto& o : inst->offers()) offered.insert(o.instance().region());
  // Every region of the first shipped offers (migration 0002) has a tariff; regions the
  // catalog growth (0008) adds outside the US fall back to TCO's stated default.
  for (const char* r : {"us-east-1", "us-west-2", "us-west-1", "us-central1", "us-east1", "eastus", "westus2"}) {
    EXPECT_EQ(offered.count(r), 1u) << r;
    EXPECT_EQ(priced.count(r), 1u) << r;
  }

  absl::StatusOr<capplan::v1::ListGpusResponse> gpus = c.ListGpus();
  ASSERT_TRUE(gpus.ok());
  for (const capplan::v1::Gpu& g : gpus->gpus()) {
    // NVIDIA DGX H100 datasheet: 10.2 kW for 8 GPUs; SemiAnalysis DGX H100 ~$270,000 (2023-05).
    if (g.name() != "H100-SXM5-80GB") continue;
    EXPECT_DOUBLE_EQ(g.system_power_watts_per_gpu(), 10200.0 / 8);
    EXPECT_DOUBLE_EQ(g.system_price_usd_per_gpu(), 270000.0 / 8);
    EXPECT_GT(g.price_uncertainty_fraction(), 0);
    EXPECT_GT(g.idle_power_fraction(), 0);
  }
}

TEST_F(OwningTest, ElectricityWritesAreIdempotentCheckedAndAdminOnly) {
  client::Client admin = MakeClient(kAdminToken);
  absl::StatusOr<capplan::v1::WriteResponse> w = admin.UpsertElectricityPrice(Ohio("ohio-1"));
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->catalog_version(), 2);
  absl::StatusOr<capplan::v1::WriteResponse> again = admin.UpsertElectricityPrice(Ohio("ohio-1"));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->catalog_version(), 2);  // the first answer; nothing applied twice
  capplan::v1::UpsertElectricityPriceRequest other = Ohio("ohio-1");
  other.mutable_price()->set_usd_per_kwh(0.2);
  EXPECT_EQ(admin.UpsertElectricityPrice(other).status().code(), absl::StatusCode::kInvalidArgument);

  capplan::v1::UpsertElectricityPriceRequest zero = Ohio("");
  zero.mutable_price()->set_usd_per_kwh(0);
  capplan::v1::UpsertElectricityPriceRequest uncited = Ohio("");
  uncited.mutable_price()->mutable_source()->clear_citation();
  for (const auto& [req, field] :
       {std::pair{zero, "electricity.usd_per_kwh"}, std::pair{uncited, "electricity.source.citation"}}) {
    absl::Status s = admin.UpsertElectricityPrice(req).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_TRUE(Contains(std::string(s.message()), field)) << s;
  }
  EXPECT_EQ(MakeClient(kReadToken).UpsertElectricityPrice(Ohio("")).status().code(),
            absl::StatusCode::kPermissionDenied);

  capplan::v1::DeleteElectricityPriceRequest del;
  del.set_region("us-east-2");
  ASSERT_TRUE(admin.DeleteElectricityPrice(del).ok());
  EXPECT_EQ(admin.DeleteElectricityPrice(del).status().code(), absl::StatusCode::kNotFound);
  absl::StatusOr<capplan::v1::ListElectricityPricesResponse> prices = admin.ListElectricityPrices();
  ASSERT_TRUE(prices.ok());
  for (const auto& e : prices->prices()) EXPECT_NE(e.region(), "us-east-2");
}

TEST_F(OwningTest, CliListsAndWritesElectricityAndGpuOwningFlags) {
  ExitResult list = Cli({"catalog", "electricity"});
  ASSERT_EQ(list.exit_code, 0) << list.stderr_text;
  // EIA Electric Power Annual 2023: Virginia commercial 8.95 cents/kWh (us-east-1).
  EXPECT_TRUE(Contains(list.stdout_text, "us-east-1")) << list.stdout_text;
  EXPECT_TRUE(Contains(list.stdout_text, "0.0895")) << list.stdout_text;

  ExitResult up = Cli({"admin", "upsert-electricity", "--region=us-east-2", "--usd_per_kwh=0.1075",
                       "--citation=EIA Electric Power Annual 2023, Ohio commercial", "--as_of_date=2023-12-31"});
  ASSERT_EQ(up.exit_code, 0) << up.stderr_text;
  ExitResult json = Cli({"--json", "catalog", "electricity"});
  capplan::v1::ListElectricityPricesResponse prices;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json.stdout_text, &prices).ok()) << json.stdout_text;
  bool found = false;
  for (const auto& e : prices.prices()) found |= e.region() == "us-east-2" && e.usd_per_kwh() == 0.1075;
  EXPECT_TRUE(found) << json.stdout_text;
  ExitResult del = Cli({"admin", "delete-electricity", "--region=us-east-2"});
  EXPECT_EQ(del.exit_code, 0) << del.stderr_text;
  ExitResult absurd =
      Cli({"admin", "upsert-electricity", "--region=x", "--usd_per_kwh=12", "--citation=c", "--as_of_date=2023-12-31"});
  EXPECT_NE(absurd.exit_code, 0);
  EXPECT_TRUE(Contains(absurd.stderr_text, "usd_per_kwh")) << absurd.stderr_text;

  // A hypothetical quote for a 4-GPU L40S server: 2.4 kW and $60,000 (per GPU: 600 W, $15,000).
  ExitResult gpu =
      Cli({"admin", "upsert-gpu", "--name=L40S", "--system_power_watts_per_gpu=600", "--idle_power_fraction=0.3",
           "--system_price_usd_per_gpu=15000", "--price_uncertainty_fraction=0.1"});
  ASSERT_EQ(gpu.exit_code, 0) << gpu.stderr_text;
  ExitResult gpus = Cli({"--json", "catalog", "gpus"});
  capplan::v1::ListGpusResponse listed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(gpus.stdout_text, &listed).ok());
  for (const capplan::v1::Gpu& g : listed.gpus()) {
    if (g.name() != "L40S") continue;
    EXPECT_DOUBLE_EQ(g.system_power_watts_per_gpu(), 600);
    EXPECT_DOUBLE_EQ(g.idle_power_fraction(), 0.3);
    EXPECT_DOUBLE_EQ(g.system_price_usd_per_gpu(), 15000);
    EXPECT_DOUBLE_EQ(g.price_uncertainty_fraction(), 0.1);
  }
  ExitResult help = Cli({"admin", "upsert-gpu", "--help"});
  EXPECT_TRUE(Contains(help.stdout_text, "--system_power_watts_per_gpu=W")) << help.stdout_text;
}

}  // namespace
}  // namespace capplan::testing
