// Serving estimator. See serving.h for sources.
#include "core/serving.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/format.h"
#include "core/units.h"
#include "core/validate.h"

namespace capplan::core {

namespace {

// Upper bound on concurrency per replica: vLLM defaults to 256 sequences (max_num_seqs);
// we let the search go to 1024 so larger-memory parts show their headroom.
constexpr int64_t kMaxBatch = 1024;
constexpr double kAllReduceLatencyNvlinkSeconds = 10e-6;  // as in training.cc
constexpr double kAllReduceLatencyPcieSeconds = 30e-6;

struct Effs {
  double bandwidth;
  double compute;
};

struct Shape {
  ParameterCounts counts;
  ModelArchitecture arch;
  bool inferred = false;
};

absl::StatusOr<Shape> ShapeOf(const ModelArchitecture& m) {
  absl::StatusOr<ParameterCounts> c = CountParameters(m);
  if (!c.ok()) return c.status();
  return Shape{*c, EffectiveShape(m), !m.HasArchitecture()};
}

// Peak FLOP/s for the math the weights are served with. Weight-only INT8/INT4 (AWQ, GPTQ)
// and FP8 on parts without FP8 dequantise into 16-bit GEMMs.
double ComputePeak(const GpuSpec& gpu, Precision weights) {
  const double fp16 = gpu.PeakFlops(Precision::kFp16);
  switch (weights) {
    case Precision::kFp32:
    case Precision::kTf32:
      return gpu.PeakFlops(Precision::kTf32) > 0 ? gpu.PeakFlops(Precision::kTf32) : gpu.PeakFlops(Precision::kFp32);
    case Precision::kBf16:
      return gpu.PeakFlops(Precision::kBf16) > 0 ? gpu.PeakFlops(Precision::kBf16) : fp16;
    case Precision::kFp8:
      return gpu.PeakFlops(Precision::kFp8) > 0 ? gpu.PeakFlops(Precision::kFp8) : fp16;
    default:
      return fp16;
  }
}

double Latency(const GpuSpec& gpu) {
  return gpu.interconnect == Interconnect::kPcie ? kAllReduceLatencyPcieSeconds : kAllReduceLatencyNvlinkSeconds;
}

// Two all-reduces per layer of `tokens` x hidden activations in 16-bit (Megatron layout;
// Pope et al. 2022, Sec. 3.1).
double TpCommSeconds(const Shape& s, const GpuSpec& gpu, int tp, double tokens) {
  if (tp <= 1) return 0;
  const double msg = tokens * static_cast<double>(s.arch.hidden_size) * 2.0;
  const double one = Latency(gpu) + 2.0 * (tp - 1) / tp * msg / gpu.interconnect_bandwidth_bytes_per_second;
  return 2.0 * static_cast<double>(s.arch.num_layers) * one;
}

ServingMemory MemoryOf(const ServingWorkload& w, const Shape& s, const GpuSpec& gpu, int tp) {
  ServingMemory m;
  const double bpp = WeightBytesPerParameter(w.weight_precision);
  // Embedding and output projection stay 16-bit under 8- and 4-bit weight quantisation.
  const double embed_bpp = std::max(std::min(bpp, 4.0), 2.0);
  m.weights_bytes = ((s.counts.total - s.counts.embedding) * bpp + s.counts.embedding * embed_bpp) / tp;
  const double kv_heads_per_gpu = std::ceil(static_cast<double>(s.arch.KvHeads()) / static_cast<double>(tp));
  m.kv_bytes_per_token = 2.0 * static_cast<double>(s.arch.num_layers) * kv_heads_per_gpu *
                         static_cast<double>(s.arch.HeadDim()) * BytesPerElement(w.kv_precision);
  m.kv_bytes_per_sequence = m.kv_bytes_per_token * static_cast<double>(w.prompt_tokens + w.output_tokens);
  m.capacity_bytes = gpu.memory_bytes;
  m.overhead_bytes = gpu.memory_bytes * (1.0 - kUsableMemoryFraction);
  const double free = gpu.memory_bytes * kUsableMemoryFraction - m.weights_bytes;
  m.max_concurrent_sequences = free > 0 ? static_cast<int64_t>(std::floor(free / m.kv_bytes_per_sequence)) : 0;
  return m;
}

DecodeStep Decode(const ServingWorkload& w, const Shape& s, const ServingMemory& mem, const GpuSpec& gpu, int tp,
                  int64_t batch, double context, Effs e) {
  const double b = static_cast<double>(batch);
  double weights_read = mem.weights_bytes;
  if (s.arch.IsMoe()) {
    // Each expert is read once per step if any sequence routes to it: the expected share of
    // E experts touched by b tokens choosing k each is 1 - (1 - k/E)^b.
    const double E = static_cast<double>(s.arch.num_experts);
    const double k = static_cast<double>(s.arch.experts_per_token);
    const double expert_bytes = s.counts.expert_per_layer * E * static_cast<double>(s.arch.num_layers) *
                                WeightBytesPerParameter(w.weight_precision) / tp;
    const double touched = 1.0 - std::pow(1.0 - k / E, b);
    weights_read = mem.weights_bytes - expert_bytes * (1.0 - touched);
  }
  DecodeStep d;
  const double bytes = weights_read + b * context * mem.kv_bytes_per_token;
  d.memory_seconds = bytes / (gpu.memory_bandwidth_bytes_per_second * e.bandwidth);
  // 2·N_active per token, plus 4·L·context·h for scores and values (kipply 2022).
  const double flops =
      b * (2.0 * s.counts.active + 4.0 * static_cast<double>(s.arch.num_layers) * context * s.arch.hidden_size) / tp;
  d.compute_seconds = flops / (ComputePeak(gpu, w.weight_precision) * e.compute);
  d.comm_seconds = TpCommSeconds(s, gpu, tp, b);
  d.seconds = std::max(d.memory_seconds, d.compute_seconds) + d.comm_seconds;
  d.bound = d.memory_seconds >= d.compute_seconds ? Bottleneck::kMemoryBandwidth : Bottleneck::kCompute;
  if (d.comm_seconds > std::max(d.memory_seconds, d.compute_seconds)) {
    d.bound = Bottleneck::kInterconnect;
  }
  return d;
}

struct Prefill {
  double single_seconds;   // one request alone: time to first token's compute
  double batched_seconds;  // its share when prefills are batched (compute-bound)
};

Prefill PrefillOf(const ServingWorkload& w, const Shape& s, const ServingMemory& mem, const GpuSpec& gpu, int tp,
                  Effs e) {
  const double P = static_cast<double>(w.prompt_tokens);
  // 2·N·P for the weights, 2·L·h·P² for causal attention scores and values.
  const double flops =
      (2.0 * s.counts.active * P + 2.0 * static_cast<double>(s.arch.num_layers) * s.arch.hidden_size * P * P) / tp;
  const double compute = flops / (ComputePeak(gpu, w.weight_precision) * e.compute);
  const double comm = TpCommSeconds(s, gpu, tp, P);
  const double weights = mem.weights_bytes / (gpu.memory_bandwidth_bytes_per_second * e.bandwidth);
  return {std::max(compute, weights) + comm, compute + comm};
}

struct AtBatch {
  DecodeStep step;
  double ttft, tpot, e2e, rps;
};

AtBatch Evaluate(const ServingWorkload& w, const Shape& s, const ServingMemory& mem, const GpuSpec& gpu, int tp,
                 int64_t batch, Effs e) {
  const double O = static_cast<double>(w.output_tokens);
  const double context = static_cast<double>(w.prompt_tokens) + O / 2.0;
  AtBatch a;
  a.step = Decode(w, s, mem, gpu, tp, batch, context, e);
  const Prefill pf = PrefillOf(w, s, mem, gpu, tp, e);
  const double b = static_cast<double>(batch);
  // Continuous batching (Yu et al. 2022, Orca; Kwon et al. 2023): while one request
  // decodes its O tokens, the other b-1 slots turn over once, each inserting a prefill.
  a.tpot = (O * a.step.seconds + (b - 1.0) * pf.batched_seconds) / O;
  a.ttft = pf.single_seconds + a.step.seconds;
  a.e2e = a.ttft + (O - 1.0) * a.tpot;
  a.rps = b / (O * a.step.seconds + b * pf.batched_seconds);
  return a;
}

bool MeetsSlo(const ServingWorkload& w, const AtBatch& a) {
  return (w.ttft_slo_seconds <= 0 || a.ttft <= w.ttft_slo_seconds) &&
         (w.tpot_slo_seconds <= 0 || a.tpot <= w.tpot_slo_seconds) &&
         (w.e2e_slo_seconds <= 0 || a.e2e <= w.e2e_slo_seconds);
}

absl::Status Prechecks(const ServingWorkload& w, const GpuSpec& gpu, int tp) {
  CAPPLAN_RETURN_IF_ERROR(ValidateServingWorkload(w));
  CAPPLAN_RETURN_IF_ERROR(ValidateGpu(gpu));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("tp", static_cast<int64_t>(tp), 1, 64));
  if (tp > gpu.gpus_per_node) {
    return FieldError(
        "tp", absl::StrCat("tensor parallelism must stay inside a node of ", gpu.gpus_per_node, " GPUs, got ", tp));
  }
  return absl::OkStatus();
}

ServingEstimate Materialize(const ServingWorkload& w, const Shape& s, const ServingMemory& mem, const GpuSpec& gpu,
                            int tp, int64_t batch, const ServingEfficiency& eff) {
  const AtBatch a = Evaluate(w, s, mem, gpu, tp, batch, {eff.bandwidth.point, eff.compute.point});
  const AtBatch fast = Evaluate(w, s, mem, gpu, tp, batch, {eff.bandwidth.high, eff.compute.high});
  const AtBatch slow = Evaluate(w, s, mem, gpu, tp, batch, {eff.bandwidth.low, eff.compute.low});
  ServingEstimate out;
  out.tp = tp;
  out.batch = batch;
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
  const double usable = a.rps * w.target_utilization;
  out.replicas = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(w.requests_per_second / usable - 1e-9)));
  out.total_gpus = out.replicas * tp;
  out.bottleneck = a.step.bound;
  out.shape_inferred = s.inferred;
  return out;
}

