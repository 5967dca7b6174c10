// SLO warnings: where an option's pessimistic latency (the low end of its efficiency range:
// p99 TTFT and end to end at the offered load, TPOT at its batch) misses the caller's SLOs,
// and what load or batch would meet them. The point estimate meets every SLO by
// construction; these say how much of that rests on the efficiency assumption.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/gpu.h"
#include "core/serving/serving.h"
#include "core/serving/serving_disagg.h"
#include "core/serving/serving_multinode.h"
#include "core/serving/serving_queue.h"

namespace capplan::core::planner {

enum class SloMetric { kTtftP99 = 0, kTpot, kE2eP99 };
const char* SloMetricName(SloMetric m);  // ttft_p99, tpot, e2e_p99

struct SloWarning {
  SloMetric metric = SloMetric::kTtftP99;
  double high_seconds = 0;  // the pessimistic figure; 0 when unbounded
  // The offered load saturates the pessimistic capacity: the p99 queue, and so this
  // latency, grows without bound (TTFT, e2e only).
  bool unbounded = false;
  double slo_seconds = 0;
  // The whole deployment's load at which the pessimistic p99 meets the SLO (TTFT, e2e); 0
  // when no load does.
  double meets_slo_at_requests_per_second = 0;
  // The largest batch per (decode) replica whose pessimistic TPOT meets the SLO; 0 when
  // none does.
  int64_t meets_slo_at_batch_sequences = 0;
  std::string message;
};

// Warnings for a co-located option: `e` at its batch and replicas, `service` its unqueued
// figures at the point efficiency, `offered` the whole load.
std::vector<SloWarning> ColocatedSloWarnings(const ServingWorkload& w, const GpuSpec& gpu, const ServingEfficiency& eff,
                                             const ServingEstimate& e, const ReplicaService& service, double offered);

// Warnings for a co-located option whose replicas span nodes (`m`, on `fabric`); `e` is its
// estimate at its batch and replicas.
std::vector<SloWarning> MultiNodeSloWarnings(const ServingWorkload& w, const GpuSpec& gpu, const Fabric& fabric,
                                             const ServingEfficiency& eff, const MultiNodeServing& m,
                                             const ServingEstimate& e, const ReplicaService& service, double offered);

// Warnings for a disaggregated option.
std::vector<SloWarning> DisaggregatedSloWarnings(const ServingWorkload& w, const GpuSpec& gpu,
                                                 const ServingEfficiency& eff, const DisaggregatedServing& d,
                                                 double offered);

}  // namespace capplan::core::planner
