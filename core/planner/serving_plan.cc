#include "core/planner/serving_plan.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/format.h"
#include "core/planner/frontier.h"
#include "core/planner/ranking.h"
#include "core/units.h"
#include "core/validate.h"

namespace capplan::core::planner {

const ServingEfficiency& ServingEvaluator::EfficiencyFor(const GpuRow& gpu) {
  auto it = efficiency_.find(gpu.spec.name);
  if (it == efficiency_.end()) {
    it = efficiency_.emplace(gpu.spec.name, ServingEfficiencyFor(w_, gpu.spec, catalog_.ServingBenchmarks())).first;
  }
  return it->second;
}

const std::vector<ServingOption>& ServingEvaluator::Options(const GpuRow& gpu) {
  auto it = options_.find(gpu.spec.name);
  if (it == options_.end()) it = options_.emplace(gpu.spec.name, SearchServing(w_, gpu.spec, EfficiencyFor(gpu))).first;
  return it->second;
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

// A replica across nodes takes one node per pipeline stage: pp instances, or tp x pp GPUs
// of a pool whose nodes hold tp.
int64_t ReplicasPerUnits(const Supply& s, const MultiNodeServing& m, int64_t units) {
  return s.pool != nullptr ? units / m.GpusPerReplica() : units / m.pp;
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
    absl::StatusOr<PrefillEstimate> p = EstimatePrefill(w_, gpu.spec, o.tp, w_.prompt_tokens, EfficiencyFor(gpu));
    out.push_back(p.ok() ? SizeColocated(w_, *o.estimate, *p, o.tp) : absl::StatusOr<ServingLayout>(p.status()));
  }
  return colocated_.emplace(gpu.spec.name, std::move(out)).first->second;
}

namespace {

ServingEvaluator::FabricKey KeyOf(const Supply& s) {
  const Fabric& f = s.fabric;
  return {s.gpu,
          f.gpus_per_node,
          f.intra_node_bytes_per_second_per_gpu,
          static_cast<int>(f.network),
          f.network_bytes_per_second_per_gpu,
          f.network_latency_seconds};
}

}  // namespace

const std::vector<absl::StatusOr<ServingLayout>>& ServingEvaluator::MultiNode(const Supply& s) {
  const FabricKey key = KeyOf(s);
  auto it = multinode_.find(key);
  if (it != multinode_.end()) return it->second;
  std::vector<absl::StatusOr<ServingLayout>> out;
  int fitting = 0;
  // Deeper pipelines add a boundary per token and only buy KV-cache room: past the first two
  // depths that fit, they are not searched.
  for (const MultiNodeOption& o : SearchMultiNodeServing(w_, s.gpu->spec, s.fabric, EfficiencyFor(*s.gpu), 2)) {
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

const absl::StatusOr<std::vector<ServingLayout>>& ServingEvaluator::Disaggregated(const Supply& s) {
  const FabricKey key = KeyOf(s);
  auto it = disagg_.find(key);
  if (it != disagg_.end()) return it->second;
  auto st = stages_.find(s.gpu->spec.name);
  if (st == stages_.end()) {
    st = stages_.emplace(s.gpu->spec.name, DisaggregatedStages(w_, s.gpu->spec, EfficiencyFor(*s.gpu))).first;
  }
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

namespace {

// Compact: thousands of offers each make one.
struct Candidate {
  size_t supply;
  int units;
  const ServingLayout* layout;
  double usd_per_hour;
};

// A deployment over the monthly budget, formatted only if shown.
struct OverBudget {
  size_t supply;
  int units;
  ServingDeployment kind;
  double usd_per_month;
};

// Every supply's cheapest co-located and cheapest disaggregated deployment within the
// query's limits; a GPU type that fits nowhere is rejected with its closest miss, and the
// closest deployments over the budget (each GPU type's, and the closest overall).
std::vector<Candidate> Collect(ServingEvaluator& eval, const PlanQuery& q, ServingPlan* plan) {
  std::vector<Candidate> cands;
  std::map<const GpuRow*, ServingFit> gpu_miss;  // by GPU type, its closest miss
  std::set<const GpuRow*> gpu_ok;
  std::vector<OverBudget> over_budget;
  std::set<std::pair<absl::string_view, absl::string_view>> not_clustered;  // provider, instance type
  auto take = [&](size_t si, ServingFit fit, ServingDeployment kind) {
    const Supply& s = plan->supplies[si];
    if (fit.estimate == nullptr) {
      if (gpu_ok.count(s.gpu) > 0) return;
      auto [it, inserted] = gpu_miss.try_emplace(s.gpu, fit);
      if (!inserted && std::make_pair(fit.code, fit.distance) < std::make_pair(it->second.code, it->second.distance)) {
        it->second = std::move(fit);
      }
      return;
    }
    gpu_ok.insert(s.gpu);
    const double usd_per_hour = fit.units * s.UsdPerUnitHour();
    const double usd_per_month = usd_per_hour * units::kHoursPerMonth;
    if (q.budget_usd > 0 && usd_per_month > q.budget_usd) {
      over_budget.push_back({si, fit.units, kind, usd_per_month});
      return;
    }
    cands.push_back({si, fit.units, fit.estimate, usd_per_hour});
  };
  for (size_t si = 0; si < plan->supplies.size(); ++si) {
    const Supply& s = plan->supplies[si];
    const bool may_cluster = MayCluster(s, q.constraints);
    bool one_node_fits = false;
    for (ServingDeployment kind : {ServingDeployment::kColocated, ServingDeployment::kDisaggregated}) {
      ServingFit fit = eval.Fit(s, s.units_max, kind, may_cluster);
      one_node_fits = one_node_fits || fit.estimate != nullptr;
      take(si, std::move(fit), kind);
    }
    ServingFit multi = eval.FitMultiNode(s, s.units_max, may_cluster);
    if (multi.code != RejectionReason::kNotClustered) {
      take(si, std::move(multi), ServingDeployment::kColocated);
    } else if (!one_node_fits && s.instance != nullptr && s.units_max > 1 &&
               not_clustered.emplace(s.instance->provider, s.instance->instance_type).second) {
      // The model needs more than one instance, and this offer is not sold as a cluster.
      plan->rejected.push_back(
          {absl::StrCat(s.instance->provider, " ", s.instance->instance_type, " x2 or more (", s.gpu->spec.name, ")"),
           NotClusteredReason(s), RejectionReason::kNotClustered, 1, s.gpu->spec.name});
    }
  }
  for (const auto& [gpu, miss] : gpu_miss) {
    if (gpu_ok.count(gpu) == 0) {
      plan->rejected.push_back({gpu->spec.name, miss.reason, miss.code, miss.distance, gpu->spec.name});
    }
  }
  std::sort(over_budget.begin(), over_budget.end(),
            [](const OverBudget& a, const OverBudget& b) { return a.usd_per_month < b.usd_per_month; });
  std::set<const GpuRow*> shown;
  const size_t keep = static_cast<size_t>(q.max_rejected) / 2 + 1;
  for (size_t i = 0; i < over_budget.size(); ++i) {
    const OverBudget& o = over_budget[i];
    const Supply& s = plan->supplies[o.supply];
    if (!shown.insert(s.gpu).second && i >= keep) continue;
    plan->rejected.push_back(
        {s.Label(o.units),
         absl::StrFormat("%s costs $%.0f per month, %.2fx the budget of $%.0f ($%.0f over)",
                         ServingDeploymentName(o.kind), o.usd_per_month, o.usd_per_month / q.budget_usd, q.budget_usd,
                         o.usd_per_month - q.budget_usd),
         RejectionReason::kOverBudget, o.usd_per_month / q.budget_usd, s.gpu->spec.name});
  }
  return cands;
}

// The layout as billed: co-located replicas fill every instance taken (the extra replicas
// lower latency at the same load); what still idles is counted.
ServingLayout Filled(const ServingWorkload& w, const Supply& s, const ServingLayout& l, int units, int* idle_gpus) {
  const int64_t billed = int64_t{units} * (s.pool != nullptr ? 1 : s.GpusPerUnit());
  ServingLayout out = l;
  if (!l.disagg && l.estimate.replicas > 0) {
    const int64_t per_replica = l.multinode ? l.multinode->GpusPerReplica() : l.estimate.tp;
    const int64_t replicas = l.multinode ? ReplicasPerUnits(s, *l.multinode, units) : billed / l.estimate.tp;
    if (replicas > l.estimate.replicas) {
      const double break_per_replica = l.slo_break_requests_per_second / static_cast<double>(l.estimate.replicas);
      out.estimate.replicas = replicas;
      out.estimate.total_gpus = replicas * per_replica;
      out.latency = LatencyAt(l.service, w.requests_per_second / static_cast<double>(replicas));
      out.slo_break_requests_per_second = break_per_replica * static_cast<double>(replicas);
    }
  }
  *idle_gpus = static_cast<int>(std::max<int64_t>(0, billed - out.estimate.total_gpus));
  return out;
}

// Keys of the ranker's same-offer merge: deployment kinds, then the same across nodes.
constexpr int kNumDeploymentKeys = 2;

// "colocated", "disaggregated", or "colocated tp=8 pp=2 (2 nodes)".
std::string LayoutKind(const ServingLayout& l) {
  if (!l.multinode) return ServingDeploymentName(l.deployment);
  return absl::StrCat(ServingDeploymentName(l.deployment), " tp=", l.multinode->tp, " pp=", l.multinode->pp, " (",
                      l.multinode->pp, " nodes)");
}

// Which rule picked the top option, in words.
std::string ServingRule(const PlanQuery& q) {
  const bool by_latency = q.objective == Objective::kFastest || q.objective == Objective::kFastestWithinBudget;
  std::string rule = by_latency ? "lowest TPOT (then cheapest)" : "cheapest per hour (then lowest TPOT)";
  absl::StrAppend(&rule, " deployment meeting the SLOs at the offered load");
  if (q.budget_usd > 0) absl::StrAppend(&rule, " within the budget of $", Fixed(q.budget_usd, 0), " per month");
  return rule;
}

std::vector<FrontierPoint> ServingFrontier(const ServingWorkload& w, const ServingPlan& plan,
                                           const std::vector<Candidate>& cands, const Candidate& best) {
  std::vector<FrontierPoint> points;
  points.reserve(cands.size());
  for (const Candidate& c : cands) {
    const Supply& s = plan.supplies[c.supply];
    int idle = 0;
    const ServingLayout l = Filled(w, s, *c.layout, c.units, &idle);
    points.push_back({s.Label(c.units), s.gpu->spec.name, static_cast<int>(l.estimate.total_gpus),
                      l.latency.e2e_p99_seconds, c.usd_per_hour * units::kHoursPerMonth, &c == &best});
  }
  return ParetoFrontier(std::move(points));
}

}  // namespace

// The checks a serving Plan adds to the query's own.
absl::Status ValidateServingPlanQuery(const CatalogView& catalog, const ServingWorkload& w, const PlanQuery& q) {
  CAPPLAN_RETURN_IF_ERROR(ValidatePlanQuery(catalog, q));
  if (!(w.requests_per_second > 0)) {
    return FieldError("serving.requests_per_second", "must be > 0 to plan capacity");
  }
  if (q.objective == Objective::kCheapestWithinDeadline) {
    return FieldError("objective", "CHEAPEST_WITHIN_DEADLINE applies to training; serving has SLOs");
  }
  return absl::OkStatus();
}

// One option from a ranked candidate: its layout with replicas filling the billed units, and
// the SLO warnings at the offered load.
template <typename Evaluator>
void FillChoice(const ServingWorkload& w, const Supply& s, Evaluator& eval, const Candidate& c, ServingChoice* o) {
  const ServingLayout l = Filled(w, s, *c.layout, c.units, &o->idle_gpus);
  const GpuRow& gpu = *s.gpu;
  o->supply = c.supply;
  o->estimate = l.estimate;
  o->deployment = l.deployment;
  o->disagg = l.disagg;
  o->multinode = l.multinode;
  o->latency = l.latency;
  o->slo_break_requests_per_second = l.slo_break_requests_per_second;
  o->units = c.units;
  o->efficiency = eval.EfficiencyFor(gpu);
  o->usd_per_hour = c.usd_per_hour;
  o->offered_requests_per_second = w.requests_per_second;
  if (l.disagg) {
    o->warnings = DisaggregatedSloWarnings(w, gpu.spec, o->efficiency, *l.disagg, w.requests_per_second);
  } else if (l.multinode) {
    o->warnings = MultiNodeSloWarnings(w, gpu.spec, s.fabric, o->efficiency, *l.multinode, l.estimate, l.service,
                                       w.requests_per_second);
  } else {
    o->warnings = ColocatedSloWarnings(w, gpu.spec, o->efficiency, l.estimate, l.service, w.requests_per_second);
  }
}

absl::StatusOr<ServingPlan> PlanServing(const CatalogView& catalog, const ServingWorkload& w, const PlanQuery& q) {
  CAPPLAN_RETURN_IF_ERROR(ValidateServingPlanQuery(catalog, w, q));
  ServingPlan plan;
  plan.supplies = BuildSupplies(catalog, q, q.constraints.ServingMaxGpus());
  plan.selection_rule = ServingRule(q);
  ServingEvaluator eval(catalog, w);
  std::vector<Candidate> cands = Collect(eval, q, &plan);
  for (Rejection& r : UnofferedGpus(catalog, q, plan.supplies)) plan.rejected.push_back(std::move(r));
  if (cands.empty()) {
    KeepClosestPerGpu(&plan.rejected, static_cast<size_t>(q.max_rejected), {}, {});
    absl::Status st = NothingFits(plan.rejected);
    if (q.budget_usd <= 0) return st;
    return absl::FailedPreconditionError(absl::StrCat("no option meets ", ServingRule(q), "; ", st.message()));
  }

  const bool by_latency = q.objective == Objective::kFastest || q.objective == Objective::kFastestWithinBudget;
  auto better = [by_latency](const Candidate& a, const Candidate& b) {
    const double ta = a.layout->estimate.tpot_seconds, tb = b.layout->estimate.tpot_seconds;
    if (by_latency && ta != tb) return ta < tb;
    if (a.usd_per_hour != b.usd_per_hour) return a.usd_per_hour < b.usd_per_hour;
    // At equal cost, one node per replica: no traffic between nodes to go wrong.
    if (a.layout->multinode.has_value() != b.layout->multinode.has_value()) return !a.layout->multinode.has_value();
    return ta < tb;
  };
  Ranker<Candidate, decltype(better)> ranker(&cands, better, q.top_k, q.max_rejected);
  auto ranked_lower = [&](const Candidate& c, size_t rank) {
    const Candidate& best = ranker.Best();
    const Supply& s = plan.supplies[c.supply];
    return Rejection{
        s.Label(c.units),
        absl::StrCat("ranked #", rank, ": ", LayoutKind(*c.layout), " $", Fixed(c.usd_per_hour, 2), "/h, TPOT ",
                     Fixed(c.layout->estimate.tpot_seconds, 4), " s (best: ", LayoutKind(*best.layout), " $",
                     Fixed(best.usd_per_hour, 2), "/h, TPOT ", Fixed(best.layout->estimate.tpot_seconds, 4), " s)"),
        RejectionReason::kRankedLower, static_cast<double>(rank), s.gpu->spec.name};
  };
  // Regions of one offer merge into one option; a co-located and a disaggregated deployment
  // on the same offer are two options.
  ranker.Walk(
      [&](const Candidate& c) {
        std::optional<std::pair<OfferKey, int>> key;
        if (auto k = SameOfferKey(plan.supplies[c.supply], c.units)) {
          // Replicas across nodes are their own option, as a deployment kind is.
          key.emplace(*k, static_cast<int>(c.layout->deployment) + (c.layout->multinode ? kNumDeploymentKeys : 0));
        }
        return key;
      },
      [&](const Candidate& c) {
        FillChoice(w, plan.supplies[c.supply], eval, c, &plan.options.emplace_back());
        return plan.options.size() - 1;
      },
      [&](size_t option, const Candidate& c) {
        plan.options[option].same_offer_regions.push_back(plan.supplies[c.supply].instance->region);
      },
      [&](const Candidate& c, size_t rank) { plan.rejected.push_back(ranked_lower(c, rank)); },
      [](const Candidate& c) { return c.supply; });
  std::vector<std::string> option_gpus;
  option_gpus.reserve(plan.options.size());
  for (const ServingChoice& o : plan.options) option_gpus.push_back(plan.supplies[o.supply].gpu->spec.name);
  std::map<const GpuRow*, const Candidate*> gpu_best;
  for (const Candidate& c : cands) {
    const Candidate*& b = gpu_best[plan.supplies[c.supply].gpu];
    if (b == nullptr || better(c, *b)) b = &c;
  }
  std::vector<Rejection> fallback;
  for (const auto& [gpu, c] : gpu_best) {
    fallback.push_back(ranked_lower(*c, 0));
    fallback.back().reason = absl::StrCat("ranked lower: ", fallback.back().reason.substr(10));
  }
  KeepClosestPerGpu(&plan.rejected, static_cast<size_t>(q.max_rejected), option_gpus, std::move(fallback));
  plan.frontier = ServingFrontier(w, plan, cands, ranker.Best());
  return plan;
}

}  // namespace capplan::core::planner
