// Plan, Compare and Tco. See planning.h.
#include "server/planning.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/format.h"
#include "core/serving.h"
#include "core/tco.h"
#include "core/training.h"
#include "core/units.h"
#include "server/convert.h"

namespace capplan::server {

namespace v1 = capplan::v1;
using store::CatalogSnapshot;
using store::GpuRow;
using store::InstanceRow;
using store::PriceRow;

namespace {

// Bounds on what one request may ask for, so that the work and the answer stay bounded.
constexpr int kMaxFilterNames = 64;  // providers, regions, allowed or excluded GPUs
constexpr int kMaxOwnedPools = 64;
constexpr size_t kMaxPoolNameBytes = 128;
constexpr int64_t kMaxPinnedBatch = int64_t{1} << 20;
constexpr int kMaxGpusPerInstance = 64;  // as the store validates instance rows
constexpr int kMaxGpus = 65536;          // the largest fleet any request may describe

absl::Status CheckNameList(const google::protobuf::RepeatedPtrField<std::string>& names,
                           const char* field) {
  if (names.size() > kMaxFilterNames) {
    return absl::InvalidArgumentError(absl::StrCat("constraints.", field, ": at most ", kMaxFilterNames,
                                                   " names, got ", names.size()));
  }
  return absl::OkStatus();
}

absl::Status Prefixed(const absl::Status& s, const std::string& prefix) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(prefix, s.message()));
}

const std::vector<std::string>& TrainingFormulas() {
  static const std::vector<std::string> k = {
      "training FLOPs 6*N*D + 12*L*h*s*D (Kaplan et al. 2020; Chowdhery et al. 2022, App. B)",
      "activation memory per layer (Korthikanti et al. 2022, Table 2)",
      "model states and ZeRO sharding (Rajbhandari et al. 2020)",
      "pipeline bubble (p-1)/m, tensor-parallel all-reduces (Narayanan et al. 2021)",
      "cost = duration_hours x price_usd_per_hour x instances"};
  return k;
}

const std::vector<std::string>& ServingFormulas() {
  static const std::vector<std::string> k = {
      "decode step = max(bytes read / bandwidth, FLOPs / peak) (Pope et al. 2022)",
      "KV cache = 2 x layers x KV heads x head dim x bytes per token",
      "continuous batching throughput = batch / (output x step + batch x prefill) (Yu et al. 2022)",
      "replicas = ceil(offered load / (capacity x target utilisation))",
      "cost per 1M requests = price_usd_per_hour x 1e6 / (requests_per_second x 3600)"};
  return k;
}

absl::StatusOr<core::ModelArchitecture> ResolveModel(const CatalogSnapshot& snap, bool by_name,
                                                     const std::string& name, bool inline_arch,
                                                     const v1::ModelArchitecture& arch,
                                                     const std::string& field) {
  if (by_name) {
    const store::ModelRow* m = snap.FindModel(name);
    if (m == nullptr) {
      return absl::NotFoundError(absl::StrCat(field, ".model_name: no model named \"", name,
                                              "\" in the catalog (ListModels lists them)"));
    }
    return m->arch;
  }
  if (inline_arch) {
    core::ModelArchitecture a = ArchitectureFromProto(arch);
    absl::Status s = core::ValidateModel(a);
    if (!s.ok()) return Prefixed(s, field + ".architecture.");
    return a;
  }
  return absl::InvalidArgumentError(absl::StrCat(field, ": set model_name or architecture"));
}

absl::StatusOr<core::TrainingJob> TrainingJobFrom(const CatalogSnapshot& snap,
                                                  const v1::TrainingWorkload& w,
                                                  const std::string& field) {
  core::TrainingJob job;
  absl::StatusOr<core::ModelArchitecture> model =
      ResolveModel(snap, w.model_case() == v1::TrainingWorkload::kModelName, w.model_name(),
                   w.model_case() == v1::TrainingWorkload::kArchitecture, w.architecture(), field);
  if (!model.ok()) return model.status();
  job.model = *model;
  job.tokens = w.tokens();
  if (w.sequence_tokens() != 0) job.sequence_length = w.sequence_tokens();
  if (w.global_batch_tokens() != 0) job.global_batch_tokens = static_cast<double>(w.global_batch_tokens());
  if (w.precision() != v1::PRECISION_UNSPECIFIED) {
    absl::StatusOr<core::Precision> p = PrecisionFromProto(w.precision(), field + ".precision");
    if (!p.ok()) return p.status();
    job.precision = *p;
  }
  switch (w.method()) {
    case v1::TRAINING_METHOD_UNSPECIFIED:
    case v1::TRAINING_METHOD_FULL: job.method = core::TrainingMethod::kFull; break;
    case v1::TRAINING_METHOD_LORA: job.method = core::TrainingMethod::kLora; break;
    case v1::TRAINING_METHOD_QLORA: job.method = core::TrainingMethod::kQlora; break;
    default: return absl::InvalidArgumentError(absl::StrCat(field, ".method: must be FULL, LORA or QLORA"));
  }
  switch (w.optimizer()) {
    case v1::OPTIMIZER_UNSPECIFIED:
    case v1::OPTIMIZER_ADAMW: job.optimizer = core::Optimizer::kAdamW; break;
    case v1::OPTIMIZER_ADAMW_8BIT: job.optimizer = core::Optimizer::kAdamW8bit; break;
    case v1::OPTIMIZER_SGD_MOMENTUM: job.optimizer = core::Optimizer::kSgdMomentum; break;
    default: return absl::InvalidArgumentError(absl::StrCat(field, ".optimizer: must be ADAMW, ADAMW_8BIT or SGD_MOMENTUM"));
  }
  if (w.lora_rank() != 0) job.lora_rank = w.lora_rank();
  job.flash_attention = !w.disable_flash_attention();
  if (w.goodput_fraction() != 0) job.goodput = w.goodput_fraction();
  absl::Status valid = core::ValidateTrainingJob(job);
  if (!valid.ok()) return Prefixed(valid, field + ".");
  return job;
}

absl::StatusOr<core::ServingWorkload> ServingWorkloadFrom(const CatalogSnapshot& snap,
                                                          const v1::ServingWorkload& w,
                                                          const std::string& field) {
  core::ServingWorkload s;
  absl::StatusOr<core::ModelArchitecture> model =
      ResolveModel(snap, w.model_case() == v1::ServingWorkload::kModelName, w.model_name(),
                   w.model_case() == v1::ServingWorkload::kArchitecture, w.architecture(), field);
  if (!model.ok()) return model.status();
  s.model = *model;
  if (w.weight_precision() != v1::PRECISION_UNSPECIFIED) {
    absl::StatusOr<core::Precision> p = PrecisionFromProto(w.weight_precision(), field + ".weight_precision");
    if (!p.ok()) return p.status();
    s.weight_precision = *p;
  }
  if (w.kv_cache_precision() != v1::PRECISION_UNSPECIFIED) {
    absl::StatusOr<core::Precision> p = PrecisionFromProto(w.kv_cache_precision(), field + ".kv_cache_precision");
    if (!p.ok()) return p.status();
    s.kv_precision = *p;
  }
  s.prompt_tokens = w.prompt_tokens();
  s.output_tokens = w.output_tokens();
  s.requests_per_second = w.requests_per_second();
  s.ttft_slo_seconds = w.ttft_slo_seconds();
  s.tpot_slo_seconds = w.tpot_slo_seconds();
  s.e2e_slo_seconds = w.e2e_slo_seconds();
  if (w.target_utilization_fraction() != 0) s.target_utilization = w.target_utilization_fraction();
  absl::Status valid = core::ValidateServingWorkload(s);
  if (!valid.ok()) return Prefixed(valid, field + ".");
  return s;
}

void MemoryToProto(const core::MemoryBreakdown& m, double capacity, v1::MemoryBreakdown* out) {
  out->set_weights_bytes(m.weights_bytes);
  out->set_gradients_bytes(m.gradients_bytes);
  out->set_optimizer_bytes(m.optimizer_bytes);
  out->set_activations_bytes(m.activations_bytes);
  out->set_kv_cache_bytes(m.kv_cache_bytes);
  out->set_overhead_bytes(m.overhead_bytes);
  out->set_total_bytes(m.TotalBytes());
  out->set_capacity_bytes(capacity);
}

