// Serving memory per GPU: weights, the KV cache the engine's budget leaves, activations.
// Capacities are the datasheet's GiB (tests/core/fixtures.h, migrations/0007).
#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"
#include "core/assumptions.h"
#include "core/serving/engine_support.h"
#include "core/serving/serving.h"
#include "core/serving/serving_internal.h"
#include "core/units.h"
#include "core/validate.h"

namespace capplan::core {

namespace serving_internal {

namespace {
// KV-cache elements one token adds to one layer on each GPU of a tensor-parallel group.
double KvElementsPerTokenPerLayer(const ModelArchitecture& a, int tp) {
  if (a.IsMla()) {
    // Multi-head latent attention caches, per token and layer, the compressed latent c_KV
    // (kv_lora_rank) and the decoupled rotary key (qk_rope_head_dim), shared by every head
    // (DeepSeek-V2, arXiv 2405.04434, Sec. 2.1.2-2.1.3 and Table 1: (d_c + d_h^R)·l elements
    // per token), so each tensor-parallel rank holds it whole.
    return static_cast<double>(a.kv_lora_rank + a.qk_rope_head_dim);
  }
  // Keys and values, their heads split over the tensor-parallel ranks.
  const double kv_heads_per_gpu = std::ceil(static_cast<double>(a.KvHeads()) / static_cast<double>(tp));
  return 2.0 * kv_heads_per_gpu * static_cast<double>(a.HeadDim());
}

// vLLM's profiler (Worker.determine_available_memory; "overhaul memory profiling",
// https://github.com/vllm-project/vllm/pull/10511) gives the KV cache gpu_memory_utilization of the memory CUDA
// reports, less the weights, the profile run's activation peak and what was allocated outside PyTorch: the CUDA context
// and workspaces, and at tp > 1 the NCCL and custom all-reduce buffers. Returns the memory the engine may use for
// weights, activations and the KV cache.
double VllmUsableBytes(const GpuSpec& gpu, int tp, double fraction) {
  namespace a = assumptions;
  const double reported = gpu.memory_bytes * (1.0 - a::kServingUnreportedMemoryFraction.value.point);
  const double outside_torch =
      kRuntimeReservedBytes + (tp > 1 ? a::kServingTpCommunicationBufferBytes.value.point : 0.0);
  return fraction * reported - outside_torch;
}
}  // namespace

absl::StatusOr<Shape> ShapeOf(const ModelArchitecture& m) {
  // Every caller has run Prechecks (or been told its inputs were checked), which validates the
  // model; counting need not validate it again on every estimate.
  return Shape{CountValidParameters(m), EffectiveShape(m), !m.HasArchitecture()};
}

absl::Status Prechecks(const ServingWorkload& w, const GpuSpec& gpu, int tp, bool inputs_checked) {
  if (!inputs_checked) {
    CAPPLAN_RETURN_IF_ERROR(ValidateServingWorkload(w));
    CAPPLAN_RETURN_IF_ERROR(ValidateGpu(gpu));
  }
  if (std::string why = EngineSupportProblem(w.engine, w.engine_version, gpu, w.weight_precision); !why.empty()) {
    return absl::FailedPreconditionError(why);
  }
  CAPPLAN_RETURN_IF_ERROR(CheckRange("tp", static_cast<int64_t>(tp), 1, 64));
  if (tp > gpu.gpus_per_node) {
    return FieldError(
        "tp", absl::StrFormat("tensor parallelism must stay inside a node of %d GPUs, got %d", gpu.gpus_per_node, tp));
  }
  return absl::OkStatus();
}

ServingMemory MemoryOf(const ServingWorkload& w, const Shape& s, const GpuSpec& gpu, int tp) {
  ServingMemory m;
  const double bpp = WeightBytesPerParameter(w.weight_precision);
  // Embedding and output projection stay 16-bit under 8- and 4-bit weight quantisation.
  const double embed_bpp = std::max(std::min(bpp, 4.0), 2.0);
  // MoE: expert parallelism over the TP group splits the experts whole; dense layers split
  // by tensor parallelism. Either way each GPU holds 1/tp of the weights.
  m.weights_bytes = ((s.counts.total - s.counts.embedding) * bpp + s.counts.embedding * embed_bpp) / tp;
  m.kv_bytes_per_token =
      static_cast<double>(s.arch.num_layers) * KvElementsPerTokenPerLayer(s.arch, tp) * BytesPerElement(w.kv_precision);
  m.kv_bytes_per_sequence = m.kv_bytes_per_token * static_cast<double>(w.prompt_tokens + w.output_tokens);
  m.capacity_bytes = gpu.memory_bytes;
  const EngineProfile p = EngineProfileFor(w.engine, gpu, tp, w.engine_version);
  // The engine's profile run: one forward pass of max_batched_tokens tokens. Its peak is the
  // MLP's intermediate (gate and up, 2·ffn/tp) plus a few hidden-sized buffers, 16-bit
  // (vLLM determine_available_memory profiles exactly this; TensorRT-LLM sizes activations
  // from max_num_tokens, "Memory Usage of TensorRT-LLM").
  const double tokens = static_cast<double>(p.max_batched_tokens);
  const double ffn = static_cast<double>(s.arch.ffn_hidden_size) * (s.arch.gated_mlp ? 2.0 : 1.0) / tp;
  m.activation_bytes = tokens * (ffn + 4.0 * static_cast<double>(s.arch.hidden_size)) * 2.0;
  const double after_runtime = gpu.memory_bytes - kRuntimeReservedBytes;
  if (p.fraction_of_free) {
    m.kv_budget_bytes = p.memory_fraction * (after_runtime - m.weights_bytes - m.activation_bytes);
  } else if (w.engine == ServingEngine::kVllm) {
    m.kv_budget_bytes = VllmUsableBytes(gpu, tp, p.memory_fraction) - m.weights_bytes - m.activation_bytes;
  } else {
    m.kv_budget_bytes =
        std::min(p.memory_fraction * gpu.memory_bytes, after_runtime) - m.weights_bytes - m.activation_bytes;
  }
  m.kv_budget_bytes = std::max(0.0, m.kv_budget_bytes);
  m.overhead_bytes = std::max(0.0, gpu.memory_bytes - m.weights_bytes - m.activation_bytes - m.kv_budget_bytes);
  m.max_concurrent_sequences =
      m.kv_budget_bytes > 0 ? static_cast<int64_t>(std::floor(m.kv_budget_bytes / m.kv_bytes_per_sequence)) : 0;
  return m;
}

absl::Status DoesNotFit(const ServingWorkload& w, const ServingMemory& mem, const GpuSpec& gpu, int tp) {
  const EngineProfile p = EngineProfileFor(w.engine, gpu, tp, w.engine_version);
  double usable = p.fraction_of_free
                      ? gpu.memory_bytes - kRuntimeReservedBytes
                      : std::min(p.memory_fraction * gpu.memory_bytes, gpu.memory_bytes - kRuntimeReservedBytes);
  if (!p.fraction_of_free && w.engine == ServingEngine::kVllm) usable = VllmUsableBytes(gpu, tp, p.memory_fraction);
  if (mem.weights_bytes + mem.activation_bytes >= usable) {
    return absl::FailedPreconditionError(
        absl::StrFormat("weights need %.1f GiB per GPU at tp=%d; %s has %.1f GiB usable of %.1f GiB under %s",
                        mem.weights_bytes / units::kGiB, tp, gpu.name, (usable - mem.activation_bytes) / units::kGiB,
                        gpu.memory_bytes / units::kGiB, ServingEngineName(w.engine)));
  }
  return absl::FailedPreconditionError(
      absl::StrFormat("one sequence of %d tokens needs %.2f GiB of KV cache per GPU at tp=%d; %s has %.2f GiB "
                      "left after %.1f GiB of weights",
                      w.prompt_tokens + w.output_tokens, mem.kv_bytes_per_sequence / units::kGiB, tp, gpu.name,
                      mem.kv_budget_bytes / units::kGiB, mem.weights_bytes / units::kGiB));
}

}  // namespace serving_internal

double WeightBytesPerParameter(Precision p) {
  if (p == Precision::kInt4) return 0.5 + 4.0 / 128.0;  // FP16 scale + zero per 128 weights
  return BytesPerElement(p);
}

double KvBytesPerToken(const ModelArchitecture& shape, Precision kv_precision) {
  return static_cast<double>(shape.num_layers) * serving_internal::KvElementsPerTokenPerLayer(shape, 1) *
         BytesPerElement(kv_precision);
}

absl::StatusOr<ServingMemory> ServingMemoryPerGpu(const ServingWorkload& w, const GpuSpec& gpu, int tp) {
  CAPPLAN_RETURN_IF_ERROR(serving_internal::Prechecks(w, gpu, tp));
  absl::StatusOr<serving_internal::Shape> s = serving_internal::ShapeOf(w.model);
  if (!s.ok()) return s.status();
  return serving_internal::MemoryOf(w, *s, gpu, tp);
}

}  // namespace capplan::core
