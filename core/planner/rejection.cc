#include "core/planner/rejection.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"

namespace capplan::core::planner {

bool CloserThan(const Rejection& a, const Rejection& b) {
  if (a.code != b.code) return a.code < b.code;
  return a.distance < b.distance;
}

void KeepClosest(std::vector<Rejection>* rejected, size_t n) {
  if (rejected->size() > n) {
    std::nth_element(rejected->begin(), rejected->begin() + static_cast<std::ptrdiff_t>(n), rejected->end(),
                     CloserThan);
    rejected->resize(n);
  }
  std::stable_sort(rejected->begin(), rejected->end(), CloserThan);
}

void KeepClosestPerGpu(std::vector<Rejection>* rejected, size_t n, const std::vector<std::string>& option_gpus,
                       std::vector<Rejection> fallback) {
  std::stable_sort(rejected->begin(), rejected->end(), CloserThan);
  std::set<std::string> named(option_gpus.begin(), option_gpus.end());
  std::vector<Rejection> first, rest;  // each GPU type's closest line, then the others
  for (Rejection& r : *rejected) {
    const bool is_first = !r.gpu_name.empty() && named.insert(r.gpu_name).second;
    (is_first ? first : rest).push_back(std::move(r));
  }
  for (Rejection& r : fallback) {
    if (named.insert(r.gpu_name).second) first.push_back(std::move(r));
  }
  first.resize(std::min(first.size(), n));
  for (size_t i = 0; i < rest.size() && first.size() < n; ++i) first.push_back(std::move(rest[i]));
  std::stable_sort(first.begin(), first.end(), CloserThan);
  *rejected = std::move(first);
}

absl::Status NothingFits(const std::vector<Rejection>& rejected) {
  // Only GPUs without an allowed offer: nothing was estimated, so the constraints are the
  // cause, not a closest miss.
  if (std::all_of(rejected.begin(), rejected.end(),
                  [](const Rejection& r) { return r.code == RejectionReason::kNoOffer; })) {
    return absl::FailedPreconditionError(
        "no catalog offer or owned pool matches the constraints (providers, regions, GPUs, price kind)");
  }
  const Rejection& best = *std::min_element(rejected.begin(), rejected.end(), CloserThan);
  return absl::FailedPreconditionError(absl::StrCat("nothing fits; closest miss: ", best.candidate, ": ", best.reason));
}

}  // namespace capplan::core::planner
