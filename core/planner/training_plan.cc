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
    it = efficiency_.emplace(gpu.spec.name, TrainingEfficiency(job_, {gpu.spec}, catalog_.TrainingBenchmarks())).first;
  }
  return it->second;
}

TrainingPick TrainingEvaluator::PickPinned(const GpuRow& gpu, const ParallelConfig& layout) {
  TrainingPick pick;
  absl::StatusOr<TrainingEstimate> e = EstimateTraining(job_, ClusterSpec{gpu.spec}, layout, EfficiencyFor(gpu));
  if (!e.ok()) {
    pick.reason = std::string(e.status().message());
  } else if (!e->fits) {
    pick.reason = absl::StrFormat("needs %.1f GB per GPU, %s has %.1f GB", e->memory_per_gpu.TotalBytes() / units::kGB,
                                  gpu.spec.name, gpu.spec.memory_bytes / units::kGB);
    pick.code = RejectionReason::kMemory;
    pick.distance = e->memory_per_gpu.TotalBytes() / gpu.spec.memory_bytes;
  } else {
    pick.ok = true;
    pick.estimate = *e;
  }
  return pick;
}

const TrainingPick& TrainingEvaluator::Pick(const GpuRow& gpu, int gpus) {
  const std::pair<const GpuRow*, int> key{&gpu, gpus};
  auto it = picks_.find(key);
  if (it != picks_.end()) return it->second;
  TrainingPick pick;
  SearchOptions o;
  o.max_gpus = gpus;
  o.min_gpus = gpus;
  o.top_k = 1;
  o.max_rejections = 1;
  absl::StatusOr<SearchResult> r = SearchParallelism(job_, ClusterSpec{gpu.spec}, EfficiencyFor(gpu), o);
  if (!r.ok()) {
    pick.reason = std::string(r.status().message());
  } else if (!r->ranked.empty()) {
    pick.ok = true;
    pick.estimate = r->ranked.front();
  } else if (!r->rejected.empty()) {
    const core::Rejection& miss = r->rejected.front();
    pick.reason = DescribeRejection(miss, gpu.spec);
    if (miss.reason == RejectReason::kMemory) {
      pick.code = RejectionReason::kMemory;
      pick.distance = miss.needed_bytes / miss.capacity_bytes;
    } else {
      pick.code = RejectionReason::kNoLayout;
    }
  } else {
    pick.reason = absl::StrCat("no tensor/pipeline split of ", gpus, " GPUs divides the model's heads and layers");
    pick.code = RejectionReason::kNoLayout;
  }
  return picks_.emplace(key, std::move(pick)).first->second;
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

// Every supply at every count it offers: feasible candidates, deadline or budget misses,
// and for each GPU type that fits nowhere, its closest miss.
// The picks of one supply shape (GPU type, GPUs per unit, units available): the same for
// every offer of that shape, so computed once and then only priced per offer.
using ShapeKey = std::tuple<const GpuRow*, int, int, bool>;
using ShapePicks = std::vector<std::pair<int, const TrainingPick*>>;  // (units, pick)

const ShapePicks& PicksFor(const Supply& s, TrainingEvaluator& eval, std::map<ShapeKey, ShapePicks>* shapes) {
  auto [it, inserted] = shapes->try_emplace(ShapeKey{s.gpu, s.GpusPerUnit(), s.units_max, s.pool != nullptr});
  if (inserted) {
    for (int u : UnitCounts(s)) it->second.emplace_back(u, &eval.Pick(*s.gpu, u * s.GpusPerUnit()));
  }
  return it->second;
}

// Every supply at every count it offers: feasible candidates, deadline or budget misses,
// and for each GPU type that fits nowhere, its closest miss.
void Collect(const std::vector<Supply>& supplies, const PlanQuery& q, TrainingEvaluator& eval,
             std::vector<Candidate>* cands, std::vector<Miss>* misses, std::vector<Rejection>* rejected) {
  std::map<const GpuRow*, const TrainingPick*> gpu_miss;  // GPU type -> its closest miss
  std::set<const GpuRow*> gpu_ok;
  std::map<ShapeKey, ShapePicks> shapes;
  for (size_t si = 0; si < supplies.size(); ++si) {
    const Supply& s = supplies[si];
    const double usd_per_unit_hour = s.UsdPerUnitHour();
    for (const auto& [u, pick] : PicksFor(s, eval, &shapes)) {
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
    rejected->push_back({absl::StrCat(gpu->spec.name, " (every offer up to ", q.constraints.max_gpus, " GPUs)"),
                         miss->reason, miss->code, miss->distance});
  }
}

}  // namespace

absl::StatusOr<TrainingPlan> PlanTraining(const CatalogView& catalog, const TrainingJob& job, const PlanQuery& q) {
  CAPPLAN_RETURN_IF_ERROR(ValidatePlanQuery(catalog, q));
  TrainingPlan plan;
  plan.supplies = BuildSupplies(catalog, q);
  TrainingEvaluator eval(catalog, job);
  std::vector<Candidate> cands;
  std::vector<Miss> misses;
  Collect(plan.supplies, q, eval, &cands, &misses, &plan.rejected);
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
  return plan;
}

}  // namespace capplan::core::planner
