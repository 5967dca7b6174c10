// Schema migrations: numbered SQL files from migrations/, embedded into the binary at build
// time (cmake/embed_migrations.cmake), for SQLite as written and for PostgreSQL respelled.
#pragma once

#include <string>
#include <vector>

namespace capplan::store {

struct Migration {
  int version;       // from the NNNN prefix; strictly increasing from 1
  std::string name;  // the rest of the file name
  std::string sql;
};

// The migrations this binary was built with, in version order, for SQLite (migrations/).
const std::vector<Migration>& EmbeddedMigrations();

// The same migrations for PostgreSQL: each one's SQL is PostgresSpelling() of the SQLite file
// (pg_spelling.h), or the file of the same number in migrations/postgresql/ where the schema
// genuinely differs (migrations/postgresql/README.md).
const std::vector<Migration>& EmbeddedPostgresMigrations();

// The files in migrations/postgresql/, as written; usually none.
const std::vector<Migration>& PostgresMigrationOverrides();

}  // namespace capplan::store
