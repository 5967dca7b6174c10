// Published mixture-of-experts training throughput at 64 to 1,024 H100 GPUs, for the
// development set's MoE regime (docs/validation/published-training-runs.md, "MoE runs below
// 1,000 GPUs"). Validation and model choice only, never calibration. Same fields and
// conventions as published_training_runs.h (kPublishedRuns), which holds the runs at 1,000
// GPUs or more.
//
// Sources
//  - [MPF] Liu, Yan, Yao, Liu, Korthikanti, Wu, Fan, Deng, Bai, Chang, Aithal, Andersch,
//    Shoeybi, Yao, Zhou, Wu, Li, Yang (NVIDIA), "MoE Parallel Folding: Heterogeneous
//    Parallelism Mappings for Efficient Large-Scale MoE Model Training with Megatron Core",
//    arXiv:2504.14960 (https://arxiv.org/abs/2504.14960): Sec. 4.1 (NVIDIA Eos: DGX H100,
//    NVLink 450 GB/s and InfiniBand 400 Gb/s per GPU each way, BF16, PyTorch 2.5.0),
//    Table 1 and App. Table 3 (global batch 256, sequence 4,096, token dropping at capacity
//    factor 1), Table 2 (TFLOP/s), Sec. 4.3 and App. Table 4 (strong scaling at global batch
//    1,024). Only the "MCore" rows are used: their experts take the attention's tensor
//    parallelism and their expert-parallel group is a subgroup of data parallelism, as
//    capplan models them; the "w/ Folding" rows give the experts their own (ETP 1) mapping,
//    which capplan cannot express.
//  - [ZOO] yanring/Megatron-MoE-ModelZoo (NVIDIA Megatron-Core MoE authors) at commit
//    e865051, best_practice/mixtral/run_mixtral_8x22B.sh (expected TFLOP/s),
//    runtime_configs/benchmarking/runtime.conf (layout, batch, nodes) and
//    model_configs/benchmarking/Mixtral-8x22B.yaml (shape, --expert-tensor-parallel-size 1);
//    https://github.com/yanring/Megatron-MoE-ModelZoo.
//
// Conversion: the sources print MFU (or TFLOP/s) after Megatron-LM's count,
// num_floating_point_operations in megatron/training/training.py (2024-2025): per token
// 12·L·h²·[(1 + g/n + s/h) + (F/h)·k·3/2 + (F_shared/h)·3/2] + 6·V·h, attention not halved
// for causality, no input embedding. tokens_per_second_per_gpu = MFU x 989.5 TFLOP/s (the
// paper's peak) / that count; model_tflops_per_gpu re-counts those tokens in capplan's
// convention (6·N_active + 12·L·h·s, both embeddings), 0.4-3.7% more.
#pragma once

#include "tests/core/published_training_runs.h"

