// Training/fine-tuning estimator. See training.h for the papers each formula comes from.
#include "core/training.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/units.h"
#include "core/validate.h"

namespace capplan::core {

namespace {

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
  return gpu.interconnect == Interconnect::kPcie ? kAllReduceLatencyPcieSeconds
                                                 : kAllReduceLatencyNvlinkSeconds;
}

// Everything about a job on a GPU type that does not depend on the parallel layout.
struct Prepared {
  ParameterCounts counts;
  ModelArchitecture shape;
  bool shape_inferred = false;
  double trainable = 0;           // parameters with gradients and optimizer state
  double frozen_base_bytes = 0;   // LoRA/QLoRA base weights
  double weight_bytes = 0, grad_bytes = 0, optimizer_bytes = 0;  // per trainable parameter
  double hw_flops_per_token_base = 0;   // before recompute
  double model_flops_per_token = 0;
  double dense_flops_per_token = 0;
  double attention_fwd_flops_per_token = 0;
  double peak_flops = 0;
  double global_sequences = 0;
  double activation_scale = 1;
  double act_elem_bytes = 2;
  const TrainingJob* job = nullptr;
  const ClusterSpec* cluster = nullptr;
};

absl::StatusOr<double> PeakFor(const GpuSpec& gpu, Precision p) {
  double peak = 0;
  switch (p) {
    case Precision::kFp32:
      // FP32 training runs its matmuls on TF32 tensor cores where the part has them
      // (Megatron-LM and most trainers enable TF32); else the plain FP32 rate.
      peak = gpu.PeakFlops(Precision::kTf32) > 0 ? gpu.PeakFlops(Precision::kTf32)
                                                 : gpu.PeakFlops(Precision::kFp32);
      break;
    case Precision::kFp8:
      peak = gpu.PeakFlops(Precision::kFp8) * kFp8PeakUtilisation;
      break;
    default:
      peak = gpu.PeakFlops(p);
  }
  if (peak <= 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        gpu.name, " has no ", PrecisionName(p), " math; choose another precision"));
  }
  return peak;
}

absl::StatusOr<Prepared> Prepare(const TrainingJob& job, const ClusterSpec& cluster) {
  CAPPLAN_RETURN_IF_ERROR(ValidateTrainingJob(job));
  CAPPLAN_RETURN_IF_ERROR(ValidateGpu(cluster.gpu));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("network_bytes_per_second_per_gpu",
                                     cluster.network_bytes_per_second_per_gpu, 1e8, 1e13));
  Prepared p;
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
    p.frozen_base_bytes =
        job.method == TrainingMethod::kQlora
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

// Per-step figures at compute efficiency 1, from which any efficiency's step is derived.
struct Eval {
  MemoryBreakdown memory;
  bool fits = false;
  double micro_batches = 0;
  double steps = 0;
  double compute1 = 0;  // compute seconds per step at efficiency 1
  double tp_comm = 0, pp_comm = 0, dp_raw = 0;
  bool dp_over_network = false, pp_over_network = false;
  double hw_flops_per_token = 0;
};

struct StepParts {
  double compute, bubble, dp_exposed, total;
};

