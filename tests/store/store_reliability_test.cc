// The store under the environment's faults: its database file deleted or replaced while it
// serves, a shutdown during a write, a full database. Each refuses the write with a code the
// caller can act on and leaves nothing half-written.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "server/store/catalog_store.h"

namespace capplan::store {
namespace {

class StoreReliabilityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/capplan-reliability-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<CatalogStore> OpenStore(int64_t max_page_count = 0) {
    DatabaseOptions o;
    o.path = path();
    o.max_page_count = max_page_count;
    absl::StatusOr<std::unique_ptr<CatalogStore>> s = CatalogStore::Open(o);
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? std::move(*s) : nullptr;
  }

  std::string path() const { return dir_ + "/c.db"; }

  static PriceRow Price(double usd) {
    PriceRow p;
    p.provider = "aws";
    p.instance_type = "p5.48xlarge";
    p.region = "us-east-1";
    p.price_usd_per_hour = usd;
    p.effective_unix_seconds = 1767225600;  // 2026-01-01
    p.source = {"ops ticket 42", "2026-01-01", ""};
    return p;
  }

  // `n` L4 offers in distinct regions, SkyPilot columns.
  static std::string OffersCsv(int n) {
    std::string csv = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\n";
    for (int i = 0; i < n; ++i) absl::StrAppend(&csv, "g6.xlarge,L4,1,4,16,0.8,r-", i, "\n");
    return csv;
  }

  std::string dir_;
  const WriteContext ops_{"ops", "SetPrice"};
};

TEST_F(StoreReliabilityTest, DeletedDatabaseRefusesWritesAndReportsUnhealthy) {
  std::unique_ptr<CatalogStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  int unhealthy_calls = 0;
  absl::Status reported;
  store->SetHealthListener([&](const absl::Status& s) {
    ++unhealthy_calls;
    reported = s;
  });
  ASSERT_TRUE(store->SetPrice(ops_, Price(90)).ok());
  ASSERT_EQ(::unlink(path().c_str()), 0);
  absl::StatusOr<WriteResult> w = store->SetPrice(ops_, Price(91));
  EXPECT_EQ(w.status().code(), absl::StatusCode::kDataLoss) << w.status();
  EXPECT_NE(w.status().message().find(path()), std::string::npos) << w.status();
  EXPECT_NE(w.status().message().find("deleted"), std::string::npos) << w.status();
  EXPECT_EQ(unhealthy_calls, 1);
  EXPECT_FALSE(reported.ok());
  // Stays refused; the listener is not called again.
  EXPECT_FALSE(store->SetPrice(ops_, Price(92)).ok());
  EXPECT_EQ(unhealthy_calls, 1);
}

TEST_F(StoreReliabilityTest, ReplacedDatabaseRefusesWritesNamingTheChange) {
  std::unique_ptr<CatalogStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  bool unhealthy = false;
  store->SetHealthListener([&](const absl::Status&) { unhealthy = true; });
  // Another file renamed over the path (a restore gone wrong): the open file is still linked
  // elsewhere, so only the identity check notices.
  ASSERT_EQ(::link(path().c_str(), (dir_ + "/kept.db").c_str()), 0);
  std::ofstream(dir_ + "/other.db") << "x";
  std::filesystem::rename(dir_ + "/other.db", path());
  absl::StatusOr<WriteResult> w = store->SetPrice(ops_, Price(91));
  EXPECT_EQ(w.status().code(), absl::StatusCode::kDataLoss) << w.status();
  EXPECT_NE(w.status().message().find("another file"), std::string::npos) << w.status();
  EXPECT_TRUE(unhealthy);
}

TEST_F(StoreReliabilityTest, DrainRefusesWritesAsUnavailableAndChangesNothing) {
  std::unique_ptr<CatalogStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  const int64_t v0 = store->Snapshot()->catalog_version;
  store->BeginDrain();
  absl::StatusOr<WriteResult> w = store->SetPrice(ops_, Price(91));
  EXPECT_EQ(w.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(w.status().message().find("shutting down"), std::string::npos) << w.status();
  absl::StatusOr<CsvImportResult> r =
      store->ImportPricesCsv({"ops", "ImportPricesCsv"}, "aws", OffersCsv(10), {"test", "2026-01-01", ""}, 1767225600);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable);
  store.reset();
  store = OpenStore();
  EXPECT_EQ(store->Snapshot()->catalog_version, v0);
}

TEST_F(StoreReliabilityTest, FullDatabaseIsResourceExhaustedAndWritesNothing) {
  int64_t pages = 0;
  {
    std::unique_ptr<CatalogStore> store = OpenStore();
    ASSERT_NE(store, nullptr);
  }
  pages = static_cast<int64_t>(std::filesystem::file_size(path()) / 4096) + 2;
  std::unique_ptr<CatalogStore> store = OpenStore(pages);
  ASSERT_NE(store, nullptr);
  const int64_t v0 = store->Snapshot()->catalog_version;
  const size_t instances0 = store->Snapshot()->instances.size();
  absl::StatusOr<CsvImportResult> r = store->ImportPricesCsv({"ops", "ImportPricesCsv"}, "aws", OffersCsv(5000),
                                                             {"test", "2026-01-01", ""}, 1767225600);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted) << r.status();
  EXPECT_NE(r.status().message().find("full"), std::string::npos) << r.status();
  EXPECT_EQ(store->Snapshot()->catalog_version, v0);
  store.reset();
  store = OpenStore();
  EXPECT_EQ(store->Snapshot()->catalog_version, v0);
  EXPECT_EQ(store->Snapshot()->instances.size(), instances0);
  // With room again, the same import goes through.
  EXPECT_TRUE(
      store->ImportPricesCsv({"ops", "ImportPricesCsv"}, "aws", OffersCsv(5000), {"test", "2026-01-01", ""}, 1767225600)
          .ok());
}

TEST_F(StoreReliabilityTest, RequestIdsAreBoundedAndSurviveRestart) {
  std::unique_ptr<CatalogStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  absl::StatusOr<WriteResult> w = store->SetPrice({"ops", "SetPrice", std::string(129, 'r'), "f1"}, Price(91));
  EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(w.status().message().find("request_id: must be at most 128 bytes"), std::string::npos) << w.status();
  w = store->SetPrice({"ops", "SetPrice", "r-1", "f1"}, Price(91));
  ASSERT_TRUE(w.ok()) << w.status();
  store.reset();
  store = OpenStore();  // the id is durable: a retry after a restart is still recognised
  absl::StatusOr<WriteResult> again = store->SetPrice({"ops", "SetPrice", "r-1", "f1"}, Price(91));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->replayed);
  EXPECT_EQ(again->id, w->id);
  EXPECT_EQ(again->catalog_version, w->catalog_version);
  EXPECT_EQ(store->Snapshot()->catalog_version, w->catalog_version);
  EXPECT_EQ(store->SetPrice({"ops", "SetPrice", "r-1", "f2"}, Price(92)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace capplan::store
