// The catalog store's write path on PostgreSQL, as on SQLite: each write is one transaction
// with its audit row and version bump, request ids make retries idempotent, a failed write
// leaves nothing, CSV imports are all-or-nothing (strict) or per row (partial), and the audit
// log filters and pages.
#include <gtest/gtest.h>

#include <string>

#include "pg_store_fixture.h"
#include "server/store/database_impl.h"
#include "server/store/sql.h"

namespace capplan::store {
namespace {

class PgWriteTest : public PgStoreTest {
 protected:
  void SetUp() override {
    PgStoreTest::SetUp();
    store_ = OpenStore(FreshDatabase());
    ASSERT_NE(store_, nullptr);
  }
  int64_t Count(const std::string& table) {
    return store_->database().impl().conn->QueryInt64("SELECT COUNT(*) FROM " + table);
  }
  std::unique_ptr<CatalogStore> store_;
  const WriteContext ops_{"alice", "SetPrice"};
};

TEST_F(PgWriteTest, WriteCommitsWithItsAuditRowAndVersion) {
  const int64_t v0 = store_->Snapshot()->catalog_version;
  // AWS EC2 P5 page: p5.48xlarge on-demand $98.32/h in us-east-1 before the June 2025 cut.
  absl::StatusOr<WriteResult> w = store_->SetPrice(ops_, P5Price(98.32, 1700000000));
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->catalog_version, v0 + 1);
  EXPECT_GT(w->id, 0);
  std::shared_ptr<const CatalogSnapshot> snap = store_->Snapshot();
  EXPECT_EQ(snap->catalog_version, v0 + 1);  // read-your-writes
  std::vector<const PriceRow*> history = snap->PriceHistory("aws", "p5.48xlarge", "us-east-1");
  bool found = false;
  for (const PriceRow* p : history) found = found || (p->id == w->id && p->price_usd_per_hour == 98.32);
  EXPECT_TRUE(found);
  absl::StatusOr<std::vector<AuditEntry>> audit = store_->AuditLog(10);
  ASSERT_TRUE(audit.ok()) << audit.status();
  ASSERT_EQ(audit->size(), 1u);
  EXPECT_EQ((*audit)[0].caller, "alice");
  EXPECT_EQ((*audit)[0].entity, absl::StrCat("prices/", w->id));
  EXPECT_EQ((*audit)[0].catalog_version, v0 + 1);
  EXPECT_NE((*audit)[0].after_json.find("98.32"), std::string::npos) << (*audit)[0].after_json;
}

TEST_F(PgWriteTest, UpsertShowsBeforeAndAfterInTheAudit) {
  GpuRow l4 = *store_->Snapshot()->FindGpu("L4");
  l4.spec.tdp_watts = 72;  // NVIDIA L4 datasheet: 72 W maximum power
  ASSERT_TRUE(store_->UpsertGpu({"bob", "UpsertGpu"}, l4).ok());
  absl::StatusOr<std::vector<AuditEntry>> audit = store_->AuditLog(1);
  ASSERT_TRUE(audit.ok() && audit->size() == 1u);
  EXPECT_EQ((*audit)[0].entity, "gpu_types/L4");
  EXPECT_NE((*audit)[0].before_json.find("\"tdp_watts\""), std::string::npos) << (*audit)[0].before_json;
  EXPECT_EQ(store_->Snapshot()->FindGpu("L4")->spec.tdp_watts, 72);
}

TEST_F(PgWriteTest, RequestIdReplaysTheFirstResultAndRefusesAnotherBody) {
  WriteContext ctx{"alice", "SetPrice", "req-1", "fp-a"};
  absl::StatusOr<WriteResult> first = store_->SetPrice(ctx, P5Price(55.04, 1750000000));
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<WriteResult> again = store_->SetPrice(ctx, P5Price(55.04, 1750000000));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->replayed);
  EXPECT_EQ(again->id, first->id);
  EXPECT_EQ(again->catalog_version, first->catalog_version);
  EXPECT_EQ(Count("audit_log"), 1);
  WriteContext other{"alice", "SetPrice", "req-1", "fp-b"};
  EXPECT_EQ(store_->SetPrice(other, P5Price(1, 1750000000)).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(PgWriteTest, FailedWriteLeavesNothingAndTheNextOneWorks) {
  const int64_t v0 = store_->Snapshot()->catalog_version;
  const int64_t tco_rows = Count("tco_scenarios");
  // Not JSON: the table's check refuses it inside the transaction, after the audit "before".
  TcoScenarioRow bad{"bad", "{not json", "alice", 1750000000};
  absl::StatusOr<WriteResult> w = store_->UpsertTcoScenario({"alice", "UpsertTcoScenario"}, bad);
  EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument) << w.status();
  EXPECT_EQ(store_->Snapshot()->catalog_version, v0);
  EXPECT_EQ(Count("tco_scenarios"), tco_rows);
  EXPECT_EQ(Count("audit_log"), 0);
  EXPECT_EQ(store_->database().impl().conn->QueryInt64("SELECT catalog_version FROM catalog_meta"), v0);
  // A missing offer is NotFound and rolls back too.
  PriceRow nowhere = P5Price(1, 1750000000);
  nowhere.region = "mars-north-1";
  EXPECT_EQ(store_->SetPrice(ops_, nowhere).status().code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(store_->SetPrice(ops_, P5Price(55.04, 1750000000)).ok());
  EXPECT_EQ(store_->Snapshot()->catalog_version, v0 + 1);
}

// SkyPilot's AWS catalog layout (tests/store/fixtures/aws_v7_vms.csv): g6.12xlarge is 4 x L4
// at $4.6016/h on demand in us-east-1 (AWS EC2 G6 price list); the second row names a GPU the
// catalog lacks.
constexpr char kCsv[] =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region,AvailabilityZone\n"
    "g6.12xlarge,L4,4,48,192,4.6016,1.9,us-east-1,us-east-1a\n"
    "x.large,Z999,1,4,16,1.0,,us-east-1,us-east-1a\n";

TEST_F(PgWriteTest, StrictImportWritesNothingPartialWritesTheGoodRows) {
  const int64_t v0 = store_->Snapshot()->catalog_version;
  const size_t prices0 = store_->Snapshot()->price_count;
  const Source src{"SkyPilot catalog export", "2025-11-01", ""};
  absl::StatusOr<CsvImportResult> strict = store_->ImportPricesCsv(ops_, "aws", kCsv, src, 1761955200);
  ASSERT_TRUE(strict.ok()) << strict.status();
  EXPECT_EQ(strict->errors.size(), 1u);
  EXPECT_FALSE(strict->written);
  EXPECT_EQ(store_->Snapshot()->catalog_version, v0);
  ImportOptions partial;
  partial.partial = true;
  absl::StatusOr<CsvImportResult> r = store_->ImportPricesCsv(ops_, "aws", kCsv, src, 1761955200, partial);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->written);
  EXPECT_EQ(r->rows_imported, 1);
  EXPECT_EQ(store_->Snapshot()->catalog_version, v0 + 1);
  EXPECT_EQ(store_->Snapshot()->price_count, prices0 + 2);  // on-demand and spot
  const InstanceRow* g6 = store_->Snapshot()->FindInstance("aws", "g6.12xlarge", "us-east-1");
  ASSERT_NE(g6, nullptr);
  EXPECT_DOUBLE_EQ(store_->Snapshot()->PriceAt(*g6, PriceKind::kOnDemand, 0)->price_usd_per_hour, 4.6016);
}

TEST_F(PgWriteTest, AuditLogFiltersByEntityAndPages) {
  for (double usd : {50.0, 51.0, 52.0}) ASSERT_TRUE(store_->SetPrice(ops_, P5Price(usd, 1750000000)).ok());
  GpuRow l4 = *store_->Snapshot()->FindGpu("L4");
  ASSERT_TRUE(store_->UpsertGpu({"bob", "UpsertGpu"}, l4).ok());
  AuditQuery q;
  q.entity = "prices";
  q.limit = 2;
  absl::StatusOr<AuditPage> page = store_->AuditLog(q);
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->entries.size(), 2u);
  EXPECT_TRUE(page->more);
  q.before_id = page->entries.back().id;
  absl::StatusOr<AuditPage> rest = store_->AuditLog(q);
  ASSERT_TRUE(rest.ok()) << rest.status();
  EXPECT_EQ(rest->entries.size(), 1u);
  EXPECT_FALSE(rest->more);
  q = AuditQuery();
  q.since_unix_micros = 1;  // every entry; a 64-bit bound must not be narrowed
  q.until_unix_micros = int64_t{1} << 60;
  EXPECT_EQ(store_->AuditLog(q)->entries.size(), 4u);
}

}  // namespace
}  // namespace capplan::store
