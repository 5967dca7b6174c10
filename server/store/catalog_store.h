// The catalog store: reads every table into an immutable snapshot, swapped atomically after
// each committed write, so readers never lock and never touch the database. Writes are
// serialised, each in one write transaction with its audit row and the catalog version bump.
// On PostgreSQL, writers on every replica are serialised by an advisory lock, each write
// notifies the others (NOTIFY capplan_catalog), and a sync thread reloads the snapshot when
// another replica wrote (catalog_sync.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/store/catalog.h"
#include "server/store/database.h"
#include "server/store/import_checks.h"
#include "server/store/price_csv.h"

namespace capplan::store {

namespace sql {
class Connection;
}  // namespace sql
class CatalogSync;

// The PostgreSQL channel every write notifies, with the new catalog version as payload.
inline constexpr char kCatalogChannel[] = "capplan_catalog";

struct WriteResult {
  int64_t catalog_version = 0;  // the snapshot that includes the write
  int64_t id = 0;               // row id for writes that create one
  int64_t rows_written = 0;     // offers, for bulk imports
  bool replayed = false;        // answered from an earlier write with the same request id
};

inline constexpr size_t kMaxRequestIdBytes = 128;

// Who writes and through which call, for the audit log; and the caller's idempotency key.
struct WriteContext {
  WriteContext(std::string caller_name, std::string method_name, std::string id = "", std::string fingerprint = "")
      : caller(std::move(caller_name)),
        method(std::move(method_name)),
        request_id(std::move(id)),
        request_fingerprint(std::move(fingerprint)) {}
  std::string caller;
  std::string method;
  // Optional. A write whose request id was seen before with the same fingerprint returns the
  // first write's result and applies nothing; with another fingerprint it is InvalidArgument.
  std::string request_id;
  std::string request_fingerprint;  // identifies the request body (a hash)
};

struct CsvImportResult {
  WriteResult write;
  int rows_imported = 0;            // offers written (or that a dry run would write)
  int rows_skipped = 0;             // rows that name no GPU (CPU instances, TPUs, GCP host rows)
  std::vector<CsvRowError> errors;  // strict: non-empty means nothing was written; partial: rows not imported
  PriceLayout layout = PriceLayout::kColumns;
  int gpu_rows = 0;                   // rows that name a GPU
  std::vector<CsvRowError> warnings;  // rows imported with something left out or forced
  ImportDiff diff;                    // against the prices in force before the import
  bool written = false;               // false: a dry run, or nothing to write
};

// What an import of measured runs wrote: the id of each row the file gave (new, or the equal
// row the catalog already held), in the file's order.
struct BenchmarkImportResult {
  WriteResult write;  // replayed: answered from an earlier import with the same request id
  std::vector<int64_t> ids;
  int rows_written = 0;
  int rows_unchanged = 0;  // equal to a held row: not written again
};

struct AuditEntry {
  int64_t id = 0;
  int64_t at_unix_micros = 0;
  std::string caller, method, entity, before_json, after_json;
  int64_t catalog_version = 0;
};

inline constexpr size_t kMaxAuditEntityBytes = 512;

// Which audit entries to read, newest first. Zero fields do not filter.
struct AuditQuery {
  // The entity, or any entity under it: "prices" matches "prices/42" and
  // "prices/import/aws/3-offers", not "prices_x".
  std::string entity;
  int64_t since_unix_micros = 0;  // at or after
  int64_t until_unix_micros = 0;  // before
  int64_t before_id = 0;          // paging: entries older than this id
  int limit = 100;                // at most this many (1..10,000)
};

struct AuditPage {
  std::vector<AuditEntry> entries;
  bool more = false;  // entries beyond `limit` match: ask again with before_id = last id
};

// The database's catalog identity (catalog_meta and the connection's epoch); throws
// sql::Error. For the store and the sync thread's own connection.
CatalogIdentity ReadCatalogIdentity(sql::Connection& db);

class CatalogStore {
 public:
  // Opens the database, applies the migrations (those of its dialect unless given) and loads
  // the first snapshot. On PostgreSQL, also starts following other replicas' writes.
  static absl::StatusOr<std::unique_ptr<CatalogStore>> Open(const DatabaseOptions& options);
  static absl::StatusOr<std::unique_ptr<CatalogStore>> Open(const DatabaseOptions& options,
                                                            const std::vector<Migration>& migrations);
  ~CatalogStore();
  CatalogStore(const CatalogStore&) = delete;
  CatalogStore& operator=(const CatalogStore&) = delete;

  // The current snapshot. Lock-free; the pointer stays valid for as long as it is held.
  std::shared_ptr<const CatalogSnapshot> Snapshot() const;

  // Re-reads the whole catalog and publishes a new snapshot (waits for a write in progress).
  absl::Status Reload() ABSL_LOCKS_EXCLUDED(write_mu_);
  // Reload, only when the database's CatalogIdentity (read once any write in progress has
  // published) differs from the snapshot's. True when it reloaded. For the replica sync: a
  // replica's own write notifies it too, and must not cost a reload.
  absl::StatusOr<bool> ReloadUnlessCurrent() ABSL_LOCKS_EXCLUDED(write_mu_);