absl::Status DoesNotFit(const ServingWorkload& w, const ServingMemory& mem, const GpuSpec& gpu, int tp) {
  const double usable = gpu.memory_bytes * kUsableMemoryFraction;
  if (mem.weights_bytes >= usable) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "weights need %.1f GiB per GPU at tp=%d; %s has %.1f GiB usable of %.1f GiB", mem.weights_bytes / units::kGiB,
        tp, gpu.name, usable / units::kGiB, gpu.memory_bytes / units::kGiB));
  }
  return absl::FailedPreconditionError(
      absl::StrFormat("one sequence of %d tokens needs %.2f GB of KV cache per GPU at tp=%d; %s has %.2f GB "
                      "left after %.1f GiB of weights",
                      w.prompt_tokens + w.output_tokens, mem.kv_bytes_per_sequence / units::kGiB, tp, gpu.name,
                      (usable - mem.weights_bytes) / units::kGiB, mem.weights_bytes / units::kGiB));
}

}  // namespace

double WeightBytesPerParameter(Precision p) {
  if (p == Precision::kInt4) return 0.5 + 4.0 / 128.0;  // FP16 scale + zero per 128 weights
  return BytesPerElement(p);
}

double KvBytesPerToken(const ModelArchitecture& shape, Precision kv_precision) {
  return 2.0 * static_cast<double>(shape.num_layers) * static_cast<double>(shape.KvHeads()) *
         static_cast<double>(shape.HeadDim()) * BytesPerElement(kv_precision);
}

