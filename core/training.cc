// Training/fine-tuning estimator. See training.h for the papers each formula comes from.
#include "core/training.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/training_internal.h"
#include "core/units.h"
#include "core/validate.h"

namespace capplan::core {

namespace training_internal {

// Per-GPU overhead beyond model states and activations: CUDA context and framework
// workspace (1-2 GB) plus allocator fragmentation (5-10%) (shared/domain.md, "Fixed
// overhead per GPU"); midpoints.
constexpr double kContextBytes = 1.5e9;
constexpr double kFragmentationFraction = 0.075;
// QLoRA (Dettmers et al. 2023, Sec. 3): NF4 weights at 4 bits plus double-quantised
// constants at 0.127 bits per parameter. Embeddings stay 16-bit.
constexpr double kQloraBytesPerParameter = (4.0 + 0.127) / 8.0;
// Latency of one small all-reduce, NCCL ring over NVLink vs. PCIe; order of magnitude from
// nccl-tests small-message results. Uncertain, and only visible at tiny micro-batches.
constexpr double kAllReduceLatencyNvlinkSeconds = 10e-6;
constexpr double kAllReduceLatencyPcieSeconds = 30e-6;
// Data-parallel gradient all-reduce overlaps the backward pass in bucketed DDP (Li et al.
// 2020, "PyTorch Distributed", Sec. 3.2.3); the last bucket cannot overlap. We charge 10% of
// the overlappable part as exposed.
constexpr double kUnoverlappedDpFraction = 0.1;
// FP8 GEMMs reach 2x BF16 peak on Hopper, but attention, norms and casts stay in BF16:
// published FP8 training speedups are ~1.3-1.5x (NVIDIA Transformer Engine docs). 0.7 of
// the FP8 peak's efficiency gives ~1.4x. An estimate, not a measurement.
constexpr double kFp8PeakUtilisation = 0.7;

bool MixedPrecision(Precision p) { return p != Precision::kFp32; }
double WeightBytes(Precision p) { return MixedPrecision(p) ? 2.0 : 4.0; }
double GradientBytes(Precision p) { return MixedPrecision(p) ? 2.0 : 4.0; }
double ActivationBytesScale(Precision p) { return MixedPrecision(p) ? 1.0 : 2.0; }

// Optimizer state bytes per trainable parameter. Mixed precision adds the fp32 master copy
// (ZeRO paper, Sec. 3.1: K = 12 for mixed-precision Adam). 8-bit Adam keeps m and v in one
// byte each (Dettmers et al. 2022, "8-bit Optimizers").
double OptimizerBytes(Optimizer o, Precision p) {
  const double master = MixedPrecision(p) ? 4.0 : 0.0;
  switch (o) {
    case Optimizer::kAdamW:
      return master + 8.0;
    case Optimizer::kAdamW8bit:
      return master + 2.0;
    case Optimizer::kSgdMomentum:
      return master + 4.0;
  }
  return master + 8.0;
}

double LinkLatency(const GpuSpec& gpu) {
  return gpu.interconnect == Interconnect::kPcie ? kAllReduceLatencyPcieSeconds : kAllReduceLatencyNvlinkSeconds;
}

absl::StatusOr<double> PeakFor(const GpuSpec& gpu, Precision p) {
  double peak = 0;
  switch (p) {
    case Precision::kFp32:
      // FP32 training runs its matmuls on TF32 tensor cores where the part has them
      // (Megatron-LM and most trainers enable TF32); else the plain FP32 rate.
      peak = gpu.PeakFlops(Precision::kTf32) > 0 ? gpu.PeakFlops(Precision::kTf32) : gpu.PeakFlops(Precision::kFp32);
      break;
    case Precision::kFp8:
      peak = gpu.PeakFlops(Precision::kFp8) * kFp8PeakUtilisation;
      break;
    default:
      peak = gpu.PeakFlops(p);
  }
  if (peak <= 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(gpu.name, " has no ", PrecisionName(p), " math; choose another precision"));
  }
  return peak;
}

absl::StatusOr<Prepared> Prepare(const TrainingJob& job, const ClusterSpec& cluster) {
  CAPPLAN_RETURN_IF_ERROR(ValidateTrainingJob(job));
  CAPPLAN_RETURN_IF_ERROR(ValidateGpu(cluster.gpu));
  Prepared p;
  p.fabric = cluster.fabric.Known() ? cluster.fabric : FallbackFabric(cluster.gpu);
  CAPPLAN_RETURN_IF_ERROR(ValidateFabric(p.fabric));
  p.job = &job;
  p.cluster = &cluster;
  absl::StatusOr<ParameterCounts> counts = CountParameters(job.model);
  if (!counts.ok()) return counts.status();
  p.counts = *counts;
  p.shape = EffectiveShape(job.model);
  p.shape_inferred = !job.model.HasArchitecture();
  absl::StatusOr<double> peak = PeakFor(cluster.gpu, job.precision);
  if (!peak.ok()) return peak.status();
  p.peak_flops = *peak;

  const double n_total = p.counts.total;
  const double n_active = p.counts.active;
  p.weight_bytes = WeightBytes(job.precision);
  p.grad_bytes = GradientBytes(job.precision);
  p.optimizer_bytes = OptimizerBytes(job.optimizer, job.precision);
  if (job.method == TrainingMethod::kFull) {
    p.trainable = n_total;
  } else {
    p.trainable = LoraParameters(p.shape, job.lora_rank);
    p.frozen_base_bytes = job.method == TrainingMethod::kQlora
                              ? (n_total - p.counts.embedding) * kQloraBytesPerParameter + p.counts.embedding * 2.0
                              : n_total * p.weight_bytes;
  }
  // Attention score and value FLOPs per token, forward: 4·L·h·s (PaLM, Chowdhery et al.
  // 2022, App. B: 6N + 12·L·h·s per token for forward plus backward).
  const double L = static_cast<double>(p.shape.num_layers);
  const double h = static_cast<double>(p.shape.hidden_size);
  const double s = static_cast<double>(job.sequence_length);
  p.attention_fwd_flops_per_token = 4.0 * L * h * s;
  // Adapters: the frozen base needs no weight gradients, so backward costs ~2N, not 4N.
  const double dense = job.method == TrainingMethod::kFull ? 6.0 : 4.0;
  p.dense_flops_per_token = dense * n_active;
  p.model_flops_per_token = p.dense_flops_per_token + 3.0 * p.attention_fwd_flops_per_token;
  p.hw_flops_per_token_base = p.model_flops_per_token;
  p.global_sequences = std::max(1.0, job.global_batch_tokens / s);
  p.activation_scale = ActivationBytesScale(job.precision);
  p.act_elem_bytes = MixedPrecision(job.precision) ? 2.0 : 4.0;
  return p;
}

StepParts Step(const Eval& e, const ParallelConfig& par, double efficiency) {
  StepParts s;
  s.compute = e.compute1 / efficiency;
  // Narayanan et al. 2021, Sec. 2.2.1: bubble fraction (p-1)/m of the ideal time.
  s.bubble = s.compute * (par.pp - 1) / e.micro_batches;
  const double backward = s.compute * 2.0 / 3.0;
  s.dp_exposed = std::max(e.dp_raw - backward, 0.0) + kUnoverlappedDpFraction * std::min(e.dp_raw, backward);
  s.total = s.compute + s.bubble + e.tp_comm + e.pp_comm + s.dp_exposed;
  return s;
}

void MemoryFor(const Prepared& p, const ParallelConfig& par, Eval* e) {
  const TrainingJob& job = *p.job;
  const double model_shards = static_cast<double>(par.tp) * par.pp;
  const double dp = par.dp;
  MemoryBreakdown& m = e->memory;
  // ZeRO (Rajbhandari et al. 2020, Sec. 5): stage 1 shards optimizer state over data
  // parallel ranks, stage 2 also gradients, stage 3 also parameters.
  m.weights_bytes =
      (p.frozen_base_bytes + p.trainable * p.weight_bytes) / model_shards / (par.zero_stage >= 3 ? dp : 1.0);
  m.gradients_bytes = p.trainable * p.grad_bytes / model_shards / (par.zero_stage >= 2 ? dp : 1.0);
  m.optimizer_bytes = p.trainable * p.optimizer_bytes / model_shards / (par.zero_stage >= 1 ? dp : 1.0);

  e->micro_batches = std::max(1.0, std::floor(p.global_sequences / (dp * par.micro_batch)));
  const double layers_per_stage = std::ceil(static_cast<double>(p.shape.num_layers) / static_cast<double>(par.pp));
  // 1F1B schedule: the first stage holds activations of min(p, m) micro-batches
  // (Korthikanti et al. 2022, Sec. 4.2.3).
  const double in_flight = std::min(static_cast<double>(par.pp), e->micro_batches);
  const double per_layer = ActivationBytesPerLayer(p.shape, job.sequence_length, par.micro_batch, par.tp,
                                                   par.sequence_parallel, par.recompute, job.flash_attention) *
                           p.activation_scale;
  // Output logits in fp32 for the cross-entropy: 4·s·b·V/t (Korthikanti et al. 2022,
  // Sec. 4.3), held by the last stage.
  const double logits = 4.0 * job.sequence_length * par.micro_batch * static_cast<double>(p.shape.vocab_size) / par.tp;
  m.activations_bytes = per_layer * layers_per_stage * in_flight + logits;
  const double states = m.weights_bytes + m.gradients_bytes + m.optimizer_bytes + m.activations_bytes;
  m.overhead_bytes = kContextBytes + kFragmentationFraction * states;
  e->fits = m.TotalBytes() <= p.cluster->gpu.memory_bytes;
}

void TimeFor(const Prepared& p, const ParallelConfig& par, Eval* e) {
  const TrainingJob& job = *p.job;
  const GpuSpec& gpu = p.cluster->gpu;
  const double n = par.NumGpus();
  const double sequences_per_step = e->micro_batches * par.dp * par.micro_batch;
  const double tokens_per_step = sequences_per_step * job.sequence_length;
  e->steps = job.tokens / tokens_per_step;

  double hw = p.hw_flops_per_token_base;
  if (par.recompute == Recompute::kFull) {
    // Full recompute repeats the forward pass: 8·N·D instead of 6·N·D.
    hw += 2.0 * p.counts.active + p.attention_fwd_flops_per_token;
  } else if (par.recompute == Recompute::kSelective || job.flash_attention) {
    // Selective recompute, like FlashAttention's backward, recomputes the attention core.
    hw += p.attention_fwd_flops_per_token;
  }
  e->hw_flops_per_token = hw;
  e->compute1 = hw * tokens_per_step / (n * p.peak_flops);

  const double layers_per_stage = std::ceil(static_cast<double>(p.shape.num_layers) / static_cast<double>(par.pp));
  const double activation_msg =
      static_cast<double>(par.micro_batch) * job.sequence_length * p.shape.hidden_size * p.act_elem_bytes;
  const double intra = gpu.interconnect_bandwidth_bytes_per_second;
  const double network = std::min(p.fabric.network_bytes_per_second_per_gpu, intra);
  e->tp_comm = 0;
  if (par.tp > 1) {
    // Megatron tensor parallelism: two all-reduces per layer forward, two backward
    // (Narayanan et al. 2021, Sec. 2.3), two more when the forward is recomputed. With
    // sequence parallelism they become reduce-scatter + all-gather of the same volume.
    const double per_layer = par.recompute == Recompute::kFull ? 6.0 : 4.0;
    const double ring = 2.0 * (par.tp - 1) / par.tp * activation_msg / intra + LinkLatency(gpu);
    e->tp_comm = per_layer * layers_per_stage * e->micro_batches * ring;
  }
  e->pp_comm = 0;
  e->pp_over_network = par.tp * par.pp > gpu.gpus_per_node;
  if (par.pp > 1) {
    const double bw = e->pp_over_network ? network : intra;
    e->pp_comm = 2.0 * e->micro_batches * activation_msg / bw;
  }
  e->dp_raw = 0;
  e->dp_over_network = n > gpu.gpus_per_node;
  if (par.dp > 1) {
    // Ring all-reduce of the gradients: 2(d-1)/d of their bytes over the slowest link;
    // ZeRO-3 adds a parameter all-gather, 1.5x the volume (Rajbhandari et al. 2020, Sec. 7).
    const double bytes = p.trainable * p.grad_bytes / (static_cast<double>(par.tp) * par.pp);
    const double volume = 2.0 * (par.dp - 1) / par.dp * bytes * (par.zero_stage >= 3 ? 1.5 : 1.0);
    e->dp_raw = volume / (e->dp_over_network ? network : intra);
  }
}

Bottleneck BottleneckOf(const Eval& e, const ParallelConfig& par, const StepParts& s) {
  Bottleneck b = Bottleneck::kCompute;
  double worst = s.compute;
  auto consider = [&](double v, Bottleneck which) {
    if (v > worst) {
      worst = v;
      b = which;
    }
  };
  consider(s.bubble, Bottleneck::kPipelineBubble);
  consider(e.tp_comm, Bottleneck::kInterconnect);
  consider(e.pp_comm, e.pp_over_network ? Bottleneck::kNetwork : Bottleneck::kInterconnect);
  consider(s.dp_exposed, e.dp_over_network ? Bottleneck::kNetwork : Bottleneck::kInterconnect);
  return b;
}

TrainingEstimate Materialize(const Prepared& p, const ParallelConfig& par, const Eval& e, const Efficiency& eff) {
  const TrainingJob& job = *p.job;
  const GpuSpec& gpu = p.cluster->gpu;
  TrainingEstimate out;
  out.parallel = par;
  out.memory_per_gpu = e.memory;
  out.capacity_bytes = gpu.memory_bytes;
  out.fits = e.fits;
  out.dense_flops = p.dense_flops_per_token * job.tokens;
  out.model_flops = p.model_flops_per_token * job.tokens;
  out.hardware_flops = e.hw_flops_per_token * job.tokens;
  out.steps = e.steps;
  out.micro_batches_per_step = e.micro_batches;
  const StepParts s = Step(e, par, eff.point);
  out.compute_seconds_per_step = s.compute;
  out.bubble_seconds_per_step = s.bubble;
  out.tp_comm_seconds_per_step = e.tp_comm;
  out.pp_comm_seconds_per_step = e.pp_comm;
  out.dp_comm_exposed_seconds_per_step = s.dp_exposed;
  out.step_seconds = s.total;
  out.duration_seconds = e.steps * s.total / job.goodput;
  out.duration_seconds_low = e.steps * Step(e, par, eff.high).total / job.goodput;
  out.duration_seconds_high = e.steps * Step(e, par, eff.low).total / job.goodput;
  const double n = par.NumGpus();
  out.gpu_hours = out.duration_seconds * n / units::kSecondsPerHour;
  out.model_tflops_per_gpu = out.model_flops / (n * out.duration_seconds) / units::kTera;
  const double dense_peak = p.peak_flops / (job.precision == Precision::kFp8 ? kFp8PeakUtilisation : 1.0);
  out.mfu = out.model_tflops_per_gpu * units::kTera / dense_peak;
  out.energy_kwh =
      gpu.tdp_watts * n * (out.duration_seconds / units::kSecondsPerHour) * job.pue / units::kWattHoursPerKilowattHour;
  out.bottleneck = e.fits ? BottleneckOf(e, par, s) : Bottleneck::kMemoryCapacity;
  out.shape_inferred = p.shape_inferred;
  return out;
}

void Evaluate(const Prepared& p, const ParallelConfig& par, Eval* e) {
  MemoryFor(p, par, e);
  TimeFor(p, par, e);
}

}  // namespace training_internal

