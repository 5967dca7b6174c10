// Serving estimator: decode iterations, chunked prefills, continuous or burst batching, the
// SLO batch search. See serving.h for sources; memory in serving_memory.cc, calibration in
// serving_calibration.cc.
#include "core/serving/serving.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/assumptions.h"
#include "core/field_count.h"
#include "core/format.h"
#include "core/serving/serving_internal.h"
#include "core/units.h"
#include "core/validate.h"

namespace capplan::core {

using serving_internal::DoesNotFit;
using serving_internal::MemoryOf;
using serving_internal::Prechecks;
using serving_internal::Shape;
using serving_internal::ShapeOf;

namespace {

// Upper bound on concurrency per replica (serving.h): the KV cache binds first in practice.
constexpr int64_t kMaxBatch = kMaxServingBatch;
constexpr int64_t kBurstSamples = 16;
constexpr double kAllReduceLatencyNvlinkSeconds = assumptions::kNvlinkCollectiveLatency.value.point;
constexpr double kAllReduceLatencyPcieSeconds = assumptions::kPcieCollectiveLatency.value.point;
// The pessimistic PCIe case: the catalog does not say whether an instance's GPUs share a PCIe
// switch or sit on different CPU sockets, and vLLM turns its custom all-reduce off on more than
// two PCIe-only GPUs, so each all-reduce is an NCCL ring of 2(tp-1) steps. Behind one switch a
// 4-rank ring takes ~20 us (sglang-V100 PR #2, NCCL in a CUDA graph, 4 KB-32 KB: 19.4-24.2 us);
// crossing the CPU interconnect, 292 us per decode-sized call on 8 ranks (vLLM PR #50941,
// 2x4 A800 PCIe), i.e. 292 / 14 steps = ~21 us a step. The high latency (low throughput) end
// of every PCIe tensor-parallel estimate takes the cross-socket figure.
constexpr double kAllReduceStepCrossSocketSeconds = assumptions::kPcieCrossSocketStepLatency.value.point;

// Everything one evaluation needs, resolved once.
struct Ctx {
  const ServingWorkload& w;
  const Shape& s;
  const ServingMemory& mem;
  const GpuSpec& gpu;
  int tp;
  double bandwidth;  // bytes/s achieved
  double compute;    // FLOP/s achieved
  EngineProfile engine;
  double allreduce_latency_seconds;       // one tensor-parallel all-reduce, before its bytes
  double allreduce_latency_high_seconds;  // the same at the pessimistic end
  bool unchunked_prefill;                 // prefills run as their own iterations (kUnchunkedPrefillWhy)
};

// Whether vLLM and TensorRT-LLM chunk prefills depends on the release and launch settings, which
// the workload does not give: vLLM V0 enabled chunked prefill by default only for models with a
// context over 32K (vLLM PR #6666, Jul 2024) and always from V1 (PR #11061, Dec 2024);
// TensorRT-LLM enabled chunked context by default in Dec 2024 (PR #2562), while trtllm-serve
// still ran without it in mid-2025 (TensorRT-LLM issue #4947). Unchunked, a new request's
// prefill runs as its own iteration and every decoding sequence waits for it, so the high-
// latency end of a continuous-batching estimate under those engines assumes it.
// The engine's version decides it where known (MayRunUnchunked in serving_engine.cc).

// `pessimistic`: the high-latency end of the range (PCIe links crossing CPU sockets, prefills
// unchunked where the engine may run them so).
Ctx MakeCtx(const ServingWorkload& w, const Shape& s, const ServingMemory& mem, const GpuSpec& gpu, int tp, double bw,
            double fl, bool pessimistic = false) {
  const bool pcie = gpu.interconnect == Interconnect::kPcie;
  const double base = pcie ? kAllReduceLatencyPcieSeconds : kAllReduceLatencyNvlinkSeconds;
  const double high = pcie ? std::max(base, 2.0 * (tp - 1) * kAllReduceStepCrossSocketSeconds) : base;
  return {w,
          s,
          mem,
          gpu,
          tp,
          gpu.memory_bandwidth_bytes_per_second * bw,
          ServingComputePeak(gpu, w.weight_precision, w.engine) * fl,
          EngineProfileFor(w.engine, gpu, tp, w.engine_version),
          pessimistic ? high : base,
          high,
          pessimistic && MayRunUnchunked(w.engine, w.engine_version)};
}

// Two all-reduces per layer of `tokens` x hidden activations in 16-bit (Megatron layout;
// Pope et al. 2022, Sec. 3.1).
double TpCommSeconds(const Ctx& c, double tokens) {
  if (c.tp <= 1) return 0;
  const double latency = c.allreduce_latency_seconds;
  const double msg = tokens * static_cast<double>(c.s.arch.hidden_size) * 2.0;
  const double one = latency + 2.0 * (c.tp - 1) / c.tp * msg / c.gpu.interconnect_bandwidth_bytes_per_second;
  return 2.0 * static_cast<double>(c.s.arch.num_layers) * one;
}

// What `iterations` iterations' all-reduces (two per layer each) add at the pessimistic end.
double CommHighExtraSeconds(const Ctx& c, double iterations) {
  if (c.tp <= 1) return 0;
  return iterations * 2.0 * static_cast<double>(c.s.arch.num_layers) *
         (c.allreduce_latency_high_seconds - c.allreduce_latency_seconds);
}

// Weight bytes one iteration of `tokens` tokens reads per GPU. MoE: each layer reads its
// attention, shared-expert and router weights (and the leading dense layers their FFN) and
// only the routed experts its tokens route to: b tokens each choosing k of E experts touch
// E·(1-(1-k/E)^b) of them in expectation (each expert is missed by one token with probability
// 1-k/E, by all b independently with (1-k/E)^b); not all E, and not only the k·b active.
// With expert parallelism over the TP group each GPU holds E/tp of them.
double WeightsRead(const Ctx& c, double tokens) {
  if (!c.s.arch.IsMoe()) return c.mem.weights_bytes;
  const double E = static_cast<double>(c.s.arch.num_experts);
  const double k = static_cast<double>(c.s.arch.experts_per_token);
  const double all_experts = c.s.counts.expert_per_layer * E * static_cast<double>(c.s.arch.num_layers) *
                             WeightBytesPerParameter(c.w.weight_precision) / c.tp;
  const double touched = 1.0 - std::pow(1.0 - k / E, tokens);
  return c.mem.weights_bytes - all_experts * (1.0 - touched);
}

// 2·N_active per token, plus 4·L·context·h for attention scores and values (kipply 2022).
double DecodeFlops(const Ctx& c, double context) {
  return (2.0 * c.s.counts.active +
          4.0 * static_cast<double>(c.s.arch.num_layers) * context * static_cast<double>(c.s.arch.hidden_size)) /
         c.tp;
}

// 2·N_active·P for the weights, 2·L·h·P² for causal attention scores and values.
double PrefillFlops(const Ctx& c, double prompt) {
  return (2.0 * c.s.counts.active * prompt + 2.0 * static_cast<double>(c.s.arch.num_layers) *
                                                 static_cast<double>(c.s.arch.hidden_size) * prompt * prompt) /
         c.tp;
}

DecodeStep Decode(const Ctx& c, double batch, double context) {
  DecodeStep d;
  d.memory_seconds = (WeightsRead(c, batch) + batch * context * c.mem.kv_bytes_per_token) / c.bandwidth;
  d.compute_seconds = batch * DecodeFlops(c, context) / c.compute;
  d.comm_seconds = TpCommSeconds(c, batch);
  d.comm_seconds_high = d.comm_seconds + CommHighExtraSeconds(c, 1);
  d.overhead_seconds = c.engine.step_overhead_seconds;
  d.seconds = std::max(d.memory_seconds, d.compute_seconds) + d.comm_seconds + d.overhead_seconds;
  d.bound = d.memory_seconds >= d.compute_seconds ? Bottleneck::kMemoryBandwidth : Bottleneck::kCompute;
  if (d.comm_seconds > std::max(d.memory_seconds, d.compute_seconds)) d.bound = Bottleneck::kInterconnect;
  return d;
}

// `prompts` prompts of P tokens prefilled back to back in iterations of the engine's token
// budget: one weight read per iteration, the FLOPs of every prompt.
PrefillEstimate Prefill(const Ctx& c, double prompt, double prompts) {
  PrefillEstimate p;
  const double budget = static_cast<double>(c.engine.max_batched_tokens);
  const double tokens = prompt * prompts;
  p.chunks = static_cast<int64_t>(std::ceil(tokens / budget));
  const double chunks = static_cast<double>(p.chunks);
  p.compute_seconds = prompts * PrefillFlops(c, prompt) / c.compute;
  p.memory_seconds = chunks * WeightsRead(c, std::min(tokens, budget)) / c.bandwidth;
  p.comm_seconds = TpCommSeconds(c, tokens) + (chunks - 1.0) * TpCommSeconds(c, 0);
  p.comm_seconds_high = p.comm_seconds + CommHighExtraSeconds(c, chunks);
  p.overhead_seconds = chunks * c.engine.step_overhead_seconds;
  p.seconds = std::max(p.compute_seconds, p.memory_seconds) + p.comm_seconds + p.overhead_seconds;
  p.bound = p.compute_seconds >= p.memory_seconds ? Bottleneck::kCompute : Bottleneck::kMemoryBandwidth;
  return p;
}

struct AtBatch {
  DecodeStep step;
  double prefill, ttft, tpot, e2e, rps;
};

// A request's first token while `others` sequences decode (Sarathi-Serve): its prompt goes in
// chunks of what the token budget leaves after their decode tokens, each iteration also
// reading their weights and KV.
double LoadedTtft(const Ctx& c, double others, double context) {
  const double prompt = static_cast<double>(c.w.prompt_tokens);
  const double budget = static_cast<double>(c.engine.max_batched_tokens);
  const double chunk = std::min(prompt, std::max(budget - others, budget / 4));
  const double chunks = std::ceil(prompt / chunk);
  const double mem = chunks * (WeightsRead(c, others + chunk) + others * context * c.mem.kv_bytes_per_token);
  const double flops = chunks * others * DecodeFlops(c, context) + PrefillFlops(c, prompt);
  return std::max(mem / c.bandwidth, flops / c.compute) + chunks * TpCommSeconds(c, others + chunk) +
         chunks * c.engine.step_overhead_seconds;
}

AtBatch Evaluate(const Ctx& c, int64_t batch) {
  const double O = static_cast<double>(c.w.output_tokens);
  const double P = static_cast<double>(c.w.prompt_tokens);
  const double b = static_cast<double>(batch);
  // Decode iterations read KV at the average context over a request's life, not its last.
  const double context = P + O / 2.0;
  AtBatch a;
  a.step = Decode(c, b, context);
  const PrefillEstimate alone = Prefill(c, P, 1);
  a.prefill = alone.seconds;
  if (c.w.batch_arrives_at_once) {
    // Static batch: every prefill first (the i-th request waits for those ahead of it), then
    // O decode iterations of the whole batch.
    const PrefillEstimate all = Prefill(c, P, b);
    // The mean over the batch's first-token times; past kBurstSamples requests, sampled at
    // evenly spaced positions (the times grow almost linearly), so a search stays cheap.
    const int64_t samples = std::min(batch, kBurstSamples);
    double sum = 0;
    for (int64_t k = 0; k < samples; ++k) {
      const double position =
          samples == batch ? static_cast<double>(k + 1) : std::ceil((static_cast<double>(k) + 0.5) * b / samples);
      sum += Prefill(c, P, position).seconds;
    }
    a.ttft = sum / static_cast<double>(samples);
    a.tpot = a.step.seconds;
    a.e2e = a.ttft + (O - 1.0) * a.tpot;
    a.rps = b / (all.seconds + (O - 1.0) * a.step.seconds);
    return a;
  }
  // Continuous batching with chunked prefill (Yu et al. 2022; Agrawal et al. 2024). A request
  // lives n prefill chunks then O-1 decode iterations; with b requests in flight, the other
  // b-1 are spread over their lives, so each of this request's decode iterations also
  // carries their share of decode tokens and of prompt chunks. Those prompt FLOPs ride in
  // iterations that are memory-bound for decode, which is chunked prefill's gain.
  const double budget = static_cast<double>(c.engine.max_batched_tokens);
  const double life = static_cast<double>(alone.chunks) + O - 1.0;
  const double other_decodes = (b - 1.0) * (O - 1.0) / life;
  const double other_prompt_share = (b - 1.0) / life;  // prompts' worth of prefill per iteration
  const double decodes = 1.0 + other_decodes;
  const double tokens = decodes + other_prompt_share * P;
  // Past the token budget the engine needs more iterations for the same work: each one reads
  // the weights and pays the fixed costs again; the FLOPs and KV reads stay the same.
  const double stretch = std::max(1.0, tokens / budget);
  const double mem = stretch * WeightsRead(c, tokens / stretch) + decodes * context * c.mem.kv_bytes_per_token;
  const double flops = decodes * DecodeFlops(c, context) + other_prompt_share * PrefillFlops(c, P);
  a.tpot = std::max(mem / c.bandwidth, flops / c.compute) +
           stretch * (TpCommSeconds(c, tokens / stretch) + c.engine.step_overhead_seconds);
  if (c.unchunked_prefill) {
    // Each decode iteration, then the other requests' prompts as iterations of their own.
    a.tpot = std::max(a.tpot, Decode(c, decodes, context).seconds + other_prompt_share * alone.seconds);
  }
  a.ttft = batch > 1 ? LoadedTtft(c, other_decodes, context) : alone.seconds;
  a.e2e = a.ttft + (O - 1.0) * a.tpot;
  a.rps = b / a.e2e;  // Little's law: b requests in flight, each for e2e seconds
  if (mem / c.bandwidth < flops / c.compute) a.step.bound = Bottleneck::kCompute;
  return a;
}

bool MeetsSlo(const ServingWorkload& w, const AtBatch& a) {
  return (w.ttft_slo_seconds <= 0 || a.ttft <= w.ttft_slo_seconds) &&
         (w.tpot_slo_seconds <= 0 || a.tpot <= w.tpot_slo_seconds) &&
         (w.e2e_slo_seconds <= 0 || a.e2e <= w.e2e_slo_seconds);
}

// The only figures of an estimate that read the offered load.
void SizeReplicas(const ServingWorkload& w, ServingEstimate* e) {
  const double usable = e->requests_per_second_per_replica * w.target_utilization;
  e->replicas = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(w.requests_per_second / usable - 1e-9)));
  e->total_gpus = e->replicas * e->tp;
}