absl::Status ValidateServingWorkload(const ServingWorkload& w) {
  CAPPLAN_RETURN_IF_ERROR(ValidateModel(w.model));
  const int wp = static_cast<int>(w.weight_precision);
  if (!IsValidPrecision(wp) || w.weight_precision == Precision::kTf32) {
    return FieldError("weight_precision", "must be fp32, fp16, bf16, fp8, int8 or int4");
  }
  const int kp = static_cast<int>(w.kv_precision);
  if (!IsValidPrecision(kp) || w.kv_precision == Precision::kTf32 || w.kv_precision == Precision::kInt4) {
    return FieldError("kv_cache_precision", "must be fp32, fp16, bf16, fp8 or int8");
  }
  CAPPLAN_RETURN_IF_ERROR(CheckRange("prompt_tokens", w.prompt_tokens, int64_t{1}, int64_t{10000000}));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("output_tokens", w.output_tokens, int64_t{1}, int64_t{1000000}));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("requests_per_second", w.requests_per_second, 0.0, 1e7));
  // Costs per request divide by the load: a positive load of at least one request a
  // million seconds (~12 days) keeps every figure finite.
  if (w.requests_per_second > 0 && w.requests_per_second < kMinRequestsPerSecond) {
    return FieldError("requests_per_second",
                      absl::StrCat("must be 0 or in [", kMinRequestsPerSecond, ", 1e7], got ", w.requests_per_second));
  }
  CAPPLAN_RETURN_IF_ERROR(CheckRange("ttft_slo_seconds", w.ttft_slo_seconds, 0.0, 1e5));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("tpot_slo_seconds", w.tpot_slo_seconds, 0.0, 1e5));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("e2e_slo_seconds", w.e2e_slo_seconds, 0.0, 1e6));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("target_utilization_fraction", w.target_utilization, 0.05, 1.0));
  return absl::OkStatus();
}

