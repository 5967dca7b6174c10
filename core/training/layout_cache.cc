// The layout memo and its keys: every field a search reads, written as raw bytes.
#include "core/training/layout_cache.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>

#include "core/field_count.h"

namespace capplan::core {

namespace {

// A new field in any of these structs changes its member count (and usually its size) and
// stops the build here: add the field to the key below (or say why the search cannot depend
// on it), then update the counts. The counts catch a field added into padding, which keeps the
// size. Sizes for LP64 with libstdc++ (32-byte std::string), the platforms capplan builds on.
static_assert(FieldCount<ModelArchitecture>() == 22 && sizeof(ModelArchitecture) == 200,
              "ModelArchitecture changed: extend PutModel");
static_assert(FieldCount<GpuSpec>() == 9 && sizeof(GpuSpec) == 136, "GpuSpec changed: extend PutGpu");
static_assert(FieldCount<Fabric>() == 6 && sizeof(Fabric) == 40, "Fabric changed: extend PutFabric");
static_assert(FieldCount<ParallelConfig>() == 12 && sizeof(ParallelConfig) == 56,
              "ParallelConfig changed: extend PutParallel");
// Three of TrainingJob's 11 (tokens, goodput, pue) are left out of the key on purpose: PutJob.
static_assert(FieldCount<TrainingJob>() == 11 && sizeof(TrainingJob) == 264, "TrainingJob changed: extend PutJob");
static_assert(FieldCount<SearchOptions>() == 10 && sizeof(SearchOptions) == 88,
              "SearchOptions changed: extend LayoutSearchKey");

// Writes raw bytes into a string sized ahead, so that each field is a compare and a store
// rather than a call to std::string::append (a distinct Plan builds ~150 keys).
class KeyWriter {
 public:
  KeyWriter() { out_.resize(512); }
  explicit KeyWriter(const std::string& prefix) {
    out_.resize(prefix.size() + 512);
    std::memcpy(out_.data(), prefix.data(), prefix.size());
    n_ = prefix.size();
  }
  template <typename T>
  void Put(T v) {
    static_assert(std::is_arithmetic_v<T> || std::is_enum_v<T>, "plain values only");
    Room(sizeof(T));
    std::memcpy(out_.data() + n_, &v, sizeof(T));
    n_ += sizeof(T);
  }
  void Put(const std::string& s) {
    Put(static_cast<uint64_t>(s.size()));
    Room(s.size());
    std::memcpy(out_.data() + n_, s.data(), s.size());
    n_ += s.size();
  }
  std::string Take() {
    out_.resize(n_);
    return std::move(out_);
  }

