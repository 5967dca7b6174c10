#include "core/planner/serving_plan.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/format.h"
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

// Instances (or pool GPUs) that `replicas` replicas of `tp` GPUs take on this supply; -1 when
// a replica cannot fit one instance or one node of the supply's fabric.
int64_t UnitsFor(const Supply& s, int64_t replicas, int tp) {
  // A replica's tensor-parallel group stays on the fabric's fast link (one node).
  if (s.fabric.Known() && tp > s.fabric.gpus_per_node) return -1;
  if (s.pool != nullptr) return replicas * tp;
  const int per_unit = s.GpusPerUnit();
  if (tp > per_unit) return -1;  // a replica cannot span instances
  const int64_t replicas_per_unit = per_unit / tp;
  return (replicas + replicas_per_unit - 1) / replicas_per_unit;
}

}  // namespace

ServingFit ServingEvaluator::Fit(const Supply& s, int max_units) {
  ServingFit best;
  const absl::Status* first_error = nullptr;
  const ServingEstimate* too_big = nullptr;  // the smallest layout over the limit
  int64_t too_big_units = 0;
  int too_big_tp = 0;
  double best_cost = 0;
  for (const ServingOption& o : Options(*s.gpu)) {
    if (!o.estimate.ok()) {
      if (first_error == nullptr) first_error = &o.estimate.status();
      continue;
    }
    const ServingEstimate& e = *o.estimate;
    const int64_t units = UnitsFor(s, e.replicas, o.tp);
    if (units < 0) continue;
    if (units > max_units) {
      if (too_big == nullptr || units < too_big_units) {
        too_big = &e;
        too_big_units = units;
        too_big_tp = o.tp;
      }
      continue;
    }
    const double cost = static_cast<double>(units) * s.UsdPerUnitHour();
    if (best.estimate == nullptr || cost < best_cost ||
        (cost == best_cost && e.tpot_seconds < best.estimate->tpot_seconds)) {
      best.estimate = &e;
      best.units = static_cast<int>(units);
      best_cost = cost;
    }
  }
  if (best.estimate != nullptr) return best;
  if (too_big != nullptr) {
    best.reason = absl::StrFormat("needs %d replicas of %d GPUs (%d GPUs), more than the %d allowed", too_big->replicas,
                                  too_big_tp, too_big->replicas * too_big_tp, int64_t{max_units} * s.GpusPerUnit());
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
  const ServingEstimate* estimate;
  double usd_per_hour;
};

}  // namespace

absl::StatusOr<ServingPlan> PlanServing(const CatalogView& catalog, const ServingWorkload& w, const PlanQuery& q) {
  CAPPLAN_RETURN_IF_ERROR(ValidatePlanQuery(catalog, q));
  if (!(w.requests_per_second > 0)) {
    return FieldError("serving.requests_per_second", "must be > 0 to plan capacity");
  }
  if (q.objective == Objective::kCheapestWithinDeadline) {
    return FieldError("objective", "CHEAPEST_WITHIN_DEADLINE applies to training; serving has SLOs");
  }
  ServingPlan plan;
  plan.supplies = BuildSupplies(catalog, q, q.constraints.ServingMaxGpus());
  ServingEvaluator eval(catalog, w);
  std::vector<Candidate> cands;
  std::map<const GpuRow*, ServingFit> gpu_miss;  // by GPU type, its closest miss
  std::set<const GpuRow*> gpu_ok;
  std::vector<Rejection> over_budget;
  for (size_t si = 0; si < plan.supplies.size(); ++si) {
    const Supply& s = plan.supplies[si];
    ServingFit fit = eval.Fit(s, s.units_max);
    if (fit.estimate == nullptr) {
      if (gpu_ok.count(s.gpu) > 0) continue;
      auto [it, inserted] = gpu_miss.try_emplace(s.gpu, fit);
      if (!inserted && std::make_pair(fit.code, fit.distance) < std::make_pair(it->second.code, it->second.distance)) {
        it->second = std::move(fit);
      }
      continue;
    }
    gpu_ok.insert(s.gpu);
    const double usd_per_hour = fit.units * s.UsdPerUnitHour();
    const double usd_per_month = usd_per_hour * units::kHoursPerMonth;
    if (q.objective == Objective::kFastestWithinBudget && usd_per_month > q.budget_usd) {
      if (over_budget.size() < static_cast<size_t>(q.max_rejected) / 2 + 1) {
        over_budget.push_back({s.Label(fit.units),
                               absl::StrFormat("costs $%.0f per month, budget $%.0f", usd_per_month, q.budget_usd),
                               RejectionReason::kOverBudget, usd_per_month / q.budget_usd});
      }
      continue;
    }
    cands.push_back({si, fit.units, fit.estimate, usd_per_hour});
  }
  for (const auto& [gpu, miss] : gpu_miss) {
    if (gpu_ok.count(gpu) == 0) plan.rejected.push_back({gpu->spec.name, miss.reason, miss.code, miss.distance});
  }
  for (Rejection& r : over_budget) plan.rejected.push_back(std::move(r));
  if (cands.empty()) return NothingFits(plan.rejected);

  const bool by_latency = q.objective == Objective::kFastest || q.objective == Objective::kFastestWithinBudget;
  auto better = [by_latency](const Candidate& a, const Candidate& b) {
    const double ta = a.estimate->tpot_seconds, tb = b.estimate->tpot_seconds;
    if (by_latency && ta != tb) return ta < tb;
    if (a.usd_per_hour != b.usd_per_hour) return a.usd_per_hour < b.usd_per_hour;
    return ta < tb;
  };
  Ranker<Candidate, decltype(better)> ranker(&cands, better, q.top_k, q.max_rejected);
  ranker.Walk([&](const Candidate& c) { return SameOfferKey(plan.supplies[c.supply], c.units); },
              [&](const Candidate& c) {
                ServingChoice& o = plan.options.emplace_back();
                o.supply = c.supply;
                o.estimate = *c.estimate;
                o.units = c.units;
                o.efficiency = eval.EfficiencyFor(*plan.supplies[c.supply].gpu);
                o.usd_per_hour = c.usd_per_hour;
                o.offered_requests_per_second = w.requests_per_second;
                return plan.options.size() - 1;
              },
              [&](size_t option, const Candidate& c) {
                plan.options[option].same_offer_regions.push_back(plan.supplies[c.supply].instance->region);
              },
              [&](const Candidate& c, size_t rank) {
                const Candidate& best = ranker.Best();
                plan.rejected.push_back(
                    {plan.supplies[c.supply].Label(c.units),
                     absl::StrCat("ranked #", rank, ": $", Fixed(c.usd_per_hour, 2), "/h, TPOT ",
                                  Fixed(c.estimate->tpot_seconds, 4), " s (best: $", Fixed(best.usd_per_hour, 2),
                                  "/h, TPOT ", Fixed(best.estimate->tpot_seconds, 4), " s)"),
                     RejectionReason::kRankedLower, static_cast<double>(rank)});
              },
              [](const Candidate& c) { return c.supply; });
  KeepClosest(&plan.rejected, static_cast<size_t>(q.max_rejected));
  return plan;
}

}  // namespace capplan::core::planner