ServingEfficiency DefaultServingEfficiency(const GpuSpec& gpu) {
  ServingEfficiency e;
  // Decode reads every weight each step; optimised kernels reach 60-80% of peak HBM
  // bandwidth ("model bandwidth utilisation", Databricks "LLM Inference Performance
  // Engineering: Best Practices", 2023); GDDR consumer parts similar or a little lower.
  e.bandwidth = {0.70, 0.55, 0.85,
                 "default decode bandwidth efficiency 0.70 (0.55-0.85): 60-80% model bandwidth "
                 "utilisation reported for tuned servers (Databricks, LLM Inference "
                 "Performance Engineering, 2023)"};
  // Prefill GEMMs are large; tensor cores sustain 50-70% of dense peak end to end.
  e.compute = {0.55, 0.40, 0.70,
               "default prefill compute efficiency 0.55 (0.40-0.70), in line with large-GEMM "
               "training efficiency (Narayanan et al. 2021, Table 1)"};
  if (!gpu.datacenter) {
    e.compute.point = 0.45;
    e.compute.low = 0.30;
    e.compute.high = 0.60;
    e.compute.source += "; lowered for a consumer part (clocks throttle in racks, seed 003)";
  }
  return e;
}

absl::StatusOr<ServingMemory> ServingMemoryPerGpu(const ServingWorkload& w, const GpuSpec& gpu, int tp) {
  CAPPLAN_RETURN_IF_ERROR(Prechecks(w, gpu, tp));
  absl::StatusOr<Shape> s = ShapeOf(w.model);
  if (!s.ok()) return s.status();
  return MemoryOf(w, *s, gpu, tp);
}

absl::StatusOr<DecodeStep> EstimateDecodeStep(const ServingWorkload& w, const GpuSpec& gpu, int tp, int64_t batch,
                                              double context_tokens, const ServingEfficiency& eff) {
  CAPPLAN_RETURN_IF_ERROR(Prechecks(w, gpu, tp));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("batch", batch, int64_t{1}, int64_t{1} << 20));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("context_tokens", context_tokens, 0.0, 1e7));
  absl::StatusOr<Shape> s = ShapeOf(w.model);
  if (!s.ok()) return s.status();
  const ServingMemory mem = MemoryOf(w, *s, gpu, tp);
  return Decode(w, *s, mem, gpu, tp, batch, context_tokens, {eff.bandwidth.point, eff.compute.point});
}

absl::StatusOr<ServingEstimate> EstimateServingAtBatch(const ServingWorkload& w, const GpuSpec& gpu, int tp,
                                                       int64_t batch, const ServingEfficiency& eff) {
  CAPPLAN_RETURN_IF_ERROR(Prechecks(w, gpu, tp));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("batch", batch, int64_t{1}, kMaxBatch));
  absl::StatusOr<Shape> s = ShapeOf(w.model);
  if (!s.ok()) return s.status();
  const ServingMemory mem = MemoryOf(w, *s, gpu, tp);
  if (mem.max_concurrent_sequences < 1) return DoesNotFit(w, mem, gpu, tp);
  if (batch > mem.max_concurrent_sequences) {
    return absl::FailedPreconditionError(
        absl::StrFormat("batch %d needs %.1f GiB of KV cache per GPU; %s fits %d sequences of %d tokens at tp=%d",
                        batch, batch * mem.kv_bytes_per_sequence / units::kGiB, gpu.name, mem.max_concurrent_sequences,
                        w.prompt_tokens + w.output_tokens, tp));
  }
  return Materialize(w, *s, mem, gpu, tp, batch, eff);
}