StepParts Step(const Eval& e, const ParallelConfig& par, double efficiency) {
  StepParts s;
  s.compute = e.compute1 / efficiency;
  // Narayanan et al. 2021, Sec. 2.2.1: bubble fraction (p-1)/m of the ideal time.
  s.bubble = s.compute * (par.pp - 1) / e.micro_batches;
  const double backward = s.compute * 2.0 / 3.0;
  s.dp_exposed = std::max(e.dp_raw - backward, 0.0) +
                 kUnoverlappedDpFraction * std::min(e.dp_raw, backward);
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
  m.weights_bytes = (p.frozen_base_bytes + p.trainable * p.weight_bytes) / model_shards /
                    (par.zero_stage >= 3 ? dp : 1.0);
  m.gradients_bytes =
      p.trainable * p.grad_bytes / model_shards / (par.zero_stage >= 2 ? dp : 1.0);
  m.optimizer_bytes =
      p.trainable * p.optimizer_bytes / model_shards / (par.zero_stage >= 1 ? dp : 1.0);

  e->micro_batches = std::max(1.0, std::floor(p.global_sequences / (dp * par.micro_batch)));
  const double layers_per_stage =
      std::ceil(static_cast<double>(p.shape.num_layers) / static_cast<double>(par.pp));
  // 1F1B schedule: the first stage holds activations of min(p, m) micro-batches
  // (Korthikanti et al. 2022, Sec. 4.2.3).
  const double in_flight = std::min(static_cast<double>(par.pp), e->micro_batches);
  const double per_layer =
      ActivationBytesPerLayer(p.shape, job.sequence_length, par.micro_batch, par.tp,
                              par.sequence_parallel, par.recompute, job.flash_attention) *
      p.activation_scale;
  // Output logits in fp32 for the cross-entropy: 4·s·b·V/t (Korthikanti et al. 2022,
  // Sec. 4.3), held by the last stage.
  const double logits = 4.0 * job.sequence_length * par.micro_batch *
                        static_cast<double>(p.shape.vocab_size) / par.tp;
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

  const double layers_per_stage =
      std::ceil(static_cast<double>(p.shape.num_layers) / static_cast<double>(par.pp));
  const double activation_msg =
      static_cast<double>(par.micro_batch) * job.sequence_length * p.shape.hidden_size *
      p.act_elem_bytes;
  const double intra = gpu.interconnect_bandwidth_bytes_per_second;
  const double network = std::min(p.cluster->network_bytes_per_second_per_gpu, intra);
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

TrainingEstimate Materialize(const Prepared& p, const ParallelConfig& par, const Eval& e,
                             const Efficiency& eff) {
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
  out.energy_kwh = gpu.tdp_watts * n * (out.duration_seconds / units::kSecondsPerHour) * job.pue /
                   units::kWattHoursPerKilowattHour;
  out.bottleneck = e.fits ? BottleneckOf(e, par, s) : Bottleneck::kMemoryCapacity;
  out.shape_inferred = p.shape_inferred;
  return out;
}

void Evaluate(const Prepared& p, const ParallelConfig& par, Eval* e) {
  MemoryFor(p, par, e);
  TimeFor(p, par, e);
}

}  // namespace

const char* BottleneckName(Bottleneck b) {
  switch (b) {
    case Bottleneck::kCompute: return "compute";
    case Bottleneck::kMemoryBandwidth: return "memory bandwidth";
    case Bottleneck::kInterconnect: return "interconnect";
    case Bottleneck::kNetwork: return "network";
    case Bottleneck::kPipelineBubble: return "pipeline bubble";
    case Bottleneck::kMemoryCapacity: return "memory capacity";
  }
  return "unknown";
}

const char* RecomputeName(Recompute r) {
  switch (r) {
    case Recompute::kNone: return "none";
    case Recompute::kSelective: return "selective";
    case Recompute::kFull: return "full";
  }
  return "unknown";
}

absl::Status ValidateTrainingJob(const TrainingJob& job) {
  CAPPLAN_RETURN_IF_ERROR(ValidateModel(job.model));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("tokens", job.tokens, 1e3, 1e15));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("sequence_length", job.sequence_length, int64_t{16}, int64_t{1} << 20));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("global_batch_tokens", job.global_batch_tokens,
                                     static_cast<double>(job.sequence_length), 1e9));
  const int prec = static_cast<int>(job.precision);
  if (!IsValidPrecision(prec) || job.precision == Precision::kTf32 ||
      job.precision == Precision::kInt8 || job.precision == Precision::kInt4) {
    return FieldError("precision", "training supports fp32, bf16, fp16 or fp8 (mixed precision)");
  }
  CAPPLAN_RETURN_IF_ERROR(CheckRange("method", static_cast<int64_t>(job.method), 0, 2));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("optimizer", static_cast<int64_t>(job.optimizer), 0, 2));
  if (job.method != TrainingMethod::kFull) {
    CAPPLAN_RETURN_IF_ERROR(CheckRange("lora_rank", static_cast<int64_t>(job.lora_rank), 1, 4096));
  }
  CAPPLAN_RETURN_IF_ERROR(CheckRange("goodput", job.goodput, 0.05, 1.0));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("pue", job.pue, 1.0, 3.0));
  return absl::OkStatus();
}

