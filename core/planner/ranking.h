// Ranking feasible candidates: only as much of the list is sorted as the answer shows, so
// the cost of a Plan grows with the options and rejections it returns, not with the
// thousands of offers a large catalog prices. Ties keep the catalog's order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <vector>

namespace capplan::core::planner {

template <typename Cand, typename Less>
class Ranker {
 public:
  Ranker(std::vector<Cand>* cands, Less less, int top_k, int max_rejected)
      : cands_(*cands),
        less_(less),
        top_k_(static_cast<size_t>(top_k)),
        max_rejected_(static_cast<size_t>(max_rejected)) {
    order_.resize(cands_.size());
    for (size_t i = 0; i < order_.size(); ++i) order_[i] = i;
    sorted_ = std::min(order_.size(), 4 * (top_k_ + max_rejected_) + 64);
    std::partial_sort(order_.begin(), order_.begin() + static_cast<std::ptrdiff_t>(sorted_), order_.end(), Cmp());
  }

  // The best candidate; there must be one.
  const Cand& Best() const { return cands_[order_.front()]; }

  // Best first: a candidate with the same offer key as an option already emitted is merged
  // into it; else it becomes an option while there is room; else, once per supply not yet
  // shown, a "ranked lower" rejection while there is room for those.
  template <typename KeyFn, typename EmitFn, typename MergeFn, typename RejectFn, typename SupplyFn>
  void Walk(KeyFn key, EmitFn emit, MergeFn merge, RejectFn reject, SupplyFn supply_of) {
    using Key = typename decltype(key(cands_[0]))::value_type;
    std::map<Key, size_t> emitted;
    std::vector<bool> shown;
    size_t options = 0, rejected = 0;
    for (size_t i = 0; i < order_.size() && (options < top_k_ || rejected < max_rejected_); ++i) {
      if (i == sorted_) {  // needed more than was sorted: sort the rest
        std::sort(order_.begin() + static_cast<std::ptrdiff_t>(sorted_), order_.end(), Cmp());
        sorted_ = order_.size();
      }
      const Cand& c = cands_[order_[i]];
      const size_t supply = supply_of(c);
      if (supply >= shown.size()) shown.resize(supply + 1, false);
      const auto k = key(c);
      if (k) {
        auto it = emitted.find(*k);
        if (it != emitted.end()) {
          merge(it->second, c);
          shown[supply] = true;
          continue;
        }
      }
      if (options < top_k_) {
        const size_t option = emit(c);
        ++options;
        if (k) emitted.emplace(*k, option);
        shown[supply] = true;
        continue;
      }
      if (shown[supply]) continue;
      shown[supply] = true;
      if (rejected >= max_rejected_) continue;
      reject(c, i + 1);
      ++rejected;
    }
  }

 private:
  auto Cmp() {
    return [this](size_t a, size_t b) {
      if (less_(cands_[a], cands_[b])) return true;
      if (less_(cands_[b], cands_[a])) return false;
      return a < b;
    };
  }
  std::vector<Cand>& cands_;
  Less less_;
  const size_t top_k_, max_rejected_;
  std::vector<size_t> order_;
  size_t sorted_ = 0;
};

}  // namespace capplan::core::planner