void SetRange(v1::Range* r, double point, double low, double high) {
  r->set_point(point);
  r->set_low(low);
  r->set_high(high);
}

v1::Bottleneck BottleneckToProto(core::Bottleneck b) {
  return static_cast<v1::Bottleneck>(static_cast<int>(b) + 1);
}

v1::Recompute RecomputeToProto(core::Recompute r) {
  return static_cast<v1::Recompute>(static_cast<int>(r) + 1);
}

// What the caller allows.
struct Filters {
  std::set<std::string> providers, regions, allowed, excluded;
  bool spot = false;
  int max_gpus = kDefaultMaxGpus;

  bool GpuOk(const std::string& gpu) const {
    return (allowed.empty() || allowed.count(gpu) > 0) && excluded.count(gpu) == 0;
  }
  bool InstanceOk(const InstanceRow& i) const {
    return (providers.empty() || providers.count(i.provider) > 0) &&
           (regions.empty() || regions.count(i.region) > 0) && GpuOk(i.gpu_name);
  }
};

absl::StatusOr<Filters> FiltersFrom(const CatalogSnapshot& snap, const v1::Constraints& c) {
  Filters f;
  for (const auto& [list, name] : {std::pair{&c.providers(), "providers"}, {&c.regions(), "regions"},
                                   {&c.allowed_gpus(), "allowed_gpus"}, {&c.excluded_gpus(), "excluded_gpus"}}) {
    absl::Status s = CheckNameList(*list, name);
    if (!s.ok()) return s;
  }
  if (c.owned_pools_size() > kMaxOwnedPools) {
    return absl::InvalidArgumentError(absl::StrCat("constraints.owned_pools: at most ", kMaxOwnedPools,
                                                   " pools, got ", c.owned_pools_size()));
  }
  f.providers.insert(c.providers().begin(), c.providers().end());
  f.regions.insert(c.regions().begin(), c.regions().end());
  for (int i = 0; i < c.allowed_gpus_size(); ++i) {
    if (snap.FindGpu(c.allowed_gpus(i)) == nullptr) {
      return absl::NotFoundError(absl::StrCat("constraints.allowed_gpus[", i, "]: no GPU named \"",
                                              c.allowed_gpus(i), "\" in the catalog"));
    }
    f.allowed.insert(c.allowed_gpus(i));
  }
  for (int i = 0; i < c.excluded_gpus_size(); ++i) {
    if (snap.FindGpu(c.excluded_gpus(i)) == nullptr) {
      return absl::NotFoundError(absl::StrCat("constraints.excluded_gpus[", i, "]: no GPU named \"",
                                              c.excluded_gpus(i), "\" in the catalog"));
    }
    f.excluded.insert(c.excluded_gpus(i));
  }
  f.spot = c.spot_allowed();
  if (c.max_gpus() < 0 || c.max_gpus() > 65536) {
    return absl::InvalidArgumentError(absl::StrCat("constraints.max_gpus: must be in [0, 65536] (0: ",
                                                   kDefaultMaxGpus, "), got ", c.max_gpus()));
  }
  if (c.max_gpus() > 0) f.max_gpus = c.max_gpus();
  for (int i = 0; i < c.owned_pools_size(); ++i) {
    const v1::OwnedPool& p = c.owned_pools(i);
    const std::string field = absl::StrCat("constraints.owned_pools[", i, "]");
    if (p.name().empty() || p.name().size() > kMaxPoolNameBytes) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".name: must be 1-", kMaxPoolNameBytes,
                                                     " bytes, got ", p.name().size()));
    }
    if (snap.FindGpu(p.gpu_name()) == nullptr) {
      return absl::NotFoundError(absl::StrCat(field, ".gpu_name: no GPU named \"", p.gpu_name(), "\" in the catalog"));
    }
    if (p.gpu_count() < 1 || p.gpu_count() > 65536) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".gpu_count: must be in [1, 65536], got ", p.gpu_count()));
    }
    if (!(p.cost_usd_per_gpu_hour() >= 0) || p.cost_usd_per_gpu_hour() > 1000) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".cost_usd_per_gpu_hour: must be in [0, 1000], got ",
                                                     p.cost_usd_per_gpu_hour()));
    }
  }
  return f;
}

// Where the GPUs come from and what an hour of them costs.
struct Supply {
  const GpuRow* gpu = nullptr;
  const InstanceRow* instance = nullptr;  // cloud offer
  const PriceRow* price = nullptr;
  const v1::OwnedPool* pool = nullptr;    // or an owned pool
  int units_max = 0;                      // instances (cloud) or GPUs (pool) available

  std::string Label(int units) const {
    if (instance == nullptr && pool == nullptr) return absl::StrCat(units, " x ", gpu->spec.name);
    if (pool != nullptr) return absl::StrCat("owned pool \"", pool->name(), "\": ", units, " x ", gpu->spec.name);
    return absl::StrCat(instance->provider, " ", instance->instance_type, " x", units, " (",
                        units * instance->gpu_count, " x ", gpu->spec.name, ", ", instance->region, ", ",
                        store::PriceKindName(price->kind), ")");
  }
  int GpusPerUnit() const { return instance != nullptr ? instance->gpu_count : 1; }
  double UsdPerUnitHour() const {
    if (pool != nullptr) return pool->cost_usd_per_gpu_hour();
    return price != nullptr ? price->price_usd_per_hour : 0.0;
  }
};

std::vector<Supply> Supplies(const CatalogSnapshot& snap, const Filters& f,
                             const v1::Constraints& c, int64_t as_of) {
  std::vector<Supply> out;
  out.reserve(snap.instances.size() * (f.spot ? 2 : 1) + c.owned_pools_size());
  for (const InstanceRow& i : snap.instances) {
    // A row outside the store's own limits (a hand-edited database) is never planned on.
    if (i.gpu_count < 1 || i.gpu_count > kMaxGpusPerInstance) continue;
    if (!f.InstanceOk(i)) continue;
    const GpuRow* gpu = snap.FindGpu(i.gpu_name);
    if (gpu == nullptr) continue;
    for (store::PriceKind kind : {store::PriceKind::kOnDemand, store::PriceKind::kSpot}) {
      if (kind == store::PriceKind::kSpot && !f.spot) continue;
      const PriceRow* p = snap.PriceAt(i, kind, as_of);
      if (p == nullptr) continue;
      out.push_back({gpu, &i, p, nullptr, f.max_gpus / i.gpu_count});
    }
  }
  for (const v1::OwnedPool& p : c.owned_pools()) {
    if (!f.GpuOk(p.gpu_name())) continue;
    out.push_back({snap.FindGpu(p.gpu_name()), nullptr, nullptr, &p, std::min(p.gpu_count(), f.max_gpus)});
  }
  return out;
}

void AddProvenance(const CatalogSnapshot& snap, const Supply& s, const core::Efficiency& eff,
                   const std::vector<std::string>& formulas, v1::Provenance* out) {
  out->set_catalog_version(snap.catalog_version);
  if (s.price != nullptr) PriceToProto(*s.price, out->add_prices());
  if (eff.benchmark_id > 0) out->add_benchmark_ids(eff.benchmark_id);
  out->set_efficiency_source(eff.source);
  out->set_efficiency_fraction(eff.point);
  for (const std::string& f : formulas) out->add_formulas(f);
}

// Options that differ only by region (same provider, instance, count and price) are shown
// once; the other regions are named in the explanation.
using OfferKey = std::tuple<absl::string_view, absl::string_view, int, int, double>;
std::optional<OfferKey> SameOfferKey(const Supply& s, int units) {
  if (s.instance == nullptr) return std::nullopt;
  return OfferKey{s.instance->provider, s.instance->instance_type, units,
                  static_cast<int>(s.price->kind), s.price->price_usd_per_hour};
}

struct Rejected {
  std::string candidate;
  std::string reason;
  double closeness;  // smaller is closer to working
};

