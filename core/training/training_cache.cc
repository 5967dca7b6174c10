// TrainingCache: keys are the bytes of every input a search or a calibration reads, so that
// two questions share an entry only when the computation would be the same.
#include "core/training/training_cache.h"

#include <cstring>
#include <type_traits>

#include "core/training/training_internal.h"

namespace capplan::core {

using training_internal::BatchLayouts;
using training_internal::Prepared;

namespace {

// A new field in one of these structs must join its key below; the sizes are a reminder.
static_assert(sizeof(ModelArchitecture) == 120, "add the new ModelArchitecture field to AddJob");
static_assert(sizeof(TrainingJob) == 184, "add the new TrainingJob field to AddJob");
static_assert(sizeof(GpuSpec) == 136, "add the new GpuSpec field to AddCluster");
static_assert(sizeof(Fabric) == 40, "add the new Fabric field to AddCluster");
static_assert(sizeof(ParallelConfig) == 48, "add the new ParallelConfig field to AddOptions");
static_assert(sizeof(SearchOptions) == 80, "add the new SearchOptions field to AddOptions");

// The key is built on every search a plan asks for, so its numbers are gathered into two
// arrays and appended at once, beside the two names.
struct KeyNumbers {
  int64_t ints[48] = {};
  double reals[24] = {};
  int num_ints = 0, num_reals = 0;
  void Int(int64_t v) { ints[num_ints++] = v; }
  void Real(double v) { reals[num_reals++] = v; }
};

template <typename T>
void Append(std::string* key, T value) {
  static_assert(std::is_arithmetic_v<T> || std::is_enum_v<T>);
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  key->append(bytes, sizeof(T));
}

void Append(std::string* key, const std::string& s) {
  Append(key, s.size());
  key->append(s);
}

// Everything in the job but its token count and global batch (a batch joins the key on its
// own, per batch searched).
void AddJob(KeyNumbers* k, const TrainingJob& job) {
  const ModelArchitecture& m = job.model;
  for (int64_t v : {m.num_layers, m.hidden_size, m.num_attention_heads, m.num_kv_heads, m.ffn_hidden_size, m.vocab_size,
                    m.num_experts, m.experts_per_token}) {
    k->Int(v);
  }
  k->Int(m.gated_mlp);
  k->Int(m.tied_embeddings);
  k->Real(m.parameter_count);
  k->Int(job.sequence_length);
  k->Int(static_cast<int64_t>(job.precision));
  k->Int(static_cast<int64_t>(job.method));
  k->Int(static_cast<int64_t>(job.optimizer));
  k->Int(job.lora_rank);
  k->Int(job.flash_attention);
  k->Real(job.goodput);
  k->Real(job.pue);
}

void AddCluster(KeyNumbers* k, const ClusterSpec& cluster) {
  const GpuSpec& g = cluster.gpu;
  k->Real(g.memory_bytes);
  k->Real(g.memory_bandwidth_bytes_per_second);
  for (double peak : g.peak_flops_per_second) k->Real(peak);
  k->Real(g.tdp_watts);
  k->Int(static_cast<int64_t>(g.interconnect));
  k->Real(g.interconnect_bandwidth_bytes_per_second);
  k->Int(g.gpus_per_node);
  k->Int(g.datacenter);
  const Fabric& f = cluster.fabric;
  k->Int(f.gpus_per_node);
  k->Int(static_cast<int64_t>(f.intra_link));
  k->Real(f.intra_node_bytes_per_second_per_gpu);
  k->Int(static_cast<int64_t>(f.network));
  k->Real(f.network_bytes_per_second_per_gpu);
  k->Real(f.network_latency_seconds);
}

void AddOptions(KeyNumbers* k, const SearchOptions& o) {
  for (int v : {o.max_gpus, o.min_gpus, o.top_k, o.max_rejections}) k->Int(v);
  const ParallelConfig& p = o.pinned;
  for (int v : {p.tp, p.pp, p.dp, p.zero_stage, p.vpp, p.cp, p.ep}) k->Int(v);
  k->Int(static_cast<int64_t>(p.recompute));
  k->Int(p.sequence_parallel);
  k->Int(p.micro_batch);
  k->Int(o.pin_zero);
  k->Int(o.pin_recompute);
}

// The job (but its tokens and batch) and the cluster, with `options` when given.
std::string KeyOf(const TrainingJob& job, const ClusterSpec& cluster, const SearchOptions* options) {
  KeyNumbers k;
  AddJob(&k, job);
  AddCluster(&k, cluster);
  if (options != nullptr) AddOptions(&k, *options);
  std::string key;
  key.reserve(sizeof(k.ints) + sizeof(k.reals) + job.model.name.size() + cluster.gpu.name.size() + 48);
  key.append(reinterpret_cast<const char*>(k.ints), sizeof(int64_t) * static_cast<size_t>(k.num_ints));
  key.append(reinterpret_cast<const char*>(k.reals), sizeof(double) * static_cast<size_t>(k.num_reals));
  Append(&key, job.model.name);
  Append(&key, cluster.gpu.name);
  return key;
}

}  // namespace

TrainingCache::TrainingCache(size_t max_layouts, size_t max_efficiencies)
    : layouts_(max_layouts), efficiencies_(max_efficiencies) {}

TrainingCache::~TrainingCache() = default;

void TrainingCache::UseVersion(int64_t catalog_version) {
  if (catalog_version <= version_) return;
  version_ = catalog_version;
  layouts_.Clear();
  efficiencies_.Clear();
}

absl::StatusOr<SearchResult> TrainingCache::Search(int64_t catalog_version, const TrainingJob& job,
                                                   const ClusterSpec& cluster, const Efficiency& efficiency,
                                                   const SearchOptions& options) {
  // Under a deadline the search ranks by GPU-hours and drops the layouts that miss it:
  // searched as asked.
  if (options.deadline_seconds != 0) return SearchParallelism(job, cluster, efficiency, options);
  {
    absl::MutexLock lock(&mu_);
    UseVersion(catalog_version);
  }
  std::string key = KeyOf(job, cluster, &options);
  // Only the point efficiency ranks layouts; the range is applied when they are replayed.
  Append(&key, efficiency.point);
  const size_t base = key.size();
  // Each batch's leaders are ranked at this job's token count; only the batch chosen is
  // turned into estimates.
  std::vector<std::pair<std::shared_ptr<const BatchLayouts>, std::vector<size_t>>> ranked;
  return training_internal::SearchBatches(
      job, cluster, efficiency, options,
      [&](const Prepared& p, double batch_tokens, double* best_key) {
        key.resize(base);
        Append(&key, batch_tokens);
        std::shared_ptr<const BatchLayouts> layouts;
        {
          absl::MutexLock lock(&mu_);
          layouts = layouts_.Find(key);
          ++(layouts ? stats_.layout_hits : stats_.layout_misses);
        }
        if (layouts == nullptr) {
          // Searched outside the lock: two threads may both search one key, and agree.
          layouts = std::make_shared<const BatchLayouts>(training_internal::SearchLayouts(p, efficiency, options));
          absl::MutexLock lock(&mu_);
          layouts_.Insert(key, layouts);
        }
        std::vector<size_t> order = training_internal::RankLayouts(p, *layouts, efficiency, options, best_key);
        ranked.emplace_back(std::move(layouts), std::move(order));
        SearchResult r;
        r.configurations_evaluated = ranked.back().first->configurations_evaluated;
        return r;
      },
      [&](size_t chosen, const Prepared& p, SearchResult* r) {
        const BatchLayouts& layouts = *ranked[chosen].first;
        r->ranked = training_internal::MaterializeLayouts(p, layouts, ranked[chosen].second, efficiency);
        r->rejected = layouts.rejected;
      });
}

Efficiency TrainingCache::Calibrated(int64_t catalog_version, const TrainingJob& job, const ClusterSpec& cluster,
                                     const std::vector<TrainingBenchmark>& benchmarks) {
  // The calibration runs the benchmark's own setup: of the job it reads everything but the
  // token count, the global batch and the goodput (the key keeps the last, to be safe).
  std::string key = KeyOf(job, cluster, nullptr);
  Append(&key, catalog_version);
  {
    absl::MutexLock lock(&mu_);
    UseVersion(catalog_version);
    if (std::shared_ptr<const Efficiency> e = efficiencies_.Find(key)) {
      ++stats_.efficiency_hits;
      return *e;
    }
    ++stats_.efficiency_misses;
  }
  auto e = std::make_shared<const Efficiency>(TrainingEfficiency(job, cluster, benchmarks));
  absl::MutexLock lock(&mu_);
  efficiencies_.Insert(key, e);
  return *e;
}

TrainingCache::Stats TrainingCache::stats() const {
  absl::MutexLock lock(&mu_);
  Stats s = stats_;
  s.layouts = layouts_.size();
  s.efficiencies = efficiencies_.size();
  return s;
}

}  // namespace capplan::core
