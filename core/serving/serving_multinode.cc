// Multi-node serving: tensor parallel inside a node, pipeline parallel across nodes. See
// serving_multinode.h for the model and its sources.
#include "core/serving/serving_multinode.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "core/format.h"
#include "core/model.h"
#include "core/serving/serving_disagg.h"
#include "core/serving/serving_internal.h"
#include "core/validate.h"

namespace capplan::core {

namespace {

// As serving.cc: the search's bound on concurrent sequences per replica.
constexpr int64_t kMaxBatch = kMaxServingBatch;
// 16-bit activations cross the stage boundaries (vLLM sends the model dtype's tensors).
constexpr double kActivationBytes = 2.0;
constexpr double kTensorsPerToken = assumptions::kServingPpActivationTensors.value.point;
constexpr double kMicroBatchesPerStage = assumptions::kServingPpMicroBatchesPerStage.value.point;

absl::Status CheckLayout(const ServingWorkload& w, const GpuSpec& gpu, const Fabric& f, int tp, int pp) {
  CAPPLAN_RETURN_IF_ERROR(ValidateFabric(f));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("pp", int64_t{pp}, 2, kMaxServingPipelineStages));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("tp", int64_t{tp}, 1, std::max(1, std::min(f.gpus_per_node, gpu.gpus_per_node))));
  if (f.network == NetworkKind::kNone || !(f.network_bytes_per_second_per_gpu > 0)) {
    return FieldError("fabric.network", "pipeline stages on different nodes need a network between them");
  }
  const ModelArchitecture m = EffectiveShape(w.model);
  if (m.num_layers < pp) {
    return FieldError("pp", absl::StrCat("the model has ", m.num_layers, " layers, fewer than ", pp, " stages"));
  }
  return absl::OkStatus();
}

// The heaviest stage as a model of its own: ceil(L / pp) layers, all of them MoE when the
// other stages can take the leading dense ones, and one vocabulary matrix (the first stage
// holds the embedding, the last the output projection; vllm/model_executor/models/llama.py
// at commit e06c9ba2a6ea923a84add30f5dafaea126429b81 builds each only on its end stage).
ServingWorkload StageWorkload(const ServingWorkload& w, int pp) {
  ServingWorkload s = w;
  ModelArchitecture m = EffectiveShape(w.model);
  const int64_t layers = (m.num_layers + pp - 1) / pp;
  m.num_dense_layers = std::max<int64_t>(0, m.num_dense_layers - (m.num_layers - layers));
  m.num_layers = layers;
  m.tied_embeddings = true;
  s.model = m;
  return s;
}

// One stage boundary carrying `tokens` tokens' activations: the network's latency and the
// bytes over the tp GPUs' NICs (each rank sends its 1/tp slice; vLLM's send_tensor_dict
// splits over the tensor-parallel group and all-gathers on arrival).
double HopSeconds(const Fabric& f, int64_t hidden, int tp, double tokens) {
  const double bytes = tokens * static_cast<double>(hidden) * kTensorsPerToken * kActivationBytes;
  return f.network_latency_seconds + bytes / (static_cast<double>(tp) * f.network_bytes_per_second_per_gpu);
}

struct Piped {
  double ttft, tpot, e2e, rps;
};

// A stage's figures at micro-batch `mb` turned into the replica's: a token passes pp stages,
// pp-1 activation boundaries and the sampled token's way back to the first stage (latency
// only); a prompt's chunks each make that round trip. pp micro-batches are in flight.
Piped Pipe(const ServingWorkload& w, const Fabric& f, int tp, int pp, int64_t mb, int64_t hidden, double stage_ttft,
           double stage_tpot, const PrefillEstimate& prefill) {
  const double P = static_cast<double>(w.prompt_tokens), O = static_cast<double>(w.output_tokens);
  const double stages = static_cast<double>(pp), chunks = static_cast<double>(std::max<int64_t>(1, prefill.chunks));
  // A request sends P + O - 1 tokens through each boundary over chunks + O - 1 iterations;
  // an iteration of mb requests carries mb times that share.
  const double tokens_per_iteration = static_cast<double>(mb) * (P + O - 1.0) / (chunks + O - 1.0);
  const double hop = HopSeconds(f, hidden, tp, tokens_per_iteration);
  Piped p;
  p.tpot = stages * stage_tpot + (stages - 1.0) * hop + f.network_latency_seconds;
  const double prompt_bytes_seconds = HopSeconds(f, hidden, tp, P) - f.network_latency_seconds;
  p.ttft = stages * stage_ttft + (stages - 1.0) * prompt_bytes_seconds + chunks * stages * f.network_latency_seconds;
  p.e2e = p.ttft + (O - 1.0) * p.tpot;
  p.rps = stages * kMicroBatchesPerStage * static_cast<double>(mb) / p.e2e;  // Little's law
  return p;
}