ServingEstimate Materialize(const ServingWorkload& w, const Shape& s, const ServingMemory& mem, const GpuSpec& gpu,
                            int tp, int64_t batch, const ServingEfficiency& eff) {
  const Ctx pc = MakeCtx(w, s, mem, gpu, tp, eff.bandwidth.point, eff.compute.point);
  const AtBatch a = Evaluate(pc, batch);
  // The range: the development set's band of published over estimated speed for this regime
  // (ServingRangeFor), around the point for the fast end and around the pessimistic schedule
  // and links (PessimisticEndAssumptions, at the point efficiencies) for the slow end.
  AtBatch slow = Evaluate(MakeCtx(w, s, mem, gpu, tp, eff.bandwidth.point, eff.compute.point, true), batch);
  const Assumption& range = ServingRangeFor(gpu);
  const double lo = range.value.low, hi = range.value.high;
  AtBatch fast = a;
  fast.ttft /= hi;
  fast.tpot /= hi;
  fast.rps *= hi;
  slow.ttft /= lo;
  slow.tpot /= lo;
  slow.rps *= lo;
  ServingEstimate out;
  out.range_id = range.id;
  out.tp = tp;
  out.batch = batch;
  out.requested_batch = batch;
  out.memory = mem;
  out.ttft_seconds = a.ttft;
  out.ttft_seconds_low = fast.ttft;
  out.ttft_seconds_high = slow.ttft;
  out.tpot_seconds = a.tpot;
  out.tpot_seconds_low = fast.tpot;
  out.tpot_seconds_high = slow.tpot;
  out.e2e_seconds = a.e2e;
  out.requests_per_second_per_replica = a.rps;
  out.requests_per_second_low = slow.rps;
  out.requests_per_second_high = fast.rps;
  out.output_tokens_per_second_per_replica = a.rps * static_cast<double>(w.output_tokens);
  SizeReplicas(w, &out);
  out.bottleneck = a.step.bound;
  out.shape_inferred = s.inferred;
  out.prefill_seconds = a.prefill;
  out.step_overhead_seconds = pc.engine.step_overhead_seconds;
  return out;
}

}  // namespace

