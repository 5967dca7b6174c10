// ServingEvaluator: per-GPU efficiency and layout searches of a serving Plan, memoised
// within one Plan, and the fit of those layouts to one supply (an offer's GPUs and budget).
#include <algorithm>
#include <memory>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/field_count.h"
#include "core/format.h"
#include "core/planner/serving_plan.h"
#include "core/units.h"

namespace capplan::core::planner {
namespace {

// ServingEfficiencyFor reads the workload's model, weight and KV precision, request lengths
// (the benchmarks' ranking, and lengths a benchmark lacks), engine and version, and the GPU;
// never the load, the SLOs, the utilisation or the closed-loop count (a benchmark's setup
// replaces them). A new field fails here until the key says whether calibration reads it.
static_assert(FieldCount<ServingWorkload>() == 14,
              "ServingWorkload changed: extend CalibrationKey and BatchSearchPrefix");

std::string CalibrationKey(const ServingWorkload& w, const GpuSpec& gpu) {
  return absl::StrCat(ModelAndGpuKey(w.model, gpu), "|", static_cast<int>(w.weight_precision), "|",
                      static_cast<int>(w.kv_precision), "|", w.prompt_tokens, "|", w.output_tokens, "|",
                      static_cast<int>(w.engine), "|", w.engine_version.major, ".", w.engine_version.minor);
}

// The part of a batch search's key that is not the search's own (BatchMemo, serving.h):
// the workload but its load and target utilisation, the whole model and GPU, and the
// efficiencies, as raw bytes.
std::string BatchSearchPrefix(const ServingWorkload& w, const GpuSpec& gpu, const ServingEfficiency& e) {
  std::string out = ModelAndGpuKey(w.model, gpu);
  auto put = [&out](const auto& v) { out.append(reinterpret_cast<const char*>(&v), sizeof(v)); };
  put(w.weight_precision);
  put(w.kv_precision);
  put(w.prompt_tokens);
  put(w.output_tokens);
  put(w.ttft_slo_seconds);
  put(w.tpot_slo_seconds);
  put(w.e2e_slo_seconds);
  put(w.engine);
  put(w.engine_version.major);
  put(w.engine_version.minor);
  put(w.concurrent_requests);
  put(w.batch_arrives_at_once);
  for (const Efficiency* f : {&e.bandwidth, &e.compute}) {
    put(f->point);
    put(f->low);
    put(f->high);
  }
  return out;
}

// A search's outcome that reads no load, from the per-version cache or computed (and kept);
// without a cache, computed.
template <typename T, typename Compute>
T KeptAcrossLoads(LayoutCacheRef cache, const std::string& key, Compute compute) {
  if (cache.cache == nullptr) return compute();
  if (std::shared_ptr<const void> kept = cache.cache->FindResult(cache.version, key)) {
    return *std::static_pointer_cast<const T>(kept);
  }
  T fresh = compute();
  cache.cache->StoreResult(cache.version, key, std::make_shared<const T>(fresh));
  return fresh;
}

}  // namespace

int64_t ServingEvaluator::CacheBatches::Find(const std::string& key) { return ref.cache->FindBatch(ref.version, key); }

void ServingEvaluator::CacheBatches::Store(const std::string& key, int64_t batch) {
  ref.cache->StoreBatch(ref.version, key, batch);
}

const BatchMemoRef& ServingEvaluator::MemoFor(const GpuRow& gpu) {
  auto it = memo_refs_.find(gpu.spec.name);
  if (it != memo_refs_.end()) return it->second;
  BatchMemoRef ref;
  if (cache_.cache != nullptr) {
    ref.memo = &batches_;
    ref.prefix = BatchSearchPrefix(w_, gpu.spec, EfficiencyFor(gpu));
  }
  return memo_refs_.emplace(gpu.spec.name, std::move(ref)).first->second;
}

const ServingEfficiency& ServingEvaluator::EfficiencyFor(const GpuRow& gpu) {
  auto it = efficiency_.find(gpu.spec.name);
  if (it != efficiency_.end()) return it->second;
  std::string key;
  if (cache_.cache != nullptr) {
    key = CalibrationKey(w_, gpu.spec);
    std::shared_ptr<const Efficiency> bw = cache_.cache->FindEfficiency(cache_.version, key + "|bandwidth");
    std::shared_ptr<const Efficiency> fl = cache_.cache->FindEfficiency(cache_.version, key + "|compute");
    if (bw != nullptr && fl != nullptr)
      return efficiency_.emplace(gpu.spec.name, ServingEfficiency{*bw, *fl}).first->second;
  }
  ServingEfficiency e = ServingEfficiencyFor(w_, gpu.spec, catalog_.ServingBenchmarks());
  if (cache_.cache != nullptr) {
    cache_.cache->StoreEfficiency(cache_.version, key + "|bandwidth", e.bandwidth);
    cache_.cache->StoreEfficiency(cache_.version, key + "|compute", e.compute);
  }
  return efficiency_.emplace(gpu.spec.name, std::move(e)).first->second;
}

const std::vector<ServingOption>& ServingEvaluator::Options(const GpuRow& gpu) {
  auto it = options_.find(gpu.spec.name);
  if (it != options_.end()) return it->second;
  // The options but their replicas read no load: kept per catalog version under the batch
  // searches' prefix (the workload but its load, the GPU, the efficiencies) and sized here.
  const BatchMemoRef& memo = MemoFor(gpu);
  std::vector<ServingOption> options = KeptAcrossLoads<std::vector<ServingOption>>(
      cache_, memo.prefix + "|colocated-options",
      [&] { return SearchServingUnranked(w_, gpu.spec, EfficiencyFor(gpu), memo); });
  SizeAndRankServingOptions(w_, &options);
  return options_.emplace(gpu.spec.name, std::move(options)).first->second;
}

int64_t ReplicasPerUnits(const Supply& s, const MultiNodeServing& m, int64_t units) {
  return s.pool != nullptr ? units / m.GpusPerReplica() : units / m.pp;
}

namespace {

// One co-located replica's unqueued figures. Chunked prefill keeps the replica's compute
// busy for each prompt's FLOPs (PrefillBusySeconds): the prefill server of the queue model.
ReplicaService ColocatedService(const ServingWorkload& w, const ServingEstimate& e, const PrefillEstimate& p) {
  ReplicaService s;
  s.ttft_seconds = e.ttft_seconds;
  s.tpot_seconds = e.tpot_seconds;
  s.output_tokens = w.output_tokens;
  s.batch = e.batch;
  s.capacity_per_second = e.requests_per_second_per_replica;
  // Never busier than the whole replica's time per request.
  s.prefill_busy_seconds = std::min(PrefillBusySeconds(p), 1.0 / e.requests_per_second_per_replica);
  return s;
}

// `prefill`: one prompt on one replica (on one pipeline stage, for a replica across nodes:
// the stage that is busiest per prompt sets the replica's prompt rate).
absl::StatusOr<ServingLayout> SizeColocated(const ServingWorkload& w, const ServingEstimate& e,
                                            const PrefillEstimate& prefill, int64_t gpus_per_replica) {
  ServingLayout l;
  l.estimate = e;
  l.service = ColocatedService(w, e, prefill);
  const double slo_break = SloBreakLoad(l.service, w.ttft_slo_seconds, w.e2e_slo_seconds);
  const int64_t n =
      ReplicasForLoad(w.requests_per_second, l.service.capacity_per_second, w.target_utilization, slo_break);
  if (n < 1) {
    return absl::FailedPreconditionError(absl::StrCat("tp=", e.tp, " at batch ", e.batch, ": unqueued TTFT ",
                                                      Fixed(e.ttft_seconds, 3),
                                                      " s leaves no room for queueing under the p99 SLOs at any load"));
  }
  l.estimate.replicas = n;
  l.estimate.total_gpus = n * gpus_per_replica;
  l.latency = LatencyAt(l.service, w.requests_per_second / static_cast<double>(n));
  l.slo_break_requests_per_second = slo_break * static_cast<double>(n);
  return l;
}

ServingLayout FromDisaggregated(const ServingWorkload& w, const DisaggregatedServing& d) {
  ServingLayout l;
  l.deployment = ServingDeployment::kDisaggregated;
  ServingEstimate& e = l.estimate;
  e.tp = d.decode_tp;
  e.batch = d.decode_batch;
  e.memory = d.decode_memory;
  e.ttft_seconds = d.ttft_seconds;
  e.ttft_seconds_low = d.ttft_seconds_low;
  e.ttft_seconds_high = d.ttft_seconds_high;
  e.tpot_seconds = d.tpot_seconds;
  e.tpot_seconds_low = d.tpot_seconds_low;
  e.tpot_seconds_high = d.tpot_seconds_high;
  e.e2e_seconds = d.ttft_seconds + static_cast<double>(w.output_tokens - 1) * d.tpot_seconds;
  e.requests_per_second_per_replica = d.decode_capacity_per_second;
  e.requests_per_second_low = d.decode_capacity_low_per_second;
  e.requests_per_second_high = d.decode_capacity_high_per_second;
  e.output_tokens_per_second_per_replica = d.decode_capacity_per_second * static_cast<double>(w.output_tokens);
  e.replicas = d.decode_replicas;
  e.total_gpus = d.total_gpus;
  e.bottleneck = d.bottleneck;
  l.disagg = d;
  l.latency = d.latency;
  l.slo_break_requests_per_second = d.slo_break_requests_per_second;
  return l;
}

// A replica's tensor-parallel group stays on the fabric's fast link (one node) and inside
// one instance; -1 when it cannot.
bool GroupFits(const Supply& s, int tp) {
  if (s.fabric.Known() && tp > s.fabric.gpus_per_node) return false;
  return s.pool != nullptr || tp <= s.GpusPerUnit();
}

// Instances (or pool GPUs) that `replicas` replicas of `tp` GPUs take on this supply; -1 when
// a replica cannot fit one instance or one node of the supply's fabric.
int64_t UnitsFor(const Supply& s, int64_t replicas, int tp) {
  if (!GroupFits(s, tp)) return -1;
  if (s.pool != nullptr) return replicas * tp;
  const int64_t replicas_per_unit = s.GpusPerUnit() / tp;
  return (replicas + replicas_per_unit - 1) / replicas_per_unit;
}

int64_t UnitsFor(const Supply& s, const ServingLayout& l, bool may_cluster) {
  if (l.multinode) {
    if (!may_cluster || !GroupFits(s, l.multinode->tp)) return -1;
    return s.pool != nullptr ? l.estimate.replicas * l.multinode->GpusPerReplica()
                             : l.estimate.replicas * l.multinode->pp;
  }
  if (!l.disagg) return UnitsFor(s, l.estimate.replicas, l.estimate.tp);
  const DisaggregatedServing& d = *l.disagg;
  if (!GroupFits(s, d.prefill_tp) || !GroupFits(s, d.decode_tp)) return -1;
  if (d.kv_over_network && !may_cluster) return -1;  // KV moves between instances: a cluster
  if (s.pool != nullptr) return d.total_gpus;
  const int per_unit = s.GpusPerUnit();
  // Pools paired inside nodes share instances; power-of-two groups that divide the
  // instance pack without gaps.
  if (!d.kv_over_network && per_unit % d.prefill_tp == 0 && per_unit % d.decode_tp == 0) {
    return (d.total_gpus + per_unit - 1) / per_unit;
  }
  return UnitsFor(s, d.prefill_replicas, d.prefill_tp) + UnitsFor(s, d.decode_replicas, d.decode_tp);
}

// A replica whose KV cache gets under this share of GPU memory runs few sequences at once;
// a wider tensor-parallel group, when one fits, spreads the weights and frees memory for it.
constexpr double kMinKvShareOfMemory = 0.10;

bool RoomyKv(const ServingLayout& l) {
  const ServingMemory& m = l.estimate.memory;
  return l.disagg || m.capacity_bytes <= 0 || m.kv_budget_bytes >= kMinKvShareOfMemory * m.capacity_bytes;
}

// Requests per second the units carry with replicas filling every instance (co-located).
double FilledCapacity(const Supply& s, const ServingLayout& l, int64_t units) {
  if (l.disagg) return l.estimate.requests_per_second_per_replica * static_cast<double>(l.estimate.replicas);
  if (l.multinode) {
    return l.estimate.requests_per_second_per_replica * static_cast<double>(ReplicasPerUnits(s, *l.multinode, units));
  }
  const int64_t gpus = units * (s.pool != nullptr ? 1 : s.GpusPerUnit());
  const int64_t replicas = gpus / l.estimate.tp;  // whole replicas only
  return l.estimate.requests_per_second_per_replica * static_cast<double>(replicas);
}

std::string TooManyGpus(const ServingLayout& l, int64_t allowed) {
  const std::string layout =
      l.disagg      ? absl::StrFormat("disaggregated: %d prefill replicas of tp=%d, %d decode replicas of tp=%d",
                                      l.disagg->prefill_replicas, l.disagg->prefill_tp, l.disagg->decode_replicas,
                                      l.disagg->decode_tp)
      : l.multinode ? absl::StrFormat("colocated: %d replicas of tp=%d pp=%d across %d nodes each", l.estimate.replicas,
                                      l.estimate.tp, l.multinode->pp, l.multinode->pp)
                    : absl::StrFormat("colocated: %d replicas of tp=%d", l.estimate.replicas, l.estimate.tp);
  return absl::StrFormat("needs %d GPUs (%s), more than the %d allowed", l.estimate.total_gpus, layout, allowed);
}

}  // namespace

const std::vector<absl::StatusOr<ServingLayout>>& ServingEvaluator::Colocated(const GpuRow& gpu) {
  auto it = colocated_.find(gpu.spec.name);
  if (it != colocated_.end()) return it->second;
  std::vector<absl::StatusOr<ServingLayout>> out;
  for (const ServingOption& o : Options(gpu)) {
    if (!o.estimate.ok()) {
      out.push_back(o.estimate.status());
      continue;
    }
    out.push_back(SizeColocated(w_, *o.estimate, o.prefill, o.tp));
  }
  return colocated_.emplace(gpu.spec.name, std::move(out)).first->second;
}

ServingEvaluator::FabricKey ServingEvaluator::KeyOf(const Supply& s) {
  const Fabric& f = s.fabric;
  return {s.gpu,
          f.gpus_per_node,
          f.intra_node_bytes_per_second_per_gpu,
          static_cast<int>(f.network),
          f.network_bytes_per_second_per_gpu,
          f.network_latency_seconds};
}

const std::vector<absl::StatusOr<ServingLayout>>& ServingEvaluator::MultiNode(const Supply& s) {
  const FabricKey key = KeyOf(s);
  auto it = multinode_.find(key);
  if (it != multinode_.end()) return it->second;
  std::vector<absl::StatusOr<ServingLayout>> out;
  int fitting = 0;
  // Deeper pipelines add a boundary per token and only buy KV-cache room: past the first two
  // depths that fit, they are not searched.
  for (const MultiNodeOption& o :
       SearchMultiNodeServing(w_, s.gpu->spec, s.fabric, EfficiencyFor(*s.gpu), 2, MemoFor(*s.gpu))) {
    if (fitting >= 2) break;
    if (!o.serving.ok()) {
      out.push_back(o.serving.status());
      continue;
    }
    absl::StatusOr<ServingLayout> l =
        SizeColocated(w_, o.serving->estimate, o.serving->stage_prefill, o.serving->GpusPerReplica());
    if (l.ok()) {
      l->multinode = *o.serving;
      ++fitting;
    }
    out.push_back(std::move(l));
  }
  return multinode_.emplace(key, std::move(out)).first->second;
}

std::vector<DisaggregatedStage> ServingEvaluator::StagesFor(const GpuRow& gpu) {
  // As Options: the stages but their decode pools read no load, so they are kept per catalog
  // version and only the pools are sized per call.
  const BatchMemoRef& memo = MemoFor(gpu);
  std::vector<DisaggregatedStage> stages = KeptAcrossLoads<std::vector<DisaggregatedStage>>(
      cache_, memo.prefix + "|disaggregated-stages",
      [&] { return UnsizedDisaggregatedStages(w_, gpu.spec, EfficiencyFor(gpu), memo); });
  for (DisaggregatedStage& st : stages) SizeDecodePool(w_, &st);
  return stages;
}

const absl::StatusOr<std::vector<ServingLayout>>& ServingEvaluator::Disaggregated(const Supply& s) {
  const FabricKey key = KeyOf(s);
  auto it = disagg_.find(key);
  if (it != disagg_.end()) return it->second;
  auto st = stages_.find(s.gpu->spec.name);
  if (st == stages_.end()) st = stages_.emplace(s.gpu->spec.name, StagesFor(*s.gpu)).first;
  absl::StatusOr<std::vector<DisaggregatedServing>> found = SearchDisaggregated(w_, s.fabric, st->second);
  absl::StatusOr<std::vector<ServingLayout>> layouts = std::vector<ServingLayout>();
  if (found.ok()) {
    for (const DisaggregatedServing& d : *found) layouts->push_back(FromDisaggregated(w_, d));
  } else {
    layouts = found.status();
  }
  return disagg_.emplace(key, std::move(layouts)).first->second;
}

ServingFit ServingEvaluator::Fit(const Supply& s, int max_units, ServingDeployment kind, bool may_cluster) {
  std::vector<const ServingLayout*> layouts;
  const absl::Status* first_error = nullptr;
  if (kind == ServingDeployment::kColocated) {
    for (const absl::StatusOr<ServingLayout>& l : Colocated(*s.gpu)) {
      if (l.ok()) {
        layouts.push_back(&*l);
      } else if (first_error == nullptr) {
        first_error = &l.status();
      }
    }
  } else {
    const absl::StatusOr<std::vector<ServingLayout>>& disagg = Disaggregated(s);
    if (disagg.ok()) {
      for (const ServingLayout& l : *disagg) layouts.push_back(&l);
    } else {
      first_error = &disagg.status();
    }
  }
  return Choose(s, max_units, may_cluster, layouts, first_error);
}

ServingFit ServingEvaluator::FitMultiNode(const Supply& s, int max_units, bool may_cluster) {
  ServingFit none;
  if (!may_cluster) {
    none.reason = s.instance != nullptr ? NotClusteredReason(s) : "the pool has no network between nodes";
    none.code = RejectionReason::kNotClustered;
    return none;
  }
  std::vector<const ServingLayout*> layouts;
  const absl::Status* first_error = nullptr;
  for (const absl::StatusOr<ServingLayout>& l : MultiNode(s)) {
    if (l.ok()) {
      layouts.push_back(&*l);
    } else if (first_error == nullptr) {
      first_error = &l.status();
    }
  }
  if (layouts.empty() && first_error == nullptr) {
    none.reason = "no network between nodes to span";
    none.code = RejectionReason::kNoLayout;
    return none;
  }
  return Choose(s, max_units, may_cluster, layouts, first_error);
}

ServingFit ServingEvaluator::Choose(const Supply& s, int max_units, bool may_cluster,
                                    const std::vector<const ServingLayout*>& layouts, const absl::Status* first_error) {
  ServingFit best;
  const ServingLayout* too_big = nullptr;  // the smallest layout over the limit
  int64_t too_big_units = 0;
  double best_cost = 0, best_capacity = 0;
  // Layouts leaving under kMinKvShareOfMemory for the KV cache only when no roomier one fits.
  bool roomy = false;
  for (const ServingLayout* l : layouts) {
    roomy = roomy || (!l->disagg && RoomyKv(*l) && UnitsFor(s, *l, may_cluster) >= 0);
  }
  // The cheapest; at equal cost the most requests per second on what is billed (replicas
  // fill the instances), then the lowest TPOT.
  for (const ServingLayout* lp : layouts) {
    const ServingLayout& l = *lp;
    if (roomy && !RoomyKv(l)) continue;
    const int64_t units = UnitsFor(s, l, may_cluster);
    if (units < 0) continue;
    if (units > max_units) {
      if (too_big == nullptr || units < too_big_units) {
        too_big = &l;
        too_big_units = units;
      }
      continue;
    }
    const double cost = static_cast<double>(units) * s.UsdPerUnitHour();
    const double capacity = FilledCapacity(s, l, units);
    if (best.estimate == nullptr || cost < best_cost ||
        (cost == best_cost &&
         (capacity > best_capacity ||
          (capacity == best_capacity && l.estimate.tpot_seconds < best.estimate->estimate.tpot_seconds)))) {
      best.estimate = &l;
      best.units = static_cast<int>(units);
      best_cost = cost;
      best_capacity = capacity;
    }
  }
  if (best.estimate != nullptr) return best;
  if (too_big != nullptr) {
    best.reason = TooManyGpus(*too_big, int64_t{max_units} * s.GpusPerUnit());
    best.code = RejectionReason::kTooManyGpus;
    best.distance = static_cast<double>(too_big_units) / std::max(1, max_units);
  } else if (first_error != nullptr) {
    best.reason = std::string(first_error->message());
    best.code = RejectionReason::kInvalid;  // the estimator's message says why (memory, SLO)
  } else {
    best.reason = absl::StrCat("no tensor-parallel layout fits in ", s.GpusPerUnit(), " GPUs per instance");
    best.code = RejectionReason::kNoLayout;
  }
  return best;
}

}  // namespace capplan::core::planner
