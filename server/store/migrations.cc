// The PostgreSQL migrations: the SQLite ones in PostgreSQL's spelling (pg_spelling.h), except
// where migrations/postgresql/ holds a file of the same number for a genuine difference.
#include "server/store/migrations.h"

#include <map>

#include "server/store/pg_spelling.h"

namespace capplan::store {
namespace {

// Migration 0011 ran unchanged on PostgreSQL before the spelling was derived: its
// catalog_meta.write_token column has the database's default collation, not "C". Databases
// deployed since hold that column, so a fresh one gets the same (the column is only compared
// for equality, where collations agree).
constexpr int kRunsUnchangedOnPostgres = 11;

}  // namespace

const std::vector<Migration>& EmbeddedPostgresMigrations() {
  static const std::vector<Migration> kMigrations = [] {
    std::map<int, const Migration*> overrides;
    for (const Migration& m : PostgresMigrationOverrides()) overrides[m.version] = &m;
    std::vector<Migration> out;
    for (const Migration& m : EmbeddedMigrations()) {
      auto it = overrides.find(m.version);
      if (it != overrides.end()) {
        out.push_back(*it->second);
      } else if (m.version == kRunsUnchangedOnPostgres) {
        out.push_back(m);
      } else {
        out.push_back({m.version, m.name, PostgresSpelling(m.sql)});
      }
    }
    return out;
  }();
  return kMigrations;
}

}  // namespace capplan::store