struct StageSetup {
  ServingWorkload w;
  ServingMemory memory;
  PrefillEstimate prefill;
  int64_t max_micro_batch = 0;
  int64_t hidden = 0;
};

absl::StatusOr<StageSetup> Setup(const ServingWorkload& w, const GpuSpec& gpu, const Fabric& f, int tp, int pp,
                                 const ServingEfficiency& eff) {
  CAPPLAN_RETURN_IF_ERROR(ValidateServingWorkload(w));
  CAPPLAN_RETURN_IF_ERROR(CheckLayout(w, gpu, f, tp, pp));
  StageSetup s{StageWorkload(w, pp), {}, {}, 0, EffectiveShape(w.model).hidden_size};
  // ServingMemoryPerGpu and EstimatePrefill of one stage, checked once.
  const serving_internal::Stepper stage(s.w, gpu, tp, eff);
  CAPPLAN_RETURN_IF_ERROR(stage.status());
  const ServingMemory* mem = &stage.memory();
  s.memory = *mem;
  // Each stage's GPUs hold the KV cache of every sequence in flight, for their layers.
  const double in_flight = static_cast<double>(pp) * kMicroBatchesPerStage;
  s.max_micro_batch = static_cast<int64_t>(
      std::floor(static_cast<double>(std::min(mem->max_concurrent_sequences, kMaxBatch)) / in_flight));
  if (s.max_micro_batch < 1) {
    // The stage estimator names what does not fit (weights, or one sequence's KV cache).
    absl::StatusOr<ServingEstimate> one = stage.AtBatch(1);
    const std::string why = one.ok() ? absl::StrCat("the KV cache holds ", mem->max_concurrent_sequences,
                                                    " sequences, fewer than one per micro-batch")
                                     : std::string(one.status().message());
    return absl::FailedPreconditionError(
        absl::StrCat("at tp=", tp, " pp=", pp, " (", s.w.model.num_layers, " layers per node): ", why));
  }
  absl::StatusOr<PrefillEstimate> p = stage.PrefillOf(w.prompt_tokens);
  if (!p.ok()) return p.status();
  s.prefill = *p;
  return s;
}

