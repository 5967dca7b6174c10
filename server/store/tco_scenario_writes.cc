// The catalog store's TCO scenario writes: a named TcoRequest (JSON the server checked) is
// upserted whole and deleted by name. Scenarios are part of the catalog, so a write bumps the
// catalog version and the exporter recomputes against the snapshot that holds it.
#include <ctime>
#include <string>

#include "absl/strings/str_cat.h"
#include "server/store/catalog_rows.h"
#include "server/store/catalog_store.h"
#include "server/store/sql.h"

namespace capplan::store {

namespace {

constexpr char kUpsertScenario[] =
    "INSERT INTO tco_scenarios (name, request_json, updated_by, updated_unix_seconds) VALUES (?,?,?,?) "
    "ON CONFLICT(name) DO UPDATE SET request_json=excluded.request_json, updated_by=excluded.updated_by, "
    "updated_unix_seconds=excluded.updated_unix_seconds";

bool NameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

}  // namespace

absl::Status CheckTcoScenarioName(const std::string& field, absl::string_view name) {
  if (name.empty() || name.size() > kMaxTcoScenarioNameBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": must be 1 to ", kMaxTcoScenarioNameBytes, " bytes, got ", name.size()));
  }
  for (char c : name) {
    if (!NameChar(c)) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": only letters, digits, '_', '.' and '-' (it becomes a Prometheus label value)"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateTcoScenarioRow(const TcoScenarioRow& row) {
  absl::Status name = CheckTcoScenarioName("scenario.name", row.name);
  if (!name.ok()) return name;
  if (row.request_json.empty() || row.request_json.size() > kMaxTcoScenarioRequestBytes) {
    return absl::InvalidArgumentError(absl::StrCat("scenario.request: must be 1 to ", kMaxTcoScenarioRequestBytes,
                                                   " bytes as JSON, got ", row.request_json.size()));
  }
  return absl::OkStatus();
}

absl::StatusOr<WriteResult> CatalogStore::UpsertTcoScenario(const WriteContext& ctx, const TcoScenarioRow& row) {
  absl::Status valid = ValidateTcoScenarioRow(row);
  if (!valid.ok()) return valid;
  Key key{"tco_scenarios", {{"name", row.name}}, 0, ""};
  key.reload = kTcoScenarioTable;
  return Write(ctx, key, [&]() -> absl::StatusOr<int64_t> {
    sql::Connection& db = Conn();
    sql::Statement others(db, "SELECT COUNT(*) FROM tco_scenarios WHERE name <> ?");
    others.bind(1, row.name);
    others.executeStep();
    if (others.getColumn(0).getInt64() >= kMaxTcoScenarios) {
      return absl::ResourceExhaustedError(
          absl::StrCat("scenario.name: at most ", kMaxTcoScenarios, " TCO scenarios; delete one first"));
    }
    sql::Statement q(db, kUpsertScenario);
    q.bind(1, row.name);
    q.bind(2, row.request_json);
    q.bind(3, ctx.caller);
    q.bind(4, static_cast<int64_t>(std::time(nullptr)));
    q.exec();
    return 0;
  });
}

absl::StatusOr<WriteResult> CatalogStore::DeleteTcoScenario(const WriteContext& ctx, const std::string& name) {
  absl::Status valid = CheckTcoScenarioName("name", name);
  if (!valid.ok()) return valid;
  Key key{"tco_scenarios", {{"name", name}}, 0, ""};
  key.reload = kTcoScenarioTable;
  return Write(ctx, key, [&]() -> absl::StatusOr<int64_t> {
    sql::Statement q(Conn(), "DELETE FROM tco_scenarios WHERE name = ?");
    q.bind(1, name);
    if (q.exec() == 0) return absl::NotFoundError(absl::StrCat("name: no TCO scenario \"", name, "\""));
    return 0;
  });
}

}  // namespace capplan::store
