// The catalog store's fabric writes: a named fabric is upserted whole, and deleted only once
// nothing (instance type, GPU default, benchmark) names it.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/store/catalog_rows.h"
#include "server/store/catalog_store.h"
#include "server/store/sql.h"

namespace capplan::store {

namespace {

constexpr char kUpsertFabric[] =
    "INSERT INTO fabrics (name, gpus_per_node, intra_link_kind, intra_node_bytes_per_second_per_gpu, "
    "network_kind, network_bytes_per_second_per_gpu, network_latency_seconds, source_citation, "
    "source_as_of_date, source_note) VALUES (?,?,?,?,?,?,?,?,?,?) "
    "ON CONFLICT(name) DO UPDATE SET gpus_per_node=excluded.gpus_per_node, "
    "intra_link_kind=excluded.intra_link_kind, "
    "intra_node_bytes_per_second_per_gpu=excluded.intra_node_bytes_per_second_per_gpu, "
    "network_kind=excluded.network_kind, "
    "network_bytes_per_second_per_gpu=excluded.network_bytes_per_second_per_gpu, "
    "network_latency_seconds=excluded.network_latency_seconds, source_citation=excluded.source_citation, "
    "source_as_of_date=excluded.source_as_of_date, source_note=excluded.source_note";

// Up to `limit` labels of the rows `sql` selects for `name` (one text column), and their count.
std::pair<std::vector<std::string>, int64_t> Users(sql::Connection& db, const char* sql, const std::string& name,
                                                   size_t limit) {
  sql::Statement q(db, sql);
  q.bind(1, name);
  std::vector<std::string> labels;
  int64_t n = 0;
  while (q.executeStep()) {
    if (labels.size() < limit) labels.push_back(q.getColumn(0).getString());
    ++n;
  }
  return {labels, n};
}

// "2 instance types (aws p5.48xlarge us-east-1, aws p5.48xlarge us-west-2)", or empty.
std::string Describe(const std::pair<std::vector<std::string>, int64_t>& users, const std::string& what) {
  if (users.second == 0) return "";
  std::string s = absl::StrCat(users.second, " ", what, " (", absl::StrJoin(users.first, ", "));
  if (users.second > static_cast<int64_t>(users.first.size())) absl::StrAppend(&s, ", ...");
  return s + ")";
}

// FailedPrecondition naming what still uses the fabric `name`; Ok when nothing does.
absl::Status CheckUnused(sql::Connection& db, const std::string& name) {
  constexpr size_t kShown = 5;
  std::vector<std::string> parts;
  for (const std::string& part :
       {Describe(Users(db,
                       "SELECT provider || ' ' || instance_type || ' ' || region FROM instance_types "
                       "WHERE fabric_name = ? ORDER BY provider, instance_type, region",
                       name, kShown),
                 "instance type(s)"),
        Describe(Users(db, "SELECT name FROM gpu_types WHERE default_fabric_name = ? ORDER BY name", name, kShown),
                 "GPU(s) (default fabric)"),
        Describe(Users(db, "SELECT 'id ' || id FROM benchmarks WHERE fabric_name = ? ORDER BY id", name, kShown),
                 "benchmark(s)")}) {
    if (!part.empty()) parts.push_back(part);
  }
  if (parts.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "name: fabric \"", name, "\" is used by ", absl::StrJoin(parts, ", "), "; point those at another fabric first"));
}

}  // namespace

absl::StatusOr<WriteResult> CatalogStore::UpsertFabric(const WriteContext& ctx, const FabricRow& f) {
  absl::Status valid = ValidateFabricRow(f);
  if (!valid.ok()) return valid;
  Key key{"fabrics", {{"name", f.name}}, 0, ""};
  // Training benchmarks carry their resolved fabric, so calibration is rebuilt too.
  key.reload = kFabricTable;
  return Write(ctx, key, [&]() -> absl::StatusOr<int64_t> {
    sql::Statement q(Conn(), kUpsertFabric);
    int i = 1;
    q.bind(i++, f.name);
    q.bind(i++, f.fabric.gpus_per_node);
    q.bind(i++, InterconnectText(f.fabric.intra_link));
    q.bind(i++, f.fabric.intra_node_bytes_per_second_per_gpu);
    q.bind(i++, core::NetworkKindName(f.fabric.network));
    q.bind(i++, f.fabric.network_bytes_per_second_per_gpu);
    q.bind(i++, f.fabric.network_latency_seconds);
    q.bind(i++, f.source.citation);
    q.bind(i++, f.source.as_of_date);
    q.bind(i++, f.source.note);
    q.exec();
    return 0;
  });
}

absl::StatusOr<WriteResult> CatalogStore::DeleteFabric(const WriteContext& ctx, const std::string& name) {
  Key key{"fabrics", {{"name", name}}, 0, ""};
  key.reload = kFabricTable;
  return Write(ctx, key, [&]() -> absl::StatusOr<int64_t> {
    sql::Connection& db = Conn();
    absl::Status unused = CheckUnused(db, name);
    if (!unused.ok()) return unused;
    sql::Statement q(db, "DELETE FROM fabrics WHERE name = ?");
    q.bind(1, name);
    if (q.exec() == 0) return absl::NotFoundError(absl::StrCat("name: no fabric named \"", name, "\""));
    return 0;
  });
}

}  // namespace capplan::store