using training_internal::Eval;
using training_internal::Evaluate;
using training_internal::Materialize;
using training_internal::Prepare;
using training_internal::Prepared;
using training_internal::Step;

ModelArchitecture EffectiveShape(const ModelArchitecture& model) {
  if (model.HasArchitecture()) return model;
  ModelArchitecture s = model;
  // N ~ 12·L·h² with h = 128·L  =>  h = (128·N/12)^(1/3), rounded to a multiple of 128.
  double h = std::cbrt(128.0 * model.parameter_count / 12.0);
  h = std::max(128.0, std::round(h / 128.0) * 128.0);
  s.hidden_size = static_cast<int64_t>(h);
  s.num_layers = std::max<int64_t>(1, static_cast<int64_t>(std::llround(h / 128.0)));
  s.num_attention_heads = s.hidden_size / 128;
  s.num_kv_heads = s.num_attention_heads;
  s.ffn_hidden_size = 4 * s.hidden_size;
  s.gated_mlp = false;
  s.vocab_size = 32000;
  return s;
}

double LoraParameters(const ModelArchitecture& m, int rank) {
  const double r = rank;
  const double h = static_cast<double>(m.hidden_size);
  const double kv = static_cast<double>(m.KvHeads() * m.HeadDim());
  const double f = static_cast<double>(m.ffn_hidden_size);
  // Each adapted matrix W (in x out) gains A (in x r) and B (r x out).
  const double attention = r * (h + h) * 2.0 + r * (h + kv) * 2.0;  // Q, O and K, V
  const double mlp = (m.gated_mlp ? 3.0 : 2.0) * r * (h + f);
  const double experts = m.IsMoe() ? static_cast<double>(m.num_experts) : 1.0;
  return static_cast<double>(m.num_layers) * (attention + experts * mlp);
}