absl::Status ValidateParallelConfig(const ParallelConfig& p, const ModelArchitecture& shape) {
  CAPPLAN_RETURN_IF_ERROR(CheckRange("tp", static_cast<int64_t>(p.tp), 1, 64));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("pp", static_cast<int64_t>(p.pp), 1, 1024));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("dp", static_cast<int64_t>(p.dp), 1, 1 << 20));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("zero_stage", static_cast<int64_t>(p.zero_stage), 0, 3));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("recompute", static_cast<int64_t>(p.recompute), 0, 2));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("micro_batch", p.micro_batch, int64_t{1}, int64_t{4096}));
  if (shape.num_attention_heads % p.tp != 0) {
    return FieldError("tp", absl::StrCat("must divide num_attention_heads ",
                                         shape.num_attention_heads, ", got ", p.tp));
  }
  if (p.pp > shape.num_layers) {
    return FieldError("pp", absl::StrCat("must be at most num_layers ", shape.num_layers,
                                         ", got ", p.pp));
  }
  return absl::OkStatus();
}

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

double ActivationBytesPerLayer(const ModelArchitecture& shape, int64_t seq, int64_t micro_batch,
                               int tp, bool sequence_parallel, Recompute recompute,
                               bool flash_attention) {
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
      keep_scores ? 5.0 * static_cast<double>(shape.num_attention_heads) * s /
                        static_cast<double>(shape.hidden_size)
                  : 0.0;
  if (tp == 1) return sbh * (34.0 + scores);
  if (sp) return sbh * (34.0 + scores) / t;
  return sbh * (10.0 + 24.0 / t + scores / t);
}

absl::StatusOr<MemoryBreakdown> TrainingMemoryPerGpu(const TrainingJob& job,
                                                     const ParallelConfig& parallel) {
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

Efficiency DefaultTrainingEfficiency(const GpuSpec& gpu, Precision precision) {
  // Compute efficiency: the share of dense peak the kernels sustain. Communication and the
  // pipeline bubble are modelled separately, so this sits above published end-to-end MFU:
  // 44-52% for Megatron-LM on A100 (Narayanan et al. 2021, Table 1), 46.2% PaLM and 21-32%
  // for GPT-3/Gopher/MT-NLG (Chowdhery et al. 2022, Table 3), 38-43% for Llama 3 405B on
  // H100 (Dubey et al. 2024, Table 4).
  Efficiency e;
  if (!gpu.datacenter) {
    // Consumer parts: lower sustained clocks in racks (seed 003: throttling at 105 °C) and
    // smaller caches; no published MFU, so a wide range.
    e = {0.40, 0.25, 0.50,
         "default for consumer GPUs: 0.40 (0.25-0.50), below datacenter parts that reach "
         "44-52% end-to-end MFU (Narayanan et al. 2021, Table 1); no measurement"};
  } else if (gpu.interconnect == Interconnect::kPcie) {
    e = {0.45, 0.30, 0.55,
         "default for PCIe datacenter GPUs: 0.45 (0.30-0.55), power-capped boards sustain "
         "less of peak than SXM parts at 44-52% MFU (Narayanan et al. 2021, Table 1)"};
  } else {
    e = {0.55, 0.40, 0.65,
         "default for NVLink-class datacenter GPUs: 0.55 (0.40-0.65) compute efficiency; "
         "end-to-end MFU 38-52% (Narayanan et al. 2021 Table 1; Chowdhery et al. 2022 Table 3; "
         "Dubey et al. 2024 Table 4) with communication modelled separately"};
  }
  if (precision == Precision::kFp8) {
    e.source += "; FP8 peak counted at 70% (attention and norms stay BF16)";
  }
  return e;
}

absl::StatusOr<TrainingEstimate> EstimateTraining(const TrainingJob& job,
                                                  const ClusterSpec& cluster,
                                                  const ParallelConfig& parallel,
                                                  const Efficiency& efficiency) {
  absl::StatusOr<Prepared> p = Prepare(job, cluster);
  if (!p.ok()) return p.status();
  CAPPLAN_RETURN_IF_ERROR(ValidateParallelConfig(parallel, p->shape));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("efficiency.point", efficiency.point, 0.01, 1.0));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("efficiency.low", efficiency.low, 0.01, efficiency.point));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("efficiency.high", efficiency.high, efficiency.point, 1.0));
  if (parallel.tp > cluster.gpu.gpus_per_node) {
    return FieldError("tp", absl::StrCat("tensor parallelism must stay inside a node of ",
                                         cluster.gpu.gpus_per_node, " GPUs, got ", parallel.tp));
  }
  Eval e;
  Evaluate(*p, parallel, &e);
  return Materialize(*p, parallel, e, efficiency);
}

