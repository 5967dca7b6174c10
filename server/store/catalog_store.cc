// Loading the catalog into snapshots, and the audited write path.
#include "server/store/catalog_store.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <ctime>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/store/catalog_rows.h"
#include "server/store/catalog_sync.h"
#include "server/store/database_impl.h"
#include "server/store/price_csv.h"
#include "server/store/sql.h"

namespace capplan::store {

namespace {

// 128 random bits in hex: what tells apart two writes that reached the same catalog version
// (one of them lost in a failover).
std::string NewWriteToken() {
  std::random_device rd;
  const uint64_t hi = (static_cast<uint64_t>(rd()) << 32) | rd();
  const uint64_t lo = (static_cast<uint64_t>(rd()) << 32) | rd();
  return absl::StrCat(absl::Hex(hi, absl::kZeroPad16), absl::Hex(lo, absl::kZeroPad16));
}

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

absl::StatusOr<std::unique_ptr<CatalogStore>> CatalogStore::Open(const DatabaseOptions& options) {
  return Open(options, nullptr);
}

absl::StatusOr<std::unique_ptr<CatalogStore>> CatalogStore::Open(const DatabaseOptions& options,
                                                                 const std::vector<Migration>& migrations) {
  return Open(options, &migrations);
}

absl::StatusOr<std::unique_ptr<CatalogStore>> CatalogStore::Open(const DatabaseOptions& options,
                                                                 const std::vector<Migration>* migrations) {
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(options);
  if (!db.ok()) return db.status();
  absl::StatusOr<int> version = (*db)->Migrate(migrations != nullptr ? *migrations : (*db)->DialectMigrations());
  if (!version.ok()) return version.status();
  std::unique_ptr<CatalogStore> store(new CatalogStore(std::move(*db)));
  absl::Status columns = store->LearnColumns();
  if (!columns.ok()) return columns;
  absl::Status loaded = store->Reload();
  if (!loaded.ok()) return loaded;
  if (store->db_->is_postgres()) {
    // Other replicas write too: follow them.
    CatalogSyncOptions sync;
    sync.dsn = store->db_->impl().dsn;
    sync.listen = options.listen_for_changes;
    sync.poll_interval_ms = options.poll_interval_ms;
    sync.shown_dsn = store->db_->path();
    sync.log = options.log;
    store->sync_ = std::make_unique<CatalogSync>(sync, store.get());
  }
  return store;
}

CatalogStore::CatalogStore(std::unique_ptr<Database> db) : db_(std::move(db)) {}

CatalogStore::~CatalogStore() { sync_.reset(); }  // stops the thread before the store goes

sql::Connection& CatalogStore::Conn() { return *db_->impl().conn; }

bool CatalogStore::database_up() const { return sync_ == nullptr || sync_->up(); }

int64_t CatalogStore::sync_reloads() const { return sync_ == nullptr ? 0 : sync_->reloads(); }

absl::Status CatalogStore::LearnColumns() {
  try {
    sql::Connection& db = Conn();
    const bool pg = db.dialect() == sql::Dialect::kPostgres;
    for (const char* table : {"gpu_types", "models", "instance_types", "prices", "benchmarks", "fabrics",
                              "electricity_prices", "tco_scenarios"}) {
      // Column names come from our own schema, never from a request.
      sql::Statement q(db, pg ? absl::StrCat("SELECT column_name FROM information_schema.columns WHERE "
                                             "table_schema = current_schema() AND table_name = '",
                                             table, "' ORDER BY ordinal_position")
                              : absl::StrCat("SELECT name FROM pragma_table_info('", table, "')"));
      std::vector<std::string> parts;
      while (q.executeStep()) {
        const std::string col = q.getColumn(0).getString();
        parts.push_back(absl::StrCat("'", col, "', ", col));
      }
      json_exprs_[table] =
          absl::StrCat(pg ? "json_build_object(" : "json_object(", absl::StrJoin(parts, ", "), pg ? ")::text" : ")");
    }
  } catch (const sql::Error& e) {
    return e.WithContext(absl::StrCat("database ", db_->path(), ": reading the schema"));
  }
  return absl::OkStatus();
}

std::shared_ptr<const CatalogSnapshot> CatalogStore::Snapshot() const { return std::atomic_load(&snapshot_); }

absl::Status CatalogStore::Reload() {
  absl::MutexLock lock(&write_mu_);
  Key everything;
  everything.reload = kAllTables;
  return Publish(everything, WriteResult());
}

CatalogIdentity ReadCatalogIdentity(sql::Connection& db) {
  sql::Statement q(db, absl::StrCat("SELECT catalog_version, write_token, ", db.DatabaseEpochSql(),
                                    " FROM catalog_meta WHERE id = 1"));
  CatalogIdentity id;
  if (!q.executeStep()) return id;
  id.catalog_version = q.getColumn(0).getInt64();
  id.write_token = q.getColumn(1).getString();
  id.epoch = q.getColumn(2).getString();
  return id;
}

absl::StatusOr<bool> CatalogStore::ReloadUnlessCurrent() {
  absl::MutexLock lock(&write_mu_);
  try {
    if (ReadCatalogIdentity(Conn()) == Snapshot()->Identity()) return false;
  } catch (const sql::Error& e) {
    return e.WithContext(absl::StrCat("database ", db_->path(), ": reading the catalog version"));
  }
  Key everything;
  everything.reload = kAllTables;
  absl::Status published = Publish(everything, WriteResult());
  if (!published.ok()) return published;
  return true;
}

absl::StatusOr<std::shared_ptr<const CatalogSnapshot>> CatalogStore::Load(unsigned reload,
                                                                          const CatalogIdentity* expected) {
  const std::shared_ptr<const CatalogSnapshot> prev = Snapshot();
  CatalogTables t;
  if (prev != nullptr) {
    t = prev->tables();
  } else {
    reload = kAllTables;
  }
  absl::StatusOr<int> schema = db_->SchemaVersion();
  if (!schema.ok()) return schema.status();
  CatalogIdentity identity;
  try {
    sql::Connection& db = Conn();
    // One read transaction so the snapshot is consistent across tables.
    sql::Transaction tx(db, sql::TxKind::kRead);
    identity = ReadCatalogIdentity(db);
    // Another replica wrote since: the tables kept from `prev` may be stale too.
    if (expected == nullptr || identity != *expected) reload = kAllTables;
    if (reload & kGpuTable) t.gpus = MakeGpuTable(ReadGpus(db));
    if (reload & kModelTable) t.models = MakeModelTable(ReadModels(db));
    if (reload & kInstanceTable) t.instances = MakeInstanceTable(ReadInstances(db));
    if (reload & (kInstanceTable | kPriceTable)) t.prices = MakePriceLists(*t.instances, ReadPrices(db));
    if (reload & kBenchmarkTable) {
      t.benchmarks = std::make_shared<const std::vector<BenchmarkRow>>(ReadBenchmarks(db));
    }
    if (reload & kFabricTable) t.fabrics = MakeFabricTable(ReadFabrics(db));
    if (reload & kElectricityTable) t.electricity = MakeElectricityTable(ReadElectricity(db));
    if (reload & kTcoScenarioTable) {
      t.tco_scenarios = std::make_shared<const std::vector<TcoScenarioRow>>(ReadTcoScenarios(db));
    }
    // Training benchmarks resolve their fabric through the GPU's default and the fabrics.
    if (reload & (kModelTable | kBenchmarkTable | kGpuTable | kFabricTable)) {
      t.calibration = MakeCalibration(*t.models, *t.benchmarks, *t.gpus, *t.fabrics);
    }
    tx.commit();
  } catch (const sql::Error& e) {
    return e.WithContext(absl::StrCat("database ", db_->path(), ": loading catalog"));
  }
  auto snap = std::make_shared<CatalogSnapshot>(std::move(t));
  snap->schema_version = *schema;
  snap->catalog_version = identity.catalog_version;
  snap->write_token = identity.write_token;
  snap->database_epoch = identity.epoch;
  snap->loaded_unix_seconds = static_cast<int64_t>(std::time(nullptr));
  return std::shared_ptr<const CatalogSnapshot>(std::move(snap));
}

std::optional<CatalogTables> CatalogStore::Patch(const CatalogSnapshot& prev, const Key& key,
                                                 const WriteResult& result) {
  if (const PriceRow* p = key.appended_price) {
    // One price list changes; every other table and list is shared with `prev`.
    const int64_t pos = prev.InstancePosition(p->provider, p->instance_type, p->region);
    if (pos < 0) return std::nullopt;
    CatalogTables t = prev.tables();
    PriceRow row = *p;
    row.id = result.id;
    t.prices = WithPrice(*t.prices, static_cast<size_t>(pos), row);
    return t;
  }
  if (key.upserted_instance != nullptr || !key.erased_instance.empty()) {
    return WithInstance(prev.tables(), key.upserted_instance, key.erased_instance);
  }
  return std::nullopt;
}

absl::Status CatalogStore::Publish(const Key& key, const WriteResult& result) {
  const auto t0 = std::chrono::steady_clock::now();
  std::shared_ptr<const CatalogSnapshot> next;
  const std::shared_ptr<const CatalogSnapshot> prev = Snapshot();
  std::optional<CatalogTables> patched;
  // Patching (or re-reading only the tables the write changed) is right only when the
  // snapshot holds exactly the state the write started from: another replica may have written
  // since, or the database may have lost writes the snapshot holds (a lossy failover).
  const bool follows = prev != nullptr && !snapshot_stale_ && key.prior.has_value() && prev->Identity() == *key.prior;
  const CatalogIdentity written{result.catalog_version, key.written_token, key.prior ? key.prior->epoch : ""};
  if (follows) patched = Patch(*prev, key, result);
  if (patched.has_value()) {
    auto snap = std::make_shared<CatalogSnapshot>(std::move(*patched));
    snap->schema_version = prev->schema_version;
    snap->catalog_version = written.catalog_version;
    snap->write_token = written.write_token;
    snap->database_epoch = written.epoch;
    snap->loaded_unix_seconds = static_cast<int64_t>(std::time(nullptr));
    next = std::move(snap);
  } else {
    absl::StatusOr<std::shared_ptr<const CatalogSnapshot>> loaded =
        Load(follows ? key.reload : kAllTables, follows ? &written : nullptr);
    if (!loaded.ok()) {
      // The published snapshot now lags the database: the next publish starts afresh
      // rather than patching it.
      snapshot_stale_ = true;
      return loaded.status();
    }
    next = std::move(*loaded);
  }
  snapshot_stale_ = false;
  const int64_t version = next->catalog_version;
  std::atomic_store(&snapshot_, std::move(next));
  last_publish_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (const auto& [handle, listener] : publish_listeners_) listener(version);
  return absl::OkStatus();
}

absl::StatusOr<std::string> CatalogStore::RowJson(const Key& key) {
  sql::Connection& db = Conn();
  std::string where;
  if (key.id > 0) {
    where = "id = ?";
  } else {
    std::vector<std::string> conds;
    for (const auto& [col, value] : key.text) conds.push_back(col + " = ?");
    where = absl::StrJoin(conds, " AND ");
  }
  if (where.empty()) return std::string();
  sql::Statement q(db, absl::StrCat("SELECT ", json_exprs_.at(key.table), " FROM ", key.table, " WHERE ", where));
  if (key.id > 0) {
    q.bind(1, key.id);
  } else {
    int i = 1;
    for (const auto& kv : key.text) q.bind(i++, kv.second);
  }
  if (!q.executeStep()) return std::string();
  return q.getColumn(0).getString();
}

void CatalogStore::BeginDrain() { draining_ = true; }

void CatalogStore::SetHealthListener(std::function<void(const absl::Status&)> listener) {
  absl::MutexLock lock(&write_mu_);
  health_listener_ = std::move(listener);
}

int CatalogStore::AddPublishListener(std::function<void(int64_t)> listener) {
  absl::MutexLock lock(&write_mu_);
  const int handle = ++next_listener_;
  publish_listeners_[handle] = std::move(listener);
  return handle;
}

void CatalogStore::RemovePublishListener(int handle) {
  absl::MutexLock lock(&write_mu_);
  publish_listeners_.erase(handle);
}

absl::Status CatalogStore::MayCommit() {
  if (draining_) return absl::UnavailableError("server is shutting down; write not applied");
  if (!unusable_.ok()) return unusable_;
  absl::Status file = db_->CheckFileIdentity();
  if (!file.ok()) {
    unusable_ = file;
    if (health_listener_) health_listener_(file);
  }
  return file;
}

absl::StatusOr<std::optional<WriteResult>> CatalogStore::EarlierResult(const WriteContext& ctx) {
  if (ctx.request_id.empty()) return std::optional<WriteResult>();
  sql::Statement q(Conn(),
                   "SELECT method, fingerprint, catalog_version, row_id, rows_written "
                   "FROM admin_requests WHERE request_id = ?");
  q.bind(1, ctx.request_id);
  if (!q.executeStep()) return std::optional<WriteResult>();
  if (q.getColumn(0).getString() != ctx.method || q.getColumn(1).getString() != ctx.request_fingerprint) {
    return absl::InvalidArgumentError(absl::StrCat("request_id: \"", ctx.request_id,
                                                   "\" was already used for a different ", q.getColumn(0).getString(),
                                                   " request; use a new id for each distinct write"));
  }
  WriteResult r;
  r.catalog_version = q.getColumn(2).getInt64();
  r.id = q.getColumn(3).getInt64();
  r.rows_written = q.getColumn(4).getInt64();
  r.replayed = true;
  return std::optional<WriteResult>(r);
}

void CatalogStore::RecordRequest(const WriteContext& ctx, const WriteResult& result) {
  if (ctx.request_id.empty()) return;
  sql::Connection& db = Conn();
  sql::Statement q(db,
                   "INSERT INTO admin_requests (request_id, method, fingerprint, at_unix_seconds, "
                   "catalog_version, row_id, rows_written) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING seq");
  const int64_t now = static_cast<int64_t>(std::time(nullptr));
  q.bind(1, ctx.request_id);
  q.bind(2, ctx.method);
  q.bind(3, ctx.request_fingerprint);
  q.bind(4, now);
  q.bind(5, result.catalog_version);
  q.bind(6, result.id);
  q.bind(7, result.rows_written);
  const int64_t seq = q.executeStep() ? q.getColumn(0).getInt64() : 0;
  q.reset();
  // Keep the last 10,000 ids and at most 7 days: enough for any client's retries.
  sql::Statement prune(db, "DELETE FROM admin_requests WHERE seq <= ? OR at_unix_seconds < ?");
  prune.bind(1, seq - 10000);
  prune.bind(2, now - 7 * 86400);
  prune.exec();
}

int64_t CatalogStore::BumpAndAudit(const WriteContext& ctx, const std::string& entity, const std::string& before,
                                   const std::string& after, const std::string& write_token) {
  sql::Connection& db = Conn();
  const bool pg = db.dialect() == sql::Dialect::kPostgres;
  int64_t version = 0;
  {  // finalised before the next statement (SQLite will not commit past an unfinished one)
    sql::Statement bump(
        db, absl::StrCat("UPDATE catalog_meta SET catalog_version = catalog_version + 1, "
                         "write_token = ?, updated_unix_seconds = ",
                         pg ? "CAST(EXTRACT(EPOCH FROM now()) AS BIGINT)" : "CAST(strftime('%s', 'now') AS INTEGER)",
                         " WHERE id = 1 RETURNING catalog_version"));
    bump.bind(1, write_token);
    if (bump.executeStep()) version = bump.getColumn(0).getInt64();
  }
  sql::Statement audit(db,
                       "INSERT INTO audit_log (at_unix_micros, caller, method, entity, "
                       "before_json, after_json, catalog_version) VALUES (?, ?, ?, ?, ?, ?, ?)");
  audit.bind(1, NowMicros());
  audit.bind(2, ctx.caller);
  audit.bind(3, ctx.method);
  audit.bind(4, entity);
  if (before.empty()) {
    audit.bind(5);
  } else {
    audit.bind(5, before);
  }
  if (after.empty()) {
    audit.bind(6);
  } else {
    audit.bind(6, after);
  }
  audit.bind(7, version);
  audit.exec();
  if (pg) {
    // Delivered to every listening replica when (and only if) the transaction commits.
    sql::Statement notify(db, absl::StrCat("SELECT pg_notify('", kCatalogChannel, "', ?)"));
    notify.bind(1, absl::StrCat(version));
    notify.executeStep();
  }
  return version;
}

absl::StatusOr<WriteResult> CatalogStore::Write(const WriteContext& ctx, Key key,
                                                const std::function<absl::StatusOr<int64_t>()>& apply) {
  absl::Status id_ok = CheckText("request_id", ctx.request_id, kMaxRequestIdBytes, false);
  if (!id_ok.ok()) return id_ok;
  absl::MutexLock lock(&write_mu_);
  absl::Status may = MayCommit();
  if (!may.ok()) return may;
  sql::Connection& db = Conn();
  WriteResult result;
  result.rows_written = key.rows;
  std::string entity = key.label.empty() ? key.table : key.label;
  if (key.label.empty()) {
    for (const auto& kv : key.text) absl::StrAppend(&entity, "/", kv.second);
  }
  bool committing = false;
  std::optional<WriteResult> replay;
  try {
    sql::Transaction tx(db, sql::TxKind::kWrite);
    // Under the write lock: no other replica changes it before this write commits.
    key.prior = ReadCatalogIdentity(db);
    key.written_token = NewWriteToken();
    absl::StatusOr<std::optional<WriteResult>> earlier = EarlierResult(ctx);
    if (!earlier.ok()) return earlier.status();
    replay = *earlier;
    if (!replay.has_value()) {  // otherwise a retry: nothing to apply, the transaction rolls back
      absl::StatusOr<std::string> before = RowJson(key);
      if (!before.ok()) return before.status();
      absl::StatusOr<int64_t> id = apply();
      if (!id.ok()) return id.status();  // the transaction rolls back on scope exit
      if (*id > 0) {
        result.id = *id;
        if (key.text.empty()) key.id = *id;
      }
      if (key.id > 0) absl::StrAppend(&entity, "/", key.id);
      absl::StatusOr<std::string> after =
          key.audit_after.empty() ? RowJson(key) : absl::StatusOr<std::string>(key.audit_after);
      if (!after.ok()) return after.status();
      result.catalog_version = BumpAndAudit(ctx, entity, *before, *after, key.written_token);
      RecordRequest(ctx, result);
      // Checked again last: a drain or an unlinked file since the start rolls the write back.
      may = MayCommit();
      if (!may.ok()) return may;
      committing = true;
      tx.commit();
    }
  } catch (const sql::Error& e) {
    absl::Status s = e.WithContext(absl::StrCat(ctx.method, " ", entity));
    // A COMMIT whose answer was lost says so itself; before it, nothing was applied.
    if (s.code() == absl::StatusCode::kUnavailable && db_->is_postgres() && !committing) {
      s = absl::UnavailableError(absl::StrCat(s.message(), "; the write was not applied"));
    }
    return s;
  }
  if (replay.has_value()) return Replayed(*replay);
  // Committed. A draining server is going away: answering now matters more than publishing
  // (a large reload could outlast the shutdown grace and leave the client without an answer).
  if (draining_) {
    snapshot_stale_ = true;
    return result;
  }
  // Publish before answering, so the caller's next read sees the write.
  absl::Status published = Publish(key, result);
  if (!published.ok()) {
    return absl::InternalError(absl::StrCat("committed catalog version ", result.catalog_version,
                                            " but could not publish it: ", published.message()));
  }
  return result;
}

WriteResult CatalogStore::Replayed(const WriteResult& earlier) {
  // The first attempt committed but its answer was lost (or it was answered on another
  // replica): make sure this replica's next read sees it, as for a fresh write. A failed
  // reload is left to the sync thread; the write itself stands either way.
  if (!draining_ && Snapshot()->catalog_version < earlier.catalog_version) {
    Key everything;
    everything.reload = kAllTables;
    (void)Publish(everything, WriteResult());
  }
  return earlier;
}

absl::StatusOr<std::vector<AuditEntry>> CatalogStore::AuditLog(int limit) {
  AuditQuery q;
  q.limit = limit;
  absl::StatusOr<AuditPage> page = AuditLog(q);
  if (!page.ok()) return page.status();
  return std::move(page->entries);
}

absl::StatusOr<AuditPage> CatalogStore::AuditLog(const AuditQuery& query) {
  if (query.limit < 1 || query.limit > 10000) {
    return absl::InvalidArgumentError(absl::StrCat("limit: must be in [1, 10000], got ", query.limit));
  }
  AuditPage page;
  // The writer's connection: a PostgreSQL connection serves one caller at a time, and on
  // SQLite a read on it while a write transaction is open would see that write's audit row
  // before it commits (or rolls back). So audit reads wait for the write in progress.
  absl::MutexLock lock(&write_mu_);
  try {
    // Each filter is off when its parameter is empty or 0; one statement serves every mix.
    sql::Statement q(Conn(),
                     "SELECT id, at_unix_micros, caller, method, entity, "
                     "COALESCE(before_json, ''), COALESCE(after_json, ''), catalog_version "
                     "FROM audit_log WHERE (?1 = '' OR entity = ?1 OR substr(entity, 1, length(?1) + 1) = ?1 || '/') "
                     "AND (?2 = 0 OR at_unix_micros >= ?2) AND (?3 = 0 OR at_unix_micros < ?3) "
                     "AND (?4 = 0 OR id < ?4) ORDER BY id DESC LIMIT ?5");
    q.bind(1, query.entity);
    q.bind(2, query.since_unix_micros);
    q.bind(3, query.until_unix_micros);
    q.bind(4, query.before_id);
    q.bind(5, query.limit + 1);  // one more says whether there is a next page
    while (q.executeStep()) {
      if (static_cast<int>(page.entries.size()) == query.limit) {
        page.more = true;
        break;
      }
      page.entries.push_back({q.getColumn(0).getInt64(), q.getColumn(1).getInt64(), q.getColumn(2).getString(),
                              q.getColumn(3).getString(), q.getColumn(4).getString(), q.getColumn(5).getString(),
                              q.getColumn(6).getString(), q.getColumn(7).getInt64()});
    }
  } catch (const sql::Error& e) {
    return e.WithContext("reading the audit log");
  }
  return page;
}

}  // namespace capplan::store