namespace capplan::testdata {

// clang-format off
inline constexpr PublishedRun kPublishedMoeRuns[] = {
    {"mpf-mixtral-8x22b-mcore-128",
     "Liu et al. (NVIDIA), \"MoE Parallel Folding\", arXiv:2504.14960 (2025), Table 1, Table 2 and "
     "App. Table 3 (Mixtral-8x22B, MCore)",
     "H100-SXM5-80GB", "", 128,
     56, 6144, 48, 8, 16384, true, 32768, false, 8, 2,
     4096, 256, "bf16",
     2, 8, 8, 1, 4, 0, 0, "",
     400, "infiniband", "steady_state",
     0, 458.3, "model", 0.463, 1828, 460.5,
     0, 0, 0,
     "verified (paper text and appendix tables retrieved as transcriptions of the PDF)",
     "Table 3, MCore row: 128 GPUs, CP 1, TP 2, EP 4, PP 8 (dp = 128 / 16 = 8; the experts take "
     "TP 2), MFU 46.3%; Table 2: 458.3 TFLOP/s BF16 (= 46.3% of 989.5). Global batch 256, sequence "
     "4,096 (App. 6.4); token dropping with capacity factor 1 (Sec. 4.2), so no expert runs above "
     "its even share. VPP, micro-batch and recompute not published. Shape: Mixtral-8x22B-v0.1 "
     "config (56 layers, hidden 6,144, 48 heads, 8 KV, experts of 16,384, 8 experts top-2, vocab "
     "32,768, untied). Derived: 458.3e12 / 250.6 GFLOP/token (Megatron count) = 1,828 "
     "tokens/s/GPU; x 251.9 GFLOP/token (capplan) = 460.5 TFLOP/s."},
    {"mpf-mixtral-8x22b-mcore-1024",
     "Liu et al. (NVIDIA), \"MoE Parallel Folding\", arXiv:2504.14960 (2025), Sec. 4.3, Figure 3 "
     "and App. Table 4 (Mixtral 8x22B, MCore, 1,024 GPUs)",
     "H100-SXM5-80GB", "", 1024,
     56, 6144, 48, 8, 16384, true, 32768, false, 8, 2,
     4096, 1024, "bf16",
     2, 8, 64, 1, 4, 0, 0, "",
     400, "infiniband", "steady_state",
     0, 0, "model", 0.423, 1670, 420.7,
     0, 0, 0,
     "verified (appendix Table 4 and Sec. 4.3 text retrieved as transcriptions of the PDF)",
     "Table 4, MCore rows for Mixtral 8x22B: 49.4 / 48.0 / 45.5 / 42.3% MFU at 128 / 256 / 512 / "
     "1,024 GPUs; this row is 1,024. Sec. 4.3: \"The global batch size is set to 1024 in the "
     "scaling experiments\"; App. 6.4: the parallel configuration is that of Table 3 (TP 2, EP 4, "
     "PP 8, so dp = 64 and 16 sequences per data-parallel rank). Sequence 4,096, token dropping at "
     "capacity factor 1. Derived: 0.423 x 989.5e12 / 250.6 GFLOP/token = 1,670 tokens/s/GPU."},
    {"mpf-qwen2-57b-a14b-mcore-64",
     "Liu et al. (NVIDIA), \"MoE Parallel Folding\", arXiv:2504.14960 (2025), Table 1 and App. "
     "Table 3 (Qwen2-57B-A14B, MCore)",
     "H100-SXM5-80GB", "", 64,
     28, 3584, 28, 4, 2560, true, 151936, false, 64, 8,
     4096, 256, "bf16",
     2, 4, 8, 1, 4, 0, 0, "",
     400, "infiniband", "steady_state",
     0, 0, "model", 0.353, 4009, 362.4,
     0, 0, 0,
     "verified (paper text and appendix tables retrieved as transcriptions of the PDF; shape from "
     "the released config.json)",
     "Table 3, MCore row: 64 GPUs, CP 1, TP 2, EP 4, PP 4 (dp = 8), MFU 35.3%. Global batch 256, "
     "sequence 4,096, token dropping at capacity factor 1. Shape: Qwen/Qwen2-57B-A14B config.json "
     "(28 layers, hidden 3,584, 28 heads, 4 KV, 64 experts of 2,560, top-8, one shared expert of "
     "20,480, vocab 151,936, untied; every layer MoE); the row's fields cannot hold the shared "
     "expert, so the test builds the model from tests/core/fixtures.h (Qwen2_57B_A14B). Derived: "
     "0.353 x 989.5e12 / 87.1 GFLOP/token (Megatron count, shared expert included) = 4,009 "
     "tokens/s/GPU; x 90.4 GFLOP/token (capplan) = 362.4 TFLOP/s."},
    {"mpf-mixtral-8x22b-g8t8-mcore-128",
     "Liu et al. (NVIDIA), \"MoE Parallel Folding\", arXiv:2504.14960 (2025), Sec. 4.1, Table 1 "
     "and App. Table 3 (Mixtral-8x22B-G8T8, MCore)",
     "H100-SXM5-80GB", "", 128,
     56, 6144, 48, 8, 2048, true, 32768, false, 64, 8,
     4096, 256, "bf16",
     2, 8, 8, 1, 8, 0, 0, "",
     400, "infiniband", "steady_state",
     0, 0, "model", 0.171, 1134, 170.7,
     0, 0, 0,
     "verified (paper text and appendix tables retrieved as transcriptions of the PDF)",
     "Table 3, MCore row: 128 GPUs, CP 1, TP 2, EP 8, PP 8 (dp = 8), MFU 17.1%. Sec. 4.1: Mixtral "
     "8x22B \"reparameterized ... to 64 experts and 8 active experts per token\", each expert "
     "one-eighth of the original width (16,384 / 8 = 2,048); the rest of the shape as Mixtral "
     "8x22B. Global batch 256, sequence 4,096, token dropping at capacity factor 1. Derived: 0.171 "
     "x 989.5e12 / 149.2 GFLOP/token = 1,134 tokens/s/GPU. Sec. 4.2: fine-grained experts lose to "
     "more dispatch traffic and smaller GEMMs; Sec. 4.4: with ETP x EP above 8 communication is "
     "over 70% of the MoE layer's time."},
    {"mpf-llama3-8x70b-mcore-256",
     "Liu et al. (NVIDIA), \"MoE Parallel Folding\", arXiv:2504.14960 (2025), Sec. 4.1, Table 1 "
     "and App. Table 3 (Llama3-8x70B, MCore)",
     "H100-SXM5-80GB", "", 256,
     80, 8192, 64, 8, 28672, true, 128256, false, 8, 2,
     4096, 256, "bf16",
     8, 8, 4, 1, 4, 0, 0, "",
     400, "infiniband", "steady_state",
     0, 0, "model", 0.388, 487.6, 387.1,
     0, 0, 0,
     "verified (paper text and appendix tables retrieved as transcriptions of the PDF)",
     "Table 3, MCore row: 256 GPUs, CP 1, TP 8, EP 4, PP 8 (dp = 4), MFU 38.8%. Sec. 4.1: "
     "Llama3-70B upcycled to 8 experts (top-2 assumed, as Mixtral; the paper's 'coarse-grained' "
     "class). Shape: Llama 3 70B (80 layers, hidden 8,192, 64 heads, 8 KV, FFN 28,672, vocab "
     "128,256, untied). Global batch 256, sequence 4,096, token dropping at capacity factor 1. "
     "Derived: 0.388 x 989.5e12 / 787.5 GFLOP/token = 487.6 tokens/s/GPU."},
    {"mpf-llama3-8x70b-mcore-1024",
     "Liu et al. (NVIDIA), \"MoE Parallel Folding\", arXiv:2504.14960 (2025), Sec. 4.3 and App. "
     "Table 4 (Llama3 8x70B, MCore, 1,024 GPUs)",
     "H100-SXM5-80GB", "", 1024,
     80, 8192, 64, 8, 28672, true, 128256, false, 8, 2,
     4096, 1024, "bf16",
     8, 8, 16, 1, 4, 0, 0, "",
     400, "infiniband", "steady_state",
     0, 0, "model", 0.391, 491.3, 390.0,
     0, 0, 0,
     "verified (appendix Table 4 and Sec. 4.3 text retrieved as transcriptions of the PDF)",
     "Table 4, MCore rows for Llama3 8x70B: 40.1 / 39.5 / 39.1% MFU at 256 / 512 / 1,024 GPUs; "
     "this row is 1,024. Global batch 1,024 (Sec. 4.3), configuration of Table 3 (TP 8, EP 4, PP "
     "8, so dp = 16). Derived: 0.391 x 989.5e12 / 787.5 GFLOP/token = 491.3 tokens/s/GPU."},
    {"zoo-mixtral-8x22b-dropless-128",
     "yanring/Megatron-MoE-ModelZoo @ e865051, best_practice/mixtral/run_mixtral_8x22B.sh and "
     "runtime_configs/benchmarking/runtime.conf (Mixtral-8x22B, dropless)",
     "H100-SXM5-80GB", "", 128,
     56, 6144, 48, 8, 16384, true, 32768, false, 8, 2,
     4096, 256, "bf16",
     2, 8, 8, 1, 8, 7, 1, "",
     400, "infiniband", "steady_state",
     0, 445, "model", 0.45, 1776, 447.3,
     0, 0, 0,
     "verified (script and configs read at the commit)",
     "run_mixtral_8x22B.sh: \"Dropless training, stable performance should be around 445TFLOPS "
     "for H100\" (465 with --moe-router-force-load-balancing, 470 with token dropping at capacity "
     "1, 560 in FP8); runtime.conf: Mixtral-8x22B TP 2, PP 8, EP 8, CP 1, VPP 7, MBS 1, GBS 256, "
     "56 layers, alltoall dispatcher, grouped GEMM, 16 nodes (128 GPUs), sequence 4,096; "
     "Mixtral-8x22B.yaml: BF16, distributed optimizer with overlapped grad reduce and param "
     "gather, sequence parallel, --expert-tensor-parallel-size 1 (the experts are not split by "
     "TP: not expressible in capplan, whose experts take tp 2). Cluster: the repository's H100 "
     "setup (NVLink 4th generation, InfiniBand 8 x 50 GB/s per node, best_practice/qwen3/readme.md). "
     "Derived: 445e12 / 250.6 GFLOP/token (Megatron count) = 1,776 tokens/s/GPU. The "
     "forced-balance figure is 4.5% higher: what dropless routing imbalance cost here."},
};
// clang-format on

inline constexpr int kPublishedMoeRunCount = static_cast<int>(sizeof(kPublishedMoeRuns) / sizeof(kPublishedMoeRuns[0]));

}  // namespace capplan::testdata