 private:
  void Room(size_t more) {
    if (n_ + more > out_.size()) out_.resize(std::max(2 * out_.size(), n_ + more));
  }
  std::string out_;
  size_t n_ = 0;
};

void PutModel(KeyWriter& w, const ModelArchitecture& m) {
  w.Put(m.name);
  for (int64_t v : {m.num_layers, m.hidden_size, m.num_attention_heads, m.num_kv_heads, m.ffn_hidden_size, m.vocab_size,
                    m.num_experts, m.experts_per_token, m.head_dim, m.expert_ffn_hidden_size, m.num_shared_experts,
                    m.shared_expert_ffn_hidden_size, m.num_dense_layers, m.q_lora_rank, m.kv_lora_rank,
                    m.qk_rope_head_dim, m.qk_nope_head_dim, m.v_head_dim}) {
    w.Put(v);
  }
  w.Put(m.gated_mlp);
  w.Put(m.tied_embeddings);
  w.Put(m.parameter_count);
}

void PutGpu(KeyWriter& w, const GpuSpec& g) {
  w.Put(g.name);
  w.Put(g.memory_bytes);
  w.Put(g.memory_bandwidth_bytes_per_second);
  for (double f : g.peak_flops_per_second) w.Put(f);
  w.Put(g.tdp_watts);
  w.Put(g.interconnect);
  w.Put(g.interconnect_bandwidth_bytes_per_second);
  w.Put(g.gpus_per_node);
  w.Put(g.datacenter);
}

void PutFabric(KeyWriter& w, const Fabric& f) {
  w.Put(f.gpus_per_node);
  w.Put(f.intra_link);
  w.Put(f.intra_node_bytes_per_second_per_gpu);
  w.Put(f.network);
  w.Put(f.network_bytes_per_second_per_gpu);
  w.Put(f.network_latency_seconds);
}

void PutParallel(KeyWriter& w, const ParallelConfig& p) {
  for (int v : {p.tp, p.pp, p.dp, p.zero_stage, p.vpp, p.cp, p.ep, p.shard_group}) w.Put(v);
  w.Put(p.recompute);
  w.Put(p.offload);
  w.Put(p.sequence_parallel);
  w.Put(p.micro_batch);
}

// Every field but tokens, goodput and pue, which only scale or convert the duration.
void PutJob(KeyWriter& w, const TrainingJob& job) {
  PutModel(w, job.model);
  w.Put(job.sequence_length);
  w.Put(job.global_batch_tokens);
  w.Put(job.precision);
  w.Put(job.method);
  w.Put(job.optimizer);
  w.Put(job.lora_rank);
  w.Put(job.flash_attention);
}

}  // namespace

std::string JobKey(const TrainingJob& job) {
  KeyWriter w;
  PutJob(w, job);
  return w.Take();
}

std::string LayoutSearchKey(const std::string& job_key, const ClusterSpec& cluster, double efficiency,
                            const SearchOptions& options, const std::vector<double>& batches) {
  KeyWriter w(job_key);
  w.Put('L');
  PutGpu(w, cluster.gpu);
  PutFabric(w, cluster.fabric);
  w.Put(efficiency);
  w.Put(options.max_gpus);
  w.Put(options.min_gpus);
  w.Put(options.deadline_seconds);
  w.Put(options.top_k);
  w.Put(options.max_rejections);
  PutParallel(w, options.pinned);
  w.Put(options.pin_zero);
  w.Put(options.pin_recompute);
  w.Put(options.pin_offload);
  w.Put(options.pin_shard_group);
  w.Put(static_cast<uint64_t>(batches.size()));
  for (double b : batches) w.Put(b);
  return w.Take();
}

std::string ModelAndGpuKey(const ModelArchitecture& model, const GpuSpec& gpu) {
  KeyWriter w;
  w.Put('S');
  PutModel(w, model);
  PutGpu(w, gpu);
  return w.Take();
}

std::string EfficiencyKey(const std::string& job_key, const GpuSpec& gpu) {
  KeyWriter w(job_key);
  w.Put('E');
  PutGpu(w, gpu);
  return w.Take();
}

bool TrainingLayoutCache::Current(int64_t version) {
  if (version < version_) return false;
  if (version > version_) {
    if (version_ >= 0 && !(layouts_.empty() && efficiencies_.empty() && batches_.empty() && results_.empty())) {
      ++stats_.clears;
    }
    layouts_.clear();
    efficiencies_.clear();
    batches_.clear();
    results_.clear();
    version_ = version;
  }
  return true;
}

void TrainingLayoutCache::MakeRoom() {
  if (layouts_.size() + efficiencies_.size() + batches_.size() + results_.size() < max_entries_) return;
  layouts_.clear();
  efficiencies_.clear();
  batches_.clear();
  results_.clear();
  ++stats_.clears;
}

std::shared_ptr<const CachedLayouts> TrainingLayoutCache::FindLayouts(int64_t version, const std::string& key) {
  absl::MutexLock lock(&mu_);
  if (!Current(version)) return nullptr;
  auto it = layouts_.find(key);
  if (it == layouts_.end()) {
    ++stats_.misses;
    return nullptr;
  }
  ++stats_.hits;
  return it->second;
}

void TrainingLayoutCache::StoreLayouts(int64_t version, const std::string& key, CachedLayouts value) {
  auto entry = std::make_shared<const CachedLayouts>(std::move(value));
  absl::MutexLock lock(&mu_);
  if (!Current(version)) return;
  MakeRoom();
  layouts_.insert_or_assign(key, std::move(entry));
}

std::shared_ptr<const Efficiency> TrainingLayoutCache::FindEfficiency(int64_t version, const std::string& key) {
  absl::MutexLock lock(&mu_);
  if (!Current(version)) return nullptr;
  auto it = efficiencies_.find(key);
  if (it == efficiencies_.end()) {
    ++stats_.misses;
    return nullptr;
  }
  ++stats_.hits;
  return it->second;
}

void TrainingLayoutCache::StoreEfficiency(int64_t version, const std::string& key, Efficiency value) {
  auto entry = std::make_shared<const Efficiency>(std::move(value));
  absl::MutexLock lock(&mu_);
  if (!Current(version)) return;
  MakeRoom();
  efficiencies_.insert_or_assign(key, std::move(entry));
}

int64_t TrainingLayoutCache::FindBatch(int64_t version, const std::string& key) {
  absl::MutexLock lock(&mu_);
  if (!Current(version)) return -1;
  auto it = batches_.find(key);
  if (it == batches_.end()) {
    ++stats_.misses;
    return -1;
  }
  ++stats_.hits;
  return it->second;
}

void TrainingLayoutCache::StoreBatch(int64_t version, const std::string& key, int64_t batch) {
  absl::MutexLock lock(&mu_);
  if (!Current(version)) return;
  MakeRoom();
  batches_.insert_or_assign(key, batch);
}

std::shared_ptr<const void> TrainingLayoutCache::FindResult(int64_t version, const std::string& key) {
  absl::MutexLock lock(&mu_);
  if (!Current(version)) return nullptr;
  auto it = results_.find(key);
  if (it == results_.end()) {
    ++stats_.misses;
    return nullptr;
  }
  ++stats_.hits;
  return it->second;
}

void TrainingLayoutCache::StoreResult(int64_t version, const std::string& key, std::shared_ptr<const void> value) {
  absl::MutexLock lock(&mu_);
  if (!Current(version)) return;
  MakeRoom();
  results_.insert_or_assign(key, std::move(value));
}

TrainingLayoutCache::Stats TrainingLayoutCache::GetStats() const {
  absl::MutexLock lock(&mu_);
  Stats s = stats_;
  s.entries = static_cast<int64_t>(layouts_.size() + efficiencies_.size() + batches_.size() + results_.size());
  return s;
}

}  // namespace capplan::core
