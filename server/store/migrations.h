// Schema migrations: numbered SQL files from migrations/, embedded into the binary at build
// time (cmake/embed_migrations.cmake).
#pragma once

#include <string>
#include <vector>

namespace capplan::store {

struct Migration {
  int version;       // from the NNNN prefix; strictly increasing from 1
  std::string name;  // the rest of the file name
  std::string sql;
};

// The migrations this binary was built with, in version order: SQLite (migrations/) and
// PostgreSQL (migrations/postgresql/, the same numbers and names, kept in step by a test).
const std::vector<Migration>& EmbeddedMigrations();
const std::vector<Migration>& EmbeddedPostgresMigrations();

}  // namespace capplan::store
