// The PostgreSQL migrations kept in step with the SQLite ones: the same versions and names,
// and a fresh database of each kind holds the same schema (in each database's types) and the
// same catalog, table by table and row by row.
// Also the PostgreSQL spelling helpers (placeholders, DSN redaction) and start-up failures.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "pg_store_fixture.h"
#include "server/store/database_impl.h"
#include "server/store/pg_connection.h"
#include "server/store/pg_dsn.h"
#include "server/store/sql.h"

namespace capplan::store {
namespace {

// Columns that hold the time a row was written, not catalog content.
const std::set<std::string> kClockColumns = {"catalog_meta.updated_unix_seconds",
                                             "schema_migrations.applied_unix_seconds"};

struct ColumnInfo {
  std::string name;
  std::string type;  // PostgreSQL's data_type
};

// Every base table of the PostgreSQL database and its columns, in order.
std::map<std::string, std::vector<ColumnInfo>> PgTables(sql::Connection& pg) {
  std::map<std::string, std::vector<ColumnInfo>> out;
  sql::Statement q(pg,
                   "SELECT table_name, column_name, data_type FROM information_schema.columns "
                   "WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position");
  while (q.executeStep())
    out[q.getColumn(0).getString()].push_back({q.getColumn(1).getString(), q.getColumn(2).getString()});
  return out;
}

std::set<std::string> SqliteTables(sql::Connection& db) {
  std::set<std::string> out;
  sql::Statement q(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'sqlite_sequence'");
  while (q.executeStep()) out.insert(q.getColumn(0).getString());
  return out;
}

// The rows of `table` as text, each value typed by the PostgreSQL column: integers exact,
// doubles to 17 digits (so a difference in the last bit shows), text quoted, NULL spelled.
std::vector<std::string> Dump(sql::Connection& db, const std::string& table, const std::vector<ColumnInfo>& cols) {
  std::vector<std::string> names, order;
  std::vector<const ColumnInfo*> kept;
  for (const ColumnInfo& c : cols) {
    if (kClockColumns.count(table + "." + c.name) != 0) continue;
    kept.push_back(&c);
    names.push_back(c.name);
    order.push_back(absl::StrCat(names.size()));
  }
  sql::Statement q(db, absl::StrCat("SELECT ", absl::StrJoin(names, ", "), " FROM ", table, " ORDER BY ",
                                    absl::StrJoin(order, ", ")));
  std::vector<std::string> rows;
  while (q.executeStep()) {
    std::string row;
    for (size_t i = 0; i < kept.size(); ++i) {
      sql::Column v = q.getColumn(static_cast<int>(i));
      const std::string& type = kept[i]->type;
      if (v.isNull()) {
        absl::StrAppend(&row, "NULL|");
      } else if (type == "bigint" || type == "integer") {
        absl::StrAppend(&row, v.getInt64(), "|");
      } else if (type == "double precision") {
        char buf[40];
        std::snprintf(buf, sizeof(buf), "%.17g", v.getDouble());
        absl::StrAppend(&row, buf, "|");
      } else {
        absl::StrAppend(&row, "'", v.getString(), "'|");
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// One column as each database declares it, in the terms of the other's.
struct DeclaredColumn {
  std::string name;
  std::string type;       // PostgreSQL's data_type; for SQLite, its declared type mapped to that
  bool not_null = false;  // a SQLite primary key column counts as NOT NULL, as PostgreSQL's is
  std::string default_value;
  bool identity = false;  // PostgreSQL identity / SQLite AUTOINCREMENT
  std::string collation;  // PostgreSQL text columns only
  bool operator==(const DeclaredColumn& o) const {
    return name == o.name && type == o.type && not_null == o.not_null && default_value == o.default_value &&
           identity == o.identity;
  }
};

std::ostream& operator<<(std::ostream& os, const DeclaredColumn& c) {
  return os << c.name << " " << c.type << (c.not_null ? " NOT NULL" : "") << " DEFAULT[" << c.default_value << "]"
            << (c.identity ? " IDENTITY" : "");
}

std::vector<DeclaredColumn> SqliteColumns(sql::Connection& db, const std::string& table) {
  const std::map<std::string, std::string> types = {
      {"INTEGER", "bigint"}, {"REAL", "double precision"}, {"TEXT", "text"}};
  const std::string create = db.QueryText(absl::StrCat("SELECT sql FROM sqlite_master WHERE name = '", table, "'"));
  std::vector<DeclaredColumn> out;
  sql::Statement q(db, absl::StrCat("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info('", table,
                                    "') ORDER BY cid"));
  while (q.executeStep()) {
    DeclaredColumn c;
    c.name = q.getColumn(0).getString();
    auto t = types.find(q.getColumn(1).getString());
    c.type = t == types.end() ? "unmapped " + q.getColumn(1).getString() : t->second;
    c.not_null = q.getColumn(2).getInt64() != 0 || q.getColumn(4).getInt64() != 0;
    c.default_value = q.getColumn(3).isNull() ? "" : q.getColumn(3).getString();
    c.identity = create.find(c.name + " INTEGER PRIMARY KEY AUTOINCREMENT") != std::string::npos;
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<DeclaredColumn> PgColumns(sql::Connection& pg, const std::string& table) {
  std::vector<DeclaredColumn> out;
  sql::Statement q(pg,
                   "SELECT column_name, data_type, is_nullable, COALESCE(column_default, ''), is_identity, "
                   "COALESCE(collation_name, '') FROM information_schema.columns WHERE table_schema = "
                   "current_schema() AND table_name = ? ORDER BY ordinal_position");
  q.bind(1, table);
  while (q.executeStep()) {
    DeclaredColumn c;
    c.name = q.getColumn(0).getString();
    c.type = q.getColumn(1).getString();
    c.not_null = q.getColumn(2).getString() == "NO";
    c.default_value = q.getColumn(3).getString();
    // PostgreSQL shows a text default with its cast: 'vllm'::text.
    const size_t cast = c.default_value.rfind("::");
    if (cast != std::string::npos && c.default_value[0] == '\'') c.default_value.resize(cast);
    c.identity = q.getColumn(4).getString() == "YES";
    c.collation = q.getColumn(5).getString();
    out.push_back(std::move(c));
  }
  return out;
}

std::set<std::string> SqliteIndexes(sql::Connection& db) {
  std::set<std::string> out;
  sql::Statement q(db, "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL");
  while (q.executeStep()) out.insert(q.getColumn(0).getString());
  return out;
}

// Indexes created by name (not those behind a PRIMARY KEY or UNIQUE constraint).
std::set<std::string> PgIndexes(sql::Connection& pg) {
  std::set<std::string> out;
  sql::Statement q(pg,
                   "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND indexname NOT IN "
                   "(SELECT conname FROM pg_constraint)");
  while (q.executeStep()) out.insert(q.getColumn(0).getString());
  return out;
}

using PgMigrationsTest = PgStoreTest;

TEST_F(PgMigrationsTest, SameVersionsAndNamesAsSqlite) {
  const std::vector<Migration>& sqlite = EmbeddedMigrations();
  const std::vector<Migration>& pg = EmbeddedPostgresMigrations();
  ASSERT_EQ(pg.size(), sqlite.size());
  for (size_t i = 0; i < pg.size(); ++i) {
    EXPECT_EQ(pg[i].version, sqlite[i].version);
    EXPECT_EQ(pg[i].name, sqlite[i].name) << "migration " << pg[i].version;
  }
}

TEST_F(PgMigrationsTest, FreshPostgresHoldsTheSameCatalogAsFreshSqlite) {
  std::unique_ptr<CatalogStore> pg = OpenStore(FreshDatabase());
  ASSERT_NE(pg, nullptr);
  char tmpl[] = "/tmp/capplan-pg-parity-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  absl::StatusOr<std::unique_ptr<CatalogStore>> lite = CatalogStore::Open({dir + "/c.db"});
  ASSERT_TRUE(lite.ok()) << lite.status();

  sql::Connection& pg_db = *pg->database().impl().conn;
  sql::Connection& lite_db = *(*lite)->database().impl().conn;
  const std::map<std::string, std::vector<ColumnInfo>> tables = PgTables(pg_db);
  std::set<std::string> pg_names;
  for (const auto& [name, cols] : tables) pg_names.insert(name);
  EXPECT_EQ(pg_names, SqliteTables(lite_db));
  size_t rows = 0;
  for (const auto& [name, cols] : tables) {
    const std::vector<std::string> want = Dump(lite_db, name, cols);
    const std::vector<std::string> got = Dump(pg_db, name, cols);
    ASSERT_EQ(got.size(), want.size()) << name;
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], want[i]) << name << " row " << i;
    rows += got.size();
  }
  // The shipped catalog: dozens of GPUs, offers and prices (migrations 0002 to 0009).
  EXPECT_GT(rows, 300u);

  // And the snapshots built from them agree.
  std::shared_ptr<const CatalogSnapshot> a = pg->Snapshot(), b = (*lite)->Snapshot();
  EXPECT_EQ(a->catalog_version, b->catalog_version);
  EXPECT_EQ(a->schema_version, b->schema_version);
  EXPECT_EQ(a->gpus.size(), b->gpus.size());
  EXPECT_EQ(a->instances.size(), b->instances.size());
  EXPECT_EQ(a->price_count, b->price_count);
  EXPECT_EQ(a->training_benchmarks.size(), b->training_benchmarks.size());
  EXPECT_EQ(a->serving_benchmarks.size(), b->serving_benchmarks.size());
  for (size_t i = 0; i < a->gpus.size() && i < b->gpus.size(); ++i)
    EXPECT_EQ(a->gpus[i].spec.name, b->gpus[i].spec.name);
  lite->reset();
  std::filesystem::remove_all(dir);
}

TEST_F(PgMigrationsTest, FreshPostgresHasTheSqliteSchemaInSixtyFourBitTypesAndBytewiseText) {
  std::unique_ptr<CatalogStore> pg = OpenStore(FreshDatabase());
  ASSERT_NE(pg, nullptr);
  char tmpl[] = "/tmp/capplan-pg-schema-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  absl::StatusOr<std::unique_ptr<CatalogStore>> lite = CatalogStore::Open({dir + "/c.db"});
  ASSERT_TRUE(lite.ok()) << lite.status();
  sql::Connection& pg_db = *pg->database().impl().conn;
  sql::Connection& lite_db = *(*lite)->database().impl().conn;

  const std::set<std::string> tables = SqliteTables(lite_db);
  EXPECT_GE(tables.size(), 10u);
  for (const std::string& table : tables) {
    // The runner's own table (server/store/database.cc), created by the same SQL on both.
    if (table == "schema_migrations") continue;
    SCOPED_TRACE(table);
    const std::vector<DeclaredColumn> want = SqliteColumns(lite_db, table);
    const std::vector<DeclaredColumn> got = PgColumns(pg_db, table);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i], want[i]);
      // Text sorts bytewise on both, so names list in the same order. catalog_meta.write_token
      // kept the default collation (migrations/postgresql/README.md); it is only compared.
      if (got[i].type == "text" && table + "." + got[i].name != "catalog_meta.write_token") {
        EXPECT_EQ(got[i].collation, "C") << got[i].name;
      }
    }
  }
  EXPECT_EQ(PgIndexes(pg_db), SqliteIndexes(lite_db));
  lite->reset();
  std::filesystem::remove_all(dir);
}

TEST_F(PgMigrationsTest, ThreeReplicasMigratingAtOnceApplyEachMigrationOnce) {
  const std::string dsn = FreshDatabase();
  std::vector<std::thread> starts;
  starts.reserve(3);
  std::vector<std::unique_ptr<CatalogStore>> stores(3);
  for (int i = 0; i < 3; ++i) starts.emplace_back([&, i] { stores[i] = OpenStore(dsn); });
  for (std::thread& t : starts) t.join();
  for (const auto& s : stores) {
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->Snapshot()->schema_version, static_cast<int>(EmbeddedPostgresMigrations().size()));
  }
  sql::Connection& db = *stores[0]->database().impl().conn;
  EXPECT_EQ(db.QueryInt64("SELECT COUNT(*) FROM schema_migrations"),
            static_cast<int64_t>(EmbeddedPostgresMigrations().size()));
}

TEST(PgSpellingTest, PlaceholdersOutsideQuotesAndCommentsBecomeNumbered) {
  EXPECT_EQ(PgPlaceholders("SELECT a FROM t WHERE b = ? AND c = ?"), "SELECT a FROM t WHERE b = $1 AND c = $2");
  EXPECT_EQ(PgPlaceholders("WHERE (?1 = '' OR e = ?1) LIMIT ?2"), "WHERE ($1 = '' OR e = $1) LIMIT $2");
  EXPECT_EQ(PgPlaceholders("SELECT '?', \"a?\" -- why?\n, ?"), "SELECT '?', \"a?\" -- why?\n, $1");
  EXPECT_EQ(PgPlaceholders("SELECT 'it''s ?', ?"), "SELECT 'it''s ?', $1");
}

TEST(PgSpellingTest, DsnIsShownWithoutItsPasswordAndGetsTimeouts) {
  const std::string dsn = "postgresql://capplan:s3cret@db.example:5433/catalog?sslmode=disable";
  EXPECT_TRUE(IsPostgresDsn(dsn));
  EXPECT_TRUE(IsPostgresDsn("postgres://x@h/d"));
  EXPECT_FALSE(IsPostgresDsn("var/capplan.db"));
  EXPECT_EQ(RedactedDsn(dsn), "postgresql://capplan@db.example:5433/catalog");
  EXPECT_EQ(RedactedDsn("postgresql://u:pw@/cat?host=/run/pg&port=5433"), "postgresql://u@/cat?host=/run/pg&port=5433");
  const std::string with = WithConnectDefaults(dsn);
  EXPECT_NE(with.find("&connect_timeout=3"), std::string::npos) << with;
  EXPECT_EQ(WithConnectDefaults("postgresql://h/d?connect_timeout=9").find("connect_timeout=3"), std::string::npos);
}

TEST(PgSpellingTest, SqlStatesMapToTheCanonicalCodes) {
  // PostgreSQL 15 documentation, Appendix A "PostgreSQL Error Codes".
  EXPECT_EQ(PgCode("08006"), absl::StatusCode::kUnavailable);         // connection_failure
  EXPECT_EQ(PgCode("57P01"), absl::StatusCode::kUnavailable);         // admin_shutdown
  EXPECT_EQ(PgCode("40001"), absl::StatusCode::kUnavailable);         // serialization_failure
  EXPECT_EQ(PgCode("40P01"), absl::StatusCode::kUnavailable);         // deadlock_detected
  EXPECT_EQ(PgCode("25006"), absl::StatusCode::kUnavailable);         // read_only_sql_transaction: a standby
  EXPECT_EQ(PgCode("23505"), absl::StatusCode::kAlreadyExists);       // unique_violation
  EXPECT_EQ(PgCode("23503"), absl::StatusCode::kFailedPrecondition);  // foreign_key_violation
  EXPECT_EQ(PgCode("23514"), absl::StatusCode::kInvalidArgument);     // check_violation
  EXPECT_EQ(PgCode("23502"), absl::StatusCode::kInvalidArgument);     // not_null_violation
  EXPECT_EQ(PgCode("53100"), absl::StatusCode::kResourceExhausted);   // disk_full
  EXPECT_EQ(PgCode("42P01"), absl::StatusCode::kInternal);            // undefined_table
}

TEST(PgStartTest, UnreachableDatabaseFailsFastWithOneLineNamingTheHostNotThePassword) {
  // Nothing listens on a socket in a directory that does not exist.
  DatabaseOptions options;
  options.path = "postgresql://capplan:s3cret@/capplan?host=/nonexistent-capplan-dir&port=5999";
  const auto t0 = std::chrono::steady_clock::now();
  absl::StatusOr<std::unique_ptr<CatalogStore>> s = CatalogStore::Open(options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kUnavailable);
  const std::string msg(s.status().message());
  EXPECT_NE(msg.find("/nonexistent-capplan-dir:5999"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("s3cret"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_LT(seconds, 4.0);
}

}  // namespace
}  // namespace capplan::store
