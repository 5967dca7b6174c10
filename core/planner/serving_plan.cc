#include "core/planner/serving_plan.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/format.h"
#include "core/planner/frontier.h"
#include "core/planner/ranking.h"
#include "core/units.h"
#include "core/validate.h"

namespace capplan::core::planner {

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

// What ServingEvaluator::Fit reads of a supply: the deployment kind, the GPU and fabric
// (FabricKey), pool or instance and its GPUs, the units allowed, whether it may cluster, and
// whether it costs anything. The price itself only scales the cost of every layout alike
// (the cheapest is the fewest units), so offers of one shape in any region share one fit.
using FitKey = std::tuple<int, ServingEvaluator::FabricKey, bool, int, int, bool, bool>;

FitKey FitKeyOf(const Supply& s, int kind, bool may_cluster) {
  return {kind,        ServingEvaluator::KeyOf(s), s.pool != nullptr, s.GpusPerUnit(), s.units_max,
          may_cluster, s.UsdPerUnitHour() > 0};
}

// Every supply's cheapest co-located and cheapest disaggregated deployment within the
// query's limits; a GPU type that fits nowhere is rejected with its closest miss, and the
// closest deployments over the budget (each GPU type's, and the closest overall).
std::vector<Candidate> Collect(ServingEvaluator& eval, const PlanQuery& q, ServingPlan* plan) {
  std::vector<Candidate> cands;
  std::map<const GpuRow*, ServingFit> gpu_miss;  // by GPU type, its closest miss
  std::set<const GpuRow*> gpu_ok;
  std::vector<OverBudget> over_budget;
  std::set<std::pair<absl::string_view, absl::string_view>> not_clustered;  // provider, instance type
  absl::flat_hash_map<FitKey, ServingFit> fits;
  constexpr int kMultiNode = 2;  // FitKey's kind after the two ServingDeployment values
  auto fit_of = [&](const Supply& s, int kind, bool may_cluster) -> const ServingFit& {
    auto [it, inserted] = fits.try_emplace(FitKeyOf(s, kind, may_cluster));
    if (inserted) {
      it->second = kind == kMultiNode ? eval.FitMultiNode(s, s.units_max, may_cluster)
                                      : eval.Fit(s, s.units_max, static_cast<ServingDeployment>(kind), may_cluster);
    }
    return it->second;
  };
  auto take = [&](size_t si, const ServingFit& fit, ServingDeployment kind) {
    const Supply& s = plan->supplies[si];
    if (fit.estimate == nullptr) {
      if (gpu_ok.count(s.gpu) > 0) return;
      auto [it, inserted] = gpu_miss.try_emplace(s.gpu, fit);
      if (!inserted && std::make_pair(fit.code, fit.distance) < std::make_pair(it->second.code, it->second.distance)) {
        it->second = fit;
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
      const ServingFit& fit = fit_of(s, static_cast<int>(kind), may_cluster);
      one_node_fits = one_node_fits || fit.estimate != nullptr;
      take(si, fit, kind);
    }
    if (may_cluster) {
      take(si, fit_of(s, kMultiNode, may_cluster), ServingDeployment::kColocated);
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
int64_t BilledGpus(const Supply& s, int units) { return int64_t{units} * (s.pool != nullptr ? 1 : s.GpusPerUnit()); }

// The co-located replicas the billed units hold, when more than the layout sized for the
// load; 0 when the layout stays as it is (disaggregated, or no room for more).
int64_t FillingReplicas(const Supply& s, const ServingLayout& l, int units) {
  if (l.disagg || l.estimate.replicas <= 0) return 0;
  const int64_t replicas =
      l.multinode ? ReplicasPerUnits(s, *l.multinode, units) : BilledGpus(s, units) / l.estimate.tp;
  return replicas > l.estimate.replicas ? replicas : 0;
}

int64_t GpusPerReplica(const ServingLayout& l) { return l.multinode ? l.multinode->GpusPerReplica() : l.estimate.tp; }

ServingLayout Filled(const ServingWorkload& w, const Supply& s, const ServingLayout& l, int units, int* idle_gpus) {
  ServingLayout out = l;
  if (const int64_t replicas = FillingReplicas(s, l, units); replicas > 0) {
    const double break_per_replica = l.slo_break_requests_per_second / static_cast<double>(l.estimate.replicas);
    out.estimate.replicas = replicas;
    out.estimate.total_gpus = replicas * GpusPerReplica(l);
    out.latency = LatencyAt(l.service, w.requests_per_second / static_cast<double>(replicas));
    out.slo_break_requests_per_second = break_per_replica * static_cast<double>(replicas);
  }
  *idle_gpus = static_cast<int>(std::max<int64_t>(0, BilledGpus(s, units) - out.estimate.total_gpus));
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

// What Filled gives for the frontier, without copying the layout: GPUs billed as replicas
// and the p99 end-to-end latency at the load. Candidates on offers of one shape share it.
struct FilledFigures {
  int gpus;
  double e2e_p99_seconds;
};

FilledFigures FiguresOf(const ServingWorkload& w, const Supply& s, const ServingLayout& l, int units) {
  if (const int64_t replicas = FillingReplicas(s, l, units); replicas > 0) {
    return {static_cast<int>(replicas * GpusPerReplica(l)),
            LatencyAt(l.service, w.requests_per_second / static_cast<double>(replicas)).e2e_p99_seconds};
  }
  return {static_cast<int>(l.estimate.total_gpus), l.latency.e2e_p99_seconds};
}

std::vector<FrontierPoint> ServingFrontier(const ServingWorkload& w, const ServingPlan& plan,
                                           const std::vector<Candidate>& cands, const Candidate& best) {
  // Keyed on what FiguresOf reads of the supply: its layout, units, pool and GPUs per unit.
  absl::flat_hash_map<std::tuple<const ServingLayout*, int, bool, int>, FilledFigures> memo;
  std::vector<FilledFigures> figures;
  std::vector<FrontierCandidate> numbers;
  figures.reserve(cands.size());
  numbers.reserve(cands.size());
  for (size_t i = 0; i < cands.size(); ++i) {
    const Candidate& c = cands[i];
    const Supply& s = plan.supplies[c.supply];
    const auto key = std::make_tuple(c.layout, c.units, s.pool != nullptr, s.GpusPerUnit());
    auto it = memo.find(key);
    if (it == memo.end()) it = memo.emplace(key, FiguresOf(w, s, *c.layout, c.units)).first;
    figures.push_back(it->second);
    numbers.push_back({it->second.e2e_p99_seconds, c.usd_per_hour * units::kHoursPerMonth, &c == &best, i});
  }
  std::vector<FrontierPoint> points;
  for (size_t i : FrontierIndices(std::move(numbers))) {
    const Candidate& c = cands[i];
    const Supply& s = plan.supplies[c.supply];
    points.push_back({s.Label(c.units), s.gpu->spec.name, figures[i].gpus, figures[i].e2e_p99_seconds,
                      c.usd_per_hour * units::kHoursPerMonth, &c == &best});
  }
  return ParetoFrontier(std::move(points));
}

}  // namespace

// The checks a serving Plan adds to the query's own.
absl::Status ValidateServingPlanQuery(const CatalogView& catalog, const ServingWorkload& w, const PlanQuery& q) {
  CAPPLAN_RETURN_IF_ERROR(ValidatePlanQuery(catalog, q));
  if (w.concurrent_requests > 0) {
    // The estimator holds a closed loop (serving.h); the planner's replica count and queueing
    // are for an offered rate, so a plan takes the rate the loop should sustain.
    return FieldError("serving.concurrent_requests",
                      "a closed-loop load is not planned yet; give requests_per_second instead (0 here)");
  }
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

absl::StatusOr<ServingPlan> PlanServing(const CatalogView& catalog, const ServingWorkload& w, const PlanQuery& q,
                                        LayoutCacheRef cache) {
  CAPPLAN_RETURN_IF_ERROR(ValidateServingPlanQuery(catalog, w, q));
  ServingPlan plan;
  plan.supplies = BuildSupplies(catalog, q, q.constraints.ServingMaxGpus());
  plan.selection_rule = ServingRule(q);
  ServingEvaluator eval(catalog, w, cache);
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
  ShowRejections(
      q.max_rejected, cands, better,
      [&](const Candidate& c) {
        Rejection r = ranked_lower(c, 0);
        r.reason = absl::StrCat("ranked lower: ", r.reason.substr(10));
        return r;
      },
      &plan);
  plan.frontier = ServingFrontier(w, plan, cands, ranker.Best());
  return plan;
}

}  // namespace capplan::core::planner