// `stage`: the estimator of one stage (s.w on the GPU at tp).
absl::StatusOr<MultiNodeServing> AtMicroBatch(const ServingWorkload& w, const Fabric& f, int tp, int pp,
                                              const StageSetup& s, const serving_internal::Stepper& stage, int64_t mb) {
  absl::StatusOr<ServingEstimate> st = stage.AtBatch(mb);
  if (!st.ok()) return st.status();
  MultiNodeServing m;
  m.tp = tp;
  m.pp = pp;
  m.micro_batch = mb;
  m.stage_layers = s.w.model.num_layers;
  m.network = f.network;
  m.stage_step_seconds = st->tpot_seconds;
  m.stage_prefill = s.prefill;
  const Piped point = Pipe(w, f, tp, pp, mb, s.hidden, st->ttft_seconds, st->tpot_seconds, s.prefill);
  const Piped fast = Pipe(w, f, tp, pp, mb, s.hidden, st->ttft_seconds_low, st->tpot_seconds_low, s.prefill);
  const Piped slow = Pipe(w, f, tp, pp, mb, s.hidden, st->ttft_seconds_high, st->tpot_seconds_high, s.prefill);
  const double P = static_cast<double>(w.prompt_tokens), O = static_cast<double>(w.output_tokens);
  const double chunks = static_cast<double>(std::max<int64_t>(1, s.prefill.chunks));
  m.decode_hop_bytes = static_cast<double>(mb) * (P + O - 1.0) / (chunks + O - 1.0) * static_cast<double>(s.hidden) *
                       kTensorsPerToken * kActivationBytes;
  m.decode_hop_seconds = f.network_latency_seconds + m.decode_hop_bytes / (tp * f.network_bytes_per_second_per_gpu);
  m.prefill_hops_seconds = point.ttft - static_cast<double>(pp) * st->ttft_seconds;
  ServingEstimate& e = m.estimate;
  e = *st;
  e.tp = tp;
  e.batch = static_cast<int64_t>(static_cast<double>(pp) * kMicroBatchesPerStage) * mb;
  e.requested_batch = e.batch;
  e.batch_limited_by_memory = false;
  e.ttft_seconds = point.ttft;
  e.ttft_seconds_low = fast.ttft;
  e.ttft_seconds_high = slow.ttft;
  e.tpot_seconds = point.tpot;
  e.tpot_seconds_low = fast.tpot;
  e.tpot_seconds_high = slow.tpot;
  e.e2e_seconds = point.e2e;
  e.requests_per_second_per_replica = point.rps;
  e.requests_per_second_low = slow.rps;
  e.requests_per_second_high = fast.rps;
  e.output_tokens_per_second_per_replica = point.rps * O;
  const double usable = point.rps * w.target_utilization;
  e.replicas = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(w.requests_per_second / usable - 1e-9)));
  e.total_gpus = e.replicas * m.GpusPerReplica();
  e.prefill_seconds = static_cast<double>(pp) * s.prefill.seconds + m.prefill_hops_seconds;
  e.shape_inferred = !w.model.HasArchitecture();
  // The boundaries outweigh the stages' own work: the network binds.
  if ((pp - 1.0) * m.decode_hop_seconds > pp * st->tpot_seconds) e.bottleneck = Bottleneck::kInterconnect;
  return m;
}

bool MeetsSlo(const ServingWorkload& w, const ServingEstimate& e) {
  return (w.ttft_slo_seconds <= 0 || e.ttft_seconds <= w.ttft_slo_seconds) &&
         (w.tpot_slo_seconds <= 0 || e.tpot_seconds <= w.tpot_slo_seconds) &&
         (w.e2e_slo_seconds <= 0 || e.e2e_seconds <= w.e2e_slo_seconds);
}

std::string SloMiss(const ServingWorkload& w, const ServingEstimate& e) {
  if (w.ttft_slo_seconds > 0 && e.ttft_seconds > w.ttft_slo_seconds) {
    return absl::StrCat("time to first token ", Latency(e.ttft_seconds), " > SLO ", Latency(w.ttft_slo_seconds));
  }
  if (w.tpot_slo_seconds > 0 && e.tpot_seconds > w.tpot_slo_seconds) {
    return absl::StrCat("time per output token ", Latency(e.tpot_seconds), " > SLO ", Latency(w.tpot_slo_seconds));
  }
  return absl::StrCat("end-to-end ", Latency(e.e2e_seconds), " > SLO ", Latency(w.e2e_slo_seconds));
}

}  // namespace

