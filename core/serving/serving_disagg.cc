// Disaggregated prefill and decode. See serving_disagg.h for the model and its sources.
#include "core/serving/serving_disagg.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/format.h"
#include "core/serving/engine_support.h"
#include "core/serving/serving_internal.h"
#include "core/units.h"
#include "core/validate.h"

namespace capplan::core {

namespace {

// As serving.cc: vLLM's max_num_seqs default is 256; the search goes to 1024.
constexpr int64_t kMaxDecodeBatch = 1024;

double MeanContext(const ServingWorkload& w) {
  return static_cast<double>(w.prompt_tokens) + static_cast<double>(w.output_tokens) / 2.0;
}

using serving_internal::Stepper;

// One decode step of `batch` sequences at the workload's mean context; 0 when the estimator
// refuses it.
double StepSeconds(const Stepper& st, const ServingWorkload& w, int64_t batch, bool slow_links = false) {
  absl::StatusOr<DecodeStep> s = st.DecodeAt(batch, MeanContext(w));
  if (!s.ok()) return 0;
  return slow_links ? s->seconds - s->comm_seconds + s->comm_seconds_high : s->seconds;
}

// LargestDecodeBatch on a checked estimator.
int64_t LargestDecodeBatchOf(const Stepper& st, const ServingWorkload& w, int64_t max_batch, double tpot_slo_seconds,
                             bool slow_links);

// A prefill or decode step at the slow or fast end of the efficiency range: its memory part
// scales with 1 / bandwidth efficiency and its compute part with 1 / compute efficiency,
// the rest (all-reduces, engine overhead) stays; DecodeStep and PrefillEstimate carry these
// parts as seconds = max(memory, compute) + comm + overhead.
double AtEfficiency(double memory, double compute, double fixed, const ServingEfficiency& eff, bool slow) {
  const ServingEfficiency end = EfficiencyAtEnd(eff, slow);
  return std::max(memory * eff.bandwidth.point / end.bandwidth.point, compute * eff.compute.point / end.compute.point) +
         fixed;
}

void FillPrefill(const ServingWorkload& w, const GpuSpec& gpu, const ServingEfficiency& eff, const Stepper& st,
                 DisaggregatedStage* s) {
  // A prefill replica takes one prompt and emits its first token. Prompts batched up to the
  // engine's token budget share each weight read, so a replica is busy for a prompt's
  // compute and all-reduces; the weight reads overlap.
  if (!st.status().ok()) {
    s->prefill_status = st.status();
    return;
  }
  const ServingMemory* mem = &st.memory();  // ServingMemoryPerGpu's answer
  if (mem->max_concurrent_sequences < 1) {
    s->prefill_status = absl::FailedPreconditionError(
        absl::StrFormat("at tp=%d the weights and one sequence's KV cache do not fit %s", s->tp, gpu.name));
    return;
  }
  s->memory = *mem;
  absl::StatusOr<PrefillEstimate> p = st.PrefillOf(w.prompt_tokens);
  if (!p.ok()) {
    s->prefill_status = p.status();
    return;
  }
  const double fixed = p->comm_seconds + p->overhead_seconds;
  s->prefill_seconds = p->seconds;
  s->prefill_seconds_low = AtEfficiency(p->memory_seconds, p->compute_seconds, fixed, eff, false);
  // The pessimistic end also takes the slow all-reduces (PCIe rings crossing CPU sockets).
  s->prefill_seconds_high =
      AtEfficiency(p->memory_seconds, p->compute_seconds, p->comm_seconds_high + p->overhead_seconds, eff, true);
  s->prefill_busy_seconds = PrefillBusySeconds(*p);
}

// A dense model's decode step is affine in the batch part by part (weights read once, KV,
// FLOPs and all-reduce bytes per sequence, a fixed engine overhead): two steps give every
// batch's, and the largest batch within the TPOT SLO follows without more estimates. The
// answer is confirmed against the estimator at that batch and its successor; -1 (search
// instead) for MoE, whose expert reads grow with the batch, or when it does not hold.
int64_t AffineDecodeBatch(const ServingWorkload& w, const Stepper& st, int64_t cap) {
  if (EffectiveShape(w.model).IsMoe() || cap < 2 || w.tpot_slo_seconds <= 0) return -1;
  absl::StatusOr<DecodeStep> a = st.DecodeAt(1, MeanContext(w));
  absl::StatusOr<DecodeStep> b = st.DecodeAt(2, MeanContext(w));
  if (!a.ok() || !b.ok()) return -1;
  auto at = [&](int64_t n) {
    const double x = static_cast<double>(n - 1);
    auto part = [&](double DecodeStep::*f) { return a.value().*f + x * (b.value().*f - a.value().*f); };
    return std::max(part(&DecodeStep::memory_seconds), part(&DecodeStep::compute_seconds)) +
           part(&DecodeStep::comm_seconds) + part(&DecodeStep::overhead_seconds);
  };
  const double slo = w.tpot_slo_seconds;
  const int64_t n = LargestBatchWhere(cap, [&](int64_t k) { return at(k) <= slo; });
  if (n < 1) return 0;
  auto holds = [&](int64_t k) {
    const double s = StepSeconds(st, w, k);
    return std::fabs(s - at(k)) <= 1e-9 * s;
  };
  if (!holds(n) || (n < cap && !holds(n + 1))) return -1;
  return n;
}

// After FillPrefill: the memory is the same.
void FillDecode(const ServingWorkload& w, const ServingEfficiency& eff, const Stepper& st, const BatchMemoRef& memo,
                DisaggregatedStage* s) {
  if (s->memory.max_concurrent_sequences < 1) {
    s->decode_status = s->prefill_status;  // the weights and one sequence do not fit
    return;
  }
  const int64_t cap = std::min(s->memory.max_concurrent_sequences, kMaxDecodeBatch);
  std::string key;
  const int64_t known = memo.memo != nullptr ? memo.memo->Find(key = memo.Key('d', s->tp)) : -1;
  if (known >= 1 && known <= cap) {
    s->decode_batch = known;
  } else {
    s->decode_batch = AffineDecodeBatch(w, st, cap);
    if (s->decode_batch < 0) s->decode_batch = LargestDecodeBatchOf(st, w, cap, w.tpot_slo_seconds, false);
    if (memo.memo != nullptr && s->decode_batch >= 1) memo.memo->Store(key, s->decode_batch);
  }
  if (s->decode_batch < 1) {
    s->decode_status = absl::FailedPreconditionError(absl::StrCat("decode at tp=", s->tp, " misses the TPOT SLO ",
                                                                  Fixed(w.tpot_slo_seconds, 4), " s even at batch 1"));
    return;
  }
  absl::StatusOr<DecodeStep> step = st.DecodeAt(s->decode_batch, MeanContext(w));
  if (!step.ok()) {
    s->decode_status = step.status();
    return;
  }
  s->step = *step;
  const double fixed = step->comm_seconds + step->overhead_seconds;
  s->step_seconds_low = AtEfficiency(step->memory_seconds, step->compute_seconds, fixed, eff, false);
  s->step_seconds_high = AtEfficiency(step->memory_seconds, step->compute_seconds,
                                      step->comm_seconds_high + step->overhead_seconds, eff, true);
}

}  // namespace

void SizeDecodePool(const ServingWorkload& w, DisaggregatedStage* s) {
  if (!s->decode_status.ok() || s->decode_batch < 1) return;
  // The decode pool depends on the load and this stage only: concurrent sequences (Little's
  // law: load x output tokens x step) over the batch a replica holds, at the planned use.
  const double b = static_cast<double>(s->decode_batch);
  const double capacity = b / (static_cast<double>(w.output_tokens) * s->step.seconds);
  const double lambda = w.requests_per_second;
  // No latency SLO of its own (TPOT bounded the batch): the break load is capacity.
  s->decode_replicas = ReplicasForLoad(lambda, capacity, w.target_utilization, capacity);
  if (s->decode_replicas < 1) {
    s->decode_status = absl::FailedPreconditionError(absl::StrCat(
        "decode at tp=", s->tp, " serves ", Fixed(capacity, 4), " req/s a replica: too little for the load"));
    return;
  }
  s->decode_slot = MgcWait(lambda / static_cast<double>(s->decode_replicas), b / capacity, s->decode_batch, 0.0);
}

namespace {

// KV bytes move from each prefill GPU's shard to the decode GPUs in parallel: the narrower
// side's links carry them.
absl::StatusOr<double> KvTransferSeconds(const ServingWorkload& w, const Fabric& f, int prefill_tp, int decode_tp,
                                         double bytes, bool* over_network) {
  const double lanes = static_cast<double>(std::min(prefill_tp, decode_tp));
  *over_network = !(prefill_tp + decode_tp <= f.gpus_per_node && f.intra_node_bytes_per_second_per_gpu > 0);
  if (!*over_network) return bytes / (f.intra_node_bytes_per_second_per_gpu * lanes);
  if (f.network == NetworkKind::kNone || !(f.network_bytes_per_second_per_gpu > 0)) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "prefill tp=%d and decode tp=%d do not share a node of %d GPUs, and the fabric has no network to move "
        "%.1f MB of KV cache per %d-token prompt",
        prefill_tp, decode_tp, f.gpus_per_node, bytes / 1e6, w.prompt_tokens));
  }
  return f.network_latency_seconds + bytes / (f.network_bytes_per_second_per_gpu * lanes);
}

}  // namespace