double ActivationBytesPerLayer(const ModelArchitecture& shape, int64_t seq, int64_t micro_batch, int tp,
                               bool sequence_parallel, Recompute recompute, bool flash_attention) {
  const double s = static_cast<double>(seq);
  const double sbh = s * static_cast<double>(micro_batch) * static_cast<double>(shape.hidden_size);
  const double t = tp;
  const bool sp = sequence_parallel && tp > 1;
  if (recompute == Recompute::kFull) {
    // Only each layer's input is kept: 2·s·b·h bytes, scattered over t with SP.
    return sp ? 2.0 * sbh / t : 2.0 * sbh;
  }
  // Selective recompute and FlashAttention both avoid storing the s x s attention scores:
  // the 5·a·s/h term goes.
  const bool keep_scores = recompute == Recompute::kNone && !flash_attention;
  const double scores =
      keep_scores ? 5.0 * static_cast<double>(shape.num_attention_heads) * s / static_cast<double>(shape.hidden_size)
                  : 0.0;
  if (tp == 1) return sbh * (34.0 + scores);
  if (sp) return sbh * (34.0 + scores) / t;
  return sbh * (10.0 + 24.0 / t + scores / t);
}

absl::StatusOr<MemoryBreakdown> TrainingMemoryPerGpu(const TrainingJob& job, const ParallelConfig& parallel) {
  ClusterSpec cluster;
  // Memory does not depend on the GPU; a placeholder part satisfies validation.
  cluster.gpu.name = "memory-only";
  cluster.gpu.memory_bytes = 1e12;
  cluster.gpu.memory_bandwidth_bytes_per_second = 1e12;
  cluster.gpu.peak_flops_per_second.fill(1e15);
  cluster.gpu.tdp_watts = 1;
  cluster.gpu.interconnect_bandwidth_bytes_per_second = 1e11;
  cluster.gpu.gpus_per_node = 8;
  absl::StatusOr<Prepared> p = Prepare(job, cluster);
  if (!p.ok()) return p.status();
  CAPPLAN_RETURN_IF_ERROR(ValidateParallelConfig(parallel, p->shape));
  Eval e;
  MemoryFor(*p, parallel, &e);
  return e.memory;
}

