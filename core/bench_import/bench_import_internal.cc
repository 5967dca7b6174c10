#include "core/bench_import/bench_import_internal.h"

#include <algorithm>
#include <cctype>
#include <cstddef>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace capplan::core::bench_import::internal {

std::optional<double> NumberAfter(absl::string_view line, absl::string_view key) {
  const size_t at = line.find(key);
  if (at == absl::string_view::npos) return std::nullopt;
  absl::string_view rest = line.substr(at + key.size());
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  std::string digits;
  for (char c : rest) {
    const bool numeric = std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' ||
                         ((c == '-' || c == '+') && (digits.empty() || digits.back() == 'e' || digits.back() == 'E'));
    if (c == ',') continue;
    if (!numeric) break;
    digits.push_back(c);
  }
  double v = 0;
  if (digits.empty() || !absl::SimpleAtod(digits, &v)) return std::nullopt;
  return v;
}

double Median(std::vector<double> values) {
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lower + upper);
}

std::vector<std::pair<int64_t, StepRecord>> SteadySteps(const std::map<int64_t, StepRecord>& steps,
                                                        int64_t warmup_steps) {
  std::vector<std::pair<int64_t, StepRecord>> out;
  if (steps.empty()) return out;
  const int64_t first = steps.begin()->first;
  for (const auto& [n, r] : steps) {
    if (n > first && n > warmup_steps) out.emplace_back(n, r);
  }
  return out;
}

std::string StepSpan(const std::vector<std::pair<int64_t, StepRecord>>& steps) {
  return absl::StrCat(steps.front().first, "..", steps.back().first);
}

}  // namespace capplan::core::bench_import::internal
