// Disaggregated prefill and decode: one pool of replicas runs prompts, another generates
// tokens, and each request's KV cache moves from the first to the second over the fabric,
// as DistServe (Zhong et al., OSDI 2024), Splitwise (Patel et al., ISCA 2024), Mooncake
// (Qin et al., FAST 2025) and NVIDIA Dynamo deploy large models. Prefill no longer stalls
// decode steps, so the decode batch is bounded only by memory and the TPOT SLO; the price
// is the KV transfer and two pools to size.
//
// Pool sizes come from the loads: the prefill pool by prompt work (each replica an M/D/1
// queue, DistServe Sec. 3.1, sized so p99 TTFT meets the SLO), the decode pool by concurrent
// sequences (Little's law: load x output tokens x step time, over the batch a replica holds).
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/fabric.h"
#include "core/gpu.h"
#include "core/serving/serving.h"
#include "core/serving/serving_queue.h"

namespace capplan::core {

enum class ServingDeployment { kColocated = 0, kDisaggregated };
const char* ServingDeploymentName(ServingDeployment d);  // colocated, disaggregated

struct DisaggregatedServing {
  int prefill_tp = 1;
  int decode_tp = 1;
  int64_t prefill_replicas = 0;
  int64_t decode_replicas = 0;
  int64_t decode_batch = 0;      // concurrent sequences per decode replica
  bool kv_over_network = false;  // else over the intra-node link (pools paired in a node)
  double kv_bytes_per_request = 0;
  double kv_transfer_seconds = 0;
  // One request's prefill alone (its share of batched prefill: prefill_busy_seconds).
  double prefill_seconds = 0, prefill_seconds_low = 0, prefill_seconds_high = 0;
  double prefill_busy_seconds = 0;
  // Unqueued: prefill + KV transfer; then the decode step at decode_batch.
  double ttft_seconds = 0, ttft_seconds_low = 0, ttft_seconds_high = 0;
  double tpot_seconds = 0, tpot_seconds_low = 0, tpot_seconds_high = 0;
  double prefill_capacity_per_second = 0;  // per prefill replica
  double decode_capacity_per_second = 0;   // per decode replica, at decode_batch
  double decode_capacity_low_per_second = 0, decode_capacity_high_per_second = 0;
  LatencyAtLoad latency;                     // at the offered load
  double slo_break_requests_per_second = 0;  // the whole deployment
  ServingMemory decode_memory;               // per decode GPU
  Bottleneck bottleneck = Bottleneck::kCompute;
  int64_t total_gpus = 0;

  int64_t PrefillGpus() const { return prefill_replicas * prefill_tp; }
  int64_t DecodeGpus() const { return decode_replicas * decode_tp; }
};

// Per tensor-parallel degree, what a replica of that size does as a prefill or a decode
// replica; computed once per GPU type and reused for every pairing and fabric.
struct DisaggregatedStage {
  int tp = 1;
  absl::Status prefill_status;  // OK when a prompt fits and prefills
  double prefill_seconds = 0, prefill_seconds_low = 0, prefill_seconds_high = 0;
  double prefill_busy_seconds = 0;
  absl::Status decode_status;  // OK when a batch of one fits and meets the TPOT SLO
  int64_t decode_batch = 0;
  DecodeStep step;  // at decode_batch, point efficiency
  double step_seconds_low = 0, step_seconds_high = 0;
  ServingMemory memory;
  // The decode pool for the workload's load: replicas and the wait for a free slot.
  int64_t decode_replicas = 0;
  QueueWait decode_slot;
};

// A replica's busy time per prompt when prompts are batched up to the engine's token budget:
// their compute and all-reduces; the weight reads they share overlap.
double PrefillBusySeconds(const PrefillEstimate& p);

// The same efficiencies with `point` moved to the slow (low) or fast (high) end.
ServingEfficiency EfficiencyAtEnd(const ServingEfficiency& eff, bool slow);

// Every tensor-parallel degree inside a node that divides the heads.
std::vector<DisaggregatedStage> DisaggregatedStages(const ServingWorkload& w, const GpuSpec& gpu,
                                                    const ServingEfficiency& eff, const BatchMemoRef& memo = {});
// The same in two steps: the stages without their decode pools (nothing in them reads the
// load: requests_per_second, target_utilization), which a caller may keep across loads, and
// the pool sized for w's load (replicas, the wait for a slot; a stage that cannot serve the
// load gets its decode_status).
std::vector<DisaggregatedStage> UnsizedDisaggregatedStages(const ServingWorkload& w, const GpuSpec& gpu,
                                                           const ServingEfficiency& eff, const BatchMemoRef& memo = {});
void SizeDecodePool(const ServingWorkload& w, DisaggregatedStage* s);

// The largest batch in [1, max_batch] that `meets` (monotone: latency grows with batch);
// 0 when a batch of one misses.
template <typename Meets>
int64_t LargestBatchWhere(int64_t max_batch, Meets meets) {
  if (max_batch < 1 || !meets(int64_t{1})) return 0;
  int64_t lo = 1, hi = max_batch;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (meets(mid)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

// The largest decode batch whose step meets `tpot_slo_seconds` at efficiency `eff_point`
// (bandwidth and compute), within `max_batch`; 0 when a batch of one misses. `slow_links`:
// with the pessimistic all-reduces (DecodeStep::comm_seconds_high), as a stage's high end.
int64_t LargestDecodeBatch(const ServingWorkload& w, const GpuSpec& gpu, int tp, int64_t max_batch,
                           double tpot_slo_seconds, const ServingEfficiency& eff, bool slow_links = false);

// One pairing sized for the workload's load and SLOs on `fabric`. FailedPrecondition when a
// stage cannot run, the KV cache has no path between nodes, or no pool size meets the SLO.
absl::StatusOr<DisaggregatedServing> SizeDisaggregated(const ServingWorkload& w, const Fabric& fabric,
                                                       const DisaggregatedStage& prefill,
                                                       const DisaggregatedStage& decode);

// Every pairing of prefill and decode degrees that sizes, fewest GPUs first; the first
// failure when none does.
absl::StatusOr<std::vector<DisaggregatedServing>> SearchDisaggregated(const ServingWorkload& w, const Fabric& fabric,
                                                                      const std::vector<DisaggregatedStage>& stages);

}  // namespace capplan::core