namespace {

// EstimateServing after its input checks; SearchServing validates once for all layouts.
absl::StatusOr<ServingEstimate> EstimateServingChecked(const ServingWorkload& w, const Shape& shape, const GpuSpec& gpu,
                                                       int tp, const ServingEfficiency& eff) {
  const Shape* s = &shape;
  const ServingMemory mem = MemoryOf(w, *s, gpu, tp);
  if (mem.max_concurrent_sequences < 1) return DoesNotFit(w, mem, gpu, tp);
  const Effs point{eff.bandwidth.point, eff.compute.point};
  const AtBatch one = Evaluate(w, *s, mem, gpu, tp, 1, point);
  if (!MeetsSlo(w, one)) {
    std::string what;
    if (w.ttft_slo_seconds > 0 && one.ttft > w.ttft_slo_seconds) {
      what = absl::StrCat("time to first token ", Fixed(one.ttft, 3), " s > SLO ", Fixed(w.ttft_slo_seconds, 3), " s");
    } else if (w.tpot_slo_seconds > 0 && one.tpot > w.tpot_slo_seconds) {
      what =
          absl::StrCat("time per output token ", Fixed(one.tpot, 4), " s > SLO ", Fixed(w.tpot_slo_seconds, 4), " s");
    } else {
      what = absl::StrCat("end-to-end ", Fixed(one.e2e, 2), " s > SLO ", Fixed(w.e2e_slo_seconds, 2), " s");
    }
    return absl::FailedPreconditionError(
        absl::StrCat(gpu.name, " at tp=", tp, " misses the SLO even at batch 1: ", what));
  }
  // Latency grows and throughput rises with batch: the answer is the largest batch that
  // meets the SLOs and fits. Binary search over [1, max].
  int64_t lo = 1;
  int64_t hi = std::min(mem.max_concurrent_sequences, kMaxBatch);
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (MeetsSlo(w, Evaluate(w, *s, mem, gpu, tp, mid, point))) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return Materialize(w, *s, mem, gpu, tp, lo, eff);
}

}  // namespace

absl::StatusOr<ServingEstimate> EstimateServing(const ServingWorkload& w, const GpuSpec& gpu, int tp,
                                                const ServingEfficiency& eff) {
  CAPPLAN_RETURN_IF_ERROR(Prechecks(w, gpu, tp));
  absl::StatusOr<Shape> s = ShapeOf(w.model);
  if (!s.ok()) return s.status();
  return EstimateServingChecked(w, *s, gpu, tp, eff);
}

std::vector<ServingOption> SearchServing(const ServingWorkload& w, const GpuSpec& gpu, const ServingEfficiency& eff) {
  std::vector<ServingOption> out;
  absl::Status valid = Prechecks(w, gpu, 1);
  absl::StatusOr<Shape> shape = valid.ok() ? ShapeOf(w.model) : absl::StatusOr<Shape>(valid);
  if (!shape.ok()) {
    out.push_back({shape.status(), 1});
    return out;
  }
  for (int tp = 1; tp <= gpu.gpus_per_node; tp *= 2) {
    if (shape->arch.num_attention_heads % tp != 0) continue;
    out.push_back({EstimateServingChecked(w, *shape, gpu, tp, eff), tp});
  }
  std::stable_sort(out.begin(), out.end(), [](const ServingOption& a, const ServingOption& b) {
    if (a.estimate.ok() != b.estimate.ok()) return a.estimate.ok();
    if (!a.estimate.ok()) return false;
    if (a.estimate->total_gpus != b.estimate->total_gpus) {
      return a.estimate->total_gpus < b.estimate->total_gpus;
    }
    return a.estimate->tpot_seconds < b.estimate->tpot_seconds;
  });
  return out;
}