absl::Status NothingFits(const std::vector<Rejected>& rejected) {
  if (rejected.empty()) {
    return absl::FailedPreconditionError(
        "no catalog offer or owned pool matches the constraints (providers, regions, GPUs)");
  }
  auto best = std::min_element(rejected.begin(), rejected.end(),
                               [](const Rejected& a, const Rejected& b) { return a.closeness < b.closeness; });
  return absl::FailedPreconditionError(
      absl::StrCat("nothing fits; closest miss: ", best->candidate, ": ", best->reason));
}

constexpr size_t kMaxRejected = 40;

void AddRejected(std::vector<Rejected>& rejected, v1::PlanResponse* resp) {
  std::stable_sort(rejected.begin(), rejected.end(),
                   [](const Rejected& a, const Rejected& b) { return a.closeness < b.closeness; });
  for (size_t i = 0; i < rejected.size() && i < kMaxRejected; ++i) {
    v1::RejectedCandidate* r = resp->add_rejected();
    r->set_candidate(rejected[i].candidate);
    r->set_reason(rejected[i].reason);
  }
}

// ---- Training ----

struct TrainPick {
  bool ok = false;
  core::TrainingEstimate estimate;
  std::string reason;
  double closeness = 1e9;
};

class TrainingEvaluator {
 public:
  TrainingEvaluator(const CatalogSnapshot& snap, const core::TrainingJob& job) : snap_(snap), job_(job) {}

  const core::Efficiency& EfficiencyFor(const GpuRow& gpu) {
    auto it = eff_.find(gpu.spec.name);
    if (it == eff_.end()) {
      it = eff_.emplace(gpu.spec.name, core::TrainingEfficiency(job_, {gpu.spec}, snap_.training_benchmarks)).first;
    }
    return it->second;
  }

  // The fastest layout of exactly n GPUs, computed once per (GPU type, n).
  const TrainPick& Pick(const GpuRow& gpu, int n, const core::ParallelConfig* pinned = nullptr) {
    const std::pair<const GpuRow*, int> key{&gpu, n};
    if (pinned == nullptr) {
      auto it = picks_.find(key);
      if (it != picks_.end()) return it->second;
    }
    TrainPick pick;
    const core::Efficiency& eff = EfficiencyFor(gpu);
    core::ClusterSpec cluster{gpu.spec};
    if (pinned != nullptr) {
      absl::StatusOr<core::TrainingEstimate> e = core::EstimateTraining(job_, cluster, *pinned, eff);
      if (!e.ok()) {
        pick.reason = std::string(e.status().message());
      } else if (!e->fits) {
        pick.reason = absl::StrFormat("needs %.1f GB per GPU, %s has %.1f GB",
                                      e->memory_per_gpu.TotalBytes() / units::kGB, gpu.spec.name,
                                      gpu.spec.memory_bytes / units::kGB);
        pick.closeness = e->memory_per_gpu.TotalBytes() / gpu.spec.memory_bytes;
      } else {
        pick.ok = true;
        pick.estimate = *e;
      }
      pinned_pick_ = pick;
      return pinned_pick_;
    }
    core::SearchOptions o;
    o.max_gpus = n;
    o.min_gpus = n;
    o.top_k = 1;
    o.max_rejections = 1;
    absl::StatusOr<core::SearchResult> r = core::SearchParallelism(job_, cluster, eff, o);
    if (!r.ok()) {
      pick.reason = std::string(r.status().message());
      pick.closeness = 100;
    } else if (!r->ranked.empty()) {
      pick.ok = true;
      pick.estimate = r->ranked.front();
    } else if (!r->rejected.empty()) {
      const core::Rejection& miss = r->rejected.front();
      pick.reason = core::DescribeRejection(miss, gpu.spec);
      pick.closeness = miss.reason == core::RejectReason::kMemory ? miss.needed_bytes / miss.capacity_bytes : 20;
    } else {
      pick.reason = absl::StrCat("no tensor/pipeline split of ", n, " GPUs divides the model's heads and layers");
      pick.closeness = 50;
    }
    return picks_.emplace(key, std::move(pick)).first->second;
  }

 private:
  const CatalogSnapshot& snap_;
  const core::TrainingJob& job_;
  std::map<std::string, core::Efficiency> eff_;
  std::map<std::pair<const GpuRow*, int>, TrainPick> picks_;
  TrainPick pinned_pick_;
};

void FillTrainingOption(const CatalogSnapshot& snap, const Supply& s, int units, const TrainPick& pick,
                        const core::Efficiency& eff, v1::PlanOption* o) {
  const core::TrainingEstimate& e = pick.estimate;
  o->set_gpu_name(s.gpu->spec.name);
  o->set_gpu_count(units * s.GpusPerUnit());
  if (s.pool != nullptr) {
    o->set_owned_pool(s.pool->name());
  } else if (s.instance != nullptr) {
    o->set_provider(s.instance->provider);
    o->set_instance_type(s.instance->instance_type);
    o->set_instance_count(units);
    o->set_region(s.instance->region);
  }
  v1::Parallelism* p = o->mutable_parallelism();
  p->set_tensor_parallel(e.parallel.tp);
  p->set_pipeline_parallel(e.parallel.pp);
  p->set_data_parallel(e.parallel.dp);
  p->set_zero_stage(e.parallel.zero_stage);
  p->set_recompute(RecomputeToProto(e.parallel.recompute));
  p->set_sequence_parallel(e.parallel.sequence_parallel && e.parallel.tp > 1);
  p->set_micro_batch_sequences(e.parallel.micro_batch);
  MemoryToProto(e.memory_per_gpu, e.capacity_bytes, o->mutable_memory_per_gpu());
  SetRange(o->mutable_duration_seconds(), e.duration_seconds, e.duration_seconds_low, e.duration_seconds_high);
  const double usd_per_hour = units * s.UsdPerUnitHour();
  o->set_cost_usd_per_hour(usd_per_hour);
  SetRange(o->mutable_total_cost_usd(), e.duration_seconds / 3600 * usd_per_hour,
           e.duration_seconds_low / 3600 * usd_per_hour, e.duration_seconds_high / 3600 * usd_per_hour);
  o->set_energy_kwh(e.energy_kwh);
  o->set_bottleneck(BottleneckToProto(e.bottleneck));
  AddProvenance(snap, s, eff, TrainingFormulas(), o->mutable_provenance());
  o->set_explanation(absl::StrCat(core::ExplainTraining(e, s.gpu->spec), "; ",
                                  core::Fixed(e.duration_seconds / 86400, 1), " days (",
                                  core::Fixed(e.duration_seconds_low / 86400, 1), "-",
                                  core::Fixed(e.duration_seconds_high / 86400, 1), "), $",
                                  core::Fixed(o->total_cost_usd().point(), 0), " at $", core::Fixed(usd_per_hour, 2),
                                  "/h",
                                  e.shape_inferred ? "; model shape inferred from its parameter count" : ""));
}

