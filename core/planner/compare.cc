#include "core/planner/compare.h"

#include <algorithm>
#include <optional>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "core/planner/query.h"
#include "core/units.h"
#include "core/validate.h"

namespace capplan::core::planner {

namespace {

absl::Status CheckPin(const Pin& p, const std::string& field) {
  for (const auto& [name, v, hi] :
       {std::tuple<const char*, int64_t, int64_t>{"tensor_parallel", p.tensor_parallel, kMaxGpus},
        {"pipeline_parallel", p.pipeline_parallel, kMaxGpus},
        {"data_parallel", p.data_parallel, kMaxGpus},
        {"zero_stage", p.zero_stage.value_or(0), 3},
        {"micro_batch_sequences", p.micro_batch_sequences, 4096},
        {"virtual_pipeline_stages", p.virtual_pipeline_stages, kMaxGpus},
        {"context_parallel", p.context_parallel, kMaxGpus},
        {"expert_parallel", p.expert_parallel, kMaxGpus},
        {"shard_group_gpus", p.shard_group_gpus.value_or(0), kMaxGpus},
        {"serving_batch_sequences", p.serving_batch_sequences, int64_t{1} << 20}}) {
    if (v < 0 || v > hi) {
      return FieldError(absl::StrCat(field, ".", name), absl::StrCat("must be in [0, ", hi, "] (0: chosen), got ", v));
    }
  }
  return absl::OkStatus();
}

// The supply a target names and how many units of it (instances, or GPUs).
absl::StatusOr<Supply> TargetSupply(const CatalogView& catalog, const CompareTarget& t, int64_t as_of,
                                    const std::string& field, int* units) {
  CAPPLAN_RETURN_IF_ERROR(CheckRange(field + ".count", int64_t{t.count}, 0, kMaxGpus));
  Supply s;
  if (!t.instance_type.empty()) {
    for (const InstanceRow& i : catalog.Instances()) {
      if (i.instance_type == t.instance_type && (t.region.empty() || i.region == t.region)) {
        s.instance = &i;
        break;
      }
    }
    if (s.instance == nullptr) {
      return absl::NotFoundError(absl::StrCat(field, ".instance_type: no instance type \"", t.instance_type, "\"",
                                              t.region.empty() ? "" : " in region \"" + t.region + "\"",
                                              " in the catalog"));
    }
    if (s.instance->gpu_count < 1 || s.instance->gpu_count > kMaxGpusPerInstance) {
      return absl::FailedPreconditionError(absl::StrCat(field, ".instance_type: the catalog row for ", t.instance_type,
                                                        " has ", s.instance->gpu_count, " GPUs, outside [1, ",
                                                        kMaxGpusPerInstance, "]"));
    }
    s.gpu = catalog.FindGpu(s.instance->gpu_name);
    s.price = catalog.PriceAt(*s.instance, t.price_kind, as_of);
    if (s.price == nullptr && t.price_kind != PriceKind::kOnDemand) {
      return absl::NotFoundError(absl::StrCat(field, ".price_kind: the catalog has no ", PriceKindName(t.price_kind),
                                              " price for ", s.instance->provider, " ", t.instance_type, " in ",
                                              s.instance->region, " at the prices' date"));
    }
    *units = t.count > 0 ? t.count : 1;
    const int64_t gpus = int64_t{*units} * s.instance->gpu_count;
    if (gpus > kMaxGpus) {
      return FieldError(field + ".count", absl::StrCat(*units, " instances of ", s.instance->gpu_count, " GPUs is ",
                                                       gpus, " GPUs, more than ", kMaxGpus));
    }
  } else if (!t.gpu_name.empty()) {
    s.gpu = catalog.FindGpu(t.gpu_name);
    if (s.gpu == nullptr) {
      return absl::NotFoundError(absl::StrCat(field, ".gpu_name: no GPU named \"", t.gpu_name, "\" in the catalog"));
    }
    if (t.count < 1) return FieldError(field + ".count", "GPUs, must be >= 1");
    *units = t.count;
  } else {
    return FieldError(field, "set gpu_name or instance_type");
  }
  if (s.gpu == nullptr) return absl::NotFoundError(absl::StrCat(field, ": the instance's GPU is not in the catalog"));
  s.units_max = *units;
  return s;
}

// The parts of the layout the target fixes; the rest is searched. tp x pp x dp x cp must
// equal the target's GPUs when tp, pp and dp are all given.
absl::StatusOr<SearchOptions> PinnedSearch(const Pin& p, int gpus, const std::string& field) {
  SearchOptions o;
  ParallelConfig& c = o.pinned;
  c.tp = static_cast<int>(p.tensor_parallel);
  c.pp = static_cast<int>(p.pipeline_parallel);
  c.dp = static_cast<int>(p.data_parallel);
  c.cp = static_cast<int>(p.context_parallel);
  c.vpp = static_cast<int>(p.virtual_pipeline_stages);
  c.ep = static_cast<int>(p.expert_parallel);
  c.micro_batch = p.micro_batch_sequences;
  c.sequence_parallel = p.sequence_parallel;
  // Each factor is at most 65536 (CheckPin), so the products fit in 64 bits.
  const int64_t product = int64_t{std::max(c.tp, 1)} * std::max(c.pp, 1) * std::max(c.dp, 1) * std::max(c.cp, 1);
  const bool all = c.tp > 0 && c.pp > 0 && c.dp > 0;
  if (all ? product != gpus : gpus % product != 0) {
    return FieldError(field, absl::StrCat("tp x pp x dp x cp = ", std::max(c.tp, 1), " x ", std::max(c.pp, 1), " x ",
                                          c.dp > 0 ? absl::StrCat(c.dp) : "?", " x ", std::max(c.cp, 1),
                                          all ? " must equal" : " must divide", " the target's ", gpus, " GPUs"));
  }
  if (p.zero_stage.has_value()) {
    o.pin_zero = true;
    c.zero_stage = static_cast<int>(*p.zero_stage);
  }
  if (p.shard_group_gpus.has_value()) {
    o.pin_shard_group = true;
    c.shard_group = static_cast<int>(*p.shard_group_gpus);
  }
  if (p.offload.has_value()) {
    o.pin_offload = true;
    c.offload = *p.offload;
  }
  if (p.recompute.has_value()) {
    o.pin_recompute = true;
    c.recompute = *p.recompute;
  }
  return o;
}

// Supplies and units for every target, each target's pin checked.
absl::Status ResolveTargets(const CatalogView& catalog, const std::vector<CompareTarget>& targets, int64_t as_of,
                            std::vector<CompareRow>* rows) {
  if (targets.empty() || targets.size() > static_cast<size_t>(kMaxCompareTargets)) {
    return FieldError("targets", absl::StrCat("give 1 to ", kMaxCompareTargets, " targets, got ", targets.size()));
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    const std::string field = absl::StrCat("targets[", i, "]");
    CompareRow& row = rows->emplace_back();
    CAPPLAN_RETURN_IF_ERROR(CheckPin(targets[i].pin, field + ".pinned_parallelism"));
    absl::StatusOr<Supply> s = TargetSupply(catalog, targets[i], as_of, field, &row.units);
    if (!s.ok() && s.status().code() != absl::StatusCode::kInvalidArgument) {
      // A target the catalog cannot price or does not have: answered on its row, so that
      // the other targets are still compared.
      row.infeasible_reason = std::string(s.status().message());
      continue;
    }
    if (!s.ok()) return s.status();
    row.supply = *s;
    CAPPLAN_RETURN_IF_ERROR(ResolveFabric(catalog, *row.supply.gpu, row.supply.instance, targets[i].fabric,
                                          field + ".fabric", &row.supply));
  }
  return absl::OkStatus();
}

void Ratios(std::vector<CompareRow>* rows) {
  const double first_speed = rows->front().speed, first_cost = rows->front().cost;
  for (CompareRow& r : *rows) {
    r.speed_ratio_vs_first = first_speed > 0 ? r.speed / first_speed : 0;
    r.cost_ratio_vs_first = first_cost > 0 ? r.cost / first_cost : 0;
  }
}

}  // namespace

absl::StatusOr<std::vector<CompareRow>> CompareTraining(const CatalogView& catalog, const TrainingJob& job,
                                                        const std::vector<CompareTarget>& targets, int64_t as_of,
                                                        LayoutCacheRef cache) {
  std::vector<CompareRow> rows;
  CAPPLAN_RETURN_IF_ERROR(ResolveTargets(catalog, targets, as_of, &rows));
  TrainingEvaluator eval(catalog, job, cache);
  for (size_t i = 0; i < rows.size(); ++i) {
    CompareRow& row = rows[i];
    if (row.supply.gpu == nullptr) continue;  // its row says why
    const int gpus = row.units * row.supply.GpusPerUnit();
    TrainingPick pick;
    if (targets[i].pin.TrainingPinned()) {
      absl::StatusOr<SearchOptions> pinned =
          PinnedSearch(targets[i].pin, gpus, absl::StrCat("targets[", i, "].pinned_parallelism"));
      if (!pinned.ok()) return pinned.status();
      pick = eval.PickPinned(row.supply, gpus, *pinned);
    } else {
      pick = eval.Pick(row.supply, gpus);
    }
    if (!pick.ok) {
      row.infeasible_reason = pick.reason;
      continue;
    }
    TrainingChoice& c = row.training.emplace();
    c.units = row.units;
    c.estimate = pick.estimate;
    c.efficiency = eval.EfficiencyFor(*row.supply.gpu);
    c.cost_usd = pick.estimate.duration_seconds / units::kSecondsPerHour * row.units * row.supply.UsdPerUnitHour();
    row.speed = 1.0 / pick.estimate.duration_seconds;
    row.cost = c.cost_usd;
  }
  Ratios(&rows);
  return rows;
}

namespace {

// A replica whose KV cache gets under this share of GPU memory runs few sequences at once.
constexpr double kMinKvShareOfMemory = 0.10;

// The searched layout that carries the most requests per second on the target's GPUs (its
// replicas filling them): the most throughput per dollar, as the target's price is fixed.
// Layouts leaving under kMinKvShareOfMemory for the KV cache only when no roomier one fits.
absl::StatusOr<ServingEstimate> BestLayout(const std::vector<ServingOption>& options, int gpus) {
  absl::StatusOr<ServingEstimate> e =
      absl::FailedPreconditionError(absl::StrCat("no tensor-parallel layout fits in ", gpus, " GPUs"));
  auto roomy = [](const ServingEstimate& x) {
    return x.memory.capacity_bytes <= 0 || x.memory.kv_budget_bytes >= kMinKvShareOfMemory * x.memory.capacity_bytes;
  };
  bool any_roomy = false;
  for (const ServingOption& o : options)
    any_roomy = any_roomy || (o.tp <= gpus && o.estimate.ok() && roomy(*o.estimate));
  double best = -1;
  for (const ServingOption& o : options) {
    if (o.tp > gpus) continue;
    if (!o.estimate.ok()) {
      if (!e.ok()) e = o.estimate;
      continue;
    }
    if (any_roomy && !roomy(*o.estimate)) continue;
    const int64_t replicas = gpus / o.tp;  // whole replicas only
    const double capacity = o.estimate->requests_per_second_per_replica * static_cast<double>(replicas);
    if (capacity > best) {
      best = capacity;
      e = o.estimate;
    }
  }
  return e;
}

// The target's serving estimate: a pinned batch, a pinned tensor-parallel degree, or the
// best searched layout that fits its GPUs.
absl::StatusOr<ServingEstimate> TargetServing(ServingEvaluator& eval, const ServingWorkload& w, const GpuRow& gpu,
                                              const Pin& pin, int gpus) {
  const ServingEfficiency& eff = eval.EfficiencyFor(gpu);
  absl::StatusOr<ServingEstimate> e = absl::FailedPreconditionError("");
  if (pin.serving_batch_sequences > 0) {
    e = EstimateServingAtBatch(w, gpu.spec, std::max<int>(1, static_cast<int>(pin.tensor_parallel)),
                               pin.serving_batch_sequences, eff);
  } else if (pin.tensor_parallel > 0) {
    e = EstimateServing(w, gpu.spec, static_cast<int>(pin.tensor_parallel), eff);
  } else {
    return BestLayout(eval.Options(gpu), gpus);
  }
  if (e.ok() && e->tp > gpus) {
    return absl::FailedPreconditionError(
        absl::StrCat("tensor parallel ", e->tp, " needs more than the ", gpus, " GPUs"));
  }
  return e;
}

// Nodes the target's units make: instances, or its GPUs over its fabric's node.
int TargetNodes(const Supply& s, int units) {
  if (s.instance != nullptr) return units;
  return units / std::max(1, s.fabric.gpus_per_node);
}

// A layout across the target's nodes (one pipeline stage per node, tensor parallel inside):
// a pinned pp (and tp, batch), or the depth that carries the most requests per second on the
// target. FailedPrecondition when the target's offer is not sold as a cluster.
absl::StatusOr<MultiNodeServing> TargetMultiNode(ServingEvaluator& eval, const ServingWorkload& w, const Supply& s,
                                                 const Pin& pin, int units, double* capacity) {
  if (s.instance != nullptr && !ClusterFabric(s.fabric)) return absl::FailedPreconditionError(NotClusteredReason(s));
  const int nodes = TargetNodes(s, units);
  const int node = std::min(s.fabric.gpus_per_node, s.gpu->spec.gpus_per_node);
  const int tp = pin.tensor_parallel > 0 ? static_cast<int>(pin.tensor_parallel) : MultiNodeTensorParallel(w, node);
  const int lo = pin.pipeline_parallel > 1 ? static_cast<int>(pin.pipeline_parallel) : 2;
  const int hi = pin.pipeline_parallel > 1 ? lo : std::min(nodes, kMaxServingPipelineStages);
  if (lo > nodes) {
    return absl::FailedPreconditionError(
        absl::StrCat("pipeline parallel ", lo, " needs ", lo, " nodes; the target has ", nodes, " of ", node, " GPUs"));
  }
  const ServingEfficiency& eff = eval.EfficiencyFor(*s.gpu);
  absl::StatusOr<MultiNodeServing> best = absl::FailedPreconditionError("no pipeline depth fits");
  *capacity = -1;
  for (int pp = lo; pp <= hi; ++pp) {
    absl::StatusOr<MultiNodeServing> m =
        pin.serving_batch_sequences > 0
            ? EstimateMultiNodeServingAtBatch(w, s.gpu->spec, s.fabric, tp, pp, pin.serving_batch_sequences, eff)
            : EstimateMultiNodeServing(w, s.gpu->spec, s.fabric, tp, pp, eff);
    if (!m.ok()) {
      if (*capacity < 0) best = m;
      continue;
    }
    const int replicas = nodes / pp;  // whole replicas of pp nodes
    const double c = m->estimate.requests_per_second_per_replica * replicas;
    if (c > *capacity) {
      *capacity = c;
      best = m;
    }
  }
  return best;
}

}  // namespace

absl::StatusOr<std::vector<CompareRow>> CompareServing(const CatalogView& catalog, const ServingWorkload& w,
                                                       const std::vector<CompareTarget>& targets, int64_t as_of,
                                                       LayoutCacheRef cache) {
  std::vector<CompareRow> rows;
  CAPPLAN_RETURN_IF_ERROR(ResolveTargets(catalog, targets, as_of, &rows));
  ServingEvaluator eval(catalog, w, cache);
  for (size_t i = 0; i < rows.size(); ++i) {
    CompareRow& row = rows[i];
    if (row.supply.gpu == nullptr) continue;  // its row says why
    const Pin& pin = targets[i].pin;
    const int gpus = row.units * row.supply.GpusPerUnit();
    absl::StatusOr<ServingEstimate> e = absl::FailedPreconditionError("pinned across nodes");
    if (pin.pipeline_parallel <= 1) e = TargetServing(eval, w, *row.supply.gpu, pin, gpus);
    const int replicas = e.ok() ? gpus / e->tp : 0;  // whole replicas of tp GPUs
    double capacity = e.ok() ? e->requests_per_second_per_replica * replicas : -1;
    // Across nodes when pinned so, or when the target has several nodes and that carries more.
    std::optional<MultiNodeServing> multi;
    if (pin.pipeline_parallel > 1 || (pin.pipeline_parallel == 0 && TargetNodes(row.supply, row.units) >= 2)) {
      double multi_capacity = -1;
      absl::StatusOr<MultiNodeServing> m = TargetMultiNode(eval, w, row.supply, pin, row.units, &multi_capacity);
      if (m.ok() && multi_capacity > capacity) {
        multi = *m;
        capacity = multi_capacity;
      } else if (!m.ok() && !e.ok()) {
        e = pin.pipeline_parallel > 1 ? m.status()
                                      : absl::FailedPreconditionError(absl::StrCat(
                                            e.status().message(), "; across nodes: ", m.status().message()));
      }
    }
    if (!e.ok() && !multi) {
      row.infeasible_reason = std::string(e.status().message());
      continue;
    }
    ServingChoice& c = row.serving.emplace();
    c.estimate = multi ? multi->estimate : *e;
    c.multinode = multi;
    // What this target can run.
    c.estimate.replicas = multi ? TargetNodes(row.supply, row.units) / multi->pp : gpus / e->tp;
    if (multi) {
      c.estimate.total_gpus = c.estimate.replicas * multi->GpusPerReplica();
      c.idle_gpus = std::max(0, gpus - static_cast<int>(c.estimate.total_gpus));
    }
    c.units = row.units;
    c.efficiency = eval.EfficiencyFor(*row.supply.gpu);
    c.usd_per_hour = row.units * row.supply.UsdPerUnitHour();
    // With no offered load, the target is priced at what it can carry.
    c.offered_requests_per_second = w.requests_per_second > 0 ? w.requests_per_second : capacity;
    row.speed = capacity;
    row.cost = c.usd_per_hour;
  }
  Ratios(&rows);
  return rows;
}

}  // namespace capplan::core::planner