ServingEfficiency EfficiencyAtEnd(const ServingEfficiency& eff, bool slow) {
  ServingEfficiency e = eff;
  e.bandwidth.point = slow ? eff.bandwidth.low : eff.bandwidth.high;
  e.compute.point = slow ? eff.compute.low : eff.compute.high;
  return e;
}

double PrefillBusySeconds(const PrefillEstimate& p) {
  return std::clamp(p.compute_seconds + p.comm_seconds, 1e-9, std::max(p.seconds, 1e-9));
}

const char* ServingDeploymentName(ServingDeployment d) {
  return d == ServingDeployment::kDisaggregated ? "disaggregated" : "colocated";
}

int64_t LargestDecodeBatch(const ServingWorkload& w, const GpuSpec& gpu, int tp, int64_t max_batch,
                           double tpot_slo_seconds, const ServingEfficiency& eff, bool slow_links) {
  return LargestDecodeBatchOf(Stepper(w, gpu, tp, eff), w, max_batch, tpot_slo_seconds, slow_links);
}

namespace {

int64_t LargestDecodeBatchOf(const Stepper& st, const ServingWorkload& w, int64_t max_batch, double tpot_slo_seconds,
                             bool slow_links) {
  if (tpot_slo_seconds <= 0) return std::max<int64_t>(0, max_batch);
  auto meets = [&](int64_t b) {
    const double s = StepSeconds(st, w, b, slow_links);
    return s > 0 && s <= tpot_slo_seconds;
  };
  if (max_batch < 1) return 0;
  // A dense model's step is affine in the batch (weights once, KV per sequence): guess from
  // batch 1 and max_batch, and confirm the guess and its successor. MoE (expert reads grow
  // with the batch) or a guess that does not hold falls back to the bisection.
  const double s1 = StepSeconds(st, w, 1, slow_links);
  if (!(s1 > 0 && s1 <= tpot_slo_seconds)) return 0;
  const double sm = StepSeconds(st, w, max_batch, slow_links);
  if (sm <= tpot_slo_seconds) return max_batch;
  if (max_batch > 1 && sm > s1) {
    const double slope = (sm - s1) / static_cast<double>(max_batch - 1);
    const int64_t guess =
        std::clamp<int64_t>(1 + static_cast<int64_t>((tpot_slo_seconds - s1) / slope), 1, max_batch - 1);
    if (meets(guess) && !meets(guess + 1)) return guess;
  }
  return LargestBatchWhere(max_batch, meets);
}

}  // namespace