  absl::StatusOr<WriteResult> UpsertGpu(const WriteContext& ctx, const GpuRow& row);
  absl::StatusOr<WriteResult> DeleteGpu(const WriteContext& ctx, const std::string& name);
  absl::StatusOr<WriteResult> UpsertModel(const WriteContext& ctx, const ModelRow& row);
  absl::StatusOr<WriteResult> DeleteModel(const WriteContext& ctx, const std::string& name);
  absl::StatusOr<WriteResult> UpsertInstance(const WriteContext& ctx, const InstanceRow& row);
  absl::StatusOr<WriteResult> DeleteInstance(const WriteContext& ctx, const std::string& provider,
                                             const std::string& instance_type, const std::string& region);
  // Appends a price history row; the current price is the latest effective one.
  absl::StatusOr<WriteResult> SetPrice(const WriteContext& ctx, const PriceRow& row);
  absl::StatusOr<WriteResult> RecordBenchmark(const WriteContext& ctx, const BenchmarkRow& row);
  absl::StatusOr<WriteResult> DeleteBenchmark(const WriteContext& ctx, int64_t id);
  // Measured runs from one file, in one write (all or nothing). A row equal in every field but
  // the id to one the catalog holds is not written again; when every row is held, nothing is
  // written (no catalog version, no audit entry) and the held ids are answered.
  absl::StatusOr<BenchmarkImportResult> ImportBenchmarks(const WriteContext& ctx,
                                                         const std::vector<BenchmarkRow>& rows);
  absl::StatusOr<WriteResult> UpsertFabric(const WriteContext& ctx, const FabricRow& row);
  // FailedPrecondition naming the users while an instance type, GPU or benchmark names it.
  absl::StatusOr<WriteResult> DeleteFabric(const WriteContext& ctx, const std::string& name);
  // The price of electricity in a region (for owning), keyed by region.
  absl::StatusOr<WriteResult> UpsertElectricityPrice(const WriteContext& ctx, const ElectricityRow& row);
  // NotFound when the region has no price.
  absl::StatusOr<WriteResult> DeleteElectricityPrice(const WriteContext& ctx, const std::string& region);
  // A standing TCO scenario, keyed by name (at most kMaxTcoScenarios: ResourceExhausted
  // beyond). The caller has checked that the request prices; the store keeps its JSON.
  absl::StatusOr<WriteResult> UpsertTcoScenario(const WriteContext& ctx, const TcoScenarioRow& row);
  // NotFound when there is no scenario of that name.
  absl::StatusOr<WriteResult> DeleteTcoScenario(const WriteContext& ctx, const std::string& name);
  // SkyPilot catalogs (price_csv.h: the public AWS v7, GCP v7 and Azure v6 layouts, or the
  // columns by name), checked by the sanity rules (import_checks.h). Strict: bad rows come
  // back in `errors` and nothing is written. Partial: the good offers are written in one
  // transaction and the others listed. A dry run writes nothing. The audit row records the
  // diff. A missing column is InvalidArgument.
  absl::StatusOr<CsvImportResult> ImportPricesCsv(const WriteContext& ctx, const std::string& provider,
                                                  const std::string& csv, const Source& source,
                                                  int64_t effective_unix_seconds,
                                                  const ImportOptions& options = ImportOptions());

  // Newest first.
  absl::StatusOr<std::vector<AuditEntry>> AuditLog(int limit);
  // The entries `query` selects, newest first. InvalidArgument for a limit outside 1..10,000.
  absl::StatusOr<AuditPage> AuditLog(const AuditQuery& query) ABSL_LOCKS_EXCLUDED(write_mu_);

  // From now on every write is refused with Unavailable ("server is shutting down"), and a
  // write in flight (an import between batches, or before COMMIT) rolls back. Idempotent.
  void BeginDrain();

  // Called (with the write lock held, at most once) with a non-OK status when the store
  // becomes unusable: the database file was deleted or replaced under it. Every later write
  // is refused with that status.
  void SetHealthListener(std::function<void(const absl::Status&)> listener) ABSL_LOCKS_EXCLUDED(write_mu_);
  // Called after every published snapshot (with the write lock held: keep it short, e.g.
  // wake a thread) with the new catalog version. Any number of listeners; returns a handle
  // for RemovePublishListener, which must be called before the listener's captures die.
  int AddPublishListener(std::function<void(int64_t catalog_version)> listener) ABSL_LOCKS_EXCLUDED(write_mu_);
  void RemovePublishListener(int handle) ABSL_LOCKS_EXCLUDED(write_mu_);

  Database& database() { return *db_; }
  // PostgreSQL: whether the sync thread's connection is up (for capplan_catalog_db_up).
  // SQLite: always true.
  bool database_up() const;
  // Snapshots reloaded because another replica wrote (PostgreSQL; 0 on SQLite).
  int64_t sync_reloads() const;
  // Time spent building the last published snapshot.
  double last_publish_seconds() const { return last_publish_seconds_.load(); }

