#include "core/planner/frontier.h"

#include <algorithm>
#include <tuple>

namespace capplan::core::planner {

std::vector<FrontierPoint> ParetoFrontier(std::vector<FrontierPoint> points) {
  std::stable_sort(points.begin(), points.end(), [](const FrontierPoint& a, const FrontierPoint& b) {
    return std::tie(a.seconds, a.cost, b.chosen) < std::tie(b.seconds, b.cost, a.chosen);
  });
  std::vector<FrontierPoint> front;
  for (FrontierPoint& p : points) {
    if (!front.empty() && p.cost >= front.back().cost) {
      // Same time and cost as the last point: keep the chosen one.
      if (p.chosen && p.cost == front.back().cost && p.seconds == front.back().seconds) front.back() = std::move(p);
      continue;
    }
    front.push_back(std::move(p));
  }
  if (front.size() <= kMaxFrontierPoints) return front;
  // Evenly spaced along the frontier, both ends included, and the chosen point.
  std::vector<bool> keep(front.size(), false);
  const size_t slots = kMaxFrontierPoints - 2;
  for (size_t k = 0; k <= slots; ++k) keep[k * (front.size() - 1) / slots] = true;
  std::vector<FrontierPoint> thin;
  for (size_t i = 0; i < front.size(); ++i) {
    if (keep[i] || front[i].chosen) thin.push_back(std::move(front[i]));
  }
  return thin;
}

std::vector<size_t> FrontierIndices(std::vector<FrontierCandidate> points) {
  std::stable_sort(points.begin(), points.end(), [](const FrontierCandidate& a, const FrontierCandidate& b) {
    return std::tie(a.seconds, a.cost, b.chosen) < std::tie(b.seconds, b.cost, a.chosen);
  });
  std::vector<const FrontierCandidate*> front;
  for (const FrontierCandidate& p : points) {
    if (!front.empty() && p.cost >= front.back()->cost) {
      if (p.chosen && p.cost == front.back()->cost && p.seconds == front.back()->seconds) front.back() = &p;
      continue;
    }
    front.push_back(&p);
  }
  std::vector<size_t> out;
  out.reserve(front.size());
  for (const FrontierCandidate* p : front) out.push_back(p->index);
  return out;
}

}  // namespace capplan::core::planner
