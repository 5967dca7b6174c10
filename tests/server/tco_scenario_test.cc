// Standing TCO scenarios in-process: checked like the Tco RPC when written, kept in the store
// (bounded, durable), and exported as gauges that follow the snapshot: a deleted scenario's
// series go, a scenario that stops pricing keeps only ok=0.
#include "server/tco/tco_scenario.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "prometheus/text_serializer.h"
#include "server/store/catalog_store.h"
#include "server/tco/tco_exporter.h"
#include "tests/server/shipped_catalog_test.h"

namespace capplan::server {
namespace {

namespace v1 = capplan::v1;

v1::TcoScenario OwnOrRentScenario(const std::string& name) {
  v1::TcoScenario s;
  s.set_name(name);
  *s.mutable_request() = testing::ReadmeOwnOrRentRequest();  // breaks even in month 25
  return s;
}

class TcoScenarioTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/capplan-tco-scenario-XXXXXX";
    dir_ = mkdtemp(tmpl);
    Open();
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Open() {
    store_.reset();
    store_ = std::move(*store::CatalogStore::Open({dir_ + "/c.db"}));
  }
  absl::StatusOr<store::WriteResult> Write(const v1::TcoScenario& s) {
    absl::StatusOr<store::TcoScenarioRow> row = TcoScenarioFromProto(*store_->Snapshot(), s);
    if (!row.ok()) return row.status();
    return store_->UpsertTcoScenario(store::WriteContext("ops", "UpsertTcoScenario"), *row);
  }
  std::string Exported(TcoScenarioExporter& exporter, prometheus::Registry& registry) {
    EXPECT_TRUE(exporter.Export(*store_->Snapshot()).empty());
    return prometheus::TextSerializer().Serialize(registry.Collect());
  }

  std::string dir_;
  std::unique_ptr<store::CatalogStore> store_;
};

TEST_F(TcoScenarioTest, RefusedWhereTheTcoCallWouldBeNamingTheField) {
  v1::TcoScenario s = OwnOrRentScenario("own-or-rent");
  s.mutable_request()->mutable_fleets(0)->set_gpu_count(0);
  absl::Status st = Write(s).status();
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(st.message(), "scenario.request.fleets[0].gpu_count")) << st;
  s = OwnOrRentScenario(std::string(65, 'a'));
  EXPECT_NE(Write(s).status().message().find("scenario.name"), absl::string_view::npos);
  s = OwnOrRentScenario("own-or-rent");
  s.clear_request();
  EXPECT_EQ(Write(s).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(store_->Snapshot()->tco_scenarios.empty());
  EXPECT_EQ(store_->Snapshot()->catalog_version, 1);
}

TEST_F(TcoScenarioTest, KeptDurablyAndReadBackAsWritten) {
  ASSERT_TRUE(Write(OwnOrRentScenario("own-or-rent")).ok());
  Open();
  ASSERT_EQ(store_->Snapshot()->tco_scenarios.size(), 1u);
  v1::TcoScenario back;
  ASSERT_TRUE(TcoScenarioToProto(store_->Snapshot()->tco_scenarios[0], &back).ok());
  EXPECT_EQ(back.request().SerializeAsString(), OwnOrRentScenario("own-or-rent").request().SerializeAsString());
  EXPECT_EQ(back.updated_by(), "ops");
}

TEST_F(TcoScenarioTest, AtMost256Scenarios) {
  for (int i = 0; i < 256; ++i) ASSERT_TRUE(Write(OwnOrRentScenario(absl::StrCat("s", i))).ok()) << i;
  EXPECT_EQ(Write(OwnOrRentScenario("one-more")).status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(Write(OwnOrRentScenario("s7")).ok());  // replacing one is not adding one
}

TEST_F(TcoScenarioTest, GaugesFollowTheSnapshot) {
  prometheus::Registry registry;
  TcoScenarioExporter exporter(registry);
  ASSERT_TRUE(Write(OwnOrRentScenario("own-or-rent")).ok());
  v1::TcoScenario rented = OwnOrRentScenario("rented");
  rented.mutable_request()->mutable_fleets(0)->clear_rent();
  rented.mutable_request()->mutable_fleets(0)->mutable_rent()->set_provider("aws");
  rented.mutable_request()->mutable_fleets(0)->mutable_rent()->set_instance_type("p4de.24xlarge");
  rented.mutable_request()->mutable_fleets(0)->mutable_rent()->set_region("us-east-1");
  ASSERT_TRUE(Write(rented).ok());
  std::string text = Exported(exporter, registry);
  EXPECT_NE(text.find("capplan_tco_break_even_month{scenario=\"own-or-rent\"} 25\n"), std::string::npos) << text;
  EXPECT_NE(text.find("capplan_tco_scenario_ok{scenario=\"rented\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("capplan_tco_scenarios_catalog_version 3\n"), std::string::npos) << text;

  // The rented offer goes: that scenario no longer prices and keeps ok=0 alone.
  ASSERT_TRUE(
      store_->DeleteInstance(store::WriteContext("ops", "DeleteInstanceType"), "aws", "p4de.24xlarge", "us-east-1")
          .ok());
  const std::vector<std::string> failed = exporter.Export(*store_->Snapshot());
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_NE(failed[0].find("\"rented\" at catalog version 4"), std::string::npos) << failed[0];
  text = prometheus::TextSerializer().Serialize(registry.Collect());
  EXPECT_NE(text.find("capplan_tco_scenario_ok{scenario=\"rented\"} 0\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("capplan_tco_npv_rent_usd{scenario=\"rented\"}"), std::string::npos) << text;

  ASSERT_TRUE(store_->DeleteTcoScenario(store::WriteContext("ops", "DeleteTcoScenario"), "rented").ok());
  text = Exported(exporter, registry);
  EXPECT_EQ(text.find("rented"), std::string::npos) << text;
  EXPECT_NE(text.find("capplan_tco_scenarios 1\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace capplan::server
