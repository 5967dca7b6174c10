// Loading the catalog tables into an immutable snapshot.
#include "server/store/catalog_store.h"

#include <atomic>
#include <ctime>

#include "absl/strings/str_cat.h"
#include "server/store/sqlite_impl.h"

namespace capplan::store {

absl::StatusOr<std::unique_ptr<CatalogStore>> CatalogStore::Open(
    const DatabaseOptions& options, const std::vector<Migration>& migrations) {
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(options);
  if (!db.ok()) return db.status();
  absl::StatusOr<int> version = (*db)->Migrate(migrations);
  if (!version.ok()) return version.status();
  std::unique_ptr<CatalogStore> store(new CatalogStore(std::move(*db)));
  absl::Status loaded = store->Reload();
  if (!loaded.ok()) return loaded;
  return store;
}

std::shared_ptr<const CatalogSnapshot> CatalogStore::Snapshot() const {
  return std::atomic_load(&snapshot_);
}

absl::Status CatalogStore::Reload() {
  absl::StatusOr<std::shared_ptr<const CatalogSnapshot>> next = Load();
  if (!next.ok()) return next.status();
  std::atomic_store(&snapshot_, std::move(*next));
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const CatalogSnapshot>> CatalogStore::Load() {
  auto snap = std::make_shared<CatalogSnapshot>();
  absl::StatusOr<int> schema = db_->SchemaVersion();
  if (!schema.ok()) return schema.status();
  snap->schema_version = *schema;
  snap->loaded_unix_seconds = static_cast<int64_t>(std::time(nullptr));
  try {
    SQLite::Database& db = db_->impl().db;
    // One read transaction so the snapshot is consistent across tables.
    SQLite::Transaction tx(db, SQLite::TransactionBehavior::DEFERRED);
    snap->catalog_version =
        db.execAndGet("SELECT catalog_version FROM catalog_meta WHERE id = 1").getInt64();
    tx.commit();
  } catch (const SQLite::Exception& e) {
    return SqliteError(e, absl::StrCat("database ", db_->path(), ": loading catalog"));
  }
  return std::shared_ptr<const CatalogSnapshot>(std::move(snap));
}

}  // namespace capplan::store