absl::StatusOr<TrainingEstimate> EstimateTraining(const TrainingJob& job, const ClusterSpec& cluster,
                                                  const ParallelConfig& parallel, const Efficiency& efficiency) {
  absl::StatusOr<Prepared> p = Prepare(job, cluster);
  if (!p.ok()) return p.status();
  CAPPLAN_RETURN_IF_ERROR(ValidateParallelConfig(parallel, p->shape));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("efficiency.point", efficiency.point, 0.01, 1.0));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("efficiency.low", efficiency.low, 0.01, efficiency.point));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("efficiency.high", efficiency.high, efficiency.point, 1.0));
  if (parallel.tp > cluster.gpu.gpus_per_node) {
    return FieldError("tp", absl::StrCat("tensor parallelism must stay inside a node of ", cluster.gpu.gpus_per_node,
                                         " GPUs, got ", parallel.tp));
  }
  Eval e;
  Evaluate(*p, parallel, &e);
  return Materialize(*p, parallel, e, efficiency);
}

namespace {

// One parallelism search: candidate GPU counts, the layouts of each, the best few kept
// sorted and the closest misses noted.
class LayoutSearch {
 public:
  LayoutSearch(const Prepared& p, const Efficiency& efficiency, const SearchOptions& options)
      : p_(p),
        job_(*p.job),
        gpu_(p.cluster->gpu),
        efficiency_(efficiency),
        options_(options),
        bounded_(options.top_k <= 16),
        deadline_(options.deadline_seconds > 0) {
    if (bounded_) feasible_.reserve(static_cast<size_t>(options.top_k) + 1);
  }

