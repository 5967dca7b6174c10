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

// The migrations this binary was built with, in version order.
const std::vector<Migration>& EmbeddedMigrations();

}  // namespace capplan::store
