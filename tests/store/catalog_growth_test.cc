// The grown catalog (migration 0008): it migrates on a fresh database and from the version
// before it, every offer names a known GPU and fabric, every price names its source, and the
// new rows hold the figures their sources give.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

#include "server/store/catalog_store.h"
#include "server/store/database.h"
#include "server/store/migrations.h"
#include "temp_store.h"

namespace capplan::store {
namespace {

using CatalogGrowthTest = TempStoreTest;

// The embedded migrations before catalog_growth: the schema a server shipped before it.
std::vector<Migration> MigrationsBeforeGrowth() {
  std::vector<Migration> before;
  for (const Migration& m : EmbeddedMigrations()) {
    if (m.name == "catalog_growth") return before;
    before.push_back(m);
  }
  ADD_FAILURE() << "no catalog_growth migration embedded";
  return before;
}

void Exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

TEST_F(CatalogGrowthTest, FreshDatabaseGetsTheGrownCatalog) {
  std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
  EXPECT_EQ(snap->schema_version, static_cast<int>(EmbeddedMigrations().size()));
  // AWS price list via instances.vantage.sh (tsaol/aws-gpu data/p5en_instances.js, 2026-08-26):
  // p5en.48xlarge is 8 x H200 with 192 vCPUs and 2,048 GiB, priced in 12 regions.
  const InstanceRow* p5en = snap->FindInstance("aws", "p5en.48xlarge", "us-east-2");
  ASSERT_NE(p5en, nullptr);
  EXPECT_EQ(p5en->gpu_name, "H200-SXM-141GB");
  EXPECT_EQ(p5en->gpu_count, 8);
  EXPECT_EQ(p5en->vcpus, 192);
  int regions = 0;
  for (const InstanceRow& i : snap->instances) regions += i.instance_type == "p5en.48xlarge";
  EXPECT_EQ(regions, 12);
  // Same source, p6-b200_instances.js: 8 x B200.
  const InstanceRow* p6 = snap->FindInstance("aws", "p6-b200.48xlarge", "us-west-2");
  ASSERT_NE(p6, nullptr);
  EXPECT_EQ(p6->gpu_name, "B200-SXM-180GB");
  EXPECT_EQ(p6->gpu_count, 8);
}

TEST_F(CatalogGrowthTest, MigratesFromThePreviousVersionKeepingOpsWrites) {
  const std::string path = dir_ + "/previous.db";
  {
    absl::StatusOr<std::unique_ptr<Database>> db = Database::Open({path});
    ASSERT_TRUE(db.ok()) << db.status();
    absl::StatusOr<int> v = (*db)->Migrate(MigrationsBeforeGrowth());
    ASSERT_TRUE(v.ok()) << v.status();
    ASSERT_EQ(*v, static_cast<int>(MigrationsBeforeGrowth().size()));
  }
  // An operator's write on the previous version: a refreshed p5 price in us-east-1.
  Exec(path,
       "INSERT INTO prices (provider, instance_type, region, kind, price_usd_per_hour, effective_unix_seconds, "
       "source_citation, source_as_of_date) VALUES ('aws', 'p5.48xlarge', 'us-east-1', 'on_demand', 55.04, "
       "1749081600, 'ops ticket 42', '2025-06-05')");
  absl::StatusOr<std::unique_ptr<CatalogStore>> grown = CatalogStore::Open({path});
  ASSERT_TRUE(grown.ok()) << grown.status();
  std::shared_ptr<const CatalogSnapshot> snap = (*grown)->Snapshot();
  EXPECT_EQ(snap->schema_version, static_cast<int>(EmbeddedMigrations().size()));
  EXPECT_NE(snap->FindInstance("aws", "p5en.48xlarge", "us-east-1"), nullptr);
  EXPECT_NE(snap->FindGpu("B200-SXM-180GB"), nullptr);
  const InstanceRow* p5 = snap->FindInstance("aws", "p5.48xlarge", "us-east-1");
  ASSERT_NE(p5, nullptr);
  EXPECT_DOUBLE_EQ(snap->PriceAt(*p5, PriceKind::kOnDemand, 0)->price_usd_per_hour, 55.04);
}

TEST_F(CatalogGrowthTest, EveryOfferNamesAKnownGpuAndFabric) {
  std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
  ASSERT_FALSE(snap->instances.empty());
  for (const InstanceRow& i : snap->instances) {
    const std::string key = OfferKey(i.provider, i.instance_type, i.region);
    EXPECT_NE(snap->FindGpu(i.gpu_name), nullptr) << key;
    EXPECT_FALSE(i.fabric_name.empty()) << key;
    const FabricRow* f = snap->FindFabric(i.fabric_name);
    ASSERT_NE(f, nullptr) << key;
    // An 8-GPU offer on a fabric of fewer GPUs per node would be misdescribed.
    EXPECT_LE(i.gpu_count, f->fabric.gpus_per_node) << key;
  }
  for (const GpuRow& g : snap->gpus) EXPECT_NE(snap->FindFabric(g.default_fabric_name), nullptr) << g.spec.name;
}

TEST_F(CatalogGrowthTest, EveryPriceHasASourceAndAPositivePrice) {
  std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
  size_t seen = 0;
  for (const InstanceRow& i : snap->instances) {
    const std::string key = OfferKey(i.provider, i.instance_type, i.region);
    std::vector<const PriceRow*> history = snap->PriceHistory(i.provider, i.instance_type, i.region);
    EXPECT_FALSE(history.empty()) << key;
    for (const PriceRow* p : history) {
      ++seen;
      EXPECT_GT(p->price_usd_per_hour, 0) << key;
      EXPECT_FALSE(p->source.citation.empty()) << key;
      EXPECT_TRUE(CheckIsoDate("source.as_of_date", p->source.as_of_date).ok()) << key;
    }
  }
  EXPECT_EQ(seen, snap->price_count);
}

TEST_F(CatalogGrowthTest, NewPricesAreTheListedOnesPerRegion) {
  std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
  struct Listed {
    const char* provider;
    const char* type;
    const char* region;
    double usd_per_hour;
  };
  // instances.vantage.sh via tsaol/aws-gpu data/*_instances.js (2026-08-26), Linux on-demand;
  // SkyPilot catalog v6 azure/vms.csv @ 098741e for the Azure rows.
  const Listed listed[] = {
      {"aws", "p5en.48xlarge", "us-east-1", 63.296},
      {"aws", "p5en.48xlarge", "ap-northeast-1", 79.12},
      {"aws", "p6-b200.48xlarge", "us-east-1", 113.9328},
      {"aws", "p6-b200.48xlarge", "ap-south-1", 160.64525},
      {"aws", "p5.48xlarge", "eu-north-1", 58.8928},
      {"aws", "p4d.24xlarge", "eu-west-1", 23.71569},
      {"azure", "Standard_ND96isr_H100_v5", "westus", 127.816},
  };
  for (const Listed& l : listed) {
    const InstanceRow* i = snap->FindInstance(l.provider, l.type, l.region);
    ASSERT_NE(i, nullptr) << l.type << " " << l.region;
    const PriceRow* p = snap->PriceAt(*i, PriceKind::kOnDemand, 0);
    ASSERT_NE(p, nullptr) << l.type << " " << l.region;
    EXPECT_DOUBLE_EQ(p->price_usd_per_hour, l.usd_per_hour) << l.type << " " << l.region;
  }
  // A region the price list does not give is not invented: no p6-b200 in Europe.
  EXPECT_EQ(snap->FindInstance("aws", "p6-b200.48xlarge", "eu-north-1"), nullptr);
}

TEST_F(CatalogGrowthTest, B200IsStoredWithDenseDatasheetFigures) {
  const GpuRow* b200 = store_->Snapshot()->FindGpu("B200-SXM-180GB");
  ASSERT_NE(b200, nullptr);
  // NVIDIA HGX B200 per-GPU specifications: FP16/BF16 4.5 PFLOPS, FP8 9 PFLOPS and TF32
  // 2.2 PFLOPS with sparsity; dense is half. 180 GB HBM3E at 7.7 TB/s; up to 1,000 W.
  EXPECT_DOUBLE_EQ(b200->spec.PeakFlops(core::Precision::kBf16), 4.5e15 / 2);
  EXPECT_DOUBLE_EQ(b200->spec.PeakFlops(core::Precision::kFp8), 9e15 / 2);
  EXPECT_DOUBLE_EQ(b200->spec.PeakFlops(core::Precision::kTf32), 2.2e15 / 2);
  EXPECT_DOUBLE_EQ(b200->spec.memory_bytes, 180.0 * (1 << 30));
  EXPECT_DOUBLE_EQ(b200->spec.memory_bandwidth_bytes_per_second, 7.7e12);
  EXPECT_DOUBLE_EQ(b200->spec.tdp_watts, 1000);
  EXPECT_NE(b200->source.note.find("Dense = half"), std::string::npos) << b200->source.note;
}

}  // namespace
}  // namespace capplan::store