absl::Status PlanTraining(const CatalogSnapshot& snap, const v1::PlanRequest& req, v1::PlanResponse* resp) {
  absl::StatusOr<core::TrainingJob> job = TrainingJobFrom(snap, req.training(), "training");
  if (!job.ok()) return job.status();
  absl::StatusOr<Filters> filters = FiltersFrom(snap, req.constraints());
  if (!filters.ok()) return filters.status();
  const v1::Objective objective = req.objective() == v1::OBJECTIVE_UNSPECIFIED ? v1::OBJECTIVE_CHEAPEST : req.objective();
  if (objective == v1::OBJECTIVE_CHEAPEST_WITHIN_DEADLINE && !(req.deadline_seconds() > 0)) {
    return absl::InvalidArgumentError("deadline_seconds: must be > 0 for CHEAPEST_WITHIN_DEADLINE");
  }
  if (objective == v1::OBJECTIVE_FASTEST_WITHIN_BUDGET && !(req.budget_usd() > 0)) {
    return absl::InvalidArgumentError("budget_usd: must be > 0 for FASTEST_WITHIN_BUDGET");
  }
  TrainingEvaluator eval(snap, *job);
  struct Cand {
    size_t supply;
    int units;
    const TrainPick* pick;
    double duration, cost;
  };
  std::vector<Supply> supplies = Supplies(snap, *filters, req.constraints(), PricesAsOf(req.prices_as_of_unix_seconds()));
  std::vector<Cand> cands;
  std::vector<Rejected> rejected;
  std::map<std::string, const TrainPick*> gpu_miss;  // GPU type -> its closest miss
  std::set<std::string> gpu_ok;
  for (size_t si = 0; si < supplies.size(); ++si) {
    const Supply& s = supplies[si];
    std::vector<int> units;
    for (int u = 1; u <= s.units_max; u *= 2) units.push_back(u);
    if (s.pool != nullptr && !units.empty() && units.back() != s.units_max) units.push_back(s.units_max);
    for (int u : units) {
      const TrainPick& pick = eval.Pick(*s.gpu, u * s.GpusPerUnit());
      if (!pick.ok) {
        const TrainPick*& miss = gpu_miss[s.gpu->spec.name];
        if (miss == nullptr || pick.closeness < miss->closeness) miss = &pick;
        continue;
      }
      gpu_ok.insert(s.gpu->spec.name);
      const double cost = pick.estimate.duration_seconds / 3600 * u * s.UsdPerUnitHour();
      if (objective == v1::OBJECTIVE_CHEAPEST_WITHIN_DEADLINE && pick.estimate.duration_seconds > req.deadline_seconds()) {
        rejected.push_back({s.Label(u), absl::StrFormat("takes %.1f days, deadline %.1f days",
                                                        pick.estimate.duration_seconds / 86400,
                                                        req.deadline_seconds() / 86400),
                            pick.estimate.duration_seconds / req.deadline_seconds()});
        continue;
      }
      if (objective == v1::OBJECTIVE_FASTEST_WITHIN_BUDGET && cost > req.budget_usd()) {
        rejected.push_back({s.Label(u), absl::StrFormat("costs $%.0f, budget $%.0f", cost, req.budget_usd()),
                            cost / req.budget_usd()});
        continue;
      }
      cands.push_back({si, u, &pick, pick.estimate.duration_seconds, cost});
    }
  }
  for (const auto& [gpu, miss] : gpu_miss) {
    if (gpu_ok.count(gpu) > 0) continue;  // fits at some other count
    rejected.push_back({absl::StrCat(gpu, " (every offer up to ", filters->max_gpus, " GPUs)"), miss->reason,
                        miss->closeness});
  }
  if (cands.empty()) return NothingFits(rejected);
  const bool by_time = objective == v1::OBJECTIVE_FASTEST || objective == v1::OBJECTIVE_FASTEST_WITHIN_BUDGET;
  std::stable_sort(cands.begin(), cands.end(), [&](const Cand& a, const Cand& b) {
    const double ka = by_time ? a.duration : a.cost, kb = by_time ? b.duration : b.cost;
    if (ka != kb) return ka < kb;
    const double sa = by_time ? a.cost : a.duration, sb = by_time ? b.cost : b.duration;
    return sa < sb;
  });
  const int top_k = req.top_k() > 0 ? std::min(req.top_k(), 100) : kDefaultTopK;
  std::vector<bool> shown(supplies.size(), false);
  std::map<OfferKey, v1::PlanOption*> emitted;
  for (size_t i = 0; i < cands.size() && (resp->options_size() < top_k || rejected.size() < kMaxRejected); ++i) {
    const Cand& c = cands[i];
    const Supply& s = supplies[c.supply];
    const std::optional<OfferKey> same = SameOfferKey(s, c.units);
    if (auto it = same ? emitted.find(*same) : emitted.end(); it != emitted.end()) {
      absl::StrAppend(it->second->mutable_explanation(), "; same offer in ", s.instance->region);
      shown[c.supply] = true;
      continue;
    }
    if (resp->options_size() < top_k) {
      v1::PlanOption* o = resp->add_options();
      o->set_rank(resp->options_size());
      FillTrainingOption(snap, s, c.units, *c.pick, eval.EfficiencyFor(*s.gpu), o);
      if (same) emitted[*same] = o;
      shown[c.supply] = true;
      continue;
    }
    // One line per offer not shown (its best candidate and why it lost), formatted only
    // while the answer still has room for it.
    if (shown[c.supply]) continue;
    shown[c.supply] = true;
    if (rejected.size() >= kMaxRejected) continue;
    rejected.push_back({s.Label(c.units),
                        absl::StrCat("ranked #", i + 1, ": ", core::Fixed(c.duration / 86400, 1), " days, $",
                                     core::Fixed(c.cost, 0), " (best: ", core::Fixed(cands[0].duration / 86400, 1),
                                     " days, $", core::Fixed(cands[0].cost, 0), ")"),
                        10.0 + static_cast<double>(i)});
  }
  AddRejected(rejected, resp);
  resp->set_catalog_version(snap.catalog_version);
  return absl::OkStatus();
}

// ---- Serving ----

struct ServingFit {
  bool ok = false;
  core::ServingEstimate estimate;
  int units = 0;  // instances or pool GPUs used
  std::string reason;
  double closeness = 1e9;
};

class ServingEvaluator {
 public:
  ServingEvaluator(const CatalogSnapshot& snap, const core::ServingWorkload& w) : snap_(snap), w_(w) {}

  const core::ServingEfficiency& EfficiencyFor(const GpuRow& gpu) {
    auto it = eff_.find(gpu.spec.name);
    if (it == eff_.end()) {
      it = eff_.emplace(gpu.spec.name, core::ServingEfficiencyFor(w_, gpu.spec, snap_.serving_benchmarks)).first;
    }
    return it->second;
  }

  const std::vector<core::ServingOption>& Options(const GpuRow& gpu) {
    auto it = options_.find(gpu.spec.name);
    if (it == options_.end()) {
      it = options_.emplace(gpu.spec.name, core::SearchServing(w_, gpu.spec, EfficiencyFor(gpu))).first;
    }
    return it->second;
  }

  // The cheapest way to carry the load on this supply. The reason for a miss is formatted
  // only when nothing fits.
  ServingFit Fit(const Supply& s, int max_units) {
    ServingFit best;
    const int per_unit = s.GpusPerUnit();
    const absl::Status* first_error = nullptr;
    const core::ServingEstimate* too_big = nullptr;  // the smallest layout over the limit
    int too_big_units = 0, too_big_tp = 0;
    double best_cost = 0;
    for (const core::ServingOption& o : Options(*s.gpu)) {
      if (!o.estimate.ok()) {
        if (first_error == nullptr) first_error = &o.estimate.status();
        continue;
      }
      const core::ServingEstimate& e = *o.estimate;
      int units;
      if (s.pool != nullptr) {
        units = static_cast<int>(e.replicas) * o.tp;
      } else {
        if (o.tp > per_unit) continue;  // a replica cannot span instances
        const int replicas_per_unit = per_unit / o.tp;
        units = static_cast<int>((e.replicas + replicas_per_unit - 1) / replicas_per_unit);
      }
      if (units > max_units) {
        if (too_big == nullptr || units < too_big_units) {
          too_big = &e;
          too_big_units = units;
          too_big_tp = o.tp;
        }
        continue;
      }
      const double cost = units * s.UsdPerUnitHour();
      if (!best.ok || cost < best_cost || (cost == best_cost && e.tpot_seconds < best.estimate.tpot_seconds)) {
        best.ok = true;
        best.estimate = e;
        best.units = units;
        best_cost = cost;
      }
    }
    if (best.ok) return best;
    if (too_big != nullptr) {
      best.reason = absl::StrFormat("needs %d replicas of %d GPUs (%d GPUs), more than the %d allowed",
                                    too_big->replicas, too_big_tp, static_cast<int>(too_big->replicas) * too_big_tp,
                                    max_units * per_unit);
      best.closeness = 1.0 + static_cast<double>(too_big_units) / std::max(1, max_units);
    } else if (first_error != nullptr) {
      best.reason = std::string(first_error->message());
      best.closeness = 5;
    } else {
      best.reason = absl::StrCat("no tensor-parallel layout fits in ", per_unit, " GPUs per instance");
    }
    return best;
  }

 private:
  const CatalogSnapshot& snap_;
  const core::ServingWorkload& w_;
  std::map<std::string, core::ServingEfficiency> eff_;
  std::map<std::string, std::vector<core::ServingOption>> options_;
};

