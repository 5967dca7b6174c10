// Effective-dated prices: the current price of a kind is the one with the latest effective
// time not after now, whatever order the rows were written in; as-of reads follow the same
// rule, in the patched snapshot and after a full reload alike. And the audit log's filters.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/store/catalog_store.h"
#include "temp_store.h"

namespace capplan::store {
namespace {

// AWS EC2 on-demand, p5.48xlarge us-east-1: $98.32/h on the 2024-06-01 price page (migration
// 0002), $55.04/h after AWS's price reduction for P4/P5 of June 2025 (migration 0015, effective
// 2025-06-01). kP5Later is test input, a further cut that no list has announced.
constexpr double kP5Before = 98.32;
constexpr double kP5After = 55.04;
constexpr double kP5Later = 49.50;
constexpr int64_t k20240601 = 1717200000;  // 2024-06-01T00:00:00Z
constexpr int64_t k20250101 = 1735689600;
constexpr int64_t k20250605 = 1749081600;

class EffectivePriceTest : public TempStoreTest {
 protected:
  const WriteContext ops_{"alice", "SetPrice"};

  double PriceAt(int64_t as_of, PriceKind kind = PriceKind::kOnDemand) {
    std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
    const InstanceRow* p5 = snap->FindInstance("aws", "p5.48xlarge", "us-east-1");
    const PriceRow* p = snap->PriceAt(*p5, kind, as_of);
    return p == nullptr ? -1 : p->price_usd_per_hour;
  }

  // Now, on 2025-03-01 and on 2025-07-01; then the same after re-reading every table.
  std::vector<double> Reads() {
    std::vector<double> out = {PriceAt(0), PriceAt(1740787200), PriceAt(1751328000)};
    EXPECT_TRUE(store_->Reload().ok());
    for (double d : {PriceAt(0), PriceAt(1740787200), PriceAt(1751328000)}) out.push_back(d);
    return out;
  }
};

TEST_F(EffectivePriceTest, WriteOrderDoesNotMatterOnlyTheEffectiveDate) {
  // Newer first, then the back-dated older list price: the older row must not win.
  ASSERT_TRUE(store_->SetPrice(ops_, P5Price(kP5After, k20250605)).ok());
  ASSERT_TRUE(store_->SetPrice(ops_, P5Price(kP5Before, k20250101)).ok());
  const std::vector<double> newer_first = Reads();
  EXPECT_EQ(newer_first, (std::vector<double>{kP5After, kP5Before, kP5After, kP5After, kP5Before, kP5After}));

  // A fresh store, the other order: the same answers.
  TearDown();
  SetUp();
  ASSERT_TRUE(store_->SetPrice(ops_, P5Price(kP5Before, k20250101)).ok());
  ASSERT_TRUE(store_->SetPrice(ops_, P5Price(kP5After, k20250605)).ok());
  EXPECT_EQ(Reads(), newer_first);
}

TEST_F(EffectivePriceTest, FutureDatedPriceIsNotCurrentUntilItsDate) {
  // A cut announced for a date far ahead (test input, dated 2100).
  const int64_t k21000101 = 4102444800;
  ASSERT_TRUE(store_->SetPrice(ops_, P5Price(kP5Later, k21000101)).ok());
  EXPECT_DOUBLE_EQ(PriceAt(0), kP5After);
  EXPECT_DOUBLE_EQ(PriceAt(k21000101 - 1), kP5After);
  EXPECT_DOUBLE_EQ(PriceAt(k21000101), kP5Later);
  // The store's staleness gauge watches the current price, not the future one.
  EXPECT_EQ(store_->Snapshot()->OldestCurrentPriceUnixSeconds(), k20240601);
}

TEST_F(EffectivePriceTest, KindsAreDatedIndependently) {
  // A reserved row (test input: a round 30% off the June 2025 on-demand price, not an AWS
  // quote) leaves the on-demand history alone.
  PriceRow reserved = P5Price(38.53, k20250605);
  reserved.kind = PriceKind::kReserved1y;
  ASSERT_TRUE(store_->SetPrice(ops_, reserved).ok());
  EXPECT_DOUBLE_EQ(PriceAt(0, PriceKind::kReserved1y), 38.53);
  EXPECT_DOUBLE_EQ(PriceAt(k20250101, PriceKind::kReserved1y), -1);  // none before its date
  EXPECT_DOUBLE_EQ(PriceAt(0), kP5After);
  EXPECT_DOUBLE_EQ(PriceAt(k20250101), kP5Before);
}

TEST_F(EffectivePriceTest, ImportOfAnOlderListDoesNotRevertANewerPrice) {
  ASSERT_TRUE(store_->SetPrice(ops_, P5Price(kP5After, k20250605)).ok());
  // The 2024 list (the shipped row's figure), imported late with its own date.
  const std::string csv =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region,AvailabilityZone\n"
      "p5.48xlarge,H100,8,192,2048,98.32,,us-east-1,us-east-1a\n";
  absl::StatusOr<CsvImportResult> r = store_->ImportPricesCsv(
      {"bob", "ImportPricesCsv"}, "aws", csv, {"AWS EC2 On-Demand pricing page (Linux)", "2024-06-01", ""}, k20240601);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->errors.empty());
  // The shipped row already says 98.32 from that date: nothing to write.
  EXPECT_EQ(r->rows_imported, 0);
  EXPECT_EQ(r->diff.unchanged, 1);
  EXPECT_DOUBLE_EQ(PriceAt(0), kP5After);
  EXPECT_DOUBLE_EQ(PriceAt(k20250101), kP5Before);
  ASSERT_TRUE(store_->Reload().ok());
  EXPECT_DOUBLE_EQ(PriceAt(0), kP5After);
}

TEST_F(EffectivePriceTest, AuditLogFiltersByEntityAndTimeAndPages) {
  ASSERT_TRUE(store_->SetPrice(ops_, P5Price(kP5After, k20250605)).ok());
  ASSERT_TRUE(store_->SetPrice(ops_, P5Price(kP5Before, k20250101)).ok());
  ASSERT_TRUE(store_->DeleteElectricityPrice({"carol", "DeleteElectricityPrice"}, "no-such-region").status().code() ==
              absl::StatusCode::kNotFound);  // refused: no audit row
  ElectricityRow tariff;
  tariff.region = "us-east-1";
  tariff.usd_per_kwh = 0.09;  // test input, like the TCO defaults test's tariff row
  tariff.source = {"test tariff row", "2025-01-01", ""};
  ASSERT_TRUE(store_->UpsertElectricityPrice({"carol", "UpsertElectricityPrice"}, tariff).ok());

  AuditQuery all;
  absl::StatusOr<AuditPage> page = store_->AuditLog(all);
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->entries.size(), 3u);
  EXPECT_EQ(page->entries[0].method, "UpsertElectricityPrice");  // newest first
  EXPECT_FALSE(page->more);

