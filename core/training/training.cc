// Training/fine-tuning estimator. See training.h for the papers each formula comes from.
#include "core/training/training.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/assumptions.h"
#include "core/training/training_internal.h"
#include "core/units.h"
#include "core/validate.h"

namespace capplan::core {

namespace training_internal {

// Named in the assumptions registry (core/assumptions.h), with ranges and sources.
constexpr double kContextBytes = assumptions::kContextBytes.value.point;
constexpr double kFragmentationFraction = assumptions::kFragmentationFraction.value.point;
constexpr double kQloraBytesPerParameter = assumptions::kQloraBytesPerParameter.value.point;
constexpr double kUnoverlappedDpFraction = assumptions::kUnoverlappedDpFraction.value.point;
constexpr double kFp8PeakUtilisation = assumptions::kFp8PeakUtilisation.value.point;
constexpr double kMoeRoutingImbalance = assumptions::kMoeRoutingImbalance.value.point;
constexpr double kMoeAllToAllHidden = assumptions::kMoeAllToAllHidden.value.point;
constexpr double kMoePermutePasses = assumptions::kMoePermutePasses.value.point;

bool MixedPrecision(Precision p) { return p != Precision::kFp32; }

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

// Parameter groups of the effective shape; a bare count is all "layer" parameters.
void SplitParameters(Prepared* p) {
  const ModelArchitecture& m = p->shape;
  const double L = static_cast<double>(m.num_layers);
  const double h = static_cast<double>(m.hidden_size);
  const double v = static_cast<double>(m.vocab_size);
  // A validated model's own shape needs no second check; one inferred from a bare count carries
  // the caller's other fields unchecked, so it is checked (rare, and off the hot path).
  const absl::StatusOr<ParameterCounts> c = p->shape_inferred ? CountParameters(m) : CountValidParameters(m);
  if (!c.ok()) return;
  const double experts = m.IsMoe() ? c->expert_per_layer * static_cast<double>(m.num_experts) : 0.0;
  p->layer_expert_params = experts;
  // Routed-expert parameters one token passes through (top-k experts in every MoE layer).
  p->expert_active_params = m.IsMoe() ? c->expert * static_cast<double>(m.experts_per_token * m.MoeLayers()) : 0.0;
  p->layer_dense_params = c->per_layer_total - experts;
  p->embedding_params = v * h;
  p->head_params = m.tied_embeddings ? 0.0 : v * h;
  // A bare parameter count: scale the inferred shape's layers to the caller's total.
  if (!p->job->model.HasArchitecture() && c->total > 0) {
    const double scale = (p->counts.total - p->embedding_params - p->head_params) / (L * c->per_layer_total);
    if (scale > 0) p->layer_dense_params *= scale;
  }
  // The head's matmul (h x V per token, forward and backward) in units of one layer's.
  const double layer_flops = 6.0 * (p->layer_dense_params + c->expert_per_layer * m.experts_per_token) +
                             12.0 * h * static_cast<double>(p->job->sequence_length);
  p->head_layer_equivalents = layer_flops > 0 ? 6.0 * v * h / layer_flops : 0.0;
}

void SetGlobalBatch(Prepared* p, double global_batch_tokens) {
  p->global_sequences = std::max(1.0, std::floor(global_batch_tokens / static_cast<double>(p->job->sequence_length)));
}

absl::StatusOr<Prepared> Prepare(const TrainingJob& job, const ClusterSpec& cluster) {
  CAPPLAN_RETURN_IF_ERROR(ValidateTrainingJob(job));
  CAPPLAN_RETURN_IF_ERROR(ValidateGpu(cluster.gpu));
  Prepared p;
  p.fabric = cluster.fabric.Known() ? cluster.fabric : FallbackFabric(cluster.gpu);
  CAPPLAN_RETURN_IF_ERROR(ValidateFabric(p.fabric));
  p.job = &job;
  p.cluster = &cluster;
  p.counts = CountValidParameters(job.model);  // validated with the job
  p.shape = EffectiveShape(job.model);
  p.shape_inferred = !job.model.HasArchitecture();
  absl::StatusOr<double> peak = PeakFor(cluster.gpu, job.precision);
  if (!peak.ok()) return peak.status();
  p.peak_flops = *peak;
  SplitParameters(&p);

  const bool mixed = MixedPrecision(job.precision);
  // Mixed precision keeps 16-bit weights for the matmuls beside fp32 master weights (in the
  // optimizer bytes) and accumulates gradients in fp32: 2 + 4 + 12 = 18 bytes per parameter
  // with Adam (Megatron-LM distributed-optimizer docs, "bf16 params, fp32 grads"; PyTorch
  // AMP keeps fp32 weights and gradients and casts 16-bit copies per forward, the same 18).
  p.weight_bytes = mixed ? 2.0 : 4.0;
  p.grad_bytes = 4.0;
  p.optimizer_bytes = OptimizerBytes(job.optimizer, job.precision);
  if (job.method == TrainingMethod::kFull) {
    p.trainable = p.counts.total;
  } else {
    p.trainable = LoraParameters(p.shape, job.lora_rank);
    p.frozen_bytes_per_parameter = job.method == TrainingMethod::kQlora ? kQloraBytesPerParameter : p.weight_bytes;
  }
  // Attention score and value FLOPs per token, forward: 4·L·h·s (PaLM, Chowdhery et al.
  // 2022, App. B: 6N + 12·L·h·s per token for forward plus backward).
  const double L = static_cast<double>(p.shape.num_layers);
  const double h = static_cast<double>(p.shape.hidden_size);
  const double s = static_cast<double>(job.sequence_length);
  p.attention_fwd_flops_per_token = 4.0 * L * h * s;
  // Adapters: the frozen base needs no weight gradients, so backward costs ~2N, not 4N.
  const double dense = job.method == TrainingMethod::kFull ? 6.0 : 4.0;
  p.dense_flops_per_token = dense * p.counts.active;
  p.model_flops_per_token = p.dense_flops_per_token + 3.0 * p.attention_fwd_flops_per_token;
  p.hw_flops_per_token_base = p.model_flops_per_token;
  SetGlobalBatch(&p, job.global_batch_tokens > 0 ? job.global_batch_tokens : kDefaultGlobalBatchTokens);
  p.activation_scale = mixed ? 1.0 : 2.0;
  p.act_elem_bytes = mixed ? 2.0 : 4.0;
  return p;
}

StageSplit SplitStages(int64_t layers, int pp, double head) {
  StageSplit out;
  const double L = static_cast<double>(layers);
  if (pp <= 1) {
    out.slowest_load = L + head;
    out.first_layers = out.last_layers = L;
    return out;
  }
  // The last stage also runs the head, so it takes k layers and the others share the rest;
  // the best k balances (L - k) / (pp - 1) against k + head (Dubey et al. 2024, Sec. 3.3.2:
  // Llama 3 moves layers off the end stages for the same reason).
  const double ideal = (L - (pp - 1) * head) / pp;
  double best = 1e300;
  for (double k : {std::floor(ideal), std::ceil(ideal)}) {
    k = std::clamp(k, 0.0, L - (pp - 1));
    const double others = std::ceil((L - k) / (pp - 1));
    const double load = std::max(others, k + head);
    if (load < best) {
      best = load;
      out.first_layers = others;
      out.last_layers = k;
    }
  }
  out.slowest_load = best;
  out.imbalance = best / ((L + head) / pp);
  // The first stage holds the most activations in flight, so it takes the fewest layers the
  // others' pace allows (Dubey et al. 2024, Sec. 3.3.2: one layer fewer on the first stage).
  const double middle = std::floor(best);
  out.first_layers = std::clamp(L - out.last_layers - (pp - 2) * middle, 1.0, out.first_layers);
  return out;
}

std::string LayoutProblem(const Prepared& p, const ParallelConfig& par) {
  const Fabric& f = p.fabric;
  if (par.tp > f.gpus_per_node) {
    return absl::StrCat("tensor parallel ", par.tp, " spans more than a node of ", f.gpus_per_node, " GPUs");
  }
  if (f.network == NetworkKind::kNone && par.NumGpus() > f.gpus_per_node) {
    return absl::StrCat(par.NumGpus(), " GPUs need more than one node of ", f.gpus_per_node,
                        " and this offer has no network between nodes");
  }
  if (par.ep > 1 && !p.shape.IsMoe()) return "expert parallelism needs a mixture-of-experts model";
  if (par.ep > 1 && (p.shape.num_experts % par.ep != 0 || (par.dp * par.cp) % par.ep != 0)) {
    return absl::StrCat("expert parallel ", par.ep, " must divide the experts (", p.shape.num_experts,
                        ") and data x context parallel (", par.dp * par.cp, ")");
  }
  if (par.shard_group > 0 && (par.zero_stage == 0 || (par.dp * par.cp) % par.shard_group != 0)) {
    return absl::StrCat("shard group ", par.shard_group,
                        " needs ZeRO-1 or more and must divide data x context parallel (", par.dp * par.cp, ")");
  }
  if (par.offload == Offload::kOptimizerAndParameters && par.zero_stage < 3) {
    return "parameter offload needs ZeRO-3 (parameters are gathered per layer from their shards)";
  }
  // Every model chunk holds a layer, except that the first may hold only the embedding and
  // the last only the head (Dubey et al. 2024, Sec. 3.3.2).
  if (par.vpp > 1 && (par.pp == 1 || par.vpp * par.pp > p.shape.num_layers + 2)) {
    return absl::StrCat("virtual stages ", par.vpp, " need pipeline parallelism and at least one layer per stage");
  }
  if (par.cp > 1 && p.job->sequence_length % (2 * par.cp) != 0) {
    return absl::StrCat("context parallel ", par.cp, " must split the sequence into 2 x cp equal chunks");
  }
  return "";
}

// Memory of the first pipeline stage (most activations in flight, embedding) and the last
// (head and logits); the larger one is the layout's need.
void MemoryFor(const Prepared& p, const ParallelConfig& par, Eval* e) {
  const TrainingJob& job = *p.job;
  const double tp = par.tp;
  // ZeRO shards over dp x cp ranks, or over the shard group with HSDP / MiCS.
  const double shard_dp = par.ShardRanks();
  const double ep = par.ep;
  const StageSplit& st = e->stages;
  const double sp_len = static_cast<double>(job.sequence_length) / par.cp;
  const double per_layer = ActivationBytesPerLayer(p.shape, static_cast<int64_t>(sp_len), par.micro_batch, par.tp,
                                                   par.sequence_parallel, par.recompute, job.flash_attention) *
                           p.activation_scale;
  // Full recompute re-runs one layer's forward inside the backward pass, whose activations
  // then live alongside the stored layer inputs (Korthikanti et al. 2022, Sec. 4.2.2).
  const double recompute_working_set =
      par.recompute == Recompute::kFull
          ? ActivationBytesPerLayer(p.shape, static_cast<int64_t>(sp_len), par.micro_batch, par.tp,
                                    par.sequence_parallel, Recompute::kNone, job.flash_attention) *
                p.activation_scale
          : 0.0;
  // 1F1B: the first stage holds activations of min(p, m) micro-batches (Korthikanti et al.
  // 2022, Sec. 4.2.3); interleaving adds (p-1)/(p·v) of that (Narayanan et al. 2021, Sec. 2.2.2).
  double in_flight = std::min(static_cast<double>(par.pp), e->micro_batches);
  if (par.vpp > 1) in_flight *= 1.0 + (par.pp - 1.0) / (static_cast<double>(par.pp) * par.vpp);
  // Logits for the cross-entropy, per token and vocabulary entry (LogitBytesPerVocabEntry).
  const double logits = LogitBytesPerVocabEntry(job.method) * sp_len * par.micro_batch * p.shape.vocab_size / tp;
  MemoryBreakdown best;
  double host_bytes = 0;  // offloaded state per GPU, the busiest stage's
  for (int stage = 0; stage < (par.pp > 1 ? 2 : 1); ++stage) {
    const bool first = stage == 0, last = stage == 1 || par.pp == 1;
    const double layers = first ? st.first_layers : st.last_layers;
    const double dense = layers * p.layer_dense_params + (first ? p.embedding_params : 0.0) +
                         (last ? p.head_params + p.shape.hidden_size : 0.0);
    const double params = (dense + layers * p.layer_expert_params / ep) / tp;
    const double trainable = job.method == TrainingMethod::kFull ? params : p.trainable / (tp * par.pp);
    MemoryBreakdown m;
    const double frozen = job.method == TrainingMethod::kFull ? 0.0 : params * p.frozen_bytes_per_parameter;
    // ZeRO (Rajbhandari et al. 2020, Sec. 5): stage 1 shards optimizer state over the data
    // parallel ranks, stage 2 also gradients, stage 3 also parameters.
    m.weights_bytes = (frozen + trainable * p.weight_bytes) / (par.zero_stage >= 3 ? shard_dp : 1.0);
    m.gradients_bytes = trainable * p.grad_bytes / (par.zero_stage >= 2 ? shard_dp : 1.0);
    m.optimizer_bytes = trainable * p.optimizer_bytes / (par.zero_stage >= 1 ? shard_dp : 1.0);
    // ZeRO-3 per-layer prefetch holds the layer being computed and the next one unsharded, and
    // one layer's full gradient before its reduce-scatter (PyTorch FSDP, Zhao et al. 2023,
    // Sec. 3.3-3.4: one unit's all-gather in flight ahead of the current one).
    const double layer = (p.layer_dense_params + p.layer_expert_params / ep) / tp;
    const double gathered = par.zero_stage >= 3 ? 2.0 * layer * p.weight_bytes : 0.0;
    const double layer_grad = par.zero_stage >= 3 && job.method == TrainingMethod::kFull ? layer * p.grad_bytes : 0.0;
    if (par.offload != Offload::kNone) {
      // What moves to the host must fit in this GPU's share of host memory.
      host_bytes = std::max(host_bytes, m.optimizer_bytes + m.gradients_bytes +
                                            (par.offload == Offload::kOptimizerAndParameters ? m.weights_bytes : 0.0));
      // ZeRO-Offload (Ren et al. 2021, Sec. 4): the optimizer state with its fp32 master
      // weights, and the gradients, live in host memory; with parameter offload (ZeRO-Infinity,
      // Rajbhandari et al. 2021; FSDP CPUOffload) the 16-bit shards do too, and only the
      // prefetched layers are on the GPU.
      m.optimizer_bytes = 0;
      m.gradients_bytes = 0;
      if (par.offload == Offload::kOptimizerAndParameters) m.weights_bytes = 0;
    }
    m.activations_bytes =
        per_layer * layers * (first ? in_flight : 1.0) + recompute_working_set + (last ? logits : 0.0);
    if (job.method == TrainingMethod::kQlora) {
      // bitsandbytes dequantises one 4-bit matrix to 16 bits per matmul, forward and
      // backward: two buffers of the largest matrix (h x ffn).
      m.activations_bytes += 2.0 * 2.0 * p.shape.hidden_size * static_cast<double>(p.shape.ffn_hidden_size) / tp;
    }
    const double states = m.weights_bytes + m.gradients_bytes + m.optimizer_bytes + m.activations_bytes;
    // The gathered layers are transient buffers beside the sharded states (counted as overhead,
    // so the model states stay the ZeRO paper's).
    m.overhead_bytes = kContextBytes + kFragmentationFraction * states + gathered + layer_grad;
    if (m.TotalBytes() > best.TotalBytes()) best = m;
  }
  e->memory = best;
  e->fits =
      best.TotalBytes() <= p.cluster->gpu.memory_bytes && host_bytes <= assumptions::kHostMemoryBytesPerGpu.value.point;
}

// The routed experts' grouped GEMM at the tokens each expert receives: a micro-batch's tokens
// on the ep ranks of an expert-parallel group, times top-k, over the experts (Megablocks, Gale
// et al. 2023, arXiv 2211.15841, Sec. 3: grouped GEMMs of variable size per expert;
// Megatron-Core MoE docs, GroupedGEMM). Its roofline (Williams et al. 2009) at M tokens, K = h,
// N = expert width / tp gives the kernels' efficiency relative to a large GEMM; small experts
// that see few tokens are memory-bound. The busiest expert sets the pace: the routing
// imbalance (assumptions::kMoeRoutingImbalance) multiplies the experts' time. Returns the
// experts' share of the model's FLOPs (0 for dense models).
double ExpertGemmFor(const Prepared& p, const ParallelConfig& par, double tokens_mb, double ridge, Eval* e) {
  e->expert_scale = 1;
  e->permute = 0;
  const ModelArchitecture& m = p.shape;
  if (!m.IsMoe() || p.expert_active_params <= 0) return 0.0;
  const double tokens =
      tokens_mb * par.ep * static_cast<double>(m.experts_per_token) / static_cast<double>(m.num_experts);
  const double k = static_cast<double>(m.hidden_size);
  const double n_dim = static_cast<double>(m.ExpertFfnHiddenSize()) / par.tp;
  const double intensity = tokens * k * n_dim / (tokens * k + k * n_dim + tokens * n_dim);
  e->expert_scale = std::clamp(intensity / ridge, 1e-3, 1.0);
  // Permuting each rank's tokens into their k expert slots and back is memory-bound: passes
  // over k copies of h elements per token and MoE layer (assumptions::kMoePermutePasses), for
  // the tokens this GPU holds (a 1/tp share under sequence parallelism), every micro-batch.
  const double moe_layers = e->stages.first_layers * static_cast<double>(m.MoeLayers()) / m.num_layers;
  e->permute = kMoePermutePasses * tokens_mb / par.tp * static_cast<double>(m.experts_per_token) * k *
               p.act_elem_bytes / p.cluster->gpu.memory_bandwidth_bytes_per_second * moe_layers * e->micro_batches;
  const double dense = p.job->method == TrainingMethod::kFull ? 6.0 : 4.0;
  return std::min(1.0, dense * p.expert_active_params / p.model_flops_per_token);
}

void TimeFor(const Prepared& p, const ParallelConfig& par, Eval* e) {
  const TrainingJob& job = *p.job;
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
  e->attention_share = 3.0 * p.attention_fwd_flops_per_token / hw;
  // A short micro-batch makes the layer's GEMMs memory-bound: roofline (Williams et al. 2009)
  // of the MLP's up-projection, M tokens x K = h x N = ffn/tp at 16-bit elements, whose
  // arithmetic intensity M·K·N / (M·K + K·N + M·N) FLOP/byte must reach the GPU's peak over
  // its memory bandwidth to run at the compute rate. Large micro-batches are not faster.
  const double tokens_mb = static_cast<double>(par.micro_batch) * job.sequence_length / par.cp;
  const double k = static_cast<double>(p.shape.hidden_size);
  const double n_dim = static_cast<double>(p.shape.ffn_hidden_size) / par.tp;
  const double intensity = tokens_mb * k * n_dim / (tokens_mb * k + k * n_dim + tokens_mb * n_dim);
  const double ridge = p.peak_flops / p.cluster->gpu.memory_bandwidth_bytes_per_second;
  e->kernel_scale = std::min(1.0, intensity / ridge);
  // Balanced work per GPU, times the busiest stage's share over the mean; the routed experts'
  // share of it at their own GEMM efficiency and routing imbalance (ExpertGemmFor).
  const double expert_share = ExpertGemmFor(p, par, tokens_mb, ridge, e);
  e->compute1 = hw * tokens_per_step / (n * p.peak_flops) * e->stages.imbalance *
                ((1.0 - expert_share) / e->kernel_scale + expert_share * kMoeRoutingImbalance / e->expert_scale);
  CommFor(p, par, e);
}

Bottleneck BottleneckOf(const Eval& e, const StepParts& s) {
  Bottleneck b = Bottleneck::kCompute;
  double worst = s.compute;
  auto consider = [&](double v, Bottleneck which) {
    if (v > worst) {
      worst = v;
      b = which;
    }
  };
  consider(s.bubble, Bottleneck::kPipelineBubble);
  consider(s.tp, Bottleneck::kInterconnect);
  consider(s.cp, e.tp_cp_over_network ? Bottleneck::kNetwork : Bottleneck::kInterconnect);
  consider(s.ep, e.ep_over_network ? Bottleneck::kNetwork : Bottleneck::kInterconnect);
  consider(s.pp, e.pp_over_network ? Bottleneck::kNetwork : Bottleneck::kInterconnect);
  consider(s.dp_exposed, e.dp_over_network ? Bottleneck::kNetwork : Bottleneck::kInterconnect);
  consider(s.offload, Bottleneck::kInterconnect);
  return b;
}

StepParts Step(const Eval& e, const ParallelConfig& par, double efficiency) {
  StepParts s;
  s.compute = e.compute1 / efficiency + e.permute;
  const double m = e.micro_batches;
  // Pipeline flush: (p-1)/(m·v) of the ideal time for (interleaved) 1F1B (Narayanan et al.
  // 2021, Sec. 2.2).
  s.bubble = s.compute * (par.pp - 1) / (m * par.vpp);
  s.tp = e.tp_comm;
  // Overlapped communication. Each kind hides behind its own phase of the compute: ring
  // attention behind the attention it feeds; pipeline sends, in the interleaved schedule,
  // behind the other chunks (Megatron-Core overlap_p2p_comm; in plain 1F1B they are on the
  // critical path); the gradient reduce-scatter behind the last micro-batch's backward (2/3
  // of its compute, or of each chunk's with interleaving) and the parameter all-gather behind
  // the first one's forward (ZeRO-3: behind all compute). The compute hides each second
  // once: what the windows hide together beyond it is exposed as well.
  const double m_compute = s.compute / m;
  const double chunks = std::min(static_cast<double>(par.vpp), m);
  const bool interleaved = par.pp > 1 && par.vpp > 1;
  const double pp_total = par.pp > 1 ? 2.0 * m * par.vpp * e.pp_send : 0.0;
  // ZeRO-3 prefetches the next layer's parameters while the current one computes and
  // reduce-scatters each layer's gradients behind the next layer's backward: the whole
  // forward and backward hide them, except the first layer's gather and the last layer's
  // reduce-scatter of each micro-batch (PyTorch FSDP, Zhao et al. 2023, Sec. 3.4). Offloaded
  // gradients stream to the host behind the backward pass, offloaded parameters ahead of use.
  const bool z3 = par.zero_stage >= 3;
  const double layers = std::max(1.0, e.stages.first_layers);
  const double edge = z3 ? (e.dp_gather / 2.0 + e.dp_reduce) / layers : 0.0;
  // An interleaved schedule can run one micro-batch's MoE all-to-all under another's compute
  // (Megatron-Core MoE docs, --overlap-moe-expert-parallel-comm; DeepSeek-V3's DualPipe, arXiv
  // 2412.19437, Sec. 3.2.1) where the framework does so (assumptions::kMoeAllToAllHidden: by
  // default it does not); the rest sits on the critical path.
  const double ep_hidable = interleaved ? kMoeAllToAllHidden * e.ep_comm : 0.0;
  const double comm[7] = {
      e.cp_comm_raw, interleaved ? pp_total : 0.0, e.dp_reduce, e.dp_gather, e.offload_grads, e.offload_params,
      ep_hidable};
  const double window[7] = {e.attention_share * s.compute,
                            s.compute,
                            z3 ? s.compute * 2.0 / 3.0 : m_compute * 2.0 / 3.0 * chunks,
                            z3 ? s.compute : m_compute / 3.0 * chunks,
                            s.compute * 2.0 / 3.0,
                            s.compute,
                            s.compute};
  double exposed[7], hidden = 0;
  for (int i = 0; i < 7; ++i) {
    exposed[i] = std::max(comm[i] - window[i], 0.0);
    hidden += comm[i] - exposed[i];
  }
  const double over = std::max(hidden - s.compute, 0.0);  // hidden twice: exposed, shared out
  for (int i = 0; i < 7; ++i) {
    if (hidden > 0) exposed[i] += over * (comm[i] - exposed[i]) / hidden;
  }
  s.cp = exposed[0];
  s.pp = interleaved ? exposed[1] : pp_total;
  s.ep = exposed[6] + e.ep_comm - ep_hidable;
  // The last gradient bucket cannot overlap (Li et al. 2020): 5% of what was hidden; ZeRO-3's
  // first gather and last reduce-scatter per micro-batch, when more than that.
  const double dp_hidden = e.dp_reduce + e.dp_gather - exposed[2] - exposed[3];
  s.dp_exposed = exposed[2] + exposed[3] + std::min(dp_hidden, std::max(kUnoverlappedDpFraction * dp_hidden, edge));
  s.offload = exposed[4] + exposed[5] + e.offload_exposed;
  s.total = s.compute + s.bubble + s.tp + s.cp + s.ep + s.pp + s.dp_exposed + s.offload;
  return s;
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
  out.global_batch_tokens = e.micro_batches * par.dp * par.micro_batch * job.sequence_length;
  const StepParts s = Step(e, par, eff.point);
  out.compute_seconds_per_step = s.compute;
  out.bubble_seconds_per_step = s.bubble;
  out.tp_comm_seconds_per_step = s.tp + s.cp + s.ep;
  out.pp_comm_seconds_per_step = s.pp;
  out.dp_comm_exposed_seconds_per_step = s.dp_exposed;
  out.offload_seconds_per_step = s.offload;
  out.expert_gemm_efficiency = e.expert_scale / (p.shape.IsMoe() ? kMoeRoutingImbalance : 1.0);
  out.step_seconds = s.total;
  out.goodput = job.goodput;
  out.steady_duration_seconds = e.steps * s.total;
  // The range is how wrong the model is on published runs of the same regime, not the
  // efficiency range's ends (docs/validation/README.md).
  out.range_band = TrainingRangeBand(job.model, par);
  out.steady_duration_seconds_low = out.steady_duration_seconds / out.range_band->value.high;
  out.steady_duration_seconds_high = out.steady_duration_seconds / out.range_band->value.low;
  out.duration_seconds = out.steady_duration_seconds / job.goodput;
  out.duration_seconds_low = out.steady_duration_seconds_low / job.goodput;
  out.duration_seconds_high = out.steady_duration_seconds_high / job.goodput;
  const double n = par.NumGpus();
  out.gpu_hours = out.duration_seconds * n / units::kSecondsPerHour;
  out.model_tflops_per_gpu = out.model_flops / (n * out.steady_duration_seconds) / units::kTera;
  out.tokens_per_second = job.tokens / out.steady_duration_seconds;
  const double dense_peak = p.peak_flops / (job.precision == Precision::kFp8 ? kFp8PeakUtilisation : 1.0);
  out.mfu = out.model_tflops_per_gpu * units::kTera / dense_peak;
  out.energy_kwh =
      gpu.tdp_watts * n * (out.duration_seconds / units::kSecondsPerHour) * job.pue / units::kWattHoursPerKilowattHour;
  out.bottleneck = e.fits ? BottleneckOf(e, s) : Bottleneck::kMemoryCapacity;
  out.shape_inferred = p.shape_inferred;
  out.fabric = p.fabric;
  return out;
}

void Evaluate(const Prepared& p, const ParallelConfig& par, Eval* e) {
  e->micro_batches = std::max(1.0, std::floor(p.global_sequences / (static_cast<double>(par.dp) * par.micro_batch)));
  e->stages = SplitStages(p.shape.num_layers, par.pp, p.head_layer_equivalents);
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

double HostLinkBytesPerSecond(const GpuSpec& gpu) {
  // PCIe x16 per direction, nominal: Gen5 64 GB/s (H100, H200 and B200 datasheets), Gen4 32 GB/s
  // (A100, L40S, RTX 4090). FP8 tensor cores with HBM-class bandwidth mark the Gen5 parts.
  const bool gen5 = gpu.PeakFlops(Precision::kFp8) > 0 && gpu.memory_bandwidth_bytes_per_second >= 1.5e12;
  return (gen5 ? 64e9 : 32e9) * assumptions::kHostLinkAchievedFraction.value.point;
}

const Assumption* TrainingRangeBand(const ModelArchitecture& model, const ParallelConfig& par) {
  if (model.IsMoe()) return &assumptions::kRangeTrainingMoe;
  if (par.zero_stage >= 3 || par.offload != Offload::kNone) return &assumptions::kRangeTrainingSharded;
  return &assumptions::kRangeTrainingDense;
}

double LoraParameters(const ModelArchitecture& m, int rank) {
  const double r = rank;
  const double h = static_cast<double>(m.hidden_size);
  const double kv = static_cast<double>(m.KvHeads() * m.HeadDim());
  const double f = static_cast<double>(m.ffn_hidden_size);
  // Each adapted matrix W (in x out) gains A (in x r) and B (r x out).
  const double attention = r * (h + h) * 2.0 + r * (h + kv) * 2.0;  // Q, O and K, V
  const double mlp = (m.gated_mlp ? 3.0 : 2.0) * r * (h + f);
  if (!m.IsMoe()) return static_cast<double>(m.num_layers) * (attention + mlp);
  // MoE layers adapt every routed and shared expert at its own width; leading dense layers
  // adapt their dense FFN.
  const double matrices = m.gated_mlp ? 3.0 : 2.0;
  const double expert_mlp = matrices * r * (h + static_cast<double>(m.ExpertFfnHiddenSize()));
  const double shared_mlp = matrices * r * (h + static_cast<double>(m.SharedExpertFfnHiddenSize()));
  const double moe =
      static_cast<double>(m.num_experts) * expert_mlp + static_cast<double>(m.num_shared_experts) * shared_mlp;
  return static_cast<double>(m.num_layers) * attention + static_cast<double>(m.num_dense_layers) * mlp +
         static_cast<double>(m.MoeLayers()) * moe;
}

double ActivationBytesPerLayer(const ModelArchitecture& shape, int64_t seq, int64_t micro_batch, int tp,
                               bool sequence_parallel, Recompute recompute, bool flash_attention) {
  const double s = static_cast<double>(seq);
  const double sb = s * static_cast<double>(micro_batch);
  const double sbh = sb * static_cast<double>(shape.hidden_size);
  const double t = tp;
  const bool sp = sequence_parallel && tp > 1;
  if (recompute == Recompute::kFull) {
    // Only each layer's input is kept: 2·s·b·h bytes, scattered over t with SP.
    return sp ? 2.0 * sbh / t : 2.0 * sbh;
  }
  // Korthikanti et al. 2022, Sec. 4.1, term by term, for this model's attention and MLP
  // (their 34·s·b·h is the GPT case: MHA, a 4h GELU MLP, dropout). Bytes, 16-bit values:
  // two norm inputs 4sbh; attention: QKV input 2sbh, Q 2sbh, K and V 4·s·b·kv, the output
  // (the projection's input) 2sbh; MLP: input 2sbh, then GELU: its input and output 4·s·b·f,
  // or SwiGLU (Megatron's fused kernel keeps gate and up, 4sbf, and the product, 2sbf).
  // Dropout masks (1 byte) after attention and MLP only for GELU-era models: Llama-style
  // gated models train without dropout.
  const double kv = sb * static_cast<double>(shape.KvHeads() * shape.HeadDim());
  // MoE: the intermediates of the top-k routed experts and the shared ones, each its own width.
  const double sbf = sb * shape.ActiveFfnWidth();
  const double mlp = shape.gated_mlp ? 2.0 * sbh + 6.0 * sbf : 2.0 * sbh + 4.0 * sbf;
  const double dropout = shape.gated_mlp ? 0.0 : 2.0 * sbh;
  const double attention = 6.0 * sbh + 4.0 * kv;
  const double norms = 4.0 * sbh;
  // Selective recompute and FlashAttention both avoid storing the s x s attention scores
  // (5·a·s²·b without either).
  const bool keep_scores = recompute == Recompute::kNone && !flash_attention;
  const double scores = keep_scores ? 5.0 * static_cast<double>(shape.num_attention_heads) * s * sb : 0.0;
  if (tp == 1) return norms + dropout + attention + mlp + scores;
  if (sp) return (norms + dropout + attention + mlp + scores) / t;
  // Without sequence parallelism the norms, dropout masks and the inputs of the attention
  // and MLP blocks (2sbh each) are replicated on every tensor-parallel rank.
  return norms + dropout + 4.0 * sbh + (attention + mlp - 4.0 * sbh + scores) / t;
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
  Evaluate(*p, parallel, &e);
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
  const std::string problem = LayoutProblem(*p, parallel);
  if (!problem.empty()) return FieldError("parallelism", problem);
  Eval e;
  Evaluate(*p, parallel, &e);
  return Materialize(*p, parallel, e, efficiency);
}

}  // namespace capplan::core