void FillServingOption(const CatalogSnapshot& snap, const Supply& s, const ServingFit& fit,
                       const core::ServingWorkload& w, const core::ServingEfficiency& eff,
                       double pue, v1::PlanOption* o) {
  const core::ServingEstimate& e = fit.estimate;
  const int gpus = fit.units * s.GpusPerUnit();
  o->set_gpu_name(s.gpu->spec.name);
  o->set_gpu_count(gpus);
  if (s.pool != nullptr) {
    o->set_owned_pool(s.pool->name());
  } else if (s.instance != nullptr) {
    o->set_provider(s.instance->provider);
    o->set_instance_type(s.instance->instance_type);
    o->set_instance_count(fit.units);
    o->set_region(s.instance->region);
  }
  o->mutable_parallelism()->set_tensor_parallel(e.tp);
  o->mutable_parallelism()->set_pipeline_parallel(1);
  o->mutable_parallelism()->set_data_parallel(static_cast<int>(e.replicas));
  o->mutable_parallelism()->set_serving_batch_sequences(e.batch);
  core::MemoryBreakdown m;
  m.weights_bytes = e.memory.weights_bytes;
  m.kv_cache_bytes = e.memory.kv_bytes_per_sequence * static_cast<double>(e.batch);
  m.overhead_bytes = e.memory.overhead_bytes;
  MemoryToProto(m, e.memory.capacity_bytes, o->mutable_memory_per_gpu());
  const double replicas = static_cast<double>(e.replicas);
  SetRange(o->mutable_requests_per_second(), e.requests_per_second_per_replica * replicas,
           e.requests_per_second_low * replicas, e.requests_per_second_high * replicas);
  SetRange(o->mutable_ttft_seconds(), e.ttft_seconds, e.ttft_seconds_low, e.ttft_seconds_high);
  SetRange(o->mutable_tpot_seconds(), e.tpot_seconds, e.tpot_seconds_low, e.tpot_seconds_high);
  const double usd_per_hour = fit.units * s.UsdPerUnitHour();
  o->set_cost_usd_per_hour(usd_per_hour);
  o->set_usd_per_month(usd_per_hour * units::kHoursPerMonth);
  SetRange(o->mutable_total_cost_usd(), o->usd_per_month(), o->usd_per_month(), o->usd_per_month());
  o->set_usd_per_million_requests(core::CostPerMillionRequests(usd_per_hour, w.requests_per_second));
  o->set_usd_per_million_output_tokens(
      core::CostPerMillionTokens(usd_per_hour, w.requests_per_second * static_cast<double>(w.output_tokens)));
  o->set_replicas(static_cast<int>(e.replicas));
  o->set_energy_kwh(s.gpu->spec.tdp_watts * gpus * units::kHoursPerMonth * pue / units::kWattHoursPerKilowattHour);
  o->set_bottleneck(BottleneckToProto(e.bottleneck));
  AddProvenance(snap, s, eff.bandwidth, ServingFormulas(), o->mutable_provenance());
  o->mutable_provenance()->set_efficiency_source(
      absl::StrCat(eff.bandwidth.source, " | ", eff.compute.source));
  o->set_explanation(absl::StrCat(
      e.replicas, " replicas x tp=", e.tp, " at batch ", e.batch, " carry ", core::Fixed(w.requests_per_second, 1),
      " req/s (", core::Fixed(e.requests_per_second_per_replica, 1), " each at ",
      core::Fixed(w.target_utilization * 100, 0), "% planned use); TTFT ", core::Fixed(e.ttft_seconds, 3),
      " s, TPOT ", core::Fixed(e.tpot_seconds, 4), " s; ", core::BottleneckName(e.bottleneck), "-bound; $",
      core::Fixed(usd_per_hour, 2), "/h, $", core::Fixed(o->usd_per_million_requests(), 2), " per 1M requests",
      e.shape_inferred ? "; model shape inferred from its parameter count" : ""));
}

absl::Status PlanServing(const CatalogSnapshot& snap, const v1::PlanRequest& req, v1::PlanResponse* resp) {
  absl::StatusOr<core::ServingWorkload> w = ServingWorkloadFrom(snap, req.serving(), "serving");
  if (!w.ok()) return w.status();
  if (!(w->requests_per_second > 0)) {
    return absl::InvalidArgumentError("serving.requests_per_second: must be > 0 to plan capacity");
  }
  absl::StatusOr<Filters> filters = FiltersFrom(snap, req.constraints());
  if (!filters.ok()) return filters.status();
  v1::Objective objective = req.objective() == v1::OBJECTIVE_UNSPECIFIED ? v1::OBJECTIVE_CHEAPEST : req.objective();
  if (objective == v1::OBJECTIVE_CHEAPEST_WITHIN_DEADLINE) {
    return absl::InvalidArgumentError("objective: CHEAPEST_WITHIN_DEADLINE applies to training; serving has SLOs");
  }
  if (objective == v1::OBJECTIVE_FASTEST_WITHIN_BUDGET && !(req.budget_usd() > 0)) {
    return absl::InvalidArgumentError("budget_usd: must be > 0 (USD per month) for FASTEST_WITHIN_BUDGET");
  }
  ServingEvaluator eval(snap, *w);
  std::vector<Supply> supplies = Supplies(snap, *filters, req.constraints(), PricesAsOf(req.prices_as_of_unix_seconds()));
  struct Cand {
    size_t supply;
    ServingFit fit;
    double usd_per_hour;
  };
  std::vector<Cand> cands;
  std::vector<Rejected> rejected;
  std::map<std::string, std::pair<std::string, double>> gpu_miss;
  std::set<std::string> gpu_ok;
  for (size_t si = 0; si < supplies.size(); ++si) {
    const Supply& s = supplies[si];
    ServingFit fit = eval.Fit(s, s.units_max);
    if (!fit.ok) {
      auto& miss = gpu_miss[s.gpu->spec.name];
      if (miss.first.empty() || fit.closeness < miss.second) miss = {fit.reason, fit.closeness};
      continue;
    }
    gpu_ok.insert(s.gpu->spec.name);
    const double usd_per_hour = fit.units * s.UsdPerUnitHour();
    if (objective == v1::OBJECTIVE_FASTEST_WITHIN_BUDGET && usd_per_hour * units::kHoursPerMonth > req.budget_usd()) {
      rejected.push_back({s.Label(fit.units), absl::StrFormat("costs $%.0f per month, budget $%.0f",
                                                              usd_per_hour * units::kHoursPerMonth, req.budget_usd()),
                          usd_per_hour * units::kHoursPerMonth / req.budget_usd()});
      continue;
    }
    cands.push_back({si, std::move(fit), usd_per_hour});
  }
  for (const auto& [gpu, miss] : gpu_miss) {
    if (gpu_ok.count(gpu) > 0) continue;
    rejected.push_back({gpu, miss.first, miss.second});
  }
  if (cands.empty()) return NothingFits(rejected);
  const bool by_latency = objective == v1::OBJECTIVE_FASTEST || objective == v1::OBJECTIVE_FASTEST_WITHIN_BUDGET;
  std::stable_sort(cands.begin(), cands.end(), [&](const Cand& a, const Cand& b) {
    const double ta = a.fit.estimate.tpot_seconds, tb = b.fit.estimate.tpot_seconds;
    if (by_latency && ta != tb) return ta < tb;
    if (a.usd_per_hour != b.usd_per_hour) return a.usd_per_hour < b.usd_per_hour;
    return ta < tb;
  });
  const int top_k = req.top_k() > 0 ? std::min(req.top_k(), 100) : kDefaultTopK;
  std::map<OfferKey, v1::PlanOption*> emitted;
  for (size_t i = 0; i < cands.size() && (resp->options_size() < top_k || rejected.size() < kMaxRejected); ++i) {
    const Cand& c = cands[i];
    const Supply& s = supplies[c.supply];
    const std::optional<OfferKey> same = SameOfferKey(s, c.fit.units);
    if (auto it = same ? emitted.find(*same) : emitted.end(); it != emitted.end()) {
      absl::StrAppend(it->second->mutable_explanation(), "; same offer in ", s.instance->region);
      continue;
    }
    if (resp->options_size() < top_k) {
      v1::PlanOption* o = resp->add_options();
      o->set_rank(resp->options_size());
      FillServingOption(snap, s, c.fit, *w, eval.EfficiencyFor(*s.gpu), core::kDefaultPue, o);
      if (same) emitted[*same] = o;
      continue;
    }
    if (rejected.size() >= kMaxRejected) continue;
    rejected.push_back({s.Label(c.fit.units),
                        absl::StrCat("ranked #", i + 1, ": $", core::Fixed(c.usd_per_hour, 2), "/h, TPOT ",
                                     core::Fixed(c.fit.estimate.tpot_seconds, 4), " s (best: $",
                                     core::Fixed(cands[0].usd_per_hour, 2), "/h, TPOT ",
                                     core::Fixed(cands[0].fit.estimate.tpot_seconds, 4), " s)"),
                        10.0 + static_cast<double>(i)});
  }
  AddRejected(rejected, resp);
  resp->set_catalog_version(snap.catalog_version);
  return absl::OkStatus();
}

