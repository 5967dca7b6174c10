#include "core/planner/training_plan.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/format.h"
#include "core/planner/ranking.h"
#include "core/units.h"
#include "core/validate.h"

namespace capplan::core::planner {

const Efficiency& TrainingEvaluator::EfficiencyFor(const GpuRow& gpu) {
  auto it = efficiency_.find(gpu.spec.name);
  if (it == efficiency_.end()) {
    it = efficiency_
             .emplace(gpu.spec.name, TrainingEfficiency(job_, ClusterSpec{gpu.spec, {}}, catalog_.TrainingBenchmarks()))
             .first;
  }
  return it->second;
}

TrainingPick TrainingEvaluator::Search(const Supply& supply, const SearchOptions& o) {
  TrainingPick pick;
  const GpuRow& gpu = *supply.gpu;
  absl::StatusOr<SearchResult> r = SearchParallelism(job_, ClusterSpec{gpu.spec, supply.fabric}, EfficiencyFor(gpu), o);
  if (!r.ok()) {
    pick.reason = std::string(r.status().message());
  } else if (!r->ranked.empty()) {
    pick.ok = true;
    pick.estimate = r->ranked.front();
  } else if (!r->rejected.empty()) {
    const core::LayoutRejection& miss = r->rejected.front();
    pick.reason = DescribeRejection(miss, gpu.spec);
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

// Counts tried per supply: powers of two up to what it offers, and an owned pool's whole size.
std::vector<int> UnitCounts(const Supply& s) {
  std::vector<int> units;
  for (int u = 1; u <= s.units_max; u *= 2) units.push_back(u);
  if (s.pool != nullptr && !units.empty() && units.back() != s.units_max) units.push_back(s.units_max);
  return units;
}

// A deadline or budget miss, formatted only if it is shown.
struct Miss {
  size_t supply;
  int units;
  RejectionReason code;
  double value, limit;
};

Rejection Describe(const std::vector<Supply>& supplies, const Miss& m) {
  Rejection r{supplies[m.supply].Label(m.units), "", m.code, m.value / m.limit};
  r.reason = m.code == RejectionReason::kOverDeadline
                 ? absl::StrFormat("takes %.1f days, deadline %.1f days", m.value / 86400, m.limit / 86400)
                 : absl::StrFormat("costs $%.0f, budget $%.0f", m.value, m.limit);
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
        deadline_(q.objective == Objective::kCheapestWithinDeadline ? q.deadline_seconds : 0) {}

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
    for (int u : UnitCounts(s)) {
      const TrainingPick& pick = eval.Pick(s, u * s.GpusPerUnit());
      it->second.emplace_back(u, &pick);
      if (!scan.Continue(pick)) break;
    }
  }
  return it->second;
}

// Every supply at every count it offers: feasible candidates, deadline or budget misses,
// and for each GPU type that fits nowhere, its closest miss.
void Collect(const std::vector<Supply>& supplies, const PlanQuery& q, int max_gpus, TrainingEvaluator& eval,
             std::vector<Candidate>* cands, std::vector<Miss>* misses, std::vector<Rejection>* rejected) {
  std::map<const GpuRow*, const TrainingPick*> gpu_miss;  // GPU type -> its closest miss
  std::set<const GpuRow*> gpu_ok;
  std::map<ShapeKey, ShapePicks> shapes;
  for (size_t si = 0; si < supplies.size(); ++si) {
    const Supply& s = supplies[si];
    const double usd_per_unit_hour = s.UsdPerUnitHour();
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
      const double duration = pick->estimate.duration_seconds;
      const double cost = duration / units::kSecondsPerHour * u * usd_per_unit_hour;
      if (q.objective == Objective::kCheapestWithinDeadline && duration > q.deadline_seconds) {
        misses->push_back({si, u, RejectionReason::kOverDeadline, duration, q.deadline_seconds});
      } else if (q.objective == Objective::kFastestWithinBudget && cost > q.budget_usd) {
        misses->push_back({si, u, RejectionReason::kOverBudget, cost, q.budget_usd});
      } else {
        cands->push_back({si, u, pick, duration, cost});
      }
    }
  }
  for (const auto& [gpu, miss] : gpu_miss) {
    if (gpu_ok.count(gpu) > 0) continue;  // fits at some other count
    rejected->push_back({absl::StrCat(gpu->spec.name, " (every offer up to ", max_gpus, " GPUs)"), miss->reason,
                         miss->code, miss->distance});
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

absl::StatusOr<TrainingPlan> PlanTraining(const CatalogView& catalog, const TrainingJob& job, const PlanQuery& q) {
  CAPPLAN_RETURN_IF_ERROR(ValidatePlanQuery(catalog, q));
  TrainingPlan plan;
  const int max_gpus = q.constraints.TrainingMaxGpus();
  plan.supplies = BuildSupplies(catalog, q, max_gpus);
  TrainingEvaluator eval(catalog, job);
  std::vector<Candidate> cands;
  std::vector<Miss> misses;
  Collect(plan.supplies, q, max_gpus, eval, &cands, &misses, &plan.rejected);
  // Only the closest misses are formatted, at most half the rejections shown, so that the
  // reasons whole GPU types cannot work still show.
  const size_t keep = std::max<size_t>(static_cast<size_t>(q.max_rejected) / 2, 1);
  if (misses.size() > keep) {
    std::nth_element(misses.begin(), misses.begin() + static_cast<std::ptrdiff_t>(keep), misses.end(),
                     [](const Miss& a, const Miss& b) { return a.value / a.limit < b.value / b.limit; });
    misses.resize(keep);
  }
  for (const Miss& m : misses) plan.rejected.push_back(Describe(plan.supplies, m));
  if (cands.empty()) return NothingFits(plan.rejected);

  const bool by_time = q.objective == Objective::kFastest || q.objective == Objective::kFastestWithinBudget;
  auto better = [by_time](const Candidate& a, const Candidate& b) {
    const double ka = by_time ? a.duration : a.cost, kb = by_time ? b.duration : b.cost;
    if (ka != kb) return ka < kb;
    return (by_time ? a.cost : a.duration) < (by_time ? b.cost : b.duration);
  };
  Ranker<Candidate, decltype(better)> ranker(&cands, better, q.top_k, q.max_rejected);
  ranker.Walk([&](const Candidate& c) { return SameOfferKey(plan.supplies[c.supply], c.units); },
              [&](const Candidate& c) {
                TrainingChoice& o = plan.options.emplace_back();
                o.supply = c.supply;
                o.units = c.units;
                o.estimate = c.pick->estimate;
                o.efficiency = eval.EfficiencyFor(*plan.supplies[c.supply].gpu);
                o.cost_usd = c.cost;
                return plan.options.size() - 1;
              },
              [&](size_t option, const Candidate& c) {
                plan.options[option].same_offer_regions.push_back(plan.supplies[c.supply].instance->region);
              },
              [&](const Candidate& c, size_t rank) {
                const Candidate& best = ranker.Best();
                plan.rejected.push_back(
                    {plan.supplies[c.supply].Label(c.units),
                     absl::StrCat("ranked #", rank, ": ", Fixed(c.duration / 86400, 1), " days, $", Fixed(c.cost, 0),
                                  " (best: ", Fixed(best.duration / 86400, 1), " days, $", Fixed(best.cost, 0), ")"),
                     RejectionReason::kRankedLower, static_cast<double>(rank)});
              },
              [&](const Candidate& c) { return c.supply; });
  KeepClosest(&plan.rejected, static_cast<size_t>(q.max_rejected));
  if (!plan.options.empty()) NoteCeiling(q, max_gpus, eval, &plan);
  return plan;
}

}  // namespace capplan::core::planner