Efficiency TrainingEfficiency(const TrainingJob& job, const ClusterSpec& cluster,
                              const std::vector<TrainingBenchmark>& benchmarks) {
  Efficiency fallback = DefaultTrainingEfficiency(cluster.gpu, job.precision);
  absl::StatusOr<ParameterCounts> target = CountParameters(job.model);
  if (!target.ok()) return fallback;
  struct Scored {
    const TrainingBenchmark* b;
    double score;
    double params;
  };
  std::vector<Scored> candidates;
  for (const TrainingBenchmark& b : benchmarks) {
    if (b.gpu_name != cluster.gpu.name || b.value <= 0 || b.gpu_count < 1) continue;
    if (b.unit == MeasuredUnit::kRequestsPerSecond) continue;
    absl::StatusOr<ParameterCounts> c = CountParameters(b.model);
    if (!c.ok()) continue;
    candidates.push_back({&b,
                          std::fabs(std::log(c->total / target->total)) +
                              (b.precision != job.precision ? 0.7 : 0.0) +
                              (b.method != job.method ? 0.7 : 0.0),
                          c->total});
  }
  std::stable_sort(candidates.begin(), candidates.end(), [](const Scored& a, const Scored& b) {
    return a.score != b.score ? a.score < b.score : a.b->id < b.b->id;
  });
  std::string ignored;
  for (const Scored& cand : candidates) {
    const TrainingBenchmark& b = *cand.b;
    // Re-run the estimator on the benchmark's own setup (pure data parallel, ZeRO-1, no
    // recompute) and find the compute efficiency that reproduces the measured step time.
    TrainingJob bench = job;
    bench.model = b.model;
    bench.precision = b.precision;
    bench.method = b.method;
    if (b.sequence_length > 0) bench.sequence_length = b.sequence_length;
    bench.global_batch_tokens =
        b.batch_sequences > 0
            ? static_cast<double>(b.batch_sequences) * bench.sequence_length
            : std::max(job.global_batch_tokens, static_cast<double>(bench.sequence_length));
    bench.tokens = 1e9;
    absl::StatusOr<Prepared> p = Prepare(bench, cluster);
    if (!p.ok()) {
      absl::StrAppend(&ignored, "; benchmark #", b.id, " ignored: ", p.status().message());
      continue;
    }
    ParallelConfig par;
    par.dp = b.gpu_count;
    par.zero_stage = b.gpu_count > 1 ? 1 : 0;
    Eval e;
    Evaluate(*p, par, &e);
    const double tokens_per_step =
        e.micro_batches * par.dp * par.micro_batch * bench.sequence_length;
    const double measured_step =
        b.unit == MeasuredUnit::kSecondsPerStep ? b.value : tokens_per_step / b.value;
    constexpr double kLowest = 0.01;
    if (Step(e, par, 1.0).total > measured_step || Step(e, par, kLowest).total < measured_step) {
      absl::StrAppendFormat(&ignored,
                            "; benchmark #%d (%s) ignored: it implies a compute efficiency "
                            "outside [%.2f, 1]",
                            b.id, b.citation, kLowest);
      continue;
    }
    double lo = kLowest, hi = 1.0;
    for (int i = 0; i < 60 && hi - lo > 1e-6; ++i) {
      const double mid = 0.5 * (lo + hi);
      (Step(e, par, mid).total > measured_step ? lo : hi) = mid;
    }
    const double point = 0.5 * (lo + hi);
    const double width = 0.10 + 0.10 * std::fabs(std::log10(cand.params / target->total)) +
                         (b.precision != job.precision ? 0.10 : 0.0);
    Efficiency out;
    out.point = point;
    out.low = std::max(kLowest, point * (1.0 - width));
    out.high = std::min(1.0, point * (1.0 + width));
    out.benchmark_id = b.id;
    out.source = absl::StrFormat(
        "calibrated on benchmark #%d (%s, %d x %s, %s, %.4g %s): compute efficiency %.3f, "
        "range +/-%.0f%% for a model %.2fx its size%s",
        b.id, b.citation, b.gpu_count, b.gpu_name, PrecisionName(b.precision), b.value,
        b.unit == MeasuredUnit::kSecondsPerStep ? "s/step" : "tokens/s", point, width * 100,
        target->total / cand.params, ignored);
    return out;
  }
  fallback.source += ignored;
  return fallback;
}

