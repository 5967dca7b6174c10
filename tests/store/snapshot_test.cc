// Incremental publishing: a write shares every table it did not change with the previous
// snapshot, old snapshots never change under their readers, and the next read sees the write.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/store/catalog_store.h"
#include "temp_store.h"

namespace capplan::store {
namespace {

class SnapshotTest : public TempStoreTest {
 protected:
  const WriteContext ops_{"ops", "SetPrice"};
};

TEST_F(SnapshotTest, SetPriceSharesUnchangedTablesAndLeavesTheOldSnapshotAlone) {
  std::shared_ptr<const CatalogSnapshot> before = store_->Snapshot();
  const InstanceRow* p5 = before->FindInstance("aws", "p5.48xlarge", "us-east-1");
  ASSERT_NE(p5, nullptr);
  const PriceRow* old_price = before->PriceAt(*p5, PriceKind::kOnDemand, 0);
  ASSERT_NE(old_price, nullptr);
  const double old_usd = old_price->price_usd_per_hour;

  absl::StatusOr<WriteResult> w = store_->SetPrice(ops_, P5Price(old_usd + 1, 1767225600));
  ASSERT_TRUE(w.ok()) << w.status();
  std::shared_ptr<const CatalogSnapshot> after = store_->Snapshot();
  EXPECT_EQ(after->catalog_version, w->catalog_version);
  EXPECT_EQ(after->tables().instances, before->tables().instances);
  EXPECT_EQ(after->tables().gpus, before->tables().gpus);
  EXPECT_EQ(after->tables().calibration, before->tables().calibration);
  EXPECT_NE(after->tables().prices, before->tables().prices);
  EXPECT_EQ(after->price_count, before->price_count + 1);
  // Read-your-writes in the new snapshot; the old one still answers as before.
  const PriceRow* now =
      after->PriceAt(*after->FindInstance("aws", "p5.48xlarge", "us-east-1"), PriceKind::kOnDemand, 0);
  ASSERT_NE(now, nullptr);
  EXPECT_DOUBLE_EQ(now->price_usd_per_hour, old_usd + 1);
  EXPECT_EQ(now->id, w->id);
  EXPECT_DOUBLE_EQ(before->PriceAt(*p5, PriceKind::kOnDemand, 0)->price_usd_per_hour, old_usd);
}

TEST_F(SnapshotTest, PatchedSnapshotMatchesAFullReload) {
  // Same effective time twice: the later id wins, in the patch as in a reload.
  ASSERT_TRUE(store_->SetPrice(ops_, P5Price(50, 1767225600)).ok());
  ASSERT_TRUE(store_->SetPrice(ops_, P5Price(40, 1767225600)).ok());
  ASSERT_TRUE(store_->SetPrice(ops_, P5Price(60, 1767000000)).ok());  // back-dated
  std::shared_ptr<const CatalogSnapshot> patched = store_->Snapshot();
  ASSERT_TRUE(store_->Reload().ok());
  std::shared_ptr<const CatalogSnapshot> reloaded = store_->Snapshot();
  std::vector<const PriceRow*> a = patched->PriceHistory("aws", "p5.48xlarge", "us-east-1");
  std::vector<const PriceRow*> b = reloaded->PriceHistory("aws", "p5.48xlarge", "us-east-1");
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i]->id, b[i]->id) << i;
  const InstanceRow* p5 = patched->FindInstance("aws", "p5.48xlarge", "us-east-1");
  EXPECT_DOUBLE_EQ(patched->PriceAt(*p5, PriceKind::kOnDemand, 0)->price_usd_per_hour, 40);
  EXPECT_DOUBLE_EQ(patched->PriceAt(*p5, PriceKind::kOnDemand, 1767100000)->price_usd_per_hour, 60);
  EXPECT_EQ(patched->price_count, reloaded->price_count);
  EXPECT_EQ(patched->catalog_version, reloaded->catalog_version);
}

TEST_F(SnapshotTest, BenchmarkWriteRereadsOnlyBenchmarks) {
  std::shared_ptr<const CatalogSnapshot> before = store_->Snapshot();
  BenchmarkRow b;
  b.gpu_name = "L4";
  b.model_name = "Llama-3-8B";
  b.batch_size = 16;
  b.measured_value = 2.5;
  b.source = {"ops load test", "2025-11-20", ""};
  ASSERT_TRUE(store_->RecordBenchmark({"ops", "RecordBenchmark"}, b).ok());
  std::shared_ptr<const CatalogSnapshot> after = store_->Snapshot();
  EXPECT_EQ(after->tables().instances, before->tables().instances);
  EXPECT_EQ(after->tables().prices, before->tables().prices);
  EXPECT_EQ(after->benchmarks.size(), before->benchmarks.size() + 1);
  EXPECT_EQ(after->serving_benchmarks.size(), before->serving_benchmarks.size() + 1);
}

// Offers, their positions and their current prices, as a planner sees them.
std::vector<std::string> Offers(const CatalogSnapshot& snap) {
  std::vector<std::string> out;
  for (const InstanceRow& i : snap.instances) {
    const PriceRow* p = snap.PriceAt(i, PriceKind::kOnDemand, 0);
    out.push_back(absl::StrCat(i.provider, "/", i.instance_type, "/", i.region, " ", i.gpu_name, "x", i.gpu_count, " ",
                               p != nullptr ? p->price_usd_per_hour : -1.0));
  }
  return out;
}

TEST_F(SnapshotTest, InstanceWritesPatchTheSnapshotLikeAFullReload) {
  InstanceRow r;
  r.provider = "aws";
  r.instance_type = "a0.test";  // sorts before every shipped aws type
  r.region = "us-east-1";
  r.gpu_name = "L4";
  r.gpu_count = 1;
  r.vcpus = 4;
  r.memory_bytes = int64_t{16} << 30;
  r.source = {"test", "2025-11-01", ""};
  std::shared_ptr<const CatalogSnapshot> before = store_->Snapshot();
  ASSERT_TRUE(store_->UpsertInstance({"ops", "UpsertInstanceType"}, r).ok());
  PriceRow price = P5Price(1.5, 1767225600);
  price.instance_type = "a0.test";
  ASSERT_TRUE(store_->SetPrice(ops_, price).ok());
  r.gpu_count = 2;  // in place
  ASSERT_TRUE(store_->UpsertInstance({"ops", "UpsertInstanceType"}, r).ok());
  std::shared_ptr<const CatalogSnapshot> patched = store_->Snapshot();
  EXPECT_EQ(patched->tables().gpus, before->tables().gpus);
  EXPECT_EQ(patched->instances.size(), before->instances.size() + 1);
  ASSERT_TRUE(store_->Reload().ok());
  EXPECT_EQ(Offers(*patched), Offers(*store_->Snapshot()));
  EXPECT_EQ(patched->FindInstance("aws", "a0.test", "us-east-1")->gpu_count, 2);

  // A shipped offer with prices goes, and its prices with it.
  ASSERT_TRUE(store_->DeleteInstance({"ops", "DeleteInstanceType"}, "aws", "p5.48xlarge", "us-east-1").ok());
  patched = store_->Snapshot();
  EXPECT_EQ(patched->FindInstance("aws", "p5.48xlarge", "us-east-1"), nullptr);
  EXPECT_TRUE(patched->PriceHistory("aws", "p5.48xlarge", "us-east-1").empty());
  ASSERT_TRUE(store_->Reload().ok());
  EXPECT_EQ(Offers(*patched), Offers(*store_->Snapshot()));
  EXPECT_EQ(patched->price_count, store_->Snapshot()->price_count);
}

}  // namespace
}  // namespace capplan::store
