#include "core/planner/rejection.h"

#include <algorithm>

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

absl::Status NothingFits(const std::vector<Rejection>& rejected) {
  if (rejected.empty()) {
    return absl::FailedPreconditionError(
        "no catalog offer or owned pool matches the constraints (providers, regions, GPUs, price kind)");
  }
  const Rejection& best = *std::min_element(rejected.begin(), rejected.end(), CloserThan);
  return absl::FailedPreconditionError(absl::StrCat("nothing fits; closest miss: ", best.candidate, ": ", best.reason));
}

}  // namespace capplan::core::planner
