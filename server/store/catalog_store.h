// The catalog as the planner reads it: an immutable snapshot, swapped atomically after each
// committed write, so readers never lock and never touch SQLite.
#pragma once

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "server/store/database.h"

namespace capplan::store {

struct CatalogSnapshot {
  int64_t catalog_version = 0;  // bumped by every committed admin write
  int schema_version = 0;
  int64_t loaded_unix_seconds = 0;
};

class CatalogStore {
 public:
  // Opens the database, applies the migrations and loads the first snapshot.
  static absl::StatusOr<std::unique_ptr<CatalogStore>> Open(
      const DatabaseOptions& options,
      const std::vector<Migration>& migrations = EmbeddedMigrations());

  // The current snapshot. Lock-free; the pointer stays valid for as long as it is held.
  std::shared_ptr<const CatalogSnapshot> Snapshot() const;

  // Re-reads the catalog and publishes a new snapshot.
  absl::Status Reload();

  Database& database() { return *db_; }

 private:
  explicit CatalogStore(std::unique_ptr<Database> db) : db_(std::move(db)) {}
  absl::StatusOr<std::shared_ptr<const CatalogSnapshot>> Load();

  std::unique_ptr<Database> db_;
  // Accessed only through std::atomic_load / std::atomic_store.
  std::shared_ptr<const CatalogSnapshot> snapshot_;
};

}  // namespace capplan::store