std::vector<DisaggregatedStage> DisaggregatedStages(const ServingWorkload& w, const GpuSpec& gpu,
                                                    const ServingEfficiency& eff, const BatchMemoRef& memo) {
  std::vector<DisaggregatedStage> out = UnsizedDisaggregatedStages(w, gpu, eff, memo);
  for (DisaggregatedStage& s : out) SizeDecodePool(w, &s);
  return out;
}

std::vector<DisaggregatedStage> UnsizedDisaggregatedStages(const ServingWorkload& w, const GpuSpec& gpu,
                                                           const ServingEfficiency& eff, const BatchMemoRef& memo) {
  std::vector<DisaggregatedStage> out;
  if (!ValidateServingWorkload(w).ok() || !ValidateGpu(gpu).ok()) return out;
  if (!EngineSupportProblem(w.engine, w.engine_version, gpu, w.weight_precision).empty()) return out;
  const int64_t heads = EffectiveShape(w.model).num_attention_heads;
  for (int tp = 1; tp <= gpu.gpus_per_node; tp *= 2) {
    if (heads <= 0 || heads % tp != 0) continue;
    DisaggregatedStage& s = out.emplace_back();
    s.tp = tp;
    const Stepper st(w, gpu, tp, eff, /*inputs_checked=*/true);  // validated above
    FillPrefill(w, gpu, eff, st, &s);
    FillDecode(w, eff, st, memo, &s);
  }
  return out;
}

