// Datasheet GPU specs and config.json model architectures used across core tests. Every
// figure names its source; throughput is dense (not sparse). Memory is the datasheet's "GB"
// figure as the part holds it: binary (an 80 GB H100 holds 80 GiB), as the catalog stores it.
#pragma once

#include "core/gpu.h"
#include "core/model.h"
#include "core/tco/tco.h"

namespace capplan::core::testing {

inline GpuSpec MakeGpu(const char* name, double memory_gb, double bandwidth_gb_s, double fp32, double tf32, double fp16,
                       double bf16, double fp8, double int8, double tdp, Interconnect ic, double ic_gb_s, int per_node,
                       bool datacenter) {
  GpuSpec g;
  g.name = name;
  g.memory_bytes = memory_gb * 1024.0 * 1024.0 * 1024.0;
  g.memory_bandwidth_bytes_per_second = bandwidth_gb_s * 1e9;
  g.peak_flops_per_second = {fp32 * 1e12, tf32 * 1e12, fp16 * 1e12, bf16 * 1e12, fp8 * 1e12, int8 * 1e12, 0};
  g.tdp_watts = tdp;
  g.interconnect = ic;
  g.interconnect_bandwidth_bytes_per_second = ic_gb_s * 1e9;
  g.gpus_per_node = per_node;
  g.datacenter = datacenter;
  return g;
}

// NVIDIA A100 Tensor Core GPU datasheet (2021): 80GB SXM 2039 GB/s, 40GB SXM 1555 GB/s;
// FP32 19.5, TF32 156, BF16/FP16 312, INT8 624 dense; 400 W; NVLink 600 GB/s bidirectional.
inline GpuSpec A100_80GB() {
  return MakeGpu("A100-SXM4-80GB", 80, 2039, 19.5, 156, 312, 312, 0, 624, 400, Interconnect::kNvlink, 300, 8, true);
}
inline GpuSpec A100_40GB() {
  return MakeGpu("A100-SXM4-40GB", 40, 1555, 19.5, 156, 312, 312, 0, 624, 400, Interconnect::kNvlink, 300, 8, true);
}
// NVIDIA H100 datasheet (SXM5): 80 GB, 3.35 TB/s, FP32 67, TF32 494.7, BF16/FP16 989.4,
// FP8 1978.9 dense, 700 W, NVLink 900 GB/s bidirectional.
inline GpuSpec H100_SXM() {
  return MakeGpu("H100-SXM5-80GB", 80, 3350, 67, 494.7, 989.4, 989.4, 1978.9, 1978.9, 700, Interconnect::kNvlink, 450,
                 8, true);
}
// NVIDIA H200 datasheet: 141 GB HBM3e, 4.8 TB/s, H100-SXM compute, 700 W.
inline GpuSpec H200() {
  return MakeGpu("H200-SXM-141GB", 141, 4800, 67, 494.7, 989.4, 989.4, 1978.9, 1978.9, 700, Interconnect::kNvlink, 450,
                 8, true);
}
// NVIDIA RTX A6000 datasheet: 48 GB GDDR6, 768 GB/s, FP32 38.7, tensor FP16 154.8 dense
// (309.7 sparse), 300 W, NVLink bridge 112.5 GB/s bidirectional (pairs).
inline GpuSpec RtxA6000() {
  return MakeGpu("RTX-A6000", 48, 768, 38.7, 77.4, 154.8, 154.8, 0, 309.7, 300, Interconnect::kNvlink, 56.25, 2, true);
}
// NVIDIA Ada Lovelace whitepaper, RTX 4090: 24 GB, 1008 GB/s, FP32 82.6, FP16/BF16 tensor
// with FP32 accumulate 165.2 dense, FP8 330.3 dense, 450 W; PCIe Gen4 x16
// 32 GB/s per direction, no NVLink.
inline GpuSpec Rtx4090() {
  return MakeGpu("RTX-4090", 24, 1008, 82.6, 82.6, 165.2, 165.2, 330.3, 660.6, 450, Interconnect::kPcie, 32, 8, false);
}
// NVIDIA Ampere GA102 whitepaper, RTX 3090: 24 GB, 936 GB/s, FP32 35.6 (the figure often quoted as its speed),
// FP16 tensor with FP32 accumulate 71 dense, 350 W, NVLink bridge 112.5 GB/s bidirectional.
inline GpuSpec Rtx3090() {
  return MakeGpu("RTX-3090", 24, 936, 35.6, 35.6, 71, 71, 0, 284, 350, Interconnect::kNvlink, 56.25, 2, false);
}
// NVIDIA V100 datasheet (SXM2 32GB): 900 GB/s, FP32 15.7, FP16 tensor 125, no BF16, 300 W,
// NVLink 300 GB/s bidirectional.
inline GpuSpec V100() {
  return MakeGpu("V100-SXM2-32GB", 32, 900, 15.7, 0, 125, 0, 0, 62, 300, Interconnect::kNvlink, 150, 8, true);
}

// NVIDIA A10 datasheet: 24 GB GDDR6, 600 GB/s, FP32 31.2, TF32 62.5, FP16/BF16 125 dense,
// 150 W, PCIe Gen4. AWS's A10G is a variant of it; NVIDIA publishes no separate sheet, so
// the A10 figures stand in (uncertain: the A10G's tensor clocks are reported lower).
inline GpuSpec A10G() {
  return MakeGpu("A10G", 24, 600, 31.2, 62.5, 125, 125, 0, 250, 150, Interconnect::kPcie, 32, 8, true);
}
// NVIDIA T4 datasheet: 16 GB GDDR6, 320 GB/s, FP32 8.1, FP16 mixed 65, INT8 130, 70 W,
// PCIe Gen3.
inline GpuSpec T4() { return MakeGpu("T4", 16, 320, 8.1, 0, 65, 0, 0, 130, 70, Interconnect::kPcie, 16, 8, true); }

inline ModelArchitecture Dense(const char* name, int64_t layers, int64_t hidden, int64_t heads, int64_t kv_heads,
                               int64_t ffn, int64_t vocab) {
  ModelArchitecture m;
  m.name = name;
  m.num_layers = layers;
  m.hidden_size = hidden;
  m.num_attention_heads = heads;
  m.num_kv_heads = kv_heads;
  m.ffn_hidden_size = ffn;
  m.vocab_size = vocab;
  return m;
}

// config.json of the public checkpoints.
inline ModelArchitecture Llama2_7B() { return Dense("Llama-2-7B", 32, 4096, 32, 32, 11008, 32000); }
inline ModelArchitecture Llama2_13B() { return Dense("Llama-2-13B", 40, 5120, 40, 40, 13824, 32000); }
inline ModelArchitecture Llama2_70B() { return Dense("Llama-2-70B", 80, 8192, 64, 8, 28672, 32000); }
// LLaMA-65B (Touvron et al. 2023a, Table 2): 80 layers, 8192 hidden, 64 heads, FFN 22016.
inline ModelArchitecture Llama3_8B() { return Dense("Llama-3-8B", 32, 4096, 32, 8, 14336, 128256); }
inline ModelArchitecture Llama65B() { return Dense("LLaMA-65B", 80, 8192, 64, 64, 22016, 32000); }

// README.md, "Own or rent?": 8 x A100, $250,000 up front, $5,000 a month to run, no power
// charged, $15,000 a month to rent, used 8 x 730 GPU-hours a month.
inline TcoFleet ReadmeOwnOrRentFleet() {
  TcoFleet f;
  f.gpu_count = 8;
  f.usage_gpu_hours_per_month = 8 * 730;
  f.capex_usd = 250000;
  f.ops_usd_per_month = 5000;
  f.power_watts = 0;
  f.rent_flat_usd_per_month = 15000;
  return f;
}

// deepseek-ai/DeepSeek-V3 config.json (tests/data/hf_configs/): MLA attention, 3 leading dense
// layers, 256 routed experts (8 per token) plus one shared expert.
inline ModelArchitecture DeepSeekV3() {
  ModelArchitecture m;
  m.name = "DeepSeek-V3";
  m.num_layers = 61;
  m.hidden_size = 7168;
  m.num_attention_heads = 128;
  m.num_kv_heads = 128;
  m.head_dim = 192;                 // qk_nope_head_dim + qk_rope_head_dim
  m.ffn_hidden_size = 18432;        // intermediate_size: the 3 dense layers
  m.num_dense_layers = 3;           // first_k_dense_replace
  m.num_experts = 256;              // n_routed_experts
  m.experts_per_token = 8;          // num_experts_per_tok
  m.num_shared_experts = 1;         // n_shared_experts
  m.expert_ffn_hidden_size = 2048;  // moe_intermediate_size
  m.q_lora_rank = 1536;
  m.kv_lora_rank = 512;
  m.qk_rope_head_dim = 64;
  m.qk_nope_head_dim = 128;
  m.v_head_dim = 128;
  m.vocab_size = 129280;
  return m;
}

// Qwen/Qwen2-57B-A14B config.json: 28 layers, hidden 3584, 28 heads, 4 KV heads, 64 routed
// experts of 2560 (8 per token) and one shared expert of 20480 in every layer, vocab 151936,
// untied (intermediate_size 18944 is unused: no dense layer).
inline ModelArchitecture Qwen2_57B_A14B() {
  ModelArchitecture m;
  m.name = "Qwen2-57B-A14B";
  m.num_layers = 28;
  m.hidden_size = 3584;
  m.num_attention_heads = 28;
  m.num_kv_heads = 4;
  m.ffn_hidden_size = 2560;  // moe_intermediate_size
  m.num_experts = 64;
  m.experts_per_token = 8;
  m.num_shared_experts = 1;
  m.shared_expert_ffn_hidden_size = 20480;
  m.vocab_size = 151936;
  return m;
}

}  // namespace capplan::core::testing