  AuditQuery prices;
  prices.entity = "prices";
  page = store_->AuditLog(prices);
  ASSERT_EQ(page->entries.size(), 2u);
  for (const AuditEntry& e : page->entries) {
    EXPECT_EQ(e.caller, "alice");
    EXPECT_EQ(e.entity.rfind("prices/", 0), 0u) << e.entity;
    EXPECT_TRUE(e.before_json.empty());  // an insert
    EXPECT_NE(e.after_json.find("\"effective_unix_seconds\""), std::string::npos) << e.after_json;
  }
  EXPECT_NE(page->entries[0].after_json.find("98.32"), std::string::npos);
  prices.entity = "price";  // a prefix of a name is not an entity
  EXPECT_TRUE(store_->AuditLog(prices)->entries.empty());

  // Paging: one entry a page, resuming below the last id.
  AuditQuery one;
  one.limit = 1;
  page = store_->AuditLog(one);
  ASSERT_EQ(page->entries.size(), 1u);
  EXPECT_TRUE(page->more);
  one.before_id = page->entries[0].id;
  page = store_->AuditLog(one);
  ASSERT_EQ(page->entries.size(), 1u);
  EXPECT_EQ(page->entries[0].method, "SetPrice");

  // Time range: until the first write's time excludes everything; since it includes all.
  const int64_t first_micros = store_->AuditLog(all)->entries.back().at_unix_micros;
  AuditQuery range;
  range.until_unix_micros = first_micros;
  EXPECT_TRUE(store_->AuditLog(range)->entries.empty());
  range.until_unix_micros = 0;
  range.since_unix_micros = first_micros;
  EXPECT_EQ(store_->AuditLog(range)->entries.size(), 3u);

  one.limit = 0;
  EXPECT_EQ(store_->AuditLog(one).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace capplan::store