absl::StatusOr<DisaggregatedServing> SizeDisaggregated(const ServingWorkload& w, const Fabric& fabric,
                                                       const DisaggregatedStage& prefill,
                                                       const DisaggregatedStage& decode) {
  CAPPLAN_RETURN_IF_ERROR(prefill.prefill_status);
  CAPPLAN_RETURN_IF_ERROR(decode.decode_status);
  if (!fabric.Known()) return absl::FailedPreconditionError("disaggregation needs a known fabric");
  if (prefill.tp > fabric.gpus_per_node || decode.tp > fabric.gpus_per_node) {
    return absl::FailedPreconditionError(absl::StrCat("a replica of tp=", std::max(prefill.tp, decode.tp),
                                                      " does not fit a node of ", fabric.gpus_per_node, " GPUs"));
  }
  DisaggregatedServing d;
  d.prefill_tp = prefill.tp;
  d.decode_tp = decode.tp;
  d.decode_batch = decode.decode_batch;
  d.decode_memory = decode.memory;
  d.kv_bytes_per_request =
      KvBytesPerToken(EffectiveShape(w.model), w.kv_precision) * static_cast<double>(w.prompt_tokens);
  absl::StatusOr<double> kv =
      KvTransferSeconds(w, fabric, prefill.tp, decode.tp, d.kv_bytes_per_request, &d.kv_over_network);
  if (!kv.ok()) return kv.status();
  d.kv_transfer_seconds = *kv;
  d.prefill_seconds = prefill.prefill_seconds;
  d.prefill_seconds_low = prefill.prefill_seconds_low;
  d.prefill_seconds_high = prefill.prefill_seconds_high;
  d.prefill_busy_seconds = prefill.prefill_busy_seconds;
  d.ttft_seconds = prefill.prefill_seconds + d.kv_transfer_seconds;
  d.ttft_seconds_low = prefill.prefill_seconds_low + d.kv_transfer_seconds;
  d.ttft_seconds_high = prefill.prefill_seconds_high + d.kv_transfer_seconds;
  d.tpot_seconds = decode.step.seconds;
  d.tpot_seconds_low = decode.step_seconds_low;
  d.tpot_seconds_high = decode.step_seconds_high;
  const double out_tokens = static_cast<double>(w.output_tokens);
  const double b = static_cast<double>(d.decode_batch);
  d.decode_capacity_per_second = b / (out_tokens * d.tpot_seconds);
  d.decode_capacity_low_per_second = b / (out_tokens * d.tpot_seconds_high);
  d.decode_capacity_high_per_second = b / (out_tokens * d.tpot_seconds_low);
  d.prefill_capacity_per_second = 1.0 / d.prefill_busy_seconds;

  // Prefill pool: replicas raised until p99 TTFT (and e2e) meet the SLOs at their share.
  ReplicaService ps;
  ps.ttft_seconds = d.ttft_seconds;
  ps.tpot_seconds = d.tpot_seconds;
  ps.output_tokens = w.output_tokens;
  ps.batch = 0;  // a prefill replica's only queue is its prefill engine (M/D/1)
  ps.capacity_per_second = d.prefill_capacity_per_second;
  ps.prefill_busy_seconds = d.prefill_busy_seconds;
  const double lambda = w.requests_per_second;
  const double prefill_break = SloBreakLoad(ps, w.ttft_slo_seconds, w.e2e_slo_seconds);
  d.prefill_replicas = ReplicasForLoad(lambda, ps.capacity_per_second, w.target_utilization, prefill_break);
  if (d.prefill_replicas < 1) {
    return absl::FailedPreconditionError(
        absl::StrCat("disaggregated prefill tp=", prefill.tp, ": unqueued TTFT ", Fixed(d.ttft_seconds, 3),
                     " s (prefill ", Fixed(d.prefill_seconds, 3), " s + KV transfer ", Fixed(d.kv_transfer_seconds, 4),
                     " s) leaves no room under the SLOs at any pool size"));
  }
  d.decode_replicas = decode.decode_replicas;
  d.latency = LatencyAt(ps, lambda / static_cast<double>(d.prefill_replicas));
  const QueueWait& slot = decode.decode_slot;
  // A request waiting for a decode slot has its first token already (the prefill replica
  // emits it) but not its second.
  d.latency.e2e_p50_seconds += slot.Quantile(0.5);
  d.latency.e2e_p99_seconds += slot.Quantile(0.99);
  d.latency.wait_mean_seconds += slot.mean_seconds;
  d.slo_break_requests_per_second = std::min(prefill_break * static_cast<double>(d.prefill_replicas),
                                             d.decode_capacity_per_second * static_cast<double>(d.decode_replicas));
  d.bottleneck =
      d.kv_over_network && d.kv_transfer_seconds > d.prefill_seconds ? Bottleneck::kNetwork : decode.step.bound;
  d.total_gpus = d.PrefillGpus() + d.DecodeGpus();
  return d;
}

