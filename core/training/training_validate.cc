// Input checks for training jobs and parallel layouts: InvalidArgument naming the field and
// its allowed range. A job's fields are named as the API's TrainingWorkload names them
// (sequence_tokens, goodput_fraction), since the server passes these messages on.
#include "core/training/training.h"
#include "core/validate.h"

namespace capplan::core {

absl::Status ValidateTrainingJob(const TrainingJob& job) {
  CAPPLAN_RETURN_IF_ERROR(ValidateModel(job.model));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("tokens", job.tokens, 1e3, 1e15));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("sequence_tokens", job.sequence_length, int64_t{16}, int64_t{1} << 20));
  if (job.global_batch_tokens != 0) {  // 0: searched
    CAPPLAN_RETURN_IF_ERROR(
        CheckRange("global_batch_tokens", job.global_batch_tokens, static_cast<double>(job.sequence_length), 1e9));
  }
  const int prec = static_cast<int>(job.precision);
  if (!IsValidPrecision(prec) || job.precision == Precision::kTf32 || job.precision == Precision::kInt8 ||
      job.precision == Precision::kInt4) {
    return FieldError("precision", "training supports fp32, bf16, fp16 or fp8 (mixed precision)");
  }
  CAPPLAN_RETURN_IF_ERROR(CheckRange("method", static_cast<int64_t>(job.method), 0, 2));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("optimizer", static_cast<int64_t>(job.optimizer), 0, 2));
  if (job.method != TrainingMethod::kFull) {
    CAPPLAN_RETURN_IF_ERROR(CheckRange("lora_rank", static_cast<int64_t>(job.lora_rank), 1, 4096));
  }
  CAPPLAN_RETURN_IF_ERROR(CheckRange("goodput_fraction", job.goodput, 0.05, 1.0));
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
  CAPPLAN_RETURN_IF_ERROR(CheckRange("vpp", static_cast<int64_t>(p.vpp), 1, 128));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("cp", static_cast<int64_t>(p.cp), 1, 1024));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("ep", static_cast<int64_t>(p.ep), 1, 1024));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("shard_group", static_cast<int64_t>(p.shard_group), 0, 1 << 20));
  CAPPLAN_RETURN_IF_ERROR(CheckRange("offload", static_cast<int64_t>(p.offload), 0, 2));
  if (shape.num_attention_heads % p.tp != 0) {
    return FieldError("tp",
                      absl::StrCat("must divide num_attention_heads ", shape.num_attention_heads, ", got ", p.tp));
  }
  if (p.pp > shape.num_layers) {
    return FieldError("pp", absl::StrCat("must be at most num_layers ", shape.num_layers, ", got ", p.pp));
  }
  return absl::OkStatus();
}

}  // namespace capplan::core