// ---- Compare ----

absl::StatusOr<Supply> CompareSupply(const CatalogSnapshot& snap, const v1::CompareTarget& t,
                                     int64_t as_of, const std::string& field, int* units) {
  Supply s;
  if (t.count() < 0 || t.count() > 65536) {
    return absl::InvalidArgumentError(absl::StrCat(field, ".count: must be in [0, 65536], got ", t.count()));
  }
  if (!t.instance_type().empty()) {
    for (const InstanceRow& i : snap.instances) {
      if (i.instance_type == t.instance_type() && (t.region().empty() || i.region == t.region())) {
        s.instance = &i;
        break;
      }
    }
    if (s.instance == nullptr) {
      return absl::NotFoundError(absl::StrCat(field, ".instance_type: no instance type \"", t.instance_type(),
                                              "\"", t.region().empty() ? "" : " in region \"" + t.region() + "\"",
                                              " in the catalog"));
    }
    s.gpu = snap.FindGpu(s.instance->gpu_name);
    s.price = snap.PriceAt(*s.instance, store::PriceKind::kOnDemand, as_of);
    *units = t.count() > 0 ? t.count() : 1;
    if (s.instance->gpu_count < 1 || s.instance->gpu_count > kMaxGpusPerInstance) {
      return absl::FailedPreconditionError(absl::StrCat(field, ".instance_type: the catalog row for ", t.instance_type(),
                                                        " has ", s.instance->gpu_count, " GPUs, outside [1, ",
                                                        kMaxGpusPerInstance, "]"));
    }
    const int64_t gpus = int64_t{*units} * s.instance->gpu_count;
    if (gpus > kMaxGpus) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".count: ", *units, " instances of ",
                                                     s.instance->gpu_count, " GPUs is ", gpus, " GPUs, more than ",
                                                     kMaxGpus));
    }
  } else if (!t.gpu_name().empty()) {
    s.gpu = snap.FindGpu(t.gpu_name());
    if (s.gpu == nullptr) {
      return absl::NotFoundError(absl::StrCat(field, ".gpu_name: no GPU named \"", t.gpu_name(), "\" in the catalog"));
    }
    if (t.count() < 1) return absl::InvalidArgumentError(absl::StrCat(field, ".count: GPUs, must be >= 1"));
    *units = t.count();
  } else {
    return absl::InvalidArgumentError(absl::StrCat(field, ": set gpu_name or instance_type"));
  }
  if (s.gpu == nullptr) return absl::NotFoundError(absl::StrCat(field, ": the instance's GPU is not in the catalog"));
  s.units_max = *units;
  return s;
}

absl::Status CheckPinned(const std::string& field, const char* name, int64_t v, int64_t hi) {
  if (v >= 0 && v <= hi) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(field, ".", name, ": must be in [0, ", hi, "] (0: chosen), got ", v));
}

// Every pinned field in range, whether or not this workload reads it.
absl::Status CheckPinnedParallelism(const v1::Parallelism& p, const std::string& field) {
  for (const auto& [name, v, hi] :
       {std::tuple<const char*, int64_t, int64_t>{"tensor_parallel", p.tensor_parallel(), kMaxGpus},
        {"pipeline_parallel", p.pipeline_parallel(), kMaxGpus},
        {"data_parallel", p.data_parallel(), kMaxGpus},
        {"zero_stage", p.zero_stage(), 3},
        {"micro_batch_sequences", p.micro_batch_sequences(), 4096},
        {"serving_batch_sequences", p.serving_batch_sequences(), kMaxPinnedBatch}}) {
    absl::Status s = CheckPinned(field, name, v, hi);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

// A training layout from pinned fields already checked by CheckPinnedParallelism.
absl::StatusOr<core::ParallelConfig> PinnedLayout(const v1::Parallelism& p, int gpus, const std::string& field) {
  core::ParallelConfig c;
  c.tp = p.tensor_parallel() > 0 ? p.tensor_parallel() : 1;
  c.pp = p.pipeline_parallel() > 0 ? p.pipeline_parallel() : 1;
  // Each factor is at most 65536, so the products fit in 64 bits.
  const int64_t tp_pp = int64_t{c.tp} * c.pp;
  c.dp = p.data_parallel() > 0 ? p.data_parallel() : static_cast<int>(gpus / tp_pp);
  const int64_t product = tp_pp * c.dp;
  if (c.dp < 1 || product != gpus) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": tp x pp x dp = ", c.tp, " x ", c.pp, " x ",
                                                   p.data_parallel() > 0 ? absl::StrCat(c.dp) : "?",
                                                   " must equal the target's ", gpus, " GPUs"));
  }
  c.zero_stage = p.zero_stage();
  switch (p.recompute()) {
    case v1::RECOMPUTE_UNSPECIFIED:
    case v1::RECOMPUTE_NONE: c.recompute = core::Recompute::kNone; break;
    case v1::RECOMPUTE_SELECTIVE: c.recompute = core::Recompute::kSelective; break;
    case v1::RECOMPUTE_FULL: c.recompute = core::Recompute::kFull; break;
    default: return absl::InvalidArgumentError(absl::StrCat(field, ".recompute: must be NONE, SELECTIVE or FULL"));
  }
  c.sequence_parallel = p.sequence_parallel();
  c.micro_batch = p.micro_batch_sequences() > 0 ? p.micro_batch_sequences() : 1;
  return c;
}

bool Pinned(const v1::Parallelism& p) {
  return p.tensor_parallel() > 0 || p.pipeline_parallel() > 0 || p.data_parallel() > 0;
}

}  // namespace

