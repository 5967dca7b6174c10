// Why a candidate was not chosen: a reason from an ordered enum plus a distance within it,
// instead of one magic "closeness" number. Rejections are shown in enum order, the smallest
// distance first within a reason.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace capplan::core::planner {

// Ordered as a reader needs them: candidates that would work with a looser limit, closest
// first; then those that cannot work on that hardware; last, feasible candidates that
// simply ranked lower than the options shown.
enum class RejectionReason {
  kOverDeadline,  // distance: duration / deadline
  kOverBudget,    // distance: cost / budget
  kTooManyGpus,   // fits with more GPUs than allowed (distance: needed / allowed)
  kMemory,        // distance: needed / available memory per GPU
  kSlo,           // misses a latency target even at batch 1
  kNoLayout,      // no parallel layout divides the model
  kInvalid,       // the workload cannot run there at all (the reason says why)
  kNotClustered,  // single VMs whose network is not sold as a cluster: not planned multi-node
  kNoOffer,       // a catalog GPU with no offer the query allows (price, provider, region, filter)
  kRankedLower,   // feasible; others rank above it (distance: its rank)
};

struct Rejection {
  std::string candidate;
  std::string reason;
  RejectionReason code = RejectionReason::kInvalid;
  double distance = 1;
  std::string gpu_name;  // the GPU type the candidate is of ("" when not one)
};

// True when `a` is closer to working than `b`.
bool CloserThan(const Rejection& a, const Rejection& b);

// Keeps the `n` closest, closest first.
void KeepClosest(std::vector<Rejection>* rejected, size_t n);

// Keeps the `n` closest, closest first, so that every GPU type of `accounted` that no
// option uses keeps at least one line: its closest rejection, or `fallback`'s line for it
// (a GPU type's best feasible candidate, ranked lower).
void KeepClosestPerGpu(std::vector<Rejection>* rejected, size_t n, const std::vector<std::string>& option_gpus,
                       std::vector<Rejection> fallback);

// The rejections a Plan shows: none when `max_rejected` is 0 (a BASIC view: nothing is ranked
// or named only to be dropped); else KeepClosestPerGpu, a GPU type no line names getting its
// best candidate (by `better`) as `ranked_lower(candidate)`. Plan: options and candidates
// with a `supply` index into `supplies`, and `rejected`.
template <typename Plan, typename Candidate, typename Better, typename RankedLower>
void ShowRejections(int max_rejected, const std::vector<Candidate>& cands, Better better, RankedLower ranked_lower,
                    Plan* plan) {
  if (max_rejected == 0) {
    plan->rejected.clear();
    return;
  }
  std::vector<std::string> option_gpus;
  option_gpus.reserve(plan->options.size());
  for (const auto& o : plan->options) option_gpus.push_back(plan->supplies[o.supply].gpu->spec.name);
  // Each GPU type's best candidate, found in one pass.
  std::map<decltype(plan->supplies[0].gpu), const Candidate*> gpu_best;
  for (const Candidate& c : cands) {
    const Candidate*& b = gpu_best[plan->supplies[c.supply].gpu];
    if (b == nullptr || better(c, *b)) b = &c;
  }
  std::vector<Rejection> fallback;
  fallback.reserve(gpu_best.size());
  for (const auto& [gpu, c] : gpu_best) fallback.push_back(ranked_lower(*c));
  KeepClosestPerGpu(&plan->rejected, static_cast<size_t>(max_rejected), option_gpus, std::move(fallback));
}

// FailedPrecondition naming the closest miss (or saying nothing matched the constraints).
absl::Status NothingFits(const std::vector<Rejection>& rejected);

}  // namespace capplan::core::planner