 private:
  // Tables a write changed: publishing re-reads only these and shares the rest.
  enum : unsigned {
    kGpuTable = 1,
    kModelTable = 2,
    kInstanceTable = 4,
    kPriceTable = 8,
    kBenchmarkTable = 16,
    kFabricTable = 32,
    kElectricityTable = 64,
    kTcoScenarioTable = 128,
    kAllTables = 255,
  };

  explicit CatalogStore(std::unique_ptr<Database> db);
  static absl::StatusOr<std::unique_ptr<CatalogStore>> Open(const DatabaseOptions& options,
                                                            const std::vector<Migration>* migrations);
  sql::Connection& Conn();
  // A snapshot with the `reload` tables read afresh and the others taken from the current one,
  // or every table when the database is not at `expected_version` (another writer was there).
  absl::StatusOr<std::shared_ptr<const CatalogSnapshot>> Load(unsigned reload, const CatalogIdentity* expected);
  absl::Status LearnColumns();

  struct Key {
    std::string table;
    std::vector<std::pair<std::string, std::string>> text;  // column -> value
    int64_t id = 0;                                         // for id-keyed tables
    std::string label;                        // audit entity when the write has no single row (bulk import)
    std::string audit_after = std::string();  // after_json for a bulk write (the import's diff)
    int64_t rows = 0;                         // rows_written to report (bulk import); set after construction
    unsigned reload = kAllTables;             // tables to re-read after the write
    // Patches instead of re-reading: SetPrice's new row, UpsertInstance's row,
    // DeleteInstance's offer key.
    const PriceRow* appended_price = nullptr;
    const InstanceRow* upserted_instance = nullptr;
    std::string erased_instance = std::string();
    // Set by Write: the database's identity when the write began, and the token it wrote. A
    // snapshot is patched only when it holds exactly that identity.
    std::optional<CatalogIdentity> prior = std::nullopt;
    std::string written_token = std::string();
  };
  // The shared write path: before image, `apply`, after image, audit row, version bump,
  // commit, publish. `apply` returns the id of a created row (0 if none).
  absl::StatusOr<WriteResult> Write(const WriteContext& ctx, Key key,
                                    const std::function<absl::StatusOr<int64_t>()>& apply)
      ABSL_LOCKS_EXCLUDED(write_mu_);
  // Inside the write transaction: bumps the catalog version, writes the audit row and (on
  // PostgreSQL) the notification. Returns the new version; throws sql::Error.
  int64_t BumpAndAudit(const WriteContext& ctx, const std::string& entity, const std::string& before,
                       const std::string& after, const std::string& write_token);
  // Publishes the committed write: a patch of the current snapshot where the write says how
  // (an appended price), otherwise a reload of the tables it changed.
  absl::Status Publish(const Key& key, const WriteResult& result) ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_);
  // The tables after the write `key` describes, built from `prev`; none when only a reload
  // can tell.
  std::optional<CatalogTables> Patch(const CatalogSnapshot& prev, const Key& key, const WriteResult& result);

  // The answer to a retried write (same request id) that already committed, published first
  // when this replica's snapshot does not hold it yet.
  WriteResult Replayed(const WriteResult& earlier) ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_);
  absl::StatusOr<std::string> RowJson(const Key& key);
  // Ok when a write may commit now: not draining, and the database file is still the one
  // opened. Otherwise the refusal; a replaced file also marks the store unusable.
  absl::Status MayCommit() ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_);
  // Inside the write transaction: the earlier result for ctx.request_id, if any (or the
  // refusal of a reused id); then, after the write, recording it and pruning old ids.
  absl::StatusOr<std::optional<WriteResult>> EarlierResult(const WriteContext& ctx);
  void RecordRequest(const WriteContext& ctx, const WriteResult& result);

  std::unique_ptr<Database> db_;
  absl::Mutex write_mu_;  // one writer at a time in this process (and the main connection's user)
  std::atomic<bool> draining_{false};
  // The published snapshot may lag the database (a publish failed or was skipped): the next
  // publish re-reads every table.
  bool snapshot_stale_ ABSL_GUARDED_BY(write_mu_) = false;
  absl::Status unusable_ ABSL_GUARDED_BY(write_mu_);
  std::function<void(const absl::Status&)> health_listener_ ABSL_GUARDED_BY(write_mu_);
  std::map<int, std::function<void(int64_t)>> publish_listeners_ ABSL_GUARDED_BY(write_mu_);
  int next_listener_ ABSL_GUARDED_BY(write_mu_) = 0;
  std::map<std::string, std::string> json_exprs_;  // table -> json_object(...) over its columns
  // Accessed only through std::atomic_load / std::atomic_store.
  std::shared_ptr<const CatalogSnapshot> snapshot_;
  std::atomic<double> last_publish_seconds_{0};
  std::unique_ptr<CatalogSync> sync_;  // PostgreSQL only; declared last, so stopped first
};

}  // namespace capplan::store
