// Names and one-line explanations of training estimates and rejected layouts.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/assumptions.h"
#include "core/training/training.h"
#include "core/units.h"

namespace capplan::core {

const char* RecomputeName(Recompute r) {
  switch (r) {
    case Recompute::kNone:
      return "none";
    case Recompute::kSelective:
      return "selective";
    case Recompute::kFull:
      return "full";
  }
  return "unknown";
}

const char* OffloadName(Offload o) {
  switch (o) {
    case Offload::kNone:
      return "none";
    case Offload::kOptimizer:
      return "optimizer";
    case Offload::kOptimizerAndParameters:
      return "optimizer+parameters";
  }
  return "unknown";
}

namespace {
std::string Layout(const ParallelConfig& p) {
  std::string out = absl::StrFormat("tp=%d pp=%d dp=%d", p.tp, p.pp, p.dp);
  if (p.vpp > 1) absl::StrAppend(&out, " vpp=", p.vpp);
  if (p.cp > 1) absl::StrAppend(&out, " cp=", p.cp);
  if (p.ep > 1) absl::StrAppend(&out, " ep=", p.ep);
  absl::StrAppendFormat(&out, " ZeRO-%d", p.zero_stage);
  if (p.shard_group > 0) absl::StrAppend(&out, " shard-group=", p.shard_group);
  if (p.offload != Offload::kNone) absl::StrAppend(&out, " offload=", OffloadName(p.offload));
  absl::StrAppendFormat(&out, " recompute=%s micro-batch=%d", RecomputeName(p.recompute), p.micro_batch);
  return out;
}
}  // namespace

std::string ExplainTraining(const TrainingEstimate& e, const GpuSpec& gpu) {
  const ParallelConfig& p = e.parallel;
  const Fabric& f = e.fabric;
  std::string why = absl::StrFormat("%d x %s, %s: ", p.NumGpus(), gpu.name, Layout(p));
  if (p.tp > 1) absl::StrAppend(&why, "tensor parallel ", p.tp, " inside ", f.gpus_per_node, "-GPU nodes; ");
  if (p.cp > 1) absl::StrAppend(&why, "each sequence split over ", p.cp, " GPUs (context parallel); ");
  if (p.pp > 1) {
    absl::StrAppendFormat(&why, "%d pipeline stages%s, bubble %.1f%% of compute; ", p.pp,
                          p.vpp > 1 ? absl::StrCat(" x ", p.vpp, " interleaved") : "",
                          100.0 * (p.pp - 1) / (e.micro_batches_per_step * p.vpp));
  }
  if (p.ep > 1) absl::StrAppend(&why, "experts spread over ", p.ep, " GPUs; ");
  if (p.dp * p.cp > 1) {
    absl::StrAppend(&why, p.zero_stage == 3 ? "ZeRO-3 shards weights too (gathers every micro-batch); "
                                            : "ZeRO-2 shards gradients and optimizer state at no "
                                              "extra traffic; ");
  }
  if (p.shard_group > 0) {
    absl::StrAppend(&why, "state sharded inside groups of ", p.shard_group,
                    " GPUs and replicated across them (HSDP), gradients all-reduced across groups; ");
  }
  if (p.offload != Offload::kNone) {
    absl::StrAppendFormat(&why, "%s offloaded to host memory, %.2f s per step on the host link and CPU step; ",
                          p.offload == Offload::kOptimizer ? "optimizer state and gradients"
                                                           : "optimizer state, "
                                                             "gradients and parameters",
                          e.offload_seconds_per_step);
  }
  if (e.expert_gemm_efficiency < 0.999) {
    absl::StrAppendFormat(&why, "routed experts' grouped GEMMs at %.0f%% of a large GEMM's rate (%s); ",
                          100 * e.expert_gemm_efficiency, Quote(assumptions::kMoeRoutingImbalance));
  }
  if (p.recompute != Recompute::kNone) {
    absl::StrAppend(&why, RecomputeName(p.recompute), " recompute needed to fit; ");
  }
  if (p.NumGpus() > f.gpus_per_node && f.network != NetworkKind::kNone) {
    absl::StrAppendFormat(&why, "%s between nodes at %.1f GB/s per GPU; ", NetworkKindName(f.network),
                          f.network_bytes_per_second_per_gpu / 1e9);
  }
  absl::StrAppendFormat(&why,
                        "global batch %.2fM tokens; needs %.1f GiB of %.1f GiB per GPU; bottleneck %s; "
                        "steady-state MFU %.0f%%",
                        e.global_batch_tokens / 1048576.0, e.memory_per_gpu.TotalBytes() / units::kGiB,
                        e.capacity_bytes / units::kGiB, BottleneckName(e.bottleneck), e.mfu * 100);
  if (e.range_band != nullptr) {
    // Which regime's development-set residuals the low-high comes from.
    const char* regime = e.range_band == &assumptions::kRangeTrainingMoe       ? "MoE"
                         : e.range_band == &assumptions::kRangeTrainingSharded ? "sharded (ZeRO-3 / FSDP)"
                                                                               : "dense";
    absl::StrAppend(&why, "; low-high from the ", regime, " training runs' residuals (", Quote(*e.range_band),
                    ", docs/validation/README.md)");
  }
  return why;
}

std::string DescribeRejection(const LayoutRejection& r, const GpuSpec& gpu, const TrainingJob* job) {
  const int n = r.parallel.NumGpus();
  if (r.reason == LayoutRejectReason::kMemory) {
    // What would cut the need: the levers this layout and this job have not pulled yet.
    std::string levers = "more GPUs (more pipeline or tensor parallel)";
    if (r.parallel.zero_stage < 3) absl::StrAppend(&levers, ", ZeRO-3");
    if (r.parallel.recompute != Recompute::kFull) absl::StrAppend(&levers, ", full recompute");
    const TrainingMethod method = job != nullptr ? job->method : TrainingMethod::kFull;
    if (method == TrainingMethod::kFull && (job == nullptr || job->optimizer == Optimizer::kAdamW)) {
      absl::StrAppend(&levers, ", 8-bit optimizer state");
    }
    if (method == TrainingMethod::kFull) absl::StrAppend(&levers, ", LoRA/QLoRA");
    if (method == TrainingMethod::kLora) absl::StrAppend(&levers, ", QLoRA (4-bit base weights)");
    return absl::StrFormat("%d x %s (%s): needs %.1f GiB per GPU, %s has %.1f GiB; would fit with %s", n, gpu.name,
                           Layout(r.parallel), r.needed_bytes / units::kGiB, gpu.name, r.capacity_bytes / units::kGiB,
                           levers);
  }
  if (r.reason == LayoutRejectReason::kBatch) {
    return absl::StrFormat(
        "%d x %s: data parallel %d exceeds the global batch of %.0f sequences; raise "
        "global_batch_tokens or use fewer GPUs",
        n, gpu.name, r.parallel.dp, r.global_batch_sequences);
  }
  return absl::StrFormat("%d x %s (%s): takes %.1f days, deadline %.1f days", n, gpu.name, Layout(r.parallel),
                         r.duration_seconds / 86400.0, r.deadline_seconds / 86400.0);
}

}  // namespace capplan::core
