// SLO warnings. See serving_warnings.h.
#include "core/planner/serving_warnings.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/format.h"

namespace capplan::core::planner {

namespace {

// p99 TTFT and end to end under queueing at the pessimistic figures; `replicas` share the
// load the way the option plans it.
void AddLoadWarnings(const ServingWorkload& w, const ReplicaService& slow, int64_t replicas, double offered,
                     std::vector<SloWarning>* out) {
  const double n = static_cast<double>(std::max<int64_t>(1, replicas));
  const LatencyAtLoad at = LatencyAt(slow, offered / n);
  struct Check {
    SloMetric metric;
    double slo, high;
    const char* name;
  };
  for (const Check& c : {Check{SloMetric::kTtftP99, w.ttft_slo_seconds, at.ttft_p99_seconds, "p99 TTFT"},
                         Check{SloMetric::kE2eP99, w.e2e_slo_seconds, at.e2e_p99_seconds, "p99 end-to-end"}}) {
    if (c.slo <= 0 || c.high <= c.slo) continue;
    SloWarning& x = out->emplace_back();
    x.metric = c.metric;
    x.unbounded = at.saturated;
    x.high_seconds = at.saturated ? 0 : c.high;
    x.slo_seconds = c.slo;
    const double per = c.metric == SloMetric::kTtftP99 ? SloBreakLoad(slow, c.slo, 0) : SloBreakLoad(slow, 0, c.slo);
    x.meets_slo_at_requests_per_second = per * n;
    x.message =
        absl::StrCat("at the low efficiency, ", c.name, " ", at.saturated ? "grows without bound" : Latency(c.high),
                     " misses the ", Latency(c.slo), " SLO at ", Fixed(offered, 2), " req/s; ");
    if (per > 0) {
      absl::StrAppend(&x.message, "these ", replicas, " replicas meet it up to ", Fixed(per * n, 2), " req/s");
    } else {
      absl::StrAppend(&x.message, "no load meets it (unqueued TTFT ", Latency(slow.ttft_seconds), ")");
    }
  }
}

void AddTpotWarning(const ServingWorkload& w, double tpot_high, int64_t batch, int64_t meets_batch,
                    std::vector<SloWarning>* out) {
  SloWarning& x = out->emplace_back();
  x.metric = SloMetric::kTpot;
  x.high_seconds = tpot_high;
  x.slo_seconds = w.tpot_slo_seconds;
  x.meets_slo_at_batch_sequences = meets_batch;
  x.message = absl::StrCat("at the pessimistic end, TPOT ", Latency(tpot_high), " misses the ",
                           Latency(w.tpot_slo_seconds), " SLO at batch ", batch, "; ",
                           meets_batch > 0 ? absl::StrCat("batch ", meets_batch, " meets it") : "no batch meets it");
}

}  // namespace

const char* SloMetricName(SloMetric m) {
  switch (m) {
    case SloMetric::kTtftP99:
      return "ttft_p99";
    case SloMetric::kTpot:
      return "tpot";
    case SloMetric::kE2eP99:
      return "e2e_p99";
  }
  return "unknown";
}

namespace {

// A co-located option's warnings; `meets_tpot(batch)`: whether the pessimistic TPOT at that
// batch per replica meets the SLO (TPOT grows with batch).
template <typename MeetsTpot>
std::vector<SloWarning> ReplicaWarnings(const ServingWorkload& w, const ServingEstimate& e,
                                        const ReplicaService& service, double offered, MeetsTpot meets_tpot) {
  std::vector<SloWarning> out;
  ReplicaService slow = service;
  const double stretch = e.ttft_seconds > 0 ? e.ttft_seconds_high / e.ttft_seconds : 1.0;
  slow.ttft_seconds = e.ttft_seconds_high;
  slow.tpot_seconds = e.tpot_seconds_high;
  slow.capacity_per_second = e.requests_per_second_low;
  slow.prefill_busy_seconds = service.prefill_busy_seconds * stretch;
  AddLoadWarnings(w, slow, e.replicas, offered, &out);
  if (w.tpot_slo_seconds > 0 && e.tpot_seconds_high > w.tpot_slo_seconds) {
    AddTpotWarning(w, e.tpot_seconds_high, e.batch, LargestBatchWhere(e.batch, meets_tpot), &out);
  }
  return out;
}

ServingWorkload WithoutSlos(const ServingWorkload& w) {
  ServingWorkload free = w;
  free.ttft_slo_seconds = free.tpot_slo_seconds = free.e2e_slo_seconds = 0;
  return free;
}

}  // namespace

std::vector<SloWarning> ColocatedSloWarnings(const ServingWorkload& w, const GpuSpec& gpu, const ServingEfficiency& eff,
                                             const ServingEstimate& e, const ReplicaService& service, double offered) {
  const ServingWorkload free = WithoutSlos(w);
  // The estimate's own high end: the low efficiency and the pessimistic schedule and links
  // (core/serving.cc), which the low efficiency alone would leave out.
  return ReplicaWarnings(w, e, service, offered, [&](int64_t batch) {
    absl::StatusOr<ServingEstimate> s = EstimateServingAtBatch(free, gpu, e.tp, batch, eff);
    return s.ok() && s->tpot_seconds_high <= w.tpot_slo_seconds;
  });
}

std::vector<SloWarning> MultiNodeSloWarnings(const ServingWorkload& w, const GpuSpec& gpu, const Fabric& fabric,
                                             const ServingEfficiency& eff, const MultiNodeServing& m,
                                             const ServingEstimate& e, const ReplicaService& service, double offered) {
  const ServingWorkload free = WithoutSlos(w);
  return ReplicaWarnings(w, e, service, offered, [&](int64_t batch) {
    absl::StatusOr<MultiNodeServing> s = EstimateMultiNodeServingAtBatch(free, gpu, fabric, m.tp, m.pp, batch, eff);
    return s.ok() && s->estimate.tpot_seconds_high <= w.tpot_slo_seconds;
  });
}

std::vector<SloWarning> DisaggregatedSloWarnings(const ServingWorkload& w, const GpuSpec& gpu,
                                                 const ServingEfficiency& eff, const DisaggregatedServing& d,
                                                 double offered) {
  std::vector<SloWarning> out;
  const double stretch = d.prefill_seconds > 0 ? d.prefill_seconds_high / d.prefill_seconds : 1.0;
  ReplicaService slow;
  slow.ttft_seconds = d.ttft_seconds_high;
  slow.tpot_seconds = d.tpot_seconds_high;
  slow.output_tokens = w.output_tokens;
  slow.batch = 0;  // the prefill replica's M/D/1 queue
  slow.prefill_busy_seconds = d.prefill_busy_seconds * stretch;
  slow.capacity_per_second = 1.0 / slow.prefill_busy_seconds;
  AddLoadWarnings(w, slow, d.prefill_replicas, offered, &out);
  if (w.tpot_slo_seconds > 0 && d.tpot_seconds_high > w.tpot_slo_seconds) {
    const int64_t b =
        LargestDecodeBatch(w, gpu, d.decode_tp, d.decode_batch, w.tpot_slo_seconds, EfficiencyAtEnd(eff, true), true);
    AddTpotWarning(w, d.tpot_seconds_high, d.decode_batch, b, &out);
  }
  return out;
}

}  // namespace capplan::core::planner
