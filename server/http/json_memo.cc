#include "server/http/json_memo.h"

#include "absl/strings/str_cat.h"

namespace capplan::server::http {

std::string JsonMemo::Key(absl::string_view type_url, absl::string_view wire) {
  // A type URL holds no NUL, so type and bytes cannot run into each other.
  return absl::StrCat(type_url, absl::string_view("\0", 1), wire);
}

bool JsonMemo::Find(absl::string_view type_url, absl::string_view wire, std::string* json) const {
  if (wire.size() > max_wire_bytes_) return false;
  const std::string key = Key(type_url, wire);
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return false;
  *json = it->second;
  return true;
}

void JsonMemo::Insert(absl::string_view type_url, absl::string_view wire, const std::string& json) {
  if (wire.size() > max_wire_bytes_ || max_entries_ == 0) return;
  std::string key = Key(type_url, wire);
  absl::MutexLock lock(&mu_);
  if (entries_.size() >= max_entries_) entries_.clear();
  entries_.insert_or_assign(std::move(key), json);
}

size_t JsonMemo::size() const {
  absl::MutexLock lock(&mu_);
  return entries_.size();
}

}  // namespace capplan::server::http