const Assumption& ServingRangeFor(const GpuSpec& gpu) {
  return ServingVendorOf(gpu) == ServingVendor::kAmdInstinct || gpu.interconnect == Interconnect::kXeLink
             ? assumptions::kRangeServingOther
             : assumptions::kRangeServingNvidia;
}

ServingEfficiency DefaultServingEfficiency(const ServingWorkload& w, const GpuSpec& gpu) {
  return DefaultServingEfficiency(gpu, w.engine, w.weight_precision);
}

std::string PessimisticEndAssumptions(const ServingWorkload& w, const GpuSpec& gpu, int tp,
                                      bool prefills_share_iterations) {
  std::string out;
  if (tp > 1 && gpu.interconnect == Interconnect::kPcie) {
    out = absl::StrFormat(
        "all-reduces crossing CPU sockets on PCIe (%.0f us each at tp=%d, vLLM PR #50941)",
        1e6 * std::max(kAllReduceLatencyPcieSeconds, 2.0 * (tp - 1) * kAllReduceStepCrossSocketSeconds), tp);
  }
  if (prefills_share_iterations && MayRunUnchunked(w.engine, w.engine_version)) {
    absl::StrAppend(&out, out.empty() ? "" : "; ", "prefills unchunked, stalling decodes (",
                    ServingEngineName(w.engine), "'s chunked-prefill default varies by release)");
  }
  return out;
}

