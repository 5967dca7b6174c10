// Migrations on real SQLite files: fresh database, re-run, newer-schema refusal, and a
// failing migration that must leave the previous version intact.
#include "server/store/database.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "server/store/catalog_store.h"

namespace capplan::store {
namespace {

class DatabaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/capplan-store-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    path_ = dir_ + "/catalog.db";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<Database> OpenDb() {
    absl::StatusOr<std::unique_ptr<Database>> db = Database::Open({path_});
    EXPECT_TRUE(db.ok()) << db.status();
    return std::move(*db);
  }

  // Reads one integer straight from the file with the SQLite C API, bypassing the store.
  int64_t RawInt(const std::string& sql) {
    sqlite3* raw = nullptr;
    EXPECT_EQ(sqlite3_open_v2(path_.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(raw, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
    int64_t v = -1;
    if (sqlite3_step(stmt) == SQLITE_ROW) v = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    sqlite3_close(raw);
    return v;
  }

  std::string dir_;
  std::string path_;
};

TEST_F(DatabaseTest, FreshDatabaseGetsEveryMigrationAndDurableSettings) {
  auto db = OpenDb();
  const int newest = static_cast<int>(EmbeddedMigrations().size());
  ASSERT_GE(newest, 1);
  absl::StatusOr<int> v = db->Migrate(EmbeddedMigrations());
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, newest);
  EXPECT_EQ(*db->Pragma("journal_mode"), "wal");
  EXPECT_EQ(*db->Pragma("synchronous"), "2");  // FULL
  EXPECT_EQ(*db->Pragma("foreign_keys"), "1");
  EXPECT_EQ(*db->Pragma("busy_timeout"), "5000");
  EXPECT_EQ(RawInt("PRAGMA user_version"), newest);
  EXPECT_EQ(RawInt("SELECT COUNT(*) FROM schema_migrations"), newest);
  EXPECT_EQ(RawInt("SELECT catalog_version FROM catalog_meta"), 1);
  EXPECT_TRUE(db->IntegrityCheck().ok());
}

TEST_F(DatabaseTest, RerunIsANoOp) {
  {
    auto db = OpenDb();
    ASSERT_TRUE(db->Migrate(EmbeddedMigrations()).ok());
  }
  const int64_t applied_at = RawInt("SELECT MAX(applied_unix_seconds) FROM schema_migrations");
  auto db = OpenDb();
  absl::StatusOr<int> v = db->Migrate(EmbeddedMigrations());
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, static_cast<int>(EmbeddedMigrations().size()));
  EXPECT_EQ(RawInt("SELECT COUNT(*) FROM schema_migrations"), static_cast<int64_t>(EmbeddedMigrations().size()));
  EXPECT_EQ(RawInt("SELECT MAX(applied_unix_seconds) FROM schema_migrations"), applied_at);
}

TEST_F(DatabaseTest, RefusesSchemaNewerThanBinary) {
  auto db = OpenDb();
  std::vector<Migration> future = EmbeddedMigrations();
  future.push_back({static_cast<int>(future.size()) + 1, "from_the_future", "CREATE TABLE t (x)"});
  ASSERT_TRUE(db->Migrate(future).ok());
  absl::StatusOr<int> v = db->Migrate(EmbeddedMigrations());
  EXPECT_EQ(v.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(v.status().message().find("newer than this binary knows"), std::string::npos) << v.status();
}

TEST_F(DatabaseTest, FailingMigrationLeavesPreviousVersionIntact) {
  auto db = OpenDb();
  ASSERT_TRUE(db->Migrate(EmbeddedMigrations()).ok());
  const int before = *db->SchemaVersion();
  std::vector<Migration> broken = EmbeddedMigrations();
  // The first statement succeeds, the second fails: both must be rolled back.
  broken.push_back({before + 1, "broken",
                    "CREATE TABLE half_done (x INTEGER);\n"
                    "INSERT INTO no_such_table VALUES (1);"});
  absl::StatusOr<int> v = db->Migrate(broken);
  EXPECT_EQ(v.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(v.status().message().find(absl::StrCat("migration ", before + 1, "_broken failed")), std::string::npos)
      << v.status();
  EXPECT_EQ(*db->SchemaVersion(), before);
  EXPECT_EQ(RawInt("SELECT COUNT(*) FROM sqlite_master WHERE name = 'half_done'"), 0);
  EXPECT_EQ(RawInt("PRAGMA user_version"), before);
}

TEST_F(DatabaseTest, MissingDirectoryNamesThePath) {
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open({dir_ + "/no/such/dir/x.db"});
  EXPECT_EQ(db.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(db.status().message().find("/no/such/dir/x.db"), std::string::npos) << db.status();
}

TEST_F(DatabaseTest, FileThatIsNotSqliteIsDataLoss) {
  std::ofstream(path_) << "this is not a database, it is a text file of some length......\n";
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open({path_});
  EXPECT_EQ(db.status().code(), absl::StatusCode::kDataLoss) << db.status();
}

TEST_F(DatabaseTest, CatalogStorePublishesSnapshot) {
  absl::StatusOr<std::unique_ptr<CatalogStore>> store = CatalogStore::Open({path_});
  ASSERT_TRUE(store.ok()) << store.status();
  std::shared_ptr<const CatalogSnapshot> first = (*store)->Snapshot();
  EXPECT_EQ(first->catalog_version, 1);
  EXPECT_EQ(first->schema_version, static_cast<int>(EmbeddedMigrations().size()));
  ASSERT_TRUE((*store)->Reload().ok());
  // A reader holding the old snapshot keeps it; the store hands out the new one.
  EXPECT_NE((*store)->Snapshot().get(), first.get());
  EXPECT_EQ(first->catalog_version, 1);
}

}  // namespace
}  // namespace capplan::store
