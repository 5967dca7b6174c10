// Names and one-line explanations of training estimates and rejected layouts.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/training.h"
#include "core/units.h"

namespace capplan::core {

const char* BottleneckName(Bottleneck b) {
  switch (b) {
    case Bottleneck::kCompute:
      return "compute";
    case Bottleneck::kMemoryBandwidth:
      return "memory bandwidth";
    case Bottleneck::kInterconnect:
      return "interconnect";
    case Bottleneck::kNetwork:
      return "network";
    case Bottleneck::kPipelineBubble:
      return "pipeline bubble";
    case Bottleneck::kMemoryCapacity:
      return "memory capacity";
  }
  return "unknown";
}

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

namespace {
std::string Layout(const ParallelConfig& p) {
  return absl::StrFormat("tp=%d pp=%d dp=%d ZeRO-%d recompute=%s micro-batch=%d", p.tp, p.pp, p.dp, p.zero_stage,
                         RecomputeName(p.recompute), p.micro_batch);
}
}  // namespace

std::string ExplainTraining(const TrainingEstimate& e, const GpuSpec& gpu) {
  const ParallelConfig& p = e.parallel;
  std::string why = absl::StrFormat("%d x %s, %s: ", p.NumGpus(), gpu.name, Layout(p));
  if (p.tp > 1) {
    absl::StrAppend(&why, "tensor parallel ", p.tp, " stays inside a ", gpu.gpus_per_node, "-GPU node; ");
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
  absl::StrAppendFormat(&why, "needs %.1f GiB of %.1f GiB per GPU; bottleneck %s; MFU %.0f%%",
                        e.memory_per_gpu.TotalBytes() / units::kGiB, e.capacity_bytes / units::kGiB,
                        BottleneckName(e.bottleneck), e.mfu * 100);
  return why;
}

std::string DescribeRejection(const Rejection& r, const GpuSpec& gpu) {
  const int n = r.parallel.NumGpus();
  if (r.reason == RejectReason::kMemory) {
    return absl::StrFormat("%d x %s (%s): needs %.1f GiB per GPU, %s has %.1f GiB", n, gpu.name, Layout(r.parallel),
                           r.needed_bytes / units::kGiB, gpu.name, r.capacity_bytes / units::kGiB);
  }
  if (r.reason == RejectReason::kBatch) {
    return absl::StrFormat(
        "%d x %s: data parallel %d exceeds the global batch of %.0f sequences; raise "
        "global_batch_tokens or use fewer GPUs",
        n, gpu.name, r.parallel.dp, r.global_batch_sequences);
  }
  return absl::StrFormat("%d x %s (%s): takes %.1f days, deadline %.1f days", n, gpu.name, Layout(r.parallel),
                         r.duration_seconds / 86400.0, r.deadline_seconds / 86400.0);
}

}  // namespace capplan::core