int64_t PricesAsOf(int64_t requested_unix_seconds) {
  if (requested_unix_seconds > 0) return requested_unix_seconds;
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

absl::Status Compare(const CatalogSnapshot& snap, const v1::CompareRequest& req, v1::CompareResponse* resp) {
  if (req.targets_size() < 1 || req.targets_size() > 32) {
    return absl::InvalidArgumentError(absl::StrCat("targets: give 1 to 32 targets, got ", req.targets_size()));
  }
  if (req.prices_as_of_unix_seconds() < 0) {
    return absl::InvalidArgumentError("prices_as_of_unix_seconds: must be >= 0 (0: now)");
  }
  const bool training = req.workload_case() == v1::CompareRequest::kTraining;
  if (!training && req.workload_case() != v1::CompareRequest::kServing) {
    return absl::InvalidArgumentError("workload: set training or serving");
  }
  absl::StatusOr<core::TrainingJob> job;
  absl::StatusOr<core::ServingWorkload> load;
  if (training) {
    job = TrainingJobFrom(snap, req.training(), "training");
    if (!job.ok()) return job.status();
  } else {
    load = ServingWorkloadFrom(snap, req.serving(), "serving");
    if (!load.ok()) return load.status();
  }
  std::vector<Supply> supplies(req.targets_size());
  std::vector<int> units(req.targets_size());
  for (int i = 0; i < req.targets_size(); ++i) {
    absl::StatusOr<Supply> s = CompareSupply(snap, req.targets(i), PricesAsOf(req.prices_as_of_unix_seconds()),
                                             absl::StrCat("targets[", i, "]"), &units[i]);
    if (!s.ok()) return s.status();
    supplies[i] = *s;
    absl::Status pinned = CheckPinnedParallelism(req.targets(i).pinned_parallelism(),
                                                 absl::StrCat("targets[", i, "].pinned_parallelism"));
    if (!pinned.ok()) return pinned;
  }
  std::optional<TrainingEvaluator> train_eval;
  std::optional<ServingEvaluator> serve_eval;
  if (training) train_eval.emplace(snap, *job); else serve_eval.emplace(snap, *load);
  double first_speed = 0, first_cost = 0;
  for (int i = 0; i < req.targets_size(); ++i) {
    const v1::CompareTarget& t = req.targets(i);
    const Supply& s = supplies[i];
    const int gpus = units[i] * s.GpusPerUnit();
    const std::string field = absl::StrCat("targets[", i, "].pinned_parallelism");
    v1::CompareRow* row = resp->add_rows();
    *row->mutable_target() = t;
    double speed = 0, cost = 0;
    if (training) {
      const TrainPick* pick;
      if (Pinned(t.pinned_parallelism())) {
        absl::StatusOr<core::ParallelConfig> layout = PinnedLayout(t.pinned_parallelism(), gpus, field);
        if (!layout.ok()) return layout.status();
        pick = &train_eval->Pick(*s.gpu, gpus, &*layout);
      } else {
        pick = &train_eval->Pick(*s.gpu, gpus);
      }
      if (!pick->ok) {
        row->set_infeasible_reason(pick->reason);
      } else {
        FillTrainingOption(snap, s, units[i], *pick, train_eval->EfficiencyFor(*s.gpu), row->mutable_option());
        speed = 1.0 / pick->estimate.duration_seconds;
        cost = row->option().total_cost_usd().point();
      }
    } else {
      const core::ServingEfficiency& eff = serve_eval->EfficiencyFor(*s.gpu);
      const v1::Parallelism& pin = t.pinned_parallelism();
      absl::StatusOr<core::ServingEstimate> e = absl::FailedPreconditionError("");
      if (pin.serving_batch_sequences() > 0) {
        e = core::EstimateServingAtBatch(*load, s.gpu->spec, std::max(1, pin.tensor_parallel()),
                                         pin.serving_batch_sequences(), eff);
      } else if (pin.tensor_parallel() > 0) {
        e = core::EstimateServing(*load, s.gpu->spec, pin.tensor_parallel(), eff);
      } else {
        e = absl::FailedPreconditionError(absl::StrCat("no tensor-parallel layout fits in ", gpus, " GPUs"));
        for (const core::ServingOption& o : serve_eval->Options(*s.gpu)) {
          if (o.tp > gpus) continue;
          if (o.estimate.ok()) {
            e = o.estimate;
            break;
          }
          if (!e.ok()) e = o.estimate;
        }
      }
      if (e.ok() && e->tp > gpus) {
        e = absl::FailedPreconditionError(absl::StrCat("tensor parallel ", e->tp, " needs more than the ", gpus, " GPUs"));
      }
      if (!e.ok()) {
        row->set_infeasible_reason(std::string(e.status().message()));
      } else {
        ServingFit fit;
        fit.ok = true;
        fit.estimate = *e;
        fit.estimate.replicas = gpus / e->tp;  // what this target can run
        fit.units = units[i];
        core::ServingWorkload at = *load;
        if (!(at.requests_per_second > 0)) {
          at.requests_per_second = e->requests_per_second_per_replica * static_cast<double>(fit.estimate.replicas);
        }
        FillServingOption(snap, s, fit, at, eff, core::kDefaultPue, row->mutable_option());
        speed = row->option().requests_per_second().point();
        cost = row->option().cost_usd_per_hour();
      }
    }
    if (i == 0) {
      first_speed = speed;
      first_cost = cost;
    }
    row->set_speed_ratio_vs_first(first_speed > 0 ? speed / first_speed : 0);
    row->set_cost_ratio_vs_first(first_cost > 0 ? cost / first_cost : 0);
  }
  resp->set_catalog_version(snap.catalog_version);
  return absl::OkStatus();
}

namespace {

// The rent side of a fleet from the catalog: the named instance's price, or the cheapest
// on-demand GPU-hour of that GPU. Sets the per-GPU-hour price and records the price row.
absl::Status CatalogRent(const CatalogSnapshot& snap, const v1::TcoFleet& f, int64_t as_of,
                         const std::string& field, core::TcoFleet* out, v1::Provenance* prov) {
  const v1::RentCosts& rent = f.rent();
  const PriceRow* price = nullptr;
  const InstanceRow* inst = nullptr;
  if (!rent.instance_type().empty()) {
    for (const InstanceRow& i : snap.instances) {
      if (i.instance_type == rent.instance_type() && (rent.provider().empty() || i.provider == rent.provider()) &&
          (rent.region().empty() || i.region == rent.region())) {
        inst = &i;
        break;
      }
    }
    if (inst == nullptr) {
      return absl::NotFoundError(absl::StrCat(field, ".rent.instance_type: no instance type \"", rent.instance_type(), "\""));
    }
    if (inst->gpu_name != f.gpu_name()) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".rent.instance_type: ", rent.instance_type(), " carries ",
                                                     inst->gpu_name, ", not ", f.gpu_name()));
    }
    store::PriceKind kind = store::PriceKind::kOnDemand;
    if (rent.price_kind() != v1::PRICE_KIND_UNSPECIFIED) {
      absl::StatusOr<store::PriceKind> k = PriceKindFromProto(rent.price_kind(), field + ".rent.price_kind");
      if (!k.ok()) return k.status();
      kind = *k;
    }
    price = snap.PriceAt(*inst, kind, as_of);
    if (price == nullptr) {
      return absl::NotFoundError(
          absl::StrCat(field, ".rent: no ", store::PriceKindName(kind), " price for ", rent.instance_type()));
    }
  } else {
    for (const InstanceRow& i : snap.instances) {
      if (i.gpu_name != f.gpu_name() || i.gpu_count < 1) continue;
      const PriceRow* p = snap.PriceAt(i, store::PriceKind::kOnDemand, as_of);
      if (p != nullptr &&
          (price == nullptr || p->price_usd_per_hour / i.gpu_count < price->price_usd_per_hour / inst->gpu_count)) {
        price = p;
        inst = &i;
      }
    }
    if (price == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(field, ".rent: the catalog has no price for ", f.gpu_name(),
                                                        "; give rent.price_usd_per_month or rent.instance_type"));
    }
  }
  if (inst->gpu_count < 1) {
    return absl::FailedPreconditionError(absl::StrCat(field, ".rent.instance_type: the catalog row has no GPUs"));
  }
  out->rent_usd_per_gpu_hour = price->price_usd_per_hour / inst->gpu_count;
  PriceToProto(*price, prov->add_prices());
  return absl::OkStatus();
}

// One fleet part from the request: catalog names resolved, defaults filled in. Ranges are
// core::ValidateTcoFleet's.
absl::StatusOr<core::TcoFleet> TcoFleetFrom(const CatalogSnapshot& snap, const v1::TcoFleet& f, int64_t as_of,
                                            const std::string& field, v1::Provenance* prov) {
  const GpuRow* gpu = snap.FindGpu(f.gpu_name());
  if (gpu == nullptr) {
    return absl::NotFoundError(absl::StrCat(field, ".gpu_name: no GPU named \"", f.gpu_name(), "\" in the catalog"));
  }
  if (f.gpu_count() < 1 || f.gpu_count() > kMaxGpus) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".gpu_count: must be in [1, ", kMaxGpus, "], got ", f.gpu_count()));
  }
  core::TcoFleet out;
  out.role = f.role();
  out.gpu_count = f.gpu_count();
  out.usage_gpu_hours_per_month =
      f.usage_gpu_hours_per_month() != 0 ? f.usage_gpu_hours_per_month() : f.gpu_count() * units::kHoursPerMonth;
  const v1::OwnCosts& own = f.own();
  if (own.capex_usd() < 0) return absl::InvalidArgumentError(absl::StrCat(field, ".own.capex_usd: must be >= 0"));
  out.capex_usd = own.capex_usd() > 0 ? own.capex_usd() : gpu->list_price_usd * f.gpu_count();
  if (!(out.capex_usd > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".own.capex_usd: required: the catalog has no list price for ", f.gpu_name()));
  }
  if (own.depreciation_months() != 0) out.depreciation_months = own.depreciation_months();
  out.power_watts = own.has_power_watts() ? own.power_watts() : gpu->spec.tdp_watts * f.gpu_count();
  if (own.pue() != 0) out.pue = own.pue();
  if (own.has_electricity_usd_per_kwh()) out.electricity_usd_per_kwh = own.electricity_usd_per_kwh();
  out.ops_usd_per_month = own.ops_usd_per_month();
  out.maintenance_fraction_per_year = own.maintenance_fraction_per_year();
  out.discount_fraction = f.rent().discount_fraction();
  out.rent_flat_usd_per_month = f.rent().price_usd_per_month();
  absl::Status valid = core::ValidateTcoFleet(out);  // before the catalog is searched for a price
  if (!valid.ok()) return Prefixed(valid, field + ".");
  if (out.rent_flat_usd_per_month == 0) {
    absl::Status rent = CatalogRent(snap, f, as_of, field, &out, prov);
    if (!rent.ok()) return rent;
  }
  return out;
}

