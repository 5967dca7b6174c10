// Published sharded-data-parallel (FSDP FULL_SHARD, ZeRO-3) training throughput at 16 to 128
// GPUs, for the development set's "sharded" regime (docs/validation/README.md). Validation
// only, never calibration.
//
// Source: mosaicml/llm-foundry, scripts/train/benchmarking/README.md @ 061f2c7c (tables "H100
// 80GB BF16", "A100 80GB with 1600 Gbps node-node interconnect (RoCE)" and "A100 40GB with
// 1600 Gbps node-node interconnect (RoCE)"): MPT models trained with PyTorch FSDP FULL_SHARD,
// one row per (model, sequence, GPUs). Only the rows spanning more than one 8-GPU node are kept:
// the regime is the sharded collectives crossing the network.
//
// Model shapes: scripts/train/yamls/pretrain/mpt-{760m,1b,3b,7b,13b,30b,70b}.yaml (d_model,
// n_layers, n_heads, expansion_ratio 4, vocab 50,368, GELU MLP, tied embeddings, ALiBi); the
// table's NumParams column reproduces 12·L·h² + V·h (plus a learned-position table that grows
// with the sequence) within 1%. The optimizer is decoupled AdamW (mpt-13b.yaml).
#pragma once

#include <cstdint>

namespace capplan::testdata {

struct PublishedShardedRun {
  const char* name;
  const char* gpu;  // capplan catalog name
  int gpus;
  int64_t layers, hidden, heads;
  int64_t sequence, micro_batch, global_batch_sequences;
  bool activation_checkpointing;  // the table's "Activation Checkpointing" (full recompute)
  double network_gbit_per_s_per_gpu;
  double tokens_per_second_per_gpu;  // the table's "Throughput (T/s/GPU)"
};

// The A100 tables state 1600 Gbps RoCE per node: 200 Gbit/s per GPU. The H100 table states no
// network; 400 Gbit/s per GPU (8 x 400G per node, the DGX H100 reference design) is assumed.
// clang-format off
inline constexpr PublishedShardedRun kPublishedShardedRuns[] = {
    // H100 80GB BF16 (amp_bf16, FULL_SHARD).
    {"mpt-70b-h100-64", "H100-SXM5-80GB", 64, 80, 8192, 64, 2048, 8, 2048, true, 400, 1039},
    {"mpt-70b-h100-32", "H100-SXM5-80GB", 32, 80, 8192, 64, 2048, 2, 1024, true, 400, 882},
    {"mpt-30b-h100-32", "H100-SXM5-80GB", 32, 48, 7168, 64, 2048, 14, 1344, true, 400, 2308},
    {"mpt-30b-h100-16", "H100-SXM5-80GB", 16, 48, 7168, 64, 2048, 10, 480, true, 400, 2263},
    {"mpt-13b-h100-64", "H100-SXM5-80GB", 64, 40, 5120, 40, 2048, 2, 128, false, 400, 4800},
    {"mpt-13b-h100-32", "H100-SXM5-80GB", 32, 40, 5120, 40, 2048, 2, 64, false, 400, 4811},
    {"mpt-13b-h100-16", "H100-SXM5-80GB", 16, 40, 5120, 40, 2048, 2, 32, false, 400, 4767},
    {"mpt-3b-h100-64", "H100-SXM5-80GB", 64, 32, 2560, 20, 2048, 6, 1152, false, 400, 22525},
    {"mpt-3b-h100-32", "H100-SXM5-80GB", 32, 32, 2560, 20, 2048, 6, 576, false, 400, 23021},
    {"mpt-3b-h100-16", "H100-SXM5-80GB", 16, 32, 2560, 20, 2048, 10, 480, false, 400, 24142},
    {"mpt-1b-h100-64", "H100-SXM5-80GB", 64, 24, 2048, 16, 2048, 20, 1280, false, 400, 44402},
    {"mpt-1b-h100-32", "H100-SXM5-80GB", 32, 24, 2048, 16, 2048, 20, 640, false, 400, 45130},
    {"mpt-1b-h100-16", "H100-SXM5-80GB", 16, 24, 2048, 16, 2048, 20, 320, false, 400, 46037},
    {"mpt-760m-h100-32", "H100-SXM5-80GB", 32, 24, 1536, 12, 2048, 24, 768, false, 400, 67971},
    {"mpt-760m-h100-16", "H100-SXM5-80GB", 16, 24, 1536, 12, 2048, 24, 384, false, 400, 68551},
    // A100 80GB, 1600 Gbps RoCE per node (70b rows: pure bf16, FULL_SHARD).
    {"mpt-70b-a100-80gb-64", "A100-SXM4-80GB", 64, 80, 8192, 64, 2048, 8, 2048, true, 200, 410},
    {"mpt-70b-a100-80gb-32", "A100-SXM4-80GB", 32, 80, 8192, 64, 2048, 2, 1024, true, 200, 373},
    // A100 40GB, 1600 Gbps RoCE per node (pure bf16, FULL_SHARD).
    {"mpt-70b-a100-40gb-128", "A100-SXM4-40GB", 128, 80, 8192, 64, 2048, 4, 512, true, 200, 376},
    {"mpt-70b-a100-40gb-64", "A100-SXM4-40GB", 64, 80, 8192, 64, 2048, 2, 128, true, 200, 276},
    {"mpt-30b-a100-40gb-128", "A100-SXM4-40GB", 128, 48, 7168, 64, 2048, 6, 768, true, 200, 865},
    {"mpt-30b-a100-40gb-32", "A100-SXM4-40GB", 32, 48, 7168, 64, 2048, 4, 128, true, 200, 857},
    {"mpt-13b-a100-40gb-128", "A100-SXM4-40GB", 128, 40, 5120, 40, 2048, 16, 2048, true, 200, 1972},
    {"mpt-13b-a100-40gb-64", "A100-SXM4-40GB", 64, 40, 5120, 40, 2048, 16, 1024, true, 200, 1976},
    {"mpt-13b-a100-40gb-32", "A100-SXM4-40GB", 32, 40, 5120, 40, 2048, 14, 448, true, 200, 1998},
    {"mpt-13b-a100-40gb-16", "A100-SXM4-40GB", 16, 40, 5120, 40, 2048, 10, 160, true, 200, 1993},
    {"mpt-7b-a100-40gb-128", "A100-SXM4-40GB", 128, 32, 4096, 32, 2048, 18, 2304, true, 200, 3623},
    {"mpt-7b-a100-40gb-64", "A100-SXM4-40GB", 64, 32, 4096, 32, 2048, 18, 1152, true, 200, 3665},
    {"mpt-7b-a100-40gb-32", "A100-SXM4-40GB", 32, 32, 4096, 32, 2048, 18, 576, true, 200, 3725},
    {"mpt-7b-a100-40gb-16", "A100-SXM4-40GB", 16, 32, 4096, 32, 2048, 16, 256, true, 200, 3645},
    {"mpt-3b-a100-40gb-128", "A100-SXM4-40GB", 128, 32, 2560, 20, 2048, 6, 768, false, 200, 9538},
    {"mpt-3b-a100-40gb-64", "A100-SXM4-40GB", 64, 32, 2560, 20, 2048, 6, 384, false, 200, 9736},
};
// clang-format on

}  // namespace capplan::testdata
