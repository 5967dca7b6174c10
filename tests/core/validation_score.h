// Aggregate scores of the estimator against a validation set, one line per regime: rows, how
// many were answered, median |error|, the share of published values inside the answer's
// low-high, and the refusals counted by reason. Shared by the development-set tests and the
// frozen test set (docs/validation/README.md), which may print nothing finer than this.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"

namespace capplan::testdata {

// The regimes docs/validation/README.md reports (the frozen test set has no sharded-training
// label: its FSDP rows are dense training).
inline const std::vector<std::string>& ValidationRegimes() {
  static const std::vector<std::string> regimes = {"dense-training", "sharded-training", "moe-training",
                                                   "serving-nvidia", "serving-other",    "memory"};
  return regimes;
}

struct RegimeScore {
  int rows = 0;
  std::vector<double> abs_errors;  // |capplan / published - 1| per answered row
  int in_range = 0;
  int with_range = 0;  // answers that carry a low-high (memory answers do not)
  std::map<std::string, int> refusals;

  void Answer(double published, double point, double low, double high, bool has_range) {
    ++rows;
    abs_errors.push_back(std::fabs(point / published - 1.0));
    if (!has_range) return;
    ++with_range;
    in_range += std::min(low, high) <= published && published <= std::max(low, high) ? 1 : 0;
  }
  void Refuse(const std::string& reason) {
    ++rows;
    ++refusals[reason];
  }
  double MedianAbsError() const {
    if (abs_errors.empty()) return 0;
    std::vector<double> v = abs_errors;
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 == 1 ? v[m] : 0.5 * (v[m - 1] + v[m]);
  }
  int Refused() const {
    int n = 0;
    for (const auto& [reason, count] : refusals) n += count;
    return n;
  }
};

// Prints the aggregate table (markdown) for `title`, one line per regime that has rows.
inline void PrintRegimeScores(const char* title, const std::map<std::string, RegimeScore>& scores) {
  std::printf(
      "\n%s\n| regime | rows | answered | median abs error | inside low-high | refused (reasons) |\n"
      "|---|---|---|---|---|---|\n",
      title);
  for (const std::string& regime : ValidationRegimes()) {
    auto it = scores.find(regime);
    if (it == scores.end() || it->second.rows == 0) continue;
    const RegimeScore& s = it->second;
    const int answered = static_cast<int>(s.abs_errors.size());
    const std::string median = answered > 0 ? absl::StrFormat("%.1f%%", 100 * s.MedianAbsError()) : "-";
    std::string inside = answered > 0 ? "no range" : "-";
    if (s.with_range > 0) {
      inside = absl::StrFormat("%d/%d (%.0f%%)", s.in_range, s.with_range, 100.0 * s.in_range / s.with_range);
    }
    std::string reasons;
    for (const auto& [reason, count] : s.refusals) {
      reasons += (reasons.empty() ? "" : "; ") + reason + " x" + std::to_string(count);
    }
    std::printf("| %s | %d | %d | %s | %s | %d%s%s%s |\n", regime.c_str(), s.rows, answered, median.c_str(),
                inside.c_str(), s.Refused(), reasons.empty() ? "" : " (", reasons.c_str(), reasons.empty() ? "" : ")");
  }
}

}  // namespace capplan::testdata
