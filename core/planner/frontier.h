// The Pareto frontier of the options a Plan considered: cost against time (training: end to
// end duration; serving: p99 end-to-end latency at the load). A point is on it when no other
// point is both cheaper and faster; the chosen option is marked, so a reader sees what a
// little more money or time would buy.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace capplan::core::planner {

inline constexpr size_t kMaxFrontierPoints = 24;

struct FrontierPoint {
  std::string candidate;  // the supply's label
  std::string gpu_name;
  int gpus = 0;
  double seconds = 0;  // training: duration; serving: p99 end to end at the load
  double cost = 0;     // training: USD per run; serving: USD per month
  bool chosen = false;
};

// The frontier of `points` (fastest first, each cheaper than every faster one; equal points
// once), thinned evenly to kMaxFrontierPoints keeping both ends and the chosen one.
std::vector<FrontierPoint> ParetoFrontier(std::vector<FrontierPoint> points);

// A candidate as plain numbers: `index` is the caller's own (its position in its list).
struct FrontierCandidate {
  double seconds = 0;
  double cost = 0;
  bool chosen = false;
  size_t index = 0;
};

// The indices of the candidates on the frontier, by ParetoFrontier's rule (same order, same
// ties), before thinning: a catalog of thousands of offers has thousands of candidates and a
// frontier of a few dozen, so a Plan names only those and passes them to ParetoFrontier.
std::vector<size_t> FrontierIndices(std::vector<FrontierCandidate> points);

}  // namespace capplan::core::planner
