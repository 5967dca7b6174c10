// A bounded memo of recent answers, so that a scheduler asking the same question again pays
// a lookup instead of a search. Keyed by the catalog version and the request's deterministic
// serialization; an entry also expires after a short time, because a request with prices
// "as of now" can change answer when a dated price takes effect. Least recently used
// entries go first.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/message.h"

namespace capplan::server {

struct AnswerMemoOptions {
  size_t max_entries = 1024;
  size_t max_bytes = 32u << 20;  // of stored answers
  std::chrono::seconds ttl{60};
};

class AnswerMemo {
 public:
  explicit AnswerMemo(AnswerMemoOptions options = {}) : options_(options) {}

  // The key of `request` at `catalog_version`.
  static std::string Key(int64_t catalog_version, const google::protobuf::Message& request);

  // Copies a remembered answer into `answer` (same type as stored) and returns true, or
  // returns false.
  bool Find(const std::string& key, google::protobuf::Message* answer);
  void Insert(const std::string& key, const google::protobuf::Message& answer);

 private:
  using Clock = std::chrono::steady_clock;
  struct Entry {
    std::string key;
    std::unique_ptr<google::protobuf::Message> answer;
    size_t bytes = 0;
    Clock::time_point expires;
  };
  void EvictWhileOver() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const AnswerMemoOptions options_;
  absl::Mutex mu_;
  std::list<Entry> lru_ ABSL_GUARDED_BY(mu_);  // most recently used first
  absl::flat_hash_map<std::string, std::list<Entry>::iterator> index_ ABSL_GUARDED_BY(mu_);
  size_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace capplan::server
