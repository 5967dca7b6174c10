#include "core/planner/training_plan.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/format.h"
#include "core/planner/frontier.h"
#include "core/planner/ranking.h"
#include "core/planner/spot.h"
#include "core/units.h"
#include "core/validate.h"

namespace capplan::core::planner {

const Efficiency& TrainingEvaluator::EfficiencyFor(const GpuRow& gpu) {
  auto it = efficiency_.find(gpu.spec.name);
  if (it != efficiency_.end()) return it->second;
  // Calibration depends on the catalog's benchmarks, so it is remembered per version only.
  std::string key;
  if (cache_.cache != nullptr) {
    key = EfficiencyKey(job_key_, gpu.spec);
    if (std::shared_ptr<const Efficiency> hit = cache_.cache->FindEfficiency(cache_.version, key)) {
      return efficiency_.emplace(gpu.spec.name, *hit).first->second;
    }
  }
  Efficiency e = TrainingEfficiency(job_, ClusterSpec{gpu.spec, {}}, catalog_.TrainingBenchmarks());
  if (cache_.cache != nullptr) cache_.cache->StoreEfficiency(cache_.version, key, e);
  return efficiency_.emplace(gpu.spec.name, std::move(e)).first->second;
}

TrainingPick TrainingEvaluator::Search(const Supply& supply, const SearchOptions& o) {
  TrainingPick pick;
  const GpuRow& gpu = *supply.gpu;
  absl::StatusOr<SearchResult> r =
      SearchParallelism(job_, ClusterSpec{gpu.spec, supply.fabric}, EfficiencyFor(gpu), o, cache_);
  if (!r.ok()) {
    pick.reason = std::string(r.status().message());
  } else if (!r->ranked.empty()) {
    pick.ok = true;
    pick.estimate = r->ranked.front();
  } else if (!r->rejected.empty()) {
    const core::LayoutRejection& miss = r->rejected.front();
    pick.reason = DescribeRejection(miss, gpu.spec, &job_);
    if (miss.reason == core::LayoutRejectReason::kMemory) {
      pick.code = RejectionReason::kMemory;
      pick.distance = miss.needed_bytes / miss.capacity_bytes;
    } else {
      pick.code = RejectionReason::kNoLayout;
    }
  } else {
    pick.reason = absl::StrCat("no layout of ", o.max_gpus, " GPUs runs on this fabric (", supply.fabric.gpus_per_node,
                               " GPUs per node, network ", NetworkKindName(supply.fabric.network),
                               ") and divides the model's heads");
    pick.code = RejectionReason::kNoLayout;
  }
  return pick;
}

TrainingPick TrainingEvaluator::PickPinned(const Supply& supply, int gpus, const SearchOptions& pinned) {
  SearchOptions o = pinned;
  o.max_gpus = o.min_gpus = gpus;
  o.top_k = 1;
  o.max_rejections = 1;
  return Search(supply, o);
}

const TrainingPick& TrainingEvaluator::Pick(const Supply& supply, int gpus) {
  const Fabric& f = supply.fabric;
  const PickKey key{supply.gpu,
                    f.gpus_per_node,
                    static_cast<int>(f.intra_link),
                    static_cast<int>(f.network),
                    f.intra_node_bytes_per_second_per_gpu,
                    f.network_bytes_per_second_per_gpu,
                    f.network_latency_seconds,
                    gpus};
  auto it = picks_.find(key);
  if (it != picks_.end()) return it->second;
  SearchOptions o;
  o.max_gpus = o.min_gpus = gpus;
  o.top_k = 1;
  o.max_rejections = 1;
  return picks_.emplace(key, Search(supply, o)).first->second;
}

namespace {

struct Candidate {
  size_t supply;
  int units;
  const TrainingPick* pick;
  double duration, cost;
};

// Counts tried per supply: powers of two up to what it offers, and an owned pool's whole size;
// one instance only of an offer not sold as a cluster (MayCluster).
std::vector<int> UnitCounts(const Supply& s, bool clustered) {
  std::vector<int> units;
  for (int u = 1; u <= s.units_max && (u == 1 || clustered); u *= 2) units.push_back(u);
  if (s.pool != nullptr && !units.empty() && units.back() != s.units_max) units.push_back(s.units_max);
  return units;
}

// A run over the time bound or the budget, formatted only if it is shown.
struct Miss {
  size_t supply;
  int units;
  double duration, cost;
  double distance;  // Distance(q), kept for the sort (thousands of misses on a large plan)
  static double Distance(const PlanQuery& q, double duration, double cost) {
    const double by_time = duration / TrainingBoundSeconds(q);
    return std::max(by_time, q.budget_usd > 0 ? cost / q.budget_usd : 0.0);
  }
};

// Each limit the run breaks, and by how much.
Rejection Describe(const std::vector<Supply>& supplies, const PlanQuery& q, const Miss& m) {
  const double bound = TrainingBoundSeconds(q);
  const bool late = m.duration > bound;
  Rejection r{supplies[m.supply].Label(m.units), "",
              late ? RejectionReason::kOverDeadline : RejectionReason::kOverBudget, m.distance,
              supplies[m.supply].gpu->spec.name};
  if (late) {
    r.reason = absl::StrFormat("takes %.1f days, %.2fx the %s of %.1f days", m.duration / 86400, m.duration / bound,
                               q.deadline_seconds > 0 ? "deadline" : "default bound", bound / 86400);
    if (q.deadline_seconds <= 0) absl::StrAppend(&r.reason, " (set deadline_seconds for a longer run)");
  }
  if (q.budget_usd > 0 && m.cost > q.budget_usd) {
    absl::StrAppend(&r.reason, late ? "; " : "",
                    absl::StrFormat("costs $%.0f, %.2fx the budget of $%.0f ($%.0f over)", m.cost,
                                    m.cost / q.budget_usd, q.budget_usd, m.cost - q.budget_usd));
  } else if (q.budget_usd > 0) {
    absl::StrAppend(&r.reason, absl::StrFormat("; within the budget ($%.0f)", m.cost));
  }
  return r;
}

// The picks of one supply shape (GPU type, fabric, GPUs per unit, units available): the same
// for every offer of that shape, so computed once and then only priced per offer.
// The fabric name points into the Supply, which outlives the request's shape table.
using ShapeKey = std::tuple<const GpuRow*, absl::string_view, int, int, bool>;
using ShapePicks = std::vector<std::pair<int, const TrainingPick*>>;  // (units, pick)

// Counts are tried smallest first. Once a layout fits, the search stops after two counts in
// a row that do not help the objective: 10% more GPU-hours than the best so far (cheapest
// objectives) or less than 5% faster (fastest objectives). Communication grows with the
// fleet, so past that point larger fleets only get worse; this keeps a plan without a GPU
// limit from estimating every size up to 65,536 GPUs.
class CountScan {
 public:
  explicit CountScan(const PlanQuery& q)
      : by_time_(q.objective == Objective::kFastest || q.objective == Objective::kFastestWithinBudget),
        deadline_(TrainingBoundSeconds(q)) {}