namespace serving_internal {

Stepper::Stepper(const ServingWorkload& w, const GpuSpec& gpu, int tp, const ServingEfficiency& eff,
                 bool inputs_checked)
    : w_(w), gpu_(gpu), tp_(tp), eff_(eff), status_(Prechecks(w, gpu, tp, inputs_checked)) {
  if (!status_.ok()) return;
  absl::StatusOr<Shape> s = ShapeOf(w.model);
  if (!s.ok()) {
    status_ = s.status();
    return;
  }
  shape_ = *std::move(s);
  mem_ = MemoryOf(w, shape_, gpu, tp);
}

absl::StatusOr<DecodeStep> Stepper::DecodeAt(int64_t batch, double context_tokens) const {
  CAPPLAN_RETURN_IF_ERROR(status_);
  CAPPLAN_RETURN_IF_ERROR(CheckRange("batch", batch, int64_t{1}, int64_t{1} << 20));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("context_tokens", context_tokens, 0.0, 1e7));
  return Decode(MakeCtx(w_, shape_, mem_, gpu_, tp_, eff_.bandwidth.point, eff_.compute.point),
                static_cast<double>(batch), context_tokens);
}

absl::StatusOr<PrefillEstimate> Stepper::PrefillOf(int64_t prompt_tokens) const {
  CAPPLAN_RETURN_IF_ERROR(status_);
  CAPPLAN_RETURN_IF_ERROR(CheckRange("prompt_tokens", prompt_tokens, int64_t{1}, int64_t{10000000}));
  return Prefill(MakeCtx(w_, shape_, mem_, gpu_, tp_, eff_.bandwidth.point, eff_.compute.point),
                 static_cast<double>(prompt_tokens), 1);
}