absl::StatusOr<std::vector<DisaggregatedServing>> SearchDisaggregated(const ServingWorkload& w, const Fabric& fabric,
                                                                      const std::vector<DisaggregatedStage>& stages) {
  std::vector<DisaggregatedServing> out;
  absl::Status first = absl::FailedPreconditionError("no tensor-parallel degree divides the model's heads");
  bool failed = false;
  for (const DisaggregatedStage& p : stages) {
    for (const DisaggregatedStage& d : stages) {
      // Once one failure is kept to report, pairs that cannot size are skipped unformatted.
      const bool cannot = !p.prefill_status.ok() || !d.decode_status.ok() ||
                          (fabric.Known() && std::max(p.tp, d.tp) > fabric.gpus_per_node);
      if (failed && cannot) continue;
      absl::StatusOr<DisaggregatedServing> s = SizeDisaggregated(w, fabric, p, d);
      if (s.ok()) {
        out.push_back(*std::move(s));
      } else if (!failed) {
        first = s.status();
        failed = true;
      }
    }
  }
  if (out.empty()) return first;
  // Sorted by index, then copied once: the pairings are large to swap about.
  std::vector<size_t> order(out.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&out](size_t i, size_t j) {
    const DisaggregatedServing &a = out[i], &b = out[j];
    if (a.total_gpus != b.total_gpus) return a.total_gpus < b.total_gpus;
    return a.tpot_seconds < b.tpot_seconds;
  });
  std::vector<DisaggregatedServing> sorted;
  sorted.reserve(out.size());
  for (size_t i : order) sorted.push_back(out[i]);
  return sorted;
}

}  // namespace capplan::core