  // False once larger counts cannot help.
  bool Continue(const TrainingPick& pick) {
    if (!pick.ok) return true;
    const TrainingEstimate& e = pick.estimate;
    if (deadline_ > 0 && e.duration_seconds > deadline_) return true;  // more GPUs may meet it
    const double key = by_time_ ? e.duration_seconds : e.gpu_hours;
    const bool helps = by_time_ ? key < best_ * 0.95 : key <= best_ * 1.10;
    best_ = std::min(best_, key);
    stale_ = helps ? 0 : stale_ + 1;
    return stale_ < 2;
  }

 private:
  const bool by_time_;
  const double deadline_;
  double best_ = INFINITY;
  int stale_ = 0;
};

const ShapePicks& PicksFor(const Supply& s, const PlanQuery& q, TrainingEvaluator& eval,
                           std::map<ShapeKey, ShapePicks>* shapes) {
  auto [it, inserted] =
      shapes->try_emplace(ShapeKey{s.gpu, s.fabric_name, s.GpusPerUnit(), s.units_max, s.pool != nullptr});
  if (inserted) {
    CountScan scan(q);
    for (int u : UnitCounts(s, MayCluster(s, q.constraints))) {
      const TrainingPick& pick = eval.Pick(s, u * s.GpusPerUnit());
      it->second.emplace_back(u, &pick);
      if (!scan.Continue(pick)) break;
    }
  }
  return it->second;
}

// Every supply at every count it offers: feasible candidates, runs over the time bound or
// the budget, for each GPU type that fits nowhere its closest miss, and for each instance
// type not sold as a cluster why it was planned one instance at a time.
void Collect(const std::vector<Supply>& supplies, const PlanQuery& q, int max_gpus, TrainingEvaluator& eval,
             std::vector<Candidate>* cands, std::vector<Miss>* misses, std::vector<Rejection>* rejected) {
  std::map<const GpuRow*, const TrainingPick*> gpu_miss;  // GPU type -> its closest miss
  std::set<const GpuRow*> gpu_ok;
  std::map<ShapeKey, ShapePicks> shapes;
  std::set<std::pair<absl::string_view, absl::string_view>> not_clustered;  // provider, instance type
  const double bound = TrainingBoundSeconds(q);
  for (size_t si = 0; si < supplies.size(); ++si) {
    const Supply& s = supplies[si];
    const double usd_per_unit_hour = s.UsdPerUnitHour();
    if (s.units_max > 1 && !MayCluster(s, q.constraints) &&
        not_clustered.emplace(s.instance->provider, s.instance->instance_type).second) {
      rejected->push_back(
          {absl::StrCat(s.instance->provider, " ", s.instance->instance_type, " x2 or more (", s.gpu->spec.name, ")"),
           NotClusteredReason(s), RejectionReason::kNotClustered, 1, s.gpu->spec.name});
    }
    for (const auto& [u, pick] : PicksFor(s, q, eval, &shapes)) {
      if (!pick->ok) {
        const TrainingPick*& miss = gpu_miss[s.gpu];
        if (miss == nullptr ||
            std::make_pair(pick->code, pick->distance) < std::make_pair(miss->code, miss->distance)) {
          miss = pick;
        }
        continue;
      }
      gpu_ok.insert(s.gpu);
      double duration = pick->estimate.duration_seconds;
      if (s.price != nullptr && s.price->kind == PriceKind::kSpot) {
        duration *= 1 + SpotTrainingOverhead(pick->estimate, u, q.constraints.spot_interruptions_per_month).fraction;
      }
      const double cost = duration / units::kSecondsPerHour * u * usd_per_unit_hour;
      if (duration > bound || (q.budget_usd > 0 && cost > q.budget_usd)) {
        misses->push_back({si, u, duration, cost, Miss::Distance(q, duration, cost)});
      } else {
        cands->push_back({si, u, pick, duration, cost});
      }
    }
  }
  for (const auto& [gpu, miss] : gpu_miss) {
    if (gpu_ok.count(gpu) > 0) continue;  // fits at some other count
    rejected->push_back({absl::StrCat(gpu->spec.name, " (every offer up to ", max_gpus, " GPUs)"), miss->reason,
                         miss->code, miss->distance, gpu->spec.name});
  }
}

// The top option at a GPU ceiling says so, and what the next size would give.
void NoteCeiling(const PlanQuery& q, int max_gpus, TrainingEvaluator& eval, TrainingPlan* plan) {
  TrainingChoice& top = plan->options.front();
  const Supply& s = plan->supplies[top.supply];
  if (top.units * 2 <= s.units_max || (s.pool != nullptr && s.units_max == s.pool->gpu_count)) return;
  const std::string limit = q.constraints.max_gpus > 0
                                ? absl::StrCat("max_gpus=", max_gpus)
                                : absl::StrCat("the largest fleet a request may describe (", kMaxGpus, " GPUs)");
  const int next = top.units * 2 * s.GpusPerUnit();
  top.ceiling_note = absl::StrCat("limited by ", limit);
  if (next > kMaxGpus) return;
  const TrainingPick& more = eval.Pick(s, next);
  if (!more.ok) {
    absl::StrAppend(&top.ceiling_note, "; ", next, " GPUs would not help: ", more.reason);
    return;
  }
  const double cost = more.estimate.duration_seconds / units::kSecondsPerHour * top.units * 2 * s.UsdPerUnitHour();
  absl::StrAppend(&top.ceiling_note, "; ", next, " GPUs would take ", Fixed(more.estimate.duration_seconds / 86400, 1),
                  " days for $", Fixed(cost, 0));
}

}  // namespace

namespace {

// A spot option's end-to-end figures with interruptions, restarts and checkpoints in.
void AddSpotOverhead(const PlanQuery& q, const Candidate& c, TrainingChoice* o) {
  const SpotOverhead spot = SpotTrainingOverhead(c.pick->estimate, c.units, q.constraints.spot_interruptions_per_month);
  TrainingEstimate& e = o->estimate;
  const double f = 1 + spot.fraction;
  e.duration_seconds *= f;
  e.duration_seconds_low *= f;
  e.duration_seconds_high *= f;
  e.goodput /= f;
  e.energy_kwh *= f;
  o->spot_note = spot.note;
}

// Which rule picked the top option, in words.
std::string TrainingRule(const PlanQuery& q) {
  const bool by_time = q.objective == Objective::kFastest || q.objective == Objective::kFastestWithinBudget;
  std::string rule = by_time ? "fastest run (then cheapest)" : "cheapest run (then fastest)";
  if (q.deadline_seconds > 0) {
    absl::StrAppend(&rule, " finishing within the deadline of ", Fixed(q.deadline_seconds / 86400, 1), " days");
  } else {
    absl::StrAppend(&rule, " finishing within ", Fixed(kDefaultTrainingBoundSeconds / 86400, 0),
                    " days (the default bound; set deadline_seconds to change it)");
  }
  if (q.budget_usd > 0) absl::StrAppend(&rule, " and the budget of $", Fixed(q.budget_usd, 0));
  return rule;
}

// No option meets the limits: which cannot be met and by how much.
absl::Status NoTrainingFits(const PlanQuery& q, const std::vector<Rejection>& rejected) {
  absl::Status st = NothingFits(rejected);
  if (std::none_of(rejected.begin(), rejected.end(), [](const Rejection& r) {
        return r.code == RejectionReason::kOverDeadline || r.code == RejectionReason::kOverBudget;
      })) {
    return st;
  }
  return absl::FailedPreconditionError(absl::StrCat("no option meets ", TrainingRule(q), "; ", st.message()));
}

std::vector<FrontierPoint> TrainingFrontier(const TrainingPlan& plan, const std::vector<Candidate>& cands,
                                            const Candidate& best) {
  std::vector<FrontierCandidate> numbers;
  numbers.reserve(cands.size());
  for (size_t i = 0; i < cands.size(); ++i)
    numbers.push_back({cands[i].duration, cands[i].cost, &cands[i] == &best, i});
  std::vector<FrontierPoint> points;
  for (size_t i : FrontierIndices(std::move(numbers))) {
    const Candidate* c = &cands[i];
    const Supply& s = plan.supplies[c->supply];
    points.push_back(
        {s.Label(c->units), s.gpu->spec.name, c->units * s.GpusPerUnit(), c->duration, c->cost, c == &best});
  }
  return ParetoFrontier(std::move(points));  // thinned
}

}  // namespace

absl::StatusOr<TrainingPlan> PlanTraining(const CatalogView& catalog, const TrainingJob& job, const PlanQuery& q,
                                          LayoutCacheRef cache) {
  CAPPLAN_RETURN_IF_ERROR(ValidatePlanQuery(catalog, q));
  TrainingPlan plan;
  const int max_gpus = q.constraints.TrainingMaxGpus();
  plan.supplies = BuildSupplies(catalog, q, max_gpus);
  plan.selection_rule = TrainingRule(q);
  TrainingEvaluator eval(catalog, job, cache);
  std::vector<Candidate> cands;
  std::vector<Miss> misses;
  Collect(plan.supplies, q, max_gpus, eval, &cands, &misses, &plan.rejected);
  for (Rejection& r : UnofferedGpus(catalog, q, plan.supplies)) plan.rejected.push_back(std::move(r));
  // Only the closest misses are formatted, at most half the rejections shown, so that the
  // reasons whole GPU types cannot work still show; and each GPU type's closest miss.
  const size_t keep = std::max<size_t>(static_cast<size_t>(q.max_rejected) / 2, 1);
  auto closer = [](const Miss& a, const Miss& b) { return a.distance < b.distance; };
  std::sort(misses.begin(), misses.end(), closer);
  std::set<const GpuRow*> gpu_shown;
  for (size_t i = 0; i < misses.size(); ++i) {
    if (gpu_shown.insert(plan.supplies[misses[i].supply].gpu).second || i < keep) {
      plan.rejected.push_back(Describe(plan.supplies, q, misses[i]));
    }
  }
  if (cands.empty()) {
    KeepClosestPerGpu(&plan.rejected, static_cast<size_t>(q.max_rejected), {}, {});
    return NoTrainingFits(q, plan.rejected);
  }

  const bool by_time = q.objective == Objective::kFastest || q.objective == Objective::kFastestWithinBudget;
  auto better = [by_time](const Candidate& a, const Candidate& b) {
    const double ka = by_time ? a.duration : a.cost, kb = by_time ? b.duration : b.cost;
    if (ka != kb) return ka < kb;
    return (by_time ? a.cost : a.duration) < (by_time ? b.cost : b.duration);
  };
  Ranker<Candidate, decltype(better)> ranker(&cands, better, q.top_k, q.max_rejected);
  std::map<const GpuRow*, size_t> gpu_rank;  // each GPU type's best rank
  auto ranked_lower = [&](const Candidate& c, size_t rank) {
    const Candidate& best = ranker.Best();
    const Supply& s = plan.supplies[c.supply];
    return Rejection{s.Label(c.units),
                     absl::StrCat("ranked #", rank, ": ", Fixed(c.duration / 86400, 1), " days, $", Fixed(c.cost, 0),
                                  " (best: ", Fixed(best.duration / 86400, 1), " days, $", Fixed(best.cost, 0), ")"),
                     RejectionReason::kRankedLower, static_cast<double>(rank), s.gpu->spec.name};
  };
  ranker.Walk([&](const Candidate& c) { return SameOfferKey(plan.supplies[c.supply], c.units); },
              [&](const Candidate& c) {
                TrainingChoice& o = plan.options.emplace_back();
                o.supply = c.supply;
                o.units = c.units;
                o.estimate = c.pick->estimate;
                o.efficiency = eval.EfficiencyFor(*plan.supplies[c.supply].gpu);
                o.cost_usd = c.cost;
                if (c.duration != o.estimate.duration_seconds) AddSpotOverhead(q, c, &o);
                return plan.options.size() - 1;
              },
              [&](size_t option, const Candidate& c) {
                plan.options[option].same_offer_regions.push_back(plan.supplies[c.supply].instance->region);
              },
              [&](const Candidate& c, size_t rank) { plan.rejected.push_back(ranked_lower(c, rank)); },
              [&](const Candidate& c) { return c.supply; });
  ShowRejections(
      q.max_rejected, cands, better,
      [&](const Candidate& c) {
        Rejection r = ranked_lower(c, 0);
        r.reason = absl::StrCat("ranked lower: ", r.reason.substr(r.reason.find(':') + 2));
        return r;
      },
      &plan);
  plan.frontier = TrainingFrontier(plan, cands, ranker.Best());
  if (!plan.options.empty()) NoteCeiling(q, max_gpus, eval, &plan);
  return plan;
}

}  // namespace capplan::core::planner
