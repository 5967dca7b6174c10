#include "server/watch/watch_diff.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace capplan::server {

namespace v1 = capplan::v1;

absl::Status CheckWatchOptions(const v1::WatchPlanRequest& request) {
  const double f = request.min_cost_change_fraction();
  if (!(f == 0 || (f >= kMinCostChangeFraction && f <= kMaxCostChangeFraction))) {
    return absl::InvalidArgumentError(absl::StrCat("min_cost_change_fraction: must be 0 (",
                                                   kDefaultMinCostChangeFraction, ") or in [", kMinCostChangeFraction,
                                                   ", ", kMaxCostChangeFraction, "], got ", f));
  }
  if (request.top_n() < 0 || request.top_n() > kMaxWatchTopN) {
    return absl::InvalidArgumentError(
        absl::StrCat("top_n: must be in [0, ", kMaxWatchTopN, "] (0: ", kDefaultWatchTopN, "), got ", request.top_n()));
  }
  if (!request.has_plan()) return absl::InvalidArgumentError("plan: required (the Plan request to watch)");
  return absl::OkStatus();
}

double CostChangeFraction(const v1::WatchPlanRequest& request) {
  return request.min_cost_change_fraction() > 0 ? request.min_cost_change_fraction() : kDefaultMinCostChangeFraction;
}

int WatchTopN(const v1::WatchPlanRequest& request) { return request.top_n() > 0 ? request.top_n() : kDefaultWatchTopN; }

std::string OptionIdentity(const v1::PlanOption& o) {
  std::string where = o.owned_pool().empty() ? absl::StrCat(o.provider(), "/", o.instance_type(), " x",
                                                            o.instance_count(), " ", o.region())
                                             : absl::StrCat("owned:", o.owned_pool());
  absl::StrAppend(&where, ": ", o.gpu_count(), "x ", o.gpu_name());
  if (!o.provenance().price_kind().empty()) absl::StrAppend(&where, " ", o.provenance().price_kind());
  if (o.deployment() == v1::SERVING_DEPLOYMENT_DISAGGREGATED) absl::StrAppend(&where, " disaggregated");
  return where;
}

WatchBaseline TopOptions(const v1::PlanResponse& plan, int top_n) {
  WatchBaseline b;
  b.feasible = true;
  for (int i = 0; i < plan.options_size() && i < top_n; ++i) {
    const v1::PlanOption& o = plan.options(i);
    WatchedOption w;
    w.identity = OptionIdentity(o);
    w.rank = i + 1;
    w.cost_usd_per_hour = o.cost_usd_per_hour();
    w.total_cost_usd = o.total_cost_usd().point();
    w.usd_per_month = o.usd_per_month();
    w.compared_cost_usd = o.usd_per_month() > 0 ? o.usd_per_month() : o.total_cost_usd().point();
    b.top.push_back(std::move(w));
  }
  return b;
}

namespace {

const WatchedOption* FindByIdentity(const WatchBaseline& b, const std::string& identity) {
  for (const WatchedOption& o : b.top) {
    if (o.identity == identity) return &o;
  }
  return nullptr;
}

double ChangeFraction(double before, double after) {
  if (before == after) return 0;
  if (before == 0) return std::numeric_limits<double>::infinity();
  return (after - before) / before;
}

// Both sides may be null (ADDED: no before; REMOVED: no after). cost_change_fraction is 0
// when either side is missing (an infinite fraction would not be a number a caller can use).
void AddChange(v1::WatchChangeKind kind, const WatchedOption* before, const WatchedOption* after,
               google::protobuf::RepeatedPtrField<v1::WatchOptionChange>* changes) {
  v1::WatchOptionChange* c = changes->Add();
  c->set_kind(kind);
  c->set_option(after != nullptr ? after->identity : before->identity);
  if (before != nullptr) {
    c->set_rank_before(before->rank);
    c->set_cost_usd_per_hour_before(before->cost_usd_per_hour);
    c->set_total_cost_usd_before(before->total_cost_usd);
    c->set_usd_per_month_before(before->usd_per_month);
  }
  if (after != nullptr) {
    c->set_rank_after(after->rank);
    c->set_cost_usd_per_hour_after(after->cost_usd_per_hour);
    c->set_total_cost_usd_after(after->total_cost_usd);
    c->set_usd_per_month_after(after->usd_per_month);
  }
  if (before != nullptr && after != nullptr) {
    const double f = ChangeFraction(before->compared_cost_usd, after->compared_cost_usd);
    c->set_cost_change_fraction(std::isfinite(f) ? f : 0);
  }
}

}  // namespace

v1::WatchReason CompareTopOptions(const WatchBaseline& before, const WatchBaseline& after, double fraction,
                                  google::protobuf::RepeatedPtrField<v1::WatchOptionChange>* changes) {
  if (before.feasible && !after.feasible) {
    for (const WatchedOption& o : before.top) AddChange(v1::WATCH_CHANGE_KIND_REMOVED, &o, nullptr, changes);
    return v1::WATCH_REASON_NO_LONGER_FEASIBLE;
  }
  if (!after.feasible) return v1::WATCH_REASON_UNSPECIFIED;  // still infeasible: nothing new
  bool moved = !before.feasible || before.top.size() != after.top.size();
  bool cost_moved = false;
  for (const WatchedOption& a : after.top) {
    const WatchedOption* b = FindByIdentity(before, a.identity);
    if (b == nullptr) {
      moved = true;
      AddChange(v1::WATCH_CHANGE_KIND_ADDED, nullptr, &a, changes);
    } else if (b->rank != a.rank) {
      moved = true;
      AddChange(v1::WATCH_CHANGE_KIND_MOVED, b, &a, changes);
    } else if (std::fabs(ChangeFraction(b->compared_cost_usd, a.compared_cost_usd)) > fraction) {
      cost_moved = true;
      AddChange(v1::WATCH_CHANGE_KIND_COST_CHANGED, b, &a, changes);
    }
  }
  for (const WatchedOption& b : before.top) {
    if (FindByIdentity(after, b.identity) == nullptr) {
      moved = true;
      AddChange(v1::WATCH_CHANGE_KIND_REMOVED, &b, nullptr, changes);
    }
  }
  if (!before.feasible) return v1::WATCH_REASON_FEASIBLE_AGAIN;
  if (moved) return v1::WATCH_REASON_TOP_OPTIONS_CHANGED;
  return cost_moved ? v1::WATCH_REASON_COST_CHANGED : v1::WATCH_REASON_UNSPECIFIED;
}

}  // namespace capplan::server
