// What a training plan's searches found, kept across requests. The best layouts of a job on
// a GPU, fabric and GPU count do not depend on the token count (durations all scale with
// it), so a scheduler's next question (more tokens, another deadline or budget) replays the
// few leading layouts instead of searching hundreds of thousands again; the efficiency
// calibrated on a catalog's benchmarks is solved once per catalog version. Answers are the
// same as without the cache. A plain, thread-safe object with no I/O: the server owns one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/efficiency.h"
#include "core/training/training.h"

namespace capplan::core {

namespace training_internal {
struct BatchLayouts;
}

// A map that keeps its `capacity` most recently used entries. Not thread-safe.
template <typename V>
class LruMap {
 public:
  explicit LruMap(size_t capacity) : capacity_(capacity) {}

  // Null when absent; a hit becomes the most recently used.
  std::shared_ptr<const V> Find(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);
    return it->second->second;
  }
  void Insert(const std::string& key, std::shared_ptr<const V> value) {
    auto it = index_.find(key);
    if (it != index_.end()) {
      order_.splice(order_.begin(), order_, it->second);
      it->second->second = std::move(value);
      return;
    }
    order_.emplace_front(key, std::move(value));
    index_.emplace(key, order_.begin());
    if (order_.size() > capacity_) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
  }
  void Clear() {
    index_.clear();
    order_.clear();
  }
  size_t size() const { return order_.size(); }

 private:
  using Order = std::list<std::pair<std::string, std::shared_ptr<const V>>>;
  size_t capacity_;
  Order order_;  // most recently used first
  absl::flat_hash_map<std::string, typename Order::iterator> index_;
};

class TrainingCache {
 public:
  // Bounds: one layout entry per (job without its tokens, GPU, fabric, count, batch), a few
  // hundred bytes each; one efficiency per (job, GPU).
  explicit TrainingCache(size_t max_layouts = 32768, size_t max_efficiencies = 4096);
  ~TrainingCache();
  TrainingCache(const TrainingCache&) = delete;
  TrainingCache& operator=(const TrainingCache&) = delete;

  // SearchParallelism's answer, the same figures. Searches without a deadline are kept
  // (keyed on everything the search reads but the token count); a newer catalog version
  // drops what was kept for older ones.
  absl::StatusOr<SearchResult> Search(int64_t catalog_version, const TrainingJob& job, const ClusterSpec& cluster,
                                      const Efficiency& efficiency, const SearchOptions& options);
  // TrainingEfficiency(job, cluster, benchmarks), where `benchmarks` are catalog_version's.
  Efficiency Calibrated(int64_t catalog_version, const TrainingJob& job, const ClusterSpec& cluster,
                        const std::vector<TrainingBenchmark>& benchmarks);

  struct Stats {
    int64_t layout_hits = 0, layout_misses = 0;
    int64_t efficiency_hits = 0, efficiency_misses = 0;
    size_t layouts = 0, efficiencies = 0;
  };
  Stats stats() const;

 private:
  // Drops everything when `catalog_version` is newer than what is kept.
  void UseVersion(int64_t catalog_version) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  int64_t version_ ABSL_GUARDED_BY(mu_) = 0;
  LruMap<training_internal::BatchLayouts> layouts_ ABSL_GUARDED_BY(mu_);
  LruMap<Efficiency> efficiencies_ ABSL_GUARDED_BY(mu_);
  Stats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace capplan::core
