// The development set's memory regime: measured per-GPU training peaks and engine KV-cache
// budgets from public logs and tables, each row naming its source (docs/validation/README.md,
// "Memory"). Per-row errors are printed and may be tuned on; the frozen test set is elsewhere.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/assumptions.h"
#include "core/serving/serving.h"
#include "core/training/training.h"
#include "core/units.h"
#include "fixtures.h"
#include "tests/core/validation_score.h"

namespace capplan::core {
namespace {

using testing::A100_80GB;
using testing::H100_SXM;
using testing::Llama2_70B;
using testing::Llama2_7B;
using testing::Llama3_8B;

// What capplan counts as allocated tensors: its per-GPU total less the process's CUDA context
// and the caching allocator's fragmentation (core/assumptions.h, memory.*), which
// torch.cuda.max_memory_allocated() does not see.
double AllocatedBytes(const MemoryBreakdown& m) {
  const double states =
      m.weights_bytes + m.gradients_bytes + m.optimizer_bytes + m.activations_bytes + m.kv_cache_bytes;
  return m.TotalBytes() - assumptions::kContextBytes.value.point -
         assumptions::kFragmentationFraction.value.point * states;
}

// A known gap is scored and printed but not asserted; its reason is in the comment above its rows.
constexpr double kKnownGap = -1;

// Prints and scores one row, and asserts |capplan / published - 1| <= tolerance unless the row
// is a known gap.
void Score(const std::string& id, double published_bytes, double capplan_bytes, double tolerance,
           std::map<std::string, testdata::RegimeScore>* scores) {
  (*scores)["memory"].Answer(published_bytes, capplan_bytes, capplan_bytes, capplan_bytes, false);
  const double ratio = capplan_bytes / published_bytes;
  std::printf("  %-52s published %6.2f GiB  capplan %6.2f GiB  %+6.1f%%%s\n", id.c_str(), published_bytes / units::kGiB,
              capplan_bytes / units::kGiB, 100.0 * (ratio - 1.0), tolerance < 0 ? "  (known gap)" : "");
  if (tolerance >= 0) {
    EXPECT_NEAR(ratio, 1.0, tolerance) << id;
  }
}

TrainingJob Job(const ModelArchitecture& m, int64_t seq, int64_t sequences) {
  TrainingJob job;
  job.model = m;
  job.sequence_length = seq;
  job.global_batch_tokens = static_cast<double>(seq * sequences);
  job.tokens = 1e12;
  return job;
}

// hiyouga/LLaMA-Factory wiki, "Performance comparison" (rev. 2024-04-15): LLaMA2-7B, LoRA
// rank 8 on all linear modules, FlashAttention-2, gradient checkpointing (LLaMA-Factory's
// default), AdamW; "VRAM" per GPU (tool not stated, read as GiB). 16-bit LoRA, batch 4 x
// 1,024 tokens: 17 GB; 4-bit QLoRA on 1 x A100 40GB, batch 1, by sequence length: 6 / 7 / 9 /
// 12 / 19 / 32 GB at 1,024 / 2,048 / 4,096 / 8,192 / 16,384 / 32,768 tokens.
void LlamaFactoryRows(std::map<std::string, testdata::RegimeScore>* scores) {
  struct Row {
    TrainingMethod method;
    int64_t seq, batch;
    double published_gib;
    double tolerance;
  };
  // The slope over sequence length is the logits' (memory.adapter_logit_bytes_per_vocab_entry): with
  // Megatron's 4 bytes capplan read 14.0 and 22.5 GiB at 16k and 32k tokens. The 16-bit LoRA row
  // is 10% high: the wiki prints 18 GB for the same run without FlashAttention-2 and 17 with it.
  for (const Row& r : {Row{TrainingMethod::kLora, 1024, 4, 17, 0.12}, Row{TrainingMethod::kQlora, 1024, 1, 6, 0.06},
                       Row{TrainingMethod::kQlora, 2048, 1, 7, 0.06}, Row{TrainingMethod::kQlora, 4096, 1, 9, 0.06},
                       Row{TrainingMethod::kQlora, 8192, 1, 12, 0.06}, Row{TrainingMethod::kQlora, 16384, 1, 19, 0.06},
                       Row{TrainingMethod::kQlora, 32768, 1, 32, 0.06}}) {
    TrainingJob job = Job(Llama2_7B(), r.seq, r.batch);
    job.method = r.method;
    job.lora_rank = 8;
    ParallelConfig p;
    p.micro_batch = r.batch;
    p.recompute = Recompute::kFull;
    absl::StatusOr<MemoryBreakdown> m = TrainingMemoryPerGpu(job, p);
    ASSERT_TRUE(m.ok()) << m.status();
    const std::string id =
        absl::StrCat("llamafactory-", r.method == TrainingMethod::kLora ? "lora16-" : "qlora4-", r.seq, "x", r.batch);
    Score(id, r.published_gib * units::kGiB, m->TotalBytes(), r.tolerance, scores);
  }
}

// chenyaofo, "Benchmark of LLaMA-7B models using deepspeed-based training code", GitHub gist
// d4cd6a20ab4b95cb3a49491747e2139a (https://gist.github.com/chenyaofo/d4cd6a20ab4b95cb3a49491747e2139a),
// Table: 8 x A800 80GB, CUDA 12.1, PyTorch 2.2.0, DeepSpeed 0.14.2, Hugging Face LLaMA-7B,
// sequence 4,096, bf16 AdamW, 64 sequences per step. "GPU Mem." is
// torch.cuda.memory_allocated() / torch.cuda.max_memory_allocated() (footnote 7); the peak is
// the second figure, printed without a unit and read as GiB (bytes / 2^30). Attention runs in
// PyTorch SDPA (Transformers' default with PyTorch 2.2), which stores no s x s scores.
// Not used: the ZeRO++ row (quantised collectives, not modelled) and the 8/128 row (gradient
// accumulation doubles its peak over the 8/64 row for a reason the gist does not give).
// These are full fine-tunes on the Hugging Face stack, and capplan counts full training as
// Megatron runs it: fused fp32 cross-entropy (4 bytes per logit, not the ~14 of Transformers'
// upcast, memory.adapter_logit_bytes_per_vocab_entry) and Megatron's per-layer activations, while
// Hugging Face's eager layers keep more (RMSNorm upcasts to fp32, SwiGLU unfused; the ZeRO-2 row
// without checkpointing implies ~49·h bytes per token and layer against capplan's ~32·h). capplan
// is low by up to 25% here, asserted at that. Known gaps besides: ZeRO-3 without checkpointing
// (-36%; ZeRO-3 also keeps gathered parameters live, stage3_max_live_parameters); ZeRO-3 with
// parameter offload at 4 sequences prints 7.9 GiB, less than the 2-sequence rows' activations
// alone imply, for a reason the gist does not give; ZeRO-2 with checkpointing at 1 sequence
// (+15%) against 4 (-14%): the gist's growth per sequence (5.0 GiB) is steeper than capplan's
// (2.0) and its fixed part lower; the optimizer is not stated, so its states are not known to be
// Adam's 12 bytes per parameter.
void DeepSpeedGistRows(std::map<std::string, testdata::RegimeScore>* scores) {
  struct Row {
    int zero;
    bool checkpointing;
    Offload offload;
    int64_t micro_batch;
    double peak_gib;
    double tolerance;
  };
  for (const Row& r : {Row{2, false, Offload::kNone, 1, 44.8, 0.25}, Row{2, true, Offload::kNone, 1, 23.5, kKnownGap},
                       Row{2, true, Offload::kOptimizer, 1, 16.9, 0.25}, Row{2, true, Offload::kNone, 4, 38.6, 0.25},
                       Row{3, false, Offload::kNone, 2, 75.7, kKnownGap}, Row{3, true, Offload::kNone, 2, 20.4, 0.25},
                       Row{3, true, Offload::kOptimizer, 2, 9.4, 0.25},
                       Row{3, true, Offload::kOptimizerAndParameters, 4, 7.9, kKnownGap},
                       Row{3, true, Offload::kNone, 8, 39.1, 0.25}}) {
    const TrainingJob job = Job(Llama2_7B(), 4096, 64);
    ParallelConfig p;
    p.dp = 8;
    p.zero_stage = r.zero;
    p.offload = r.offload;
    p.micro_batch = r.micro_batch;
    p.recompute = r.checkpointing ? Recompute::kFull : Recompute::kNone;
    absl::StatusOr<MemoryBreakdown> m = TrainingMemoryPerGpu(job, p);
    ASSERT_TRUE(m.ok()) << m.status();
    const std::string id = absl::StrCat(
        "deepspeed-llama7b-z", r.zero, r.checkpointing ? "-ckpt" : "", r.offload == Offload::kNone ? "" : "-",
        r.offload == Offload::kNone ? "" : OffloadName(r.offload), "-mb", r.micro_batch);
    Score(id, r.peak_gib * units::kGiB, AllocatedBytes(*m), r.tolerance, scores);
  }
}

// Lightning-AI/litgpt `tutorials/resource-tables.md` @ 0cc02afa (2023-10-27; "Lit-GPT version:
// commit 8641822", 1 x A100-SXM4-40GB, PyTorch 2.1.0, bitsandbytes 0.41.1), the single-GPU LoRA
// table: `finetune/lora.py` at 8641822, LoRA rank 8 on the query and value projections only,
// `--precision bf16-true` (weights, adapters and AdamW states in bf16; QLoRA: bnb PagedAdamW),
// no activation checkpointing, PyTorch SDPA (no stored scores), the loss as
// `lm_head_chunk_size=128` logits chunks and `chunked_cross_entropy`. The first micro-batch is
// forced to the longest Alpaca sample (Llama 2 1,304 tokens, StableLM Alpha 1,034, phi-1.5
// 1,044), so the peak's length is known. "Max GPU RAM" is torch.cuda.max_memory_allocated() /
// 1e9 ("GB"). Not used: the OOM rows and the FSDP rows (above the one-GPU ones for the same model:
// the peak there is not the training step's). Models from their config.json: microsoft/phi-1_5,
// stabilityai/stablelm-base-alpha-3b (GELU MLPs, untied heads), meta-llama/Llama-2-{7b,13b}-hf.
// Printed, not asserted: these rows were added after the memory model's forms were chosen, and
// they differ from it in ways capplan has no input for (docs/validation/README.md, "Memory from
// eager PyTorch trainers").
void LitGptRows(std::map<std::string, testdata::RegimeScore>* scores) {
  ModelArchitecture phi = testing::Dense("phi-1.5", 24, 2048, 32, 32, 8192, 51200);
  phi.gated_mlp = false;
  ModelArchitecture stablelm = testing::Dense("StableLM-Alpha-3B", 16, 4096, 32, 32, 16384, 50688);
  stablelm.gated_mlp = false;
  struct Row {
    const char* id;
    ModelArchitecture model;
    TrainingMethod method;
    int64_t seq, micro_batch;
    double published_gb;
  };
  for (const Row& r :
       {Row{"litgpt-phi15-lora-mb1", phi, TrainingMethod::kLora, 1044, 1, 4.82},
        Row{"litgpt-phi15-qlora-mb1", phi, TrainingMethod::kQlora, 1044, 1, 3.78},
        Row{"litgpt-phi15-lora-mb4", phi, TrainingMethod::kLora, 1044, 4, 10.68},
        Row{"litgpt-stablelm3b-lora-mb1", stablelm, TrainingMethod::kLora, 1034, 1, 9.69},
        Row{"litgpt-stablelm3b-qlora-mb1", stablelm, TrainingMethod::kQlora, 1034, 1, 6.35},
        Row{"litgpt-stablelm3b-lora-mb4", stablelm, TrainingMethod::kLora, 1034, 4, 16.92},
        Row{"litgpt-llama2-7b-lora-mb1", Llama2_7B(), TrainingMethod::kLora, 1304, 1, 21.30},
        Row{"litgpt-llama2-7b-qlora-mb1", Llama2_7B(), TrainingMethod::kQlora, 1304, 1, 14.14},
        Row{"litgpt-llama2-7b-lora-mb2", Llama2_7B(), TrainingMethod::kLora, 1304, 2, 29.07},
        Row{"litgpt-llama2-13b-lora-mb1", testing::Llama2_13B(), TrainingMethod::kLora, 1304, 1, 38.12},
        Row{"litgpt-llama2-13b-qlora-mb1", testing::Llama2_13B(), TrainingMethod::kQlora, 1304, 1, 23.14}}) {
    TrainingJob job = Job(r.model, r.seq, 128);
    job.method = r.method;
    job.lora_rank = 8;
    ParallelConfig p;
    p.micro_batch = r.micro_batch;
    p.recompute = Recompute::kNone;
    absl::StatusOr<MemoryBreakdown> m = TrainingMemoryPerGpu(job, p);
    ASSERT_TRUE(m.ok()) << m.status();
    Score(r.id, r.published_gb * 1e9, AllocatedBytes(*m), kKnownGap, scores);
  }
}

// vLLM's KV-cache budget per GPU at gpu_memory_utilization 0.9 (the default), from engine logs.
// [PR10511] youkaichao, comment of 2024-12-14 on https://github.com/vllm-project/vllm/pull/10511
// ("Some sanity checks"): meta-llama/Meta-Llama-3-8B on H100 80GB (total_gpu_memory 79.22GiB),
// vLLM at that PR (v0.6.5 development): tp 1 prints available_kv_cache_memory 53.29GiB (weights
// 14.96, non_torch_memory 1.79, PyTorch activation peak 1.26 GiB); tp 2 prints weights 7.48,
// non_torch 3.58, activation 1.26 of the same 71.29GiB, its total cut off in the retrieved copy:
// 71.29 - 7.48 - 3.58 - 1.26 = 58.97 GiB, the PR's own formula (which gives 53.28 at tp 1).
// [PR2031] WoosukKwon, 2023-12-12, https://github.com/vllm-project/vllm/pull/2031 ("Fix peak
// memory profiling", vLLM v0.2.4): "# GPU blocks" with the PR: Llama2-7B TP=1 on 1 x
// A100-80GB 7351; Llama2-70B TP=4 on 4 x A100-80GB 20865. A block holds 16 tokens (vLLM's
// default block_size); fp16 K and V of every layer: 512 KiB per token for Llama2-7B, 80 KiB per
// token per GPU for Llama2-70B at tp 4 (8 KV heads / 4 x 128 x 80 layers x 2 x 2 bytes).
// Known gap: Llama2-70B at tp 4 under v0.2.4. Its profiler charged ~13 GiB per GPU to memory
// outside PyTorch (the PR's "before" figure, 31,615 blocks = 38.6 GiB, is what a 1 GiB runtime
// gives); vLLM v0.19 measures 2.1 GiB there (serving.tp_communication_buffer_bytes).
// Still open (+2.5%): the profile run's activation peak, 1.26 GiB for Llama-3-8B against
// capplan's 0.69 (the sampler's fp32 logits for 256 sequences are not counted).
void VllmKvRows(std::map<std::string, testdata::RegimeScore>* scores) {
  struct Row {
    const char* id;
    ModelArchitecture model;
    GpuSpec gpu;
    int tp;
    int minor;  // vLLM 0.minor
    double published_bytes;
    double tolerance;
  };
  const double kib = 1024.0;
  for (const Row& r :
       {Row{"vllm-pr10511-h100-llama3-8b-tp1", Llama3_8B(), H100_SXM(), 1, 6, 53.29 * units::kGiB, 0.05},
        Row{"vllm-pr10511-h100-llama3-8b-tp2", Llama3_8B(), H100_SXM(), 2, 6, 58.97 * units::kGiB, 0.05},
        Row{"vllm-pr2031-a100-llama2-7b-tp1", Llama2_7B(), A100_80GB(), 1, 2, 7351 * 16 * 512 * kib, 0.05},
        Row{"vllm-pr2031-a100-llama2-70b-tp4", Llama2_70B(), A100_80GB(), 4, 2, 20865 * 16 * 80 * kib, kKnownGap}}) {
    ServingWorkload w;
    w.model = r.model;
    w.weight_precision = Precision::kFp16;
    w.kv_precision = Precision::kFp16;
    w.engine = ServingEngine::kVllm;
    w.engine_version = EngineVersion{0, r.minor};
    absl::StatusOr<ServingMemory> m = ServingMemoryPerGpu(w, r.gpu, r.tp);
    ASSERT_TRUE(m.ok()) << m.status();
    Score(r.id, r.published_bytes, m->kv_budget_bytes, r.tolerance, scores);
  }
}

TEST(MeasuredMemoryTest, DevelopmentSetMemoryRows) {
  std::map<std::string, testdata::RegimeScore> all;
  std::printf("\nMemory development rows (capplan vs published):\n");
  LlamaFactoryRows(&all);
  DeepSpeedGistRows(&all);
  VllmKvRows(&all);
  // The development set's memory aggregate, in the form docs/validation/README.md reports.
  testdata::PrintRegimeScores("Development set, memory (LLaMA-Factory wiki, DeepSpeed gist, vLLM logs)", all);
  std::map<std::string, testdata::RegimeScore> eager;
  std::printf("\nMemory development rows from eager PyTorch trainers (printed, not asserted):\n");
  LitGptRows(&eager);
  testdata::PrintRegimeScores("Development set, memory (LitGPT resource tables)", eager);
}

}  // namespace
}  // namespace capplan::core
