#include "server/planning/answer_memo.h"

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace capplan::server {

std::string AnswerMemo::Key(int64_t catalog_version, const google::protobuf::Message& request) {
  std::string key(reinterpret_cast<const char*>(&catalog_version), sizeof catalog_version);
  key += request.GetDescriptor()->full_name();
  key += '\0';
  google::protobuf::io::StringOutputStream out(&key);
  google::protobuf::io::CodedOutputStream coded(&out);
  coded.SetSerializationDeterministic(true);
  request.SerializeToCodedStream(&coded);
  coded.Trim();
  return key;
}

bool AnswerMemo::Find(const std::string& key, google::protobuf::Message* answer) {
  absl::MutexLock lock(&mu_);
  auto it = index_.find(key);
  if (it == index_.end()) return false;
  if (Clock::now() >= it->second->expires) {
    bytes_ -= it->second->bytes;
    lru_.erase(it->second);
    index_.erase(it);
    return false;
  }
  lru_.splice(lru_.begin(), lru_, it->second);
  answer->CopyFrom(*it->second->answer);
  return true;
}

void AnswerMemo::Insert(const std::string& key, const google::protobuf::Message& answer) {
  const size_t bytes = key.size() + answer.SpaceUsedLong();
  if (bytes > options_.max_bytes / 4) return;  // one huge answer would flush everything
  std::unique_ptr<google::protobuf::Message> copy(answer.New());
  copy->CopyFrom(answer);
  absl::MutexLock lock(&mu_);
  auto it = index_.find(key);
  if (it != index_.end()) {
    bytes_ -= it->second->bytes;
    lru_.erase(it->second);
    index_.erase(it);
  }
  lru_.push_front({key, std::move(copy), bytes, Clock::now() + options_.ttl});
  index_.emplace(key, lru_.begin());
  bytes_ += bytes;
  EvictWhileOver();
}

void AnswerMemo::EvictWhileOver() {
  while (!lru_.empty() && (lru_.size() > options_.max_entries || bytes_ > options_.max_bytes)) {
    bytes_ -= lru_.back().bytes;
    index_.erase(lru_.back().key);
    lru_.pop_back();
  }
}

}  // namespace capplan::server
