// Serving plans: each GPU type's tensor-parallel layouts and SLO batch are searched once per
// request, and sized for the load so that p99 TTFT and end to end meet the SLOs under
// queueing (core/serving_queue.h); disaggregated prefill/decode pairings are sized once per
// GPU type and fabric (core/serving_disagg.h). Each supply then packs the replicas the load
// needs into its instances (or its pool's GPUs) and is priced; the cheapest (or
// lowest-latency) deployments rank first, co-located and disaggregated by the same rule.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/statusor.h"
#include "core/catalog.h"
#include "core/planner/frontier.h"
#include "core/planner/query.h"
#include "core/planner/rejection.h"
#include "core/planner/serving_warnings.h"
#include "core/planner/supply.h"
#include "core/serving/serving.h"
#include "core/serving/serving_disagg.h"
#include "core/serving/serving_multinode.h"
#include "core/serving/serving_queue.h"
#include "core/training/layout_cache.h"

namespace capplan::core::planner {

// One way to serve the load on a GPU type, sized for it: a co-located layout (prefill and
// decode share every replica) or a disaggregated pairing of prefill and decode pools.
struct ServingLayout {
  ServingDeployment deployment = ServingDeployment::kColocated;
  // Co-located: the estimator's, replicas raised until p99 meets the SLOs. Disaggregated:
  // the decode pool's tp, batch, replicas and memory; TTFT (prefill + KV transfer) and TPOT
  // of the whole; requests/s of the decode pool; total_gpus of both pools.
  ServingEstimate estimate;
  std::optional<DisaggregatedServing> disagg;
  // Set when each replica spans nodes (core/serving_multinode.h): estimate.tp GPUs per node,
  // multinode->pp nodes, co-located.
  std::optional<MultiNodeServing> multinode;
  ReplicaService service;                    // co-located: one replica's unqueued figures
  LatencyAtLoad latency;                     // at the offered load
  double slo_break_requests_per_second = 0;  // the whole deployment
};

// How one supply carries the load, or why it cannot.
struct ServingFit {
  const ServingLayout* estimate = nullptr;  // into the evaluator's layouts; null: no fit
  int units = 0;                            // instances or pool GPUs used
  std::string reason;
  RejectionReason code = RejectionReason::kInvalid;
  double distance = 1;
};

// A replica across nodes takes one node per pipeline stage: pp instances, or tp x pp GPUs
// of a pool whose nodes hold tp.
int64_t ReplicasPerUnits(const Supply& s, const MultiNodeServing& m, int64_t units);

class ServingEvaluator {
 public:
  // By GPU type and what of the fabric the KV transfer, the pairing and the stage boundaries
  // read: node size (an instance's node is at most its GPUs), link and network speeds;
  // fabrics alike share one.
  using FabricKey = std::tuple<const GpuRow*, int, double, int, double, double>;
  static FabricKey KeyOf(const Supply& s);

  // `cache`: calibrated efficiencies kept across requests on the same catalog version.
  ServingEvaluator(const CatalogView& catalog, const ServingWorkload& w, LayoutCacheRef cache = {})
      : catalog_(catalog), w_(w), cache_(cache), batches_{cache} {}

  const ServingEfficiency& EfficiencyFor(const GpuRow& gpu);
  // Every tensor-parallel layout of this GPU type with its SLO batch, computed once.
  const std::vector<ServingOption>& Options(const GpuRow& gpu);
  // Each co-located layout sized for the load under queueing (or why it cannot be).
  const std::vector<absl::StatusOr<ServingLayout>>& Colocated(const GpuRow& gpu);
  // Each disaggregated pairing sized for the load on this supply's fabric, fewest GPUs first.
  const absl::StatusOr<std::vector<ServingLayout>>& Disaggregated(const Supply& s);
  // Replicas spanning nodes of this supply's fabric (tensor parallel inside a node, pipeline
  // parallel across), sized for the load: the first two pipeline depths that fit.
  const std::vector<absl::StatusOr<ServingLayout>>& MultiNode(const Supply& s);
  // The cheapest deployment of `kind` to carry the load on this supply within `max_units`
  // (disaggregated pools apart on two instances only when `may_cluster`); the reason for a
  // miss is formatted only when nothing fits.
  ServingFit Fit(const Supply& s, int max_units, ServingDeployment kind, bool may_cluster = true);
  // The cheapest co-located deployment whose replicas span nodes; none unless `may_cluster`
  // (an offer sold as a cluster, or the caller's allow_ethernet_clusters).
  ServingFit FitMultiNode(const Supply& s, int max_units, bool may_cluster);

