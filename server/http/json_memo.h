// The JSON of recent answers, keyed by their type and wire bytes. A repeated question, which
// the answer memo serves in microseconds over gRPC, then skips protobuf's JSON printer: for a
// 20 KB Plan answer that printer is most of what HTTP adds. The JSON is a pure function of the
// type and the bytes, so a hit is exact, whatever the catalog version.
#pragma once

#include <cstddef>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace capplan::server::http {

class JsonMemo {
 public:
  // At most `max_entries` answers of at most `max_wire_bytes` each; when full, the memo starts
  // over (a repeated question refills it at once).
  JsonMemo(size_t max_entries, size_t max_wire_bytes) : max_entries_(max_entries), max_wire_bytes_(max_wire_bytes) {}

  // The JSON stored for this type and these bytes, if any.
  bool Find(absl::string_view type_url, absl::string_view wire, std::string* json) const ABSL_LOCKS_EXCLUDED(mu_);
  void Insert(absl::string_view type_url, absl::string_view wire, const std::string& json) ABSL_LOCKS_EXCLUDED(mu_);

  size_t size() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  static std::string Key(absl::string_view type_url, absl::string_view wire);

  const size_t max_entries_;
  const size_t max_wire_bytes_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::string> entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace capplan::server::http