// The requests and output tokens the serving parts can carry at the workload's SLOs.
double ServingCapacity(const CatalogSnapshot& snap, const core::ServingWorkload& w, const GpuRow& gpu, int count) {
  double best = 0;
  for (const core::ServingOption& o :
       core::SearchServing(w, gpu.spec, core::ServingEfficiencyFor(w, gpu.spec, snap.serving_benchmarks))) {
    if (!o.estimate.ok() || o.tp > count) continue;
    best = std::max(best, o.estimate->requests_per_second_per_replica * (count / o.tp) * w.target_utilization);
  }
  return best;
}

}  // namespace

absl::Status Tco(const CatalogSnapshot& snap, const v1::TcoRequest& req, v1::TcoResponse* resp) {
  if (req.horizon_months() < 1 || req.horizon_months() > core::kMaxHorizonMonths) {
    return absl::InvalidArgumentError(absl::StrCat("horizon_months: must be in [1, ", core::kMaxHorizonMonths,
                                                   "], got ", req.horizon_months()));
  }
  if (req.fleets_size() < 1 || req.fleets_size() > core::kMaxTcoFleets) {
    return absl::InvalidArgumentError(
        absl::StrCat("fleets: give 1 to ", core::kMaxTcoFleets, " fleet parts, got ", req.fleets_size()));
  }
  if (req.prices_as_of_unix_seconds() < 0) {
    return absl::InvalidArgumentError("prices_as_of_unix_seconds: must be >= 0 (0: now)");
  }
  const int64_t as_of = PricesAsOf(req.prices_as_of_unix_seconds());
  v1::Provenance* prov = resp->mutable_provenance();
  prov->set_catalog_version(snap.catalog_version);
  std::vector<core::TcoFleet> fleets;
  for (int i = 0; i < req.fleets_size(); ++i) {
    absl::StatusOr<core::TcoFleet> f = TcoFleetFrom(snap, req.fleets(i), as_of, absl::StrCat("fleets[", i, "]"), prov);
    if (!f.ok()) return f.status();
    fleets.push_back(std::move(*f));
  }
  absl::StatusOr<core::TcoResult> tco = core::ComputeTco(fleets, req.horizon_months());
  if (!tco.ok()) return tco.status();
  for (int i = 0; i < req.fleets_size(); ++i) {
    const core::TcoFleetResult& f = tco->fleets[i];
    v1::TcoFleetResult* r = resp->add_fleets();
    r->set_role(req.fleets(i).role());
    r->set_gpu_name(req.fleets(i).gpu_name());
    r->set_gpu_count(req.fleets(i).gpu_count());
    r->set_own_usd_per_month(f.own_usd_per_month);
    r->set_own_capex_usd(f.own_capex_usd);
    r->set_own_power_usd_per_month(f.own_power_usd_per_month);
    r->set_rent_usd_per_month(f.rent_usd_per_month);
    r->set_rent_usd_per_gpu_hour(f.rent_usd_per_gpu_hour);
    r->set_break_even_gpu_hours_per_month(f.break_even_gpu_hours_per_month);
  }
  for (const core::TcoMonth& m : tco->series) {
    v1::TcoPoint* pt = resp->add_series();
    pt->set_month(m.month);
    pt->set_own_usd(m.own_usd);
    pt->set_rent_usd(m.rent_usd);
    pt->set_own_cumulative_usd(m.own_cumulative_usd);
    pt->set_rent_cumulative_usd(m.rent_cumulative_usd);
  }
  resp->set_break_even_month(tco->break_even_month);
  resp->set_break_even_gpu_hours_per_month(tco->break_even_gpu_hours_per_month);
  resp->set_own_usd_per_used_gpu_hour(tco->own_usd_per_used_gpu_hour);
  resp->set_rent_usd_per_used_gpu_hour(tco->rent_usd_per_used_gpu_hour);
  if (req.has_serving()) {
    absl::StatusOr<core::ServingWorkload> w = ServingWorkloadFrom(snap, req.serving(), "serving");
    if (!w.ok()) return w.status();
    if (!(w->requests_per_second > 0)) {
      return absl::InvalidArgumentError("serving.requests_per_second: must be > 0 for per-request costs");
    }
    // Parts named "serving" carry the load; with none so named, every part does.
    bool any_serving_role = false;
    for (const v1::TcoFleet& f : req.fleets()) any_serving_role = any_serving_role || f.role() == "serving";
    double capacity = 0, own_serving = 0, rent_serving = 0;
    for (int i = 0; i < req.fleets_size(); ++i) {
      if (any_serving_role && req.fleets(i).role() != "serving") continue;
      own_serving += tco->fleets[i].own_usd_per_month;
      rent_serving += tco->fleets[i].rent_usd_per_month;
      capacity += ServingCapacity(snap, *w, *snap.FindGpu(req.fleets(i).gpu_name()), req.fleets(i).gpu_count());
    }
    resp->set_serving_capacity_requests_per_second(capacity);
    if (capacity < w->requests_per_second) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "serving: the serving GPUs carry %.2f req/s at the SLOs and %.0f%% planned use; the workload offers %.2f",
          capacity, w->target_utilization * 100, w->requests_per_second));
    }
    const core::ServingCostPerUnit c =
        core::ServingCosts(own_serving, rent_serving, w->requests_per_second, static_cast<double>(w->output_tokens));
    resp->set_own_usd_per_million_requests(c.own_usd_per_million_requests);
    resp->set_rent_usd_per_million_requests(c.rent_usd_per_million_requests);
    resp->set_own_usd_per_million_output_tokens(c.own_usd_per_million_output_tokens);
    resp->set_rent_usd_per_million_output_tokens(c.rent_usd_per_million_output_tokens);
  }
  for (const std::string& f : core::TcoFormulas()) prov->add_formulas(f);
  return absl::OkStatus();
}

absl::Status Plan(const CatalogSnapshot& snap, const v1::PlanRequest& req, v1::PlanResponse* resp) {
  if (req.top_k() < 0 || req.top_k() > 100) {
    return absl::InvalidArgumentError(absl::StrCat("top_k: must be in [0, 100] (0: ", kDefaultTopK, "), got ", req.top_k()));
  }
  if (req.prices_as_of_unix_seconds() < 0) {
    return absl::InvalidArgumentError("prices_as_of_unix_seconds: must be >= 0 (0: now)");
  }
  if (req.deadline_seconds() < 0 || req.deadline_seconds() > 1e10) {
    return absl::InvalidArgumentError("deadline_seconds: must be in [0, 1e10]");
  }
  if (req.budget_usd() < 0 || req.budget_usd() > 1e12) {
    return absl::InvalidArgumentError("budget_usd: must be in [0, 1e12]");
  }
  switch (req.workload_case()) {
    case v1::PlanRequest::kTraining:
      return PlanTraining(snap, req, resp);
    case v1::PlanRequest::kServing:
      return PlanServing(snap, req, resp);
    default:
      return absl::InvalidArgumentError("workload: set training or serving");
  }
}

}  // namespace capplan::server