 private:
  const CatalogView& catalog_;
  const ServingWorkload& w_;
  LayoutCacheRef cache_;
  // The batch searches' memo across requests, in `cache_` (none without one).
  struct CacheBatches final : BatchMemo {
    explicit CacheBatches(LayoutCacheRef r) : ref(r) {}
    int64_t Find(const std::string& key) override;
    void Store(const std::string& key, int64_t batch) override;
    LayoutCacheRef ref;
  };
  CacheBatches batches_;
  std::map<std::string, BatchMemoRef, std::less<>> memo_refs_;
  // This GPU's key prefix and the memo; no memo without a cache.
  const BatchMemoRef& MemoFor(const GpuRow& gpu);
  // This GPU's disaggregated stages, their decode pools sized for the load.
  std::vector<DisaggregatedStage> StagesFor(const GpuRow& gpu);
  std::map<std::string, ServingEfficiency, std::less<>> efficiency_;
  std::map<std::string, std::vector<ServingOption>, std::less<>> options_;
  std::map<std::string, std::vector<absl::StatusOr<ServingLayout>>, std::less<>> colocated_;
  std::map<std::string, std::vector<DisaggregatedStage>, std::less<>> stages_;
  std::map<FabricKey, absl::StatusOr<std::vector<ServingLayout>>> disagg_;
  std::map<FabricKey, std::vector<absl::StatusOr<ServingLayout>>> multinode_;

  // The cheapest of `layouts` on this supply within `max_units`; `first_error` says why when
  // none was feasible at all.
  ServingFit Choose(const Supply& s, int max_units, bool may_cluster, const std::vector<const ServingLayout*>& layouts,
                    const absl::Status* first_error);
};

struct ServingChoice {
  size_t supply = 0;  // into ServingPlan::supplies
  ServingEstimate estimate;
  ServingDeployment deployment = ServingDeployment::kColocated;
  std::optional<DisaggregatedServing> disagg;  // set when disaggregated
  std::optional<MultiNodeServing> multinode;   // set when each replica spans nodes
  // p50/p99 at the offered load and the load at which p99 breaks the SLOs; unset (zero)
  // where no queueing was modelled (Compare prices a target at its capacity).
  LatencyAtLoad latency;
  double slo_break_requests_per_second = 0;
  // Where the pessimistic (high) latencies miss the caller's SLOs, and what would meet them.
  std::vector<SloWarning> warnings;
  int units = 0;  // instances or pool GPUs used
  ServingEfficiency efficiency;
  double usd_per_hour = 0;
  double offered_requests_per_second = 0;  // the load the option is priced at
  std::vector<std::string> same_offer_regions;
  // GPUs billed but running nothing (co-located replicas fill every instance, so only a
  // group that does not divide the instance, or disaggregated pools, leave any).
  int idle_gpus = 0;
};

struct ServingPlan {
  std::vector<Supply> supplies;
  std::vector<ServingChoice> options;
  std::vector<Rejection> rejected;
  // Cost per month against p99 end-to-end latency at the load; the top option marked.
  std::vector<FrontierPoint> frontier;
  std::string selection_rule;  // which rule picked the top option, in words
};

// The query's budget is per month. FailedPrecondition naming the closest miss when nothing
// fits; InvalidArgument for a deadline objective (serving has SLOs) or no offered load.
absl::StatusOr<ServingPlan> PlanServing(const CatalogView& catalog, const ServingWorkload& w, const PlanQuery& q,
                                        LayoutCacheRef cache = {});

}  // namespace capplan::core::planner