ServingEfficiency ServingEfficiencyFor(const ServingWorkload& w, const GpuSpec& gpu,
                                       const std::vector<ServingBenchmark>& benchmarks) {
  ServingEfficiency defaults = DefaultServingEfficiency(gpu);
  absl::StatusOr<ParameterCounts> target = CountParameters(w.model);
  if (!target.ok()) return defaults;
  struct Scored {
    const ServingBenchmark* b;
    double score;
  };
  std::vector<Scored> candidates;
  for (const ServingBenchmark& b : benchmarks) {
    if (b.gpu_name != gpu.name || b.value <= 0) continue;
    if (b.unit != MeasuredUnit::kRequestsPerSecond && b.unit != MeasuredUnit::kTokensPerSecond) continue;
    absl::StatusOr<ParameterCounts> c = CountParameters(b.model);
    if (!c.ok()) continue;
    const double len_b = static_cast<double>((b.prompt_tokens > 0 ? b.prompt_tokens : w.prompt_tokens) +
                                             (b.output_tokens > 0 ? b.output_tokens : w.output_tokens));
    const double len_t = static_cast<double>(w.prompt_tokens + w.output_tokens);
    candidates.push_back({&b, std::fabs(std::log(c->total / target->total)) +
                                  (b.precision != w.weight_precision ? 0.7 : 0.0) +
                                  0.3 * std::fabs(std::log(len_b / len_t))});
  }
  std::stable_sort(candidates.begin(), candidates.end(), [](const Scored& a, const Scored& b) {
    return a.score != b.score ? a.score < b.score : a.b->id < b.b->id;
  });
  std::string ignored;
  for (const Scored& c : candidates) {
    const ServingBenchmark& b = *c.b;
    ServingWorkload bw = w;
    bw.model = b.model;
    bw.weight_precision = b.precision;
    if (b.prompt_tokens > 0) bw.prompt_tokens = b.prompt_tokens;
    if (b.output_tokens > 0) bw.output_tokens = b.output_tokens;
    bw.ttft_slo_seconds = bw.tpot_slo_seconds = bw.e2e_slo_seconds = 0;
    const int tp = std::max(1, b.gpu_count);
    absl::StatusOr<ServingEstimate> predicted =
        b.batch > 0 ? EstimateServingAtBatch(bw, gpu, tp, b.batch, defaults) : EstimateServing(bw, gpu, tp, defaults);
    if (!predicted.ok()) {
      absl::StrAppend(&ignored, "; benchmark #", b.id, " ignored: ", predicted.status().message());
      continue;
    }
    const double predicted_value = b.unit == MeasuredUnit::kRequestsPerSecond
                                       ? predicted->requests_per_second_per_replica
                                       : predicted->output_tokens_per_second_per_replica;
    const double f = b.value / predicted_value;
    const double bw_eff = defaults.bandwidth.point * f;
    const double c_eff = defaults.compute.point * f;
    if (bw_eff > 1.0 || c_eff > 1.0 || bw_eff < 0.05) {
      absl::StrAppendFormat(&ignored,
                            "; benchmark #%d (%s, %.4g %s) ignored: it implies %.0f%% of peak "
                            "memory bandwidth for %d+%d-token requests",
                            b.id, b.citation, b.value,
                            b.unit == MeasuredUnit::kRequestsPerSecond ? "req/s" : "tokens/s", bw_eff * 100,
                            bw.prompt_tokens, bw.output_tokens);
      continue;
    }
    absl::StatusOr<ParameterCounts> bc = CountParameters(b.model);
    const double width = 0.10 + 0.10 * std::fabs(std::log10(bc->total / target->total)) +
                         (b.precision != w.weight_precision ? 0.10 : 0.0);
    ServingEfficiency out;
    const std::string src = absl::StrFormat(
        "calibrated on benchmark #%d (%s: %s on %d x %s, %.4g %s): %.2fx the default", b.id, b.citation, b.model.name,
        tp, b.gpu_name, b.value, b.unit == MeasuredUnit::kRequestsPerSecond ? "req/s" : "tokens/s", f);
    out.bandwidth = {bw_eff, bw_eff * (1 - width), std::min(1.0, bw_eff * (1 + width)), src + ignored, b.id};
    out.compute = {c_eff, c_eff * (1 - width), std::min(1.0, c_eff * (1 + width)), src + ignored, b.id};
    return out;
  }
  defaults.bandwidth.source += ignored;
  defaults.compute.source += ignored;
  return defaults;
}

double CostPerMillionRequests(double price_usd_per_hour, double requests_per_second) {
  if (requests_per_second <= 0) return 0;
  return price_usd_per_hour * units::kMillion / (requests_per_second * units::kSecondsPerHour);
}

double CostPerMillionTokens(double price_usd_per_hour, double tokens_per_second) {
  return CostPerMillionRequests(price_usd_per_hour, tokens_per_second);
}

}  // namespace capplan::core