  SearchResult Run() {
    const int64_t heads = p_.shape.num_attention_heads;
    const int64_t layers = p_.shape.num_layers;
    for (int n : Counts()) {
      for (int tp = 1; tp <= std::min(n, gpu_.gpus_per_node); tp *= 2) {
        if (n % tp != 0 || heads % tp != 0) continue;
        for (int pp = 1; pp <= n / tp && pp <= layers; ++pp) {
          if ((n / tp) % pp != 0 || layers % pp != 0) continue;
          Layouts(n, tp, pp);
        }
      }
    }
    return Finish();
  }

 private:
  // Compact: the full Eval is recomputed for the few returned, not copied for every fit.
  struct Candidate {
    ParallelConfig par;
    double duration;
    double gpu_hours;
  };

  // Powers of two, whole nodes, and the largest count allowed.
  std::vector<int> Counts() const {
    std::vector<int> counts;
    for (int n = 1; n <= options_.max_gpus; n *= 2) {
      if (n >= options_.min_gpus) counts.push_back(n);
      if (n > options_.max_gpus / 2) break;
    }
    for (int n = gpu_.gpus_per_node; n <= options_.max_gpus; n += gpu_.gpus_per_node) {
      if (n >= options_.min_gpus) counts.push_back(n);
    }
    counts.push_back(options_.max_gpus);
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    return counts;
  }

