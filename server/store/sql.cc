// The backend-independent parts of the SQL interface.
#include "server/store/sql.h"

#include "absl/strings/str_cat.h"

namespace capplan::store::sql {

absl::Status Error::WithContext(const std::string& context) const {
  return absl::Status(status_.code(), absl::StrCat(context, ": ", status_.message()));
}

int64_t Connection::QueryInt64(const std::string& sql) {
  Statement q(*this, sql);
  return q.executeStep() ? q.getColumn(0).getInt64() : 0;
}

std::string Connection::QueryText(const std::string& sql) {
  Statement q(*this, sql);
  return q.executeStep() ? q.getColumn(0).getString() : std::string();
}

}  // namespace capplan::store::sql
