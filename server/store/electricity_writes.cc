// The catalog store's electricity writes: a region's price of electricity (for owning) is
// upserted whole and deleted by region. Nothing references a price, so a delete never waits.
#include <string>

#include "absl/strings/str_cat.h"
#include "server/store/catalog_rows.h"
#include "server/store/catalog_store.h"
#include "server/store/sql.h"

namespace capplan::store {

namespace {

constexpr char kUpsertElectricity[] =
    "INSERT INTO electricity_prices (region, usd_per_kwh, source_citation, source_as_of_date, source_note) "
    "VALUES (?,?,?,?,?) "
    "ON CONFLICT(region) DO UPDATE SET usd_per_kwh=excluded.usd_per_kwh, "
    "source_citation=excluded.source_citation, source_as_of_date=excluded.source_as_of_date, "
    "source_note=excluded.source_note";

}  // namespace

absl::StatusOr<WriteResult> CatalogStore::UpsertElectricityPrice(const WriteContext& ctx, const ElectricityRow& e) {
  absl::Status valid = ValidateElectricityRow(e);
  if (!valid.ok()) return valid;
  Key key{"electricity_prices", {{"region", e.region}}, 0, ""};
  key.reload = kElectricityTable;
  return Write(ctx, key, [&]() -> absl::StatusOr<int64_t> {
    sql::Statement q(Conn(), kUpsertElectricity);
    q.bind(1, e.region);
    q.bind(2, e.usd_per_kwh);
    q.bind(3, e.source.citation);
    q.bind(4, e.source.as_of_date);
    q.bind(5, e.source.note);
    q.exec();
    return 0;
  });
}

absl::StatusOr<WriteResult> CatalogStore::DeleteElectricityPrice(const WriteContext& ctx, const std::string& region) {
  absl::Status valid = CheckText("region", region, kMaxNameBytes, true);
  if (!valid.ok()) return valid;
  Key key{"electricity_prices", {{"region", region}}, 0, ""};
  key.reload = kElectricityTable;
  return Write(ctx, key, [&]() -> absl::StatusOr<int64_t> {
    sql::Statement q(Conn(), "DELETE FROM electricity_prices WHERE region = ?");
    q.bind(1, region);
    if (q.exec() == 0) {
      return absl::NotFoundError(absl::StrCat("region: no electricity price for \"", region, "\""));
    }
    return 0;
  });
}

}  // namespace capplan::store