absl::StatusOr<MultiNodeServing> EstimateMultiNodeServingAtBatch(const ServingWorkload& w, const GpuSpec& gpu,
                                                                 const Fabric& fabric, int tp, int pp, int64_t batch,
                                                                 const ServingEfficiency& eff) {
  CAPPLAN_RETURN_IF_ERROR(CheckRange("batch", batch, int64_t{1}, kMaxBatch));
  absl::StatusOr<StageSetup> s = Setup(w, gpu, fabric, tp, pp, eff);
  if (!s.ok()) return s.status();
  const int64_t in_flight = static_cast<int64_t>(static_cast<double>(pp) * kMicroBatchesPerStage);
  const int64_t wanted = std::max<int64_t>(1, (batch + in_flight - 1) / in_flight);
  const serving_internal::Stepper stage(s->w, gpu, tp, eff, /*inputs_checked=*/true);  // by Setup
  absl::StatusOr<MultiNodeServing> m = AtMicroBatch(w, fabric, tp, pp, *s, stage, std::min(wanted, s->max_micro_batch));
  if (!m.ok()) return m;
  m->estimate.requested_batch = batch;
  m->estimate.batch_limited_by_memory = wanted > s->max_micro_batch;
  return m;
}

absl::StatusOr<MultiNodeServing> EstimateMultiNodeServing(const ServingWorkload& w, const GpuSpec& gpu,
                                                          const Fabric& fabric, int tp, int pp,
                                                          const ServingEfficiency& eff, const BatchMemoRef& memo) {
  absl::StatusOr<StageSetup> s = Setup(w, gpu, fabric, tp, pp, eff);
  if (!s.ok()) return s.status();
  const serving_internal::Stepper stage(s->w, gpu, tp, eff, /*inputs_checked=*/true);  // by Setup
  std::string key;
  if (memo.memo != nullptr) {
    key = memo.Key('m', tp, pp, &fabric);
    const int64_t known = memo.memo->Find(key);
    if (known >= 1 && known <= s->max_micro_batch) return AtMicroBatch(w, fabric, tp, pp, *s, stage, known);
  }
  absl::StatusOr<MultiNodeServing> one = AtMicroBatch(w, fabric, tp, pp, *s, stage, 1);
  if (!one.ok()) return one;
  if (!MeetsSlo(w, one->estimate)) {
    return absl::FailedPreconditionError(
        absl::StrCat(gpu.name, " at tp=", tp, " pp=", pp,
                     " misses the SLO even at one sequence per micro-batch: ", SloMiss(w, one->estimate)));
  }
  // Latency grows and throughput rises with the micro-batch: the largest that meets the SLOs.
  const int64_t mb = LargestBatchWhere(s->max_micro_batch, [&](int64_t k) {
    absl::StatusOr<MultiNodeServing> at = AtMicroBatch(w, fabric, tp, pp, *s, stage, k);
    return at.ok() && MeetsSlo(w, at->estimate);
  });
  if (memo.memo != nullptr) memo.memo->Store(key, std::max<int64_t>(1, mb));
  return AtMicroBatch(w, fabric, tp, pp, *s, stage, std::max<int64_t>(1, mb));
}

int MultiNodeTensorParallel(const ServingWorkload& w, int gpus_per_node) {
  const int64_t heads = EffectiveShape(w.model).num_attention_heads;
  int best = 0;
  for (int tp = 1; tp <= gpus_per_node; tp *= 2) {
    if (heads > 0 && heads % tp == 0) best = tp;
  }
  return best;
}

std::vector<MultiNodeOption> SearchMultiNodeServing(const ServingWorkload& w, const GpuSpec& gpu, const Fabric& fabric,
                                                    const ServingEfficiency& eff, int max_fitting,
                                                    const BatchMemoRef& memo) {
  std::vector<MultiNodeOption> out;
  if (!ValidateServingWorkload(w).ok() || !ValidateFabric(fabric).ok()) return out;
  if (fabric.network == NetworkKind::kNone || !(fabric.network_bytes_per_second_per_gpu > 0)) return out;
  const int tp = MultiNodeTensorParallel(w, std::min(fabric.gpus_per_node, gpu.gpus_per_node));
  if (tp < 1) return out;
  const int64_t layers = EffectiveShape(w.model).num_layers;
  int fitting = 0;
  for (int pp = 2; pp <= kMaxServingPipelineStages && pp <= layers; ++pp) {
    out.push_back({EstimateMultiNodeServing(w, gpu, fabric, tp, pp, eff, memo), tp, pp});
    if (out.back().serving.ok() && ++fitting == max_fitting) break;
  }
  return out;
}

}  // namespace capplan::core