absl::StatusOr<ServingEstimate> Stepper::AtBatch(int64_t batch) const {
  CAPPLAN_RETURN_IF_ERROR(status_);
  CAPPLAN_RETURN_IF_ERROR(CheckRange("batch", batch, int64_t{1}, kMaxBatch));
  if (mem_.max_concurrent_sequences < 1) return DoesNotFit(w_, mem_, gpu_, tp_);
  // Engines admit what the KV cache holds and queue the rest (vLLM's scheduler, TensorRT-LLM's
  // capacity scheduler): the replica runs at that concurrency.
  const int64_t runs = std::min(batch, mem_.max_concurrent_sequences);
  ServingEstimate out = Materialize(w_, shape_, mem_, gpu_, tp_, runs, eff_);
  out.requested_batch = batch;
  out.batch_limited_by_memory = runs < batch;
  return out;
}

}  // namespace serving_internal

absl::StatusOr<DecodeStep> EstimateDecodeStep(const ServingWorkload& w, const GpuSpec& gpu, int tp, int64_t batch,
                                              double context_tokens, const ServingEfficiency& eff) {
  return serving_internal::Stepper(w, gpu, tp, eff).DecodeAt(batch, context_tokens);
}

absl::StatusOr<PrefillEstimate> EstimatePrefill(const ServingWorkload& w, const GpuSpec& gpu, int tp,
                                                int64_t prompt_tokens, const ServingEfficiency& eff) {
  return serving_internal::Stepper(w, gpu, tp, eff).PrefillOf(prompt_tokens);
}