  bool Better(const Candidate& a, const Candidate& b) const {
    const double ka = deadline_ ? a.gpu_hours : a.duration;
    const double kb = deadline_ ? b.gpu_hours : b.duration;
    if (ka != kb) return ka < kb;
    if (a.par.NumGpus() != b.par.NumGpus()) return a.par.NumGpus() < b.par.NumGpus();
    if (a.par.tp != b.par.tp) return a.par.tp < b.par.tp;
    if (a.par.pp != b.par.pp) return a.par.pp < b.par.pp;
    if (a.par.zero_stage != b.par.zero_stage) return a.par.zero_stage < b.par.zero_stage;
    if (a.par.recompute != b.par.recompute) return a.par.recompute < b.par.recompute;
    return a.par.micro_batch < b.par.micro_batch;
  }

  // Keep the closest misses: smallest memory overshoot, or smallest deadline overrun.
  static double Badness(const Rejection& x) {
    switch (x.reason) {
      case RejectReason::kMemory:
        return 1.0 + x.needed_bytes / x.capacity_bytes;
      case RejectReason::kDeadline:
        return x.duration_seconds / x.deadline_seconds;
      case RejectReason::kBatch:
        break;
    }
    return 1e9;  // any memory or deadline miss is closer
  }

  void NoteMiss(const Rejection& r) {
    if (static_cast<int>(misses_.size()) < options_.max_rejections) {
      misses_.push_back(r);
      return;
    }
    auto worst = std::max_element(misses_.begin(), misses_.end(),
                                  [](const Rejection& a, const Rejection& b) { return Badness(a) < Badness(b); });
    if (Badness(r) < Badness(*worst)) *worst = r;
  }

  void Keep(const Candidate& c) {
    const auto better = [this](const Candidate& a, const Candidate& b) { return Better(a, b); };
    if (!bounded_) {
      feasible_.push_back(c);
    } else if (static_cast<int>(feasible_.size()) < options_.top_k || Better(c, feasible_.back())) {
      feasible_.insert(std::upper_bound(feasible_.begin(), feasible_.end(), c, better), c);
      if (static_cast<int>(feasible_.size()) > options_.top_k) feasible_.pop_back();
    }
  }

