// A memo of the training layout search for one catalog version. The best layouts of a job on
// a cluster depend on the model, GPU, fabric, GPU counts, sequence, batch candidates,
// precision, method and the caller's pins, but not on the token count, the goodput or the
// PUE: the search ranks layouts by seconds (or GPU-seconds) per token, and those figures
// only scale the duration. So a scheduler asking about the same model with another token
// count, deadline or budget pays a lookup and one evaluation per shape instead of a search.
//
// The cache is a plain object with no I/O or clock: its owner (the server, one per catalog
// store) passes it into core with the catalog version the request reads. Entries hold the
// search's outcome (the chosen batch, the ranked layouts and the closest misses), never a
// figure that depends on the token count; those are recomputed from the layout on every
// call, so a cached answer is the uncached one, bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "core/efficiency.h"
#include "core/training/training.h"

namespace capplan::core {

// What a search decided, without the token count: enough to rebuild its SearchResult.
struct CachedLayouts {
  double batch_tokens = 0;             // the global batch the ranked layouts are for
  std::vector<ParallelConfig> ranked;  // best first
  std::vector<LayoutRejection> rejected;
  int64_t configurations_evaluated = 0;
};

class TrainingLayoutCache {
 public:
  struct Stats {
    int64_t hits = 0, misses = 0, entries = 0, clears = 0;
  };

  // At most `max_entries` layouts and efficiencies; when full, every entry is dropped (a
  // bounded memo: a workload of distinct questions refills it).
  explicit TrainingLayoutCache(size_t max_entries = 32768) : max_entries_(max_entries) {}

  // Each call names the catalog version its request reads. A newer version drops every
  // entry; an older one (a request still on the previous snapshot) neither reads nor stores.
  std::shared_ptr<const CachedLayouts> FindLayouts(int64_t version, const std::string& key);
  void StoreLayouts(int64_t version, const std::string& key, CachedLayouts value);
  // Calibrated efficiencies (they depend on the catalog's benchmarks: per version only).
  std::shared_ptr<const Efficiency> FindEfficiency(int64_t version, const std::string& key);
  void StoreEfficiency(int64_t version, const std::string& key, Efficiency value);
  // The batch a serving search settled on (core/serving: BatchMemo); -1 when not known.
  int64_t FindBatch(int64_t version, const std::string& key);
  void StoreBatch(int64_t version, const std::string& key, int64_t batch);
  // Another search's outcome, of the type its caller's key names (serving: the co-located
  // options before their replicas are sized for a load); null when not known.
  std::shared_ptr<const void> FindResult(int64_t version, const std::string& key);
  void StoreResult(int64_t version, const std::string& key, std::shared_ptr<const void> value);

  Stats GetStats() const;

 private:
  // True when `version` may use the entries; drops them for a newer version.
  bool Current(int64_t version) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void MakeRoom() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const size_t max_entries_;
  mutable absl::Mutex mu_;
  int64_t version_ ABSL_GUARDED_BY(mu_) = -1;
  absl::flat_hash_map<std::string, std::shared_ptr<const CachedLayouts>> layouts_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::shared_ptr<const Efficiency>> efficiencies_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, int64_t> batches_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::shared_ptr<const void>> results_ ABSL_GUARDED_BY(mu_);
  Stats stats_ ABSL_GUARDED_BY(mu_);
};

// A cache and the catalog version a request reads; a null cache searches every time.
struct LayoutCacheRef {
  TrainingLayoutCache* cache = nullptr;
  int64_t version = 0;
  // JobKey of the job searched, when the caller made it once for many searches; null: made
  // per search.
  const std::string* job_key = nullptr;
};

// The job's part of a key: every field except the token count, goodput and PUE (which only
// scale or convert the duration; calibration replaces them with the benchmark's).
std::string JobKey(const TrainingJob& job);
// The cache key of a search: the job's part, the whole GPU and fabric, the efficiency the
// layouts are ranked at, the options and the batch candidates (which the token count
// chooses among).
std::string LayoutSearchKey(const std::string& job_key, const ClusterSpec& cluster, double efficiency,
                            const SearchOptions& options, const std::vector<double>& batches);
// A model's and a GPU's every field, as raw bytes: the part of a serving calibration's key
// that is not the workload's few scalars (core/planner/serving_evaluator.cc).
std::string ModelAndGpuKey(const ModelArchitecture& model, const GpuSpec& gpu);
// The key of a calibrated efficiency: the job's part and the whole GPU.
std::string EfficiencyKey(const std::string& job_key, const GpuSpec& gpu);

// SearchParallelism, answered from `cache` when it has the same search (options without a
// deadline only: a deadline filters by duration, which depends on the token count), and
// remembered there otherwise. The same answer as the uncached search.
absl::StatusOr<SearchResult> SearchParallelism(const TrainingJob& job, const ClusterSpec& cluster,
                                               const Efficiency& efficiency, const SearchOptions& options,
                                               LayoutCacheRef cache);

}  // namespace capplan::core