absl::StatusOr<double> BurstFirstTokenSeconds(const ServingWorkload& w, const GpuSpec& gpu, int tp, int64_t burst_size,
                                              int64_t index, const ServingEfficiency& eff) {
  CAPPLAN_RETURN_IF_ERROR(Prechecks(w, gpu, tp));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("burst_size", burst_size, int64_t{1}, int64_t{1} << 20));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("index", index, int64_t{0}, burst_size - 1));
  absl::StatusOr<Shape> s = ShapeOf(w.model);
  if (!s.ok()) return s.status();
  const ServingMemory mem = MemoryOf(w, *s, gpu, tp);
  return Prefill(MakeCtx(w, *s, mem, gpu, tp, eff.bandwidth.point, eff.compute.point),
                 static_cast<double>(w.prompt_tokens), static_cast<double>(index + 1))
      .seconds;
}

absl::StatusOr<ServingEstimate> EstimateServingAtBatch(const ServingWorkload& w, const GpuSpec& gpu, int tp,
                                                       int64_t batch, const ServingEfficiency& eff) {
  return serving_internal::Stepper(w, gpu, tp, eff).AtBatch(batch);
}

namespace {

// A closed loop of N requests in flight: as many replicas as it takes to hold N within the
// largest batch that fits and meets the SLOs (`max_batch`), N spread evenly over them. Each
// replica's throughput is its share over a request's residence, b / (TTFT + (OSL-1) x TPOT)
// (Little's law, as Evaluate computes it); no queue forms beyond the N clients.
ServingEstimate ClosedLoop(const ServingWorkload& w, const Shape& s, const ServingMemory& mem, const GpuSpec& gpu,
                           int tp, int64_t max_batch, const ServingEfficiency& eff) {
  const int64_t n = w.concurrent_requests;
  const int64_t replicas = (n + max_batch - 1) / max_batch;
  const int64_t per_replica = (n + replicas - 1) / replicas;
  ServingEstimate out = Materialize(w, s, mem, gpu, tp, per_replica, eff);
  out.requested_batch = n;
  out.replicas = replicas;
  out.total_gpus = replicas * tp;
  return out;
}

// EstimateServing after its input checks; SearchServing validates once for all layouts.
absl::StatusOr<ServingEstimate> EstimateServingChecked(const ServingWorkload& w, const Shape& s, const GpuSpec& gpu,
                                                       int tp, const ServingEfficiency& eff,
                                                       const BatchMemoRef& memo = {}) {
  const ServingMemory mem = MemoryOf(w, s, gpu, tp);
  if (mem.max_concurrent_sequences < 1) return DoesNotFit(w, mem, gpu, tp);
  int64_t hi = std::min(mem.max_concurrent_sequences, kMaxBatch);
  std::string key;
  if (memo.memo != nullptr) {
    key = memo.Key('c', tp);
    const int64_t known = memo.memo->Find(key);
    if (known >= 1 && known <= hi) {
      if (w.concurrent_requests > 0) return ClosedLoop(w, s, mem, gpu, tp, known, eff);
      return Materialize(w, s, mem, gpu, tp, known, eff);
    }
  }
  const Ctx point = MakeCtx(w, s, mem, gpu, tp, eff.bandwidth.point, eff.compute.point);
  const AtBatch one = Evaluate(point, 1);
  if (!MeetsSlo(w, one)) {
    std::string what;
    if (w.ttft_slo_seconds > 0 && one.ttft > w.ttft_slo_seconds) {
      what = absl::StrCat("time to first token ", Latency(one.ttft), " > SLO ", Latency(w.ttft_slo_seconds));
    } else if (w.tpot_slo_seconds > 0 && one.tpot > w.tpot_slo_seconds) {
      what = absl::StrCat("time per output token ", Latency(one.tpot), " > SLO ", Latency(w.tpot_slo_seconds));
    } else {
      what = absl::StrCat("end-to-end ", Latency(one.e2e), " > SLO ", Latency(w.e2e_slo_seconds));
    }
    return absl::FailedPreconditionError(
        absl::StrCat(gpu.name, " at tp=", tp, " misses the SLO even at batch 1: ", what));
  }
  // Latency grows and throughput rises with batch: the answer is the largest batch that
  // meets the SLOs and fits. Binary search over [1, max].
  int64_t lo = 1;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (MeetsSlo(w, Evaluate(point, mid))) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  if (memo.memo != nullptr) memo.memo->Store(key, lo);
  if (w.concurrent_requests > 0) return ClosedLoop(w, s, mem, gpu, tp, lo, eff);
  return Materialize(w, s, mem, gpu, tp, lo, eff);
}

}  // namespace