  // Every ZeRO stage, recompute policy and micro-batch of one (tp, pp) split of n GPUs.
  void Layouts(int n, int tp, int pp) {
    const int dp = n / (tp * pp);
    if (dp > p_.global_sequences) {
      // Every rank needs at least one sequence per step.
      if (misses_.empty()) {
        Rejection r;
        r.parallel.tp = tp;
        r.parallel.pp = pp;
        r.parallel.dp = dp;
        r.reason = RejectReason::kBatch;
        r.global_batch_sequences = p_.global_sequences;
        misses_.push_back(r);
      }
      return;
    }
    // ZeRO-1/2 shard state at the communication cost of a plain all-reduce, so stage 2
    // dominates 0 and 1; stage 3 trades 1.5x traffic for sharded weights.
    const int zero_options[2] = {dp > 1 ? 2 : 0, 3};
    const int num_zero = dp > 1 ? 2 : 1;
    for (int zi = 0; zi < num_zero; ++zi) {
      for (Recompute rc : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
        // With FlashAttention, selective recompute saves nothing more than none.
        if (rc == Recompute::kSelective && job_.flash_attention) continue;
        if (MicroBatches(n, ParallelConfig{tp, pp, dp, zero_options[zi], rc, tp > 1, 1}))
          break;  // more recompute only adds time
      }
    }
  }

  // Micro-batches 1, 2, 4, 8 of one layout until one does not fit; true if any fit.
  bool MicroBatches(int n, ParallelConfig par) {
    bool any_fit = false;
    for (int64_t mb = 1; mb <= 8 && mb * par.dp <= p_.global_sequences; mb *= 2) {
      par.micro_batch = mb;
      Evaluate(p_, par, &eval_);
      ++result_.configurations_evaluated;
      if (!eval_.fits) {
        NoteMiss({par, RejectReason::kMemory, eval_.memory.TotalBytes(), gpu_.memory_bytes, 0, 0});
        break;  // larger micro-batches need more memory
      }
      any_fit = true;
      Candidate c{par, 0, 0};
      c.duration = eval_.steps * Step(eval_, par, efficiency_.point).total / job_.goodput;
      c.gpu_hours = c.duration * n / units::kSecondsPerHour;
      if (deadline_ && c.duration > options_.deadline_seconds) {
        NoteMiss({par, RejectReason::kDeadline, 0, 0, c.duration, options_.deadline_seconds});
        continue;
      }
      Keep(c);
    }
    return any_fit;
  }

  SearchResult Finish() {
    const size_t k = std::min<size_t>(options_.top_k, feasible_.size());
    if (!bounded_) {
      std::partial_sort(feasible_.begin(), feasible_.begin() + k, feasible_.end(),
                        [this](const Candidate& a, const Candidate& b) { return Better(a, b); });
    }
    for (size_t i = 0; i < k; ++i) {
      Evaluate(p_, feasible_[i].par, &eval_);
      result_.ranked.push_back(Materialize(p_, feasible_[i].par, eval_, efficiency_));
    }
    std::sort(misses_.begin(), misses_.end(), [](const Rejection& a, const Rejection& b) {
      if (a.reason != b.reason) return a.reason < b.reason;
      if (a.reason == RejectReason::kMemory) return a.needed_bytes < b.needed_bytes;
      return a.duration_seconds < b.duration_seconds;
    });
    result_.rejected = std::move(misses_);
    return std::move(result_);
  }

  const Prepared& p_;
  const TrainingJob& job_;
  const GpuSpec& gpu_;
  const Efficiency& efficiency_;
  const SearchOptions& options_;
  const bool bounded_, deadline_;
  std::vector<Candidate> feasible_;  // the best top_k so far, sorted (unsorted when unbounded)
  std::vector<Rejection> misses_;
  Eval eval_;
  SearchResult result_;
};

}  // namespace

absl::StatusOr<SearchResult> SearchParallelism(const TrainingJob& job, const ClusterSpec& cluster,
                                               const Efficiency& efficiency, const SearchOptions& options) {
  absl::StatusOr<Prepared> prepared = Prepare(job, cluster);
  if (!prepared.ok()) return prepared.status();
  CAPPLAN_RETURN_IF_ERROR(CheckRange("max_gpus", static_cast<int64_t>(options.max_gpus), 1, 65536));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("min_gpus", static_cast<int64_t>(options.min_gpus), 1, options.max_gpus));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("deadline_seconds", options.deadline_seconds, 0.0, 1e10));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("top_k", static_cast<int64_t>(options.top_k), 1, 1000));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("efficiency.point", efficiency.point, 0.01, 1.0));
  return LayoutSearch(*prepared, efficiency, options).Run();
}

}  // namespace capplan::core