absl::StatusOr<SearchResult> SearchParallelism(const TrainingJob& job, const ClusterSpec& cluster,
                                               const Efficiency& efficiency,
                                               const SearchOptions& options) {
  absl::StatusOr<Prepared> prepared = Prepare(job, cluster);
  if (!prepared.ok()) return prepared.status();
  const Prepared& p = *prepared;
  CAPPLAN_RETURN_IF_ERROR(CheckRange("max_gpus", static_cast<int64_t>(options.max_gpus), 1, 65536));
  CAPPLAN_RETURN_IF_ERROR(
      CheckRange("min_gpus", static_cast<int64_t>(options.min_gpus), 1, options.max_gpus));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("deadline_seconds", options.deadline_seconds, 0.0, 1e10));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("top_k", static_cast<int64_t>(options.top_k), 1, 1000));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("efficiency.point", efficiency.point, 0.01, 1.0));

  const GpuSpec& gpu = cluster.gpu;
  std::vector<int> counts;
  for (int n = 1; n <= options.max_gpus; n *= 2) {
    if (n >= options.min_gpus) counts.push_back(n);
    if (n > options.max_gpus / 2) break;
  }
  for (int n = gpu.gpus_per_node; n <= options.max_gpus; n += gpu.gpus_per_node) {
    if (n >= options.min_gpus) counts.push_back(n);
  }
  counts.push_back(options.max_gpus);
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());

  // Compact: the full Eval is recomputed for the few returned, not copied for every fit.
  struct Candidate {
    ParallelConfig par;
    double duration;
    double gpu_hours;
  };
  // The best top_k so far, kept sorted (top_k is small for every caller that matters; a
  // plain vector and a final partial sort serve larger ones).
  std::vector<Candidate> feasible;
  const bool bounded = options.top_k <= 16;
  if (bounded) feasible.reserve(static_cast<size_t>(options.top_k) + 1);
  Eval eval;
  std::vector<Rejection> misses;
  SearchResult result;
  const bool deadline = options.deadline_seconds > 0;
  auto better = [deadline](const Candidate& a, const Candidate& b) {
    const double ka = deadline ? a.gpu_hours : a.duration;
    const double kb = deadline ? b.gpu_hours : b.duration;
    if (ka != kb) return ka < kb;
    if (a.par.NumGpus() != b.par.NumGpus()) return a.par.NumGpus() < b.par.NumGpus();
    if (a.par.tp != b.par.tp) return a.par.tp < b.par.tp;
    if (a.par.pp != b.par.pp) return a.par.pp < b.par.pp;
    if (a.par.zero_stage != b.par.zero_stage) return a.par.zero_stage < b.par.zero_stage;
    if (a.par.recompute != b.par.recompute) return a.par.recompute < b.par.recompute;
    return a.par.micro_batch < b.par.micro_batch;
  };

  const int64_t heads = p.shape.num_attention_heads;
  const int64_t layers = p.shape.num_layers;

  auto note_miss = [&](const Rejection& r) {
    // Keep the closest misses: smallest memory overshoot, or smallest deadline overrun.
    auto badness = [](const Rejection& x) {
      switch (x.reason) {
        case RejectReason::kMemory: return 1.0 + x.needed_bytes / x.capacity_bytes;
        case RejectReason::kDeadline: return x.duration_seconds / x.deadline_seconds;
        case RejectReason::kBatch: break;
      }
      return 1e9;  // any memory or deadline miss is closer
    };
    if (static_cast<int>(misses.size()) < options.max_rejections) {
      misses.push_back(r);
      return;
    }
    auto worst = std::max_element(misses.begin(), misses.end(),
                                  [&](const Rejection& a, const Rejection& b) {
                                    return badness(a) < badness(b);
                                  });
    if (badness(r) < badness(*worst)) *worst = r;
  };

  for (int n : counts) {
    for (int tp = 1; tp <= std::min(n, gpu.gpus_per_node); tp *= 2) {
      if (n % tp != 0 || heads % tp != 0) continue;
      for (int pp = 1; pp <= n / tp && pp <= layers; ++pp) {
        if ((n / tp) % pp != 0 || layers % pp != 0) continue;
        const int dp = n / (tp * pp);
        if (dp > p.global_sequences) {
          // Every rank needs at least one sequence per step.
          if (misses.empty()) {
            Rejection r;
            r.parallel.tp = tp;
            r.parallel.pp = pp;
            r.parallel.dp = dp;
            r.reason = RejectReason::kBatch;
            r.global_batch_sequences = p.global_sequences;
            misses.push_back(r);
          }
          continue;
        }
        // ZeRO-1/2 shard state at the communication cost of a plain all-reduce, so stage 2
        // dominates 0 and 1; stage 3 trades 1.5x traffic for sharded weights.
        const int zero_options[2] = {dp > 1 ? 2 : 0, 3};
        const int num_zero = dp > 1 ? 2 : 1;
        for (int zi = 0; zi < num_zero; ++zi) {
          for (Recompute rc : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
            // With FlashAttention, selective recompute saves nothing more than none.
            if (rc == Recompute::kSelective && job.flash_attention) continue;
            bool any_fit = false;
            for (int64_t mb = 1; mb <= 8 && mb * dp <= p.global_sequences; mb *= 2) {
              ParallelConfig par;
              par.tp = tp;
              par.pp = pp;
              par.dp = dp;
              par.zero_stage = zero_options[zi];
              par.recompute = rc;
              par.sequence_parallel = tp > 1;
              par.micro_batch = mb;
              Candidate c{par, 0, 0};
              Evaluate(p, par, &eval);
              ++result.configurations_evaluated;
              if (!eval.fits) {
                note_miss({par, RejectReason::kMemory, eval.memory.TotalBytes(),
                           gpu.memory_bytes, 0, 0});
                break;  // larger micro-batches need more memory
              }
              any_fit = true;
              c.duration = eval.steps * Step(eval, par, efficiency.point).total / job.goodput;
              c.gpu_hours = c.duration * n / units::kSecondsPerHour;
              if (deadline && c.duration > options.deadline_seconds) {
                note_miss({par, RejectReason::kDeadline, 0, 0, c.duration,
                           options.deadline_seconds});
                continue;
              }
              if (!bounded) {
                feasible.push_back(c);
              } else if (static_cast<int>(feasible.size()) < options.top_k || better(c, feasible.back())) {
                feasible.insert(std::upper_bound(feasible.begin(), feasible.end(), c, better), c);
                if (static_cast<int>(feasible.size()) > options.top_k) feasible.pop_back();
              }
            }
            if (any_fit) break;  // more recompute only adds time
          }
        }
      }
    }
  }

  const size_t k = std::min<size_t>(options.top_k, feasible.size());
  if (!bounded) std::partial_sort(feasible.begin(), feasible.begin() + k, feasible.end(), better);
  for (size_t i = 0; i < k; ++i) {
    Evaluate(p, feasible[i].par, &eval);
    result.ranked.push_back(Materialize(p, feasible[i].par, eval, efficiency));
  }
  std::sort(misses.begin(), misses.end(), [](const Rejection& a, const Rejection& b) {
    if (a.reason != b.reason) return a.reason < b.reason;
    if (a.reason == RejectReason::kMemory) return a.needed_bytes < b.needed_bytes;
    return a.duration_seconds < b.duration_seconds;
  });
  result.rejected = std::move(misses);
  return result;
}