absl::StatusOr<ServingEstimate> EstimateServing(const ServingWorkload& w, const GpuSpec& gpu, int tp,
                                                const ServingEfficiency& eff) {
  CAPPLAN_RETURN_IF_ERROR(Prechecks(w, gpu, tp));
  absl::StatusOr<Shape> s = ShapeOf(w.model);
  if (!s.ok()) return s.status();
  return EstimateServingChecked(w, *s, gpu, tp, eff);
}

// A new Fabric field fails here until Key says whether the searches across nodes read it.
static_assert(FieldCount<Fabric>() == 6, "Fabric changed: extend BatchMemoRef::Key");

std::string BatchMemoRef::Key(char kind, int tp, int pp, const Fabric* fabric) const {
  std::string out = prefix;
  auto put = [&out](const auto& v) { out.append(reinterpret_cast<const char*>(&v), sizeof(v)); };
  put(kind);
  put(tp);
  put(pp);
  if (fabric != nullptr) {
    put(fabric->gpus_per_node);
    put(fabric->intra_link);
    put(fabric->intra_node_bytes_per_second_per_gpu);
    put(fabric->network);
    put(fabric->network_bytes_per_second_per_gpu);
    put(fabric->network_latency_seconds);
  }
  return out;
}

std::vector<ServingOption> SearchServingUnranked(const ServingWorkload& w, const GpuSpec& gpu,
                                                 const ServingEfficiency& eff, const BatchMemoRef& memo) {
  std::vector<ServingOption> out;
  absl::Status valid = Prechecks(w, gpu, 1);
  absl::StatusOr<Shape> shape = valid.ok() ? ShapeOf(w.model) : absl::StatusOr<Shape>(valid);
  if (!shape.ok()) {
    out.push_back({shape.status(), 1, {}});
    return out;
  }
  for (int tp = 1; tp <= gpu.gpus_per_node; tp *= 2) {
    if (shape->arch.num_attention_heads % tp != 0) continue;
    ServingOption& o = out.emplace_back();
    o.tp = tp;
    o.estimate = EstimateServingChecked(w, *shape, gpu, tp, eff, memo);
    if (o.estimate.ok()) {
      o.prefill = Prefill(MakeCtx(w, *shape, o.estimate->memory, gpu, tp, eff.bandwidth.point, eff.compute.point),
                          static_cast<double>(w.prompt_tokens), 1);
    }
  }
  return out;
}

void SizeAndRankServingOptions(const ServingWorkload& w, std::vector<ServingOption>* options) {
  for (ServingOption& o : *options) {
    if (o.estimate.ok()) SizeReplicas(w, &*o.estimate);
  }
  std::stable_sort(options->begin(), options->end(), [](const ServingOption& a, const ServingOption& b) {
    if (a.estimate.ok() != b.estimate.ok()) return a.estimate.ok();
    if (!a.estimate.ok()) return false;
    if (a.estimate->total_gpus != b.estimate->total_gpus) {
      return a.estimate->total_gpus < b.estimate->total_gpus;
    }
    return a.estimate->tpot_seconds < b.estimate->tpot_seconds;
  });
}

std::vector<ServingOption> SearchServing(const ServingWorkload& w, const GpuSpec& gpu, const ServingEfficiency& eff,
                                         const BatchMemoRef& memo) {
  std::vector<ServingOption> out = SearchServingUnranked(w, gpu, eff, memo);
  SizeAndRankServingOptions(w, &out);
  return out;
}

}  // namespace capplan::core