namespace {
std::string Layout(const ParallelConfig& p) {
  return absl::StrFormat("tp=%d pp=%d dp=%d ZeRO-%d recompute=%s micro-batch=%d", p.tp, p.pp,
                         p.dp, p.zero_stage, RecomputeName(p.recompute), p.micro_batch);
}
}  // namespace

std::string ExplainTraining(const TrainingEstimate& e, const GpuSpec& gpu) {
  const ParallelConfig& p = e.parallel;
  std::string why = absl::StrFormat("%d x %s, %s: ", p.NumGpus(), gpu.name, Layout(p));
  if (p.tp > 1) {
    absl::StrAppend(&why, "tensor parallel ", p.tp, " stays inside a ", gpu.gpus_per_node,
                    "-GPU node; ");
  }
  if (p.pp > 1) {
    absl::StrAppendFormat(&why, "%d pipeline stages, bubble %.1f%% of compute; ", p.pp,
                          100.0 * (p.pp - 1) / e.micro_batches_per_step);
  }
  if (p.dp > 1) {
    absl::StrAppend(&why, p.zero_stage == 3 ? "ZeRO-3 shards weights too (1.5x traffic); "
                                            : "ZeRO-2 shards gradients and optimizer state at no "
                                              "extra traffic; ");
  }
  if (p.recompute != Recompute::kNone) {
    absl::StrAppend(&why, RecomputeName(p.recompute), " recompute needed to fit; ");
  }
  absl::StrAppendFormat(&why, "needs %.1f GB of %.1f GB per GPU; bottleneck %s; MFU %.0f%%",
                        e.memory_per_gpu.TotalBytes() / units::kGB, e.capacity_bytes / units::kGB,
                        BottleneckName(e.bottleneck), e.mfu * 100);
  return why;
}

std::string DescribeRejection(const Rejection& r, const GpuSpec& gpu) {
  const int n = r.parallel.NumGpus();
  if (r.reason == RejectReason::kMemory) {
    return absl::StrFormat("%d x %s (%s): needs %.1f GB per GPU, %s has %.1f GB", n, gpu.name,
                           Layout(r.parallel), r.needed_bytes / units::kGB, gpu.name,
                           r.capacity_bytes / units::kGB);
  }
  if (r.reason == RejectReason::kBatch) {
    return absl::StrFormat(
        "%d x %s: data parallel %d exceeds the global batch of %.0f sequences; raise "
        "global_batch_tokens or use fewer GPUs",
        n, gpu.name, r.parallel.dp, r.global_batch_sequences);
  }
  return absl::StrFormat("%d x %s (%s): takes %.1f days, deadline %.1f days", n, gpu.name,
                         Layout(r.parallel), r.duration_seconds / 86400.0,
                         r.deadline_seconds / 86400.0);
}

}  // namespace capplan::core
