// Published LLM serving results, for validation only (never calibration).
//
// Each row is one published serving measurement: a throughput at a stated batch (or at an
// unbounded offered load) and input/output lengths, a time to first token, or a time per output
// token. Values are as the source prints them; everything derived is marked in `note` with the
// arithmetic. The readable version with full sources, the quoted tables and the cited defaults
// the serving model needs is docs/validation/published-serving-results.md. Compiled 2026-12-01.
//
// Conventions
//  - Every row is a VALIDATION row (held out): no constant in core/ may be fitted to it.
//    Candidate calibration rows (different measurements) are listed separately in the doc.
//  - gpu and model are names from migrations/0002_shipped_catalog.sql. Llama 3.1/3.3 8B and 70B
//    share the Llama 3 8B/70B architecture (same layers, hidden size, GQA heads, FFN, vocab;
//    only the RoPE scaling and context length differ), so they map to Llama-3-8B / Llama-3-70B.
//    CodeLlama-7B (llama.cpp rows) is the Llama 2 7B architecture (vocab 32016 vs 32000).
//  - num_gpus: GPUs in one engine instance (replica); tensor_parallel: its TP degree.
//  - batch: concurrent sequences when the source fixes it (static batch or max concurrency);
//    0 when the source gives an offered load instead (requests_per_second > 0) or an unbounded
//    load where the engine picks the batch (requests_per_second == 0, see note).
//  - output_tokens_per_second / total_tokens_per_second: whole replica (all its GPUs). 0 = not
//    reported. Per-GPU figures in a source are multiplied by num_gpus (note says so).
//  - ttft_ms / tpot_ms: 0 = not reported; the note says mean, median or single run.
//  - For batch-1 rows input_tokens/output_tokens are the benchmark's lengths; a TTFT-only row
//    has output_tokens 1 (the source measured generation of one token). For dataset-driven
//    rows (ShareGPT) they are the mean lengths when printed or derivable (note shows how); 0 means
//    the source does not give it (those rows compare TTFT/TPOT, not token throughput).
#pragma once

#include <cstdint>

namespace capplan::testdata {

struct PublishedServingResult {
  const char* id;                // short unique id
  const char* source;            // citation: document/paper, table or figure, URL, date
  const char* engine;            // "vllm", "tensorrt-llm", "sglang", "llama.cpp", "lmdeploy"
  const char* gpu;               // capplan catalog GPU name
  int num_gpus;                  // GPUs per replica/engine instance
  int tensor_parallel;           // TP degree
  const char* model;             // capplan catalog model name
  const char* weight_precision;  // "fp16", "bf16", "fp8", "int8", "int4"
  const char* kv_precision;      // "fp16", "bf16", "fp8"
  int64_t batch;                 // concurrent sequences; 0 if a rate/unbounded load instead
  double requests_per_second;    // offered load when stated (0 otherwise)
  int64_t input_tokens, output_tokens;
  double output_tokens_per_second;  // whole replica, 0 if not reported
  double total_tokens_per_second;   // input+output, 0 if not reported
  double ttft_ms, tpot_ms;          // 0 if not reported
  const char* note;                 // how it was read/derived, caveats
};

inline constexpr PublishedServingResult kPublishedServingResults[] = {
    // ---- TensorRT-LLM v0.6.1 docs/source/performance.md (static batching, gptSessionBenchmark) ----
    {"trtllm-h100-llama2-7b-fp8-bs768-128-128",
     "NVIDIA TensorRT-LLM docs/source/performance.md, 'Peak Throughput / H100 GPUs (FP8)' table (data for "
     "v0.6.1), https://github.com/NVIDIA/TensorRT-LLM/blob/138f96d45f90b9667426f7c47297d8c06bafac73/docs/source/"
     "performance.md (Dec 2023)",
     "tensorrt-llm", "H100-SXM5-80GB", 1, 1, "Llama-2-7B", "fp8", "fp8", 768, 0, 128, 128, 19694, 0, 0, 0,
     "Row 'LLaMA 7B | 768 | 1 | 128 | 128 | 19,694' (out tok/s/GPU; TP1 so = replica). Model is Llama2-7b per the "
     "doc's build section (vocab 32000, n_positions 4096); engine built with --enable_fp8 --fp8_kv_cache. Static "
     "batch: throughput = batch x 128 / (prefill + 128 decode steps). GPU listed as H100-HBM3-80GB (SXM)."},
    {"trtllm-h100-llama2-7b-fp8-bs112-128-2048",
     "NVIDIA TensorRT-LLM docs/source/performance.md, 'Peak Throughput / H100 GPUs (FP8)' table (v0.6.1), "
     "commit 138f96d4 (Dec 2023)",
     "tensorrt-llm", "H100-SXM5-80GB", 1, 1, "Llama-2-7B", "fp8", "fp8", 112, 0, 128, 2048, 6818, 0, 0, 0,
     "Row 'LLaMA 7B | 112 | 1 | 128 | 2048 | 6,818' (out tok/s/GPU, TP1). Decode-dominated long output; batch "
     "limited by KV cache at 2176 tokens/sequence."},
    {"trtllm-h100-llama2-70b-fp8-tp2-bs1024-128-128",
     "NVIDIA TensorRT-LLM docs/source/performance.md, 'Peak Throughput / H100 GPUs (FP8)' table (v0.6.1), "
     "commit 138f96d4 (Dec 2023)",
     "tensorrt-llm", "H100-SXM5-80GB", 2, 2, "Llama-2-70B", "fp8", "fp8", 1024, 0, 128, 128, 5314, 0, 0, 0,
     "Row 'LLaMA 70B | 1024 | 2 | 128 | 128 | 2,657' is out tok/s PER GPU; replica = 2657 x 2 = 5314. "
     "Compute-bound regime (batch 1024)."},
    {"trtllm-h100-llama2-70b-fp8-tp2-bs64-2048-2048",
     "NVIDIA TensorRT-LLM docs/source/performance.md, 'Peak Throughput / H100 GPUs (FP8)' table (v0.6.1), "
     "commit 138f96d4 (Dec 2023)",
     "tensorrt-llm", "H100-SXM5-80GB", 2, 2, "Llama-2-70B", "fp8", "fp8", 64, 0, 2048, 2048, 1094, 0, 0, 0,
     "Row 'LLaMA 70B | 64 | 2 | 2048 | 2048 | 547' is out tok/s PER GPU; replica = 547 x 2 = 1094."},
    {"trtllm-a100-llama2-7b-fp16-bs384-128-128",
     "NVIDIA TensorRT-LLM docs/source/performance.md, 'Peak Throughput / A100 GPUs (FP16)' table (v0.6.1), "
     "commit 138f96d4 (Dec 2023)",
     "tensorrt-llm", "A100-SXM4-80GB", 1, 1, "Llama-2-7B", "fp16", "fp16", 384, 0, 128, 128, 5586, 0, 0, 0,
     "Row 'LLaMA 7B | 384 | 1 | 128 | 128 | 5,586' (out tok/s, TP1 so per-GPU = replica). A100 form factor/memory "
     "not stated in the doc (80 GB assumed: batch 384 x 256 tokens of fp16 KV = 34 GB + 13.5 GB weights)."},
    {"trtllm-a100-llama2-7b-fp16-bs52-2048-128",
     "NVIDIA TensorRT-LLM docs/source/performance.md, 'Peak Throughput / A100 GPUs (FP16)' table (v0.6.1), "
     "commit 138f96d4 (Dec 2023)",
     "tensorrt-llm", "A100-SXM4-80GB", 1, 1, "Llama-2-7B", "fp16", "fp16", 52, 0, 2048, 128, 591, 0, 0, 0,
     "Row 'LLaMA 7B | 52 | 1 | 2048 | 128 | 591' (out tok/s, TP1). Prefill-dominated: 52 x 2048 prompt tokens "
     "per 52 x 128 output tokens. A100 variant not stated (80 GB assumed)."},
    {"trtllm-h100-llama2-7b-fp8-ttft-2048",
     "NVIDIA TensorRT-LLM docs/source/performance.md, 'Low Latency / H100 GPUs (FP8)' table (data from v0.5), "
     "commit 138f96d4 (Dec 2023)",
     "tensorrt-llm", "H100-SXM5-80GB", 1, 1, "Llama-2-7B", "fp8", "fp8", 1, 0, 2048, 1, 0, 0, 36, 0,
     "Row 'LLaMA 7B | 1 | 1 | 2048 | 36' = 1st token latency (ms) at batch 1, input 2048 (same table: 7 ms at "
     "input 128). Measured with output length 1, no queueing."},
    {"trtllm-h100-llama2-70b-fp8-tp4-ttft-2048",
     "NVIDIA TensorRT-LLM docs/source/performance.md, 'Low Latency / H100 GPUs (FP8)' table (data from v0.5), "
     "commit 138f96d4 (Dec 2023)",
     "tensorrt-llm", "H100-SXM5-80GB", 4, 4, "Llama-2-70B", "fp8", "fp8", 1, 0, 2048, 1, 0, 0, 109, 0,
     "Row 'LLaMA 70B | 1 | 4 | 2048 | 109' = 1st token latency (ms), batch 1, TP4 (26 ms at input 128)."},
    {"trtllm-a100-llama2-7b-fp16-ttft-2048",
     "NVIDIA TensorRT-LLM docs/source/performance.md, 'Low Latency / A100 GPUs (FP16)' table (data from v0.5), "
     "commit 138f96d4 (Dec 2023)",
     "tensorrt-llm", "A100-SXM4-80GB", 1, 1, "Llama-2-7B", "fp16", "fp16", 1, 0, 2048, 1, 0, 0, 133, 0,
     "Row 'LLaMA 7B | 1 | 1 | 2048 | 133' = 1st token latency (ms), batch 1 (16 ms at input 128). A100 variant "
     "not stated. 2048 x 2 x 6.74e9 FLOP / 0.133 s = 208 TFLOP/s = 67% of 312 dense fp16 peak."},
    {"trtllm-a100-llama2-70b-fp16-tp4-ttft-2048",
     "NVIDIA TensorRT-LLM docs/source/performance.md, 'Low Latency / A100 GPUs (FP16)' table (data from v0.5), "
     "commit 138f96d4 (Dec 2023)",
     "tensorrt-llm", "A100-SXM4-80GB", 4, 4, "Llama-2-70B", "fp16", "fp16", 1, 0, 2048, 1, 0, 0, 377, 0,
     "Row 'LLaMA 70B | 1 | 4 | 2048 | 377' = 1st token latency (ms), batch 1, TP4 (47 ms at input 128)."},
    // ---- TensorRT-LLM H200 blogs (docs/source/blogs/H200launch.md v0.5; Falcon180B-H200.md v0.7a) ----
    {"trtllm-h200-llama2-13b-fp8-bs1024-128-128",
     "NVIDIA TensorRT-LLM blog 'H200 achieves nearly 12,000 tokens/sec on Llama2-13B with TensorRT-LLM', "
     "docs/source/blogs/H200launch.md, table 'H200 FP8 Max throughput' (TensorRT-LLM v0.5.0, Nov 2023), "
     "https://github.com/NVIDIA/TensorRT-LLM/blob/1555478c/docs/source/blogs/H200launch.md",
     "tensorrt-llm", "H200-SXM-141GB", 1, 1, "Llama-2-13B", "fp8", "fp8", 1024, 0, 128, 128, 11819, 0, 0, 0,
     "Row 'llama_13b | 1024 | 1 | 128 | 128 | 11,819' (out tok/s/GPU, TP1). Batch = 'Largest batch supported on "
     "given TP configuration by power of 2'. 'Preliminary measured performance'. KV dtype not stated (fp8 "
     "assumed, as in the v0.5/v0.6 FP8 build commands)."},
    {"trtllm-h200-llama2-13b-fp8-bs128-128-2048",
     "NVIDIA TensorRT-LLM blog H200launch.md, table 'H200 FP8 Max throughput' (v0.5.0, Nov 2023)", "tensorrt-llm",
     "H200-SXM-141GB", 1, 1, "Llama-2-13B", "fp8", "fp8", 128, 0, 128, 2048, 4750, 0, 0, 0,
     "Row 'llama_13b | 128 | 1 | 128 | 2048 | 4,750' (out tok/s/GPU, TP1)."},
    {"trtllm-h200-llama2-70b-fp8-bs64-2048-128",
     "NVIDIA TensorRT-LLM blog H200launch.md, table 'H200 FP8 Max throughput' (v0.5.0, Nov 2023)", "tensorrt-llm",
     "H200-SXM-141GB", 1, 1, "Llama-2-70B", "fp8", "fp8", 64, 0, 2048, 128, 341, 0, 0, 0,
     "Row 'llama_70b | 64 | 1 | 2048 | 128 | 341' (out tok/s/GPU, TP1; 70B FP8 on one 141 GB GPU). The blog: "
     "this ISL/OSL on one H200 'is 1.9x more performant than H100'."},
    {"trtllm-h200-llama2-70b-fp8-bs960-128-128",
     "NVIDIA TensorRT-LLM blog 'Falcon-180B on a single H200 GPU with INT4 AWQ, and 6.7x faster Llama-70B over "
     "A100', docs/source/blogs/Falcon180B-H200.md, Llama-70B table (TensorRT-LLM v0.7a, Dec 2023), "
     "https://github.com/NVIDIA/TensorRT-LLM/blob/3c44cb97/docs/source/blogs/Falcon180B-H200.md",
     "tensorrt-llm", "H200-SXM-141GB", 1, 1, "Llama-2-70B", "fp8", "fp8", 960, 0, 128, 128, 3803, 0, 0, 0,
     "Row 'Llama-70B | 1 | 128 | 128 | 3,803' (out tok/s/GPU); footnote 'Llama2-70B | 1xH200 = TP1 | FP8 | BS: (in "
     "order) 960, 960, 192, ...'. Blog defines out_tps = output_seqlen * batch_size / total_latency / tp. Compare "
     "v0.5's 3,014 at BS 512 (H200launch.md): GQA kernel gains, so software version matters."},
    {"trtllm-h200-llama2-70b-fp8-bs192-128-2048",
     "NVIDIA TensorRT-LLM blog Falcon180B-H200.md, Llama-70B table (v0.7a, Dec 2023)", "tensorrt-llm", "H200-SXM-141GB",
     1, 1, "Llama-2-70B", "fp8", "fp8", 192, 0, 128, 2048, 2941, 0, 0, 0,
     "Row 'Llama-70B | 1 | 128 | 2048 | 2,941' (out tok/s/GPU, TP1, BS 192 per the footnote order)."},
    // ---- TensorRT-LLM v1.0 docs/source/performance/perf-overview.md (trtllm-bench, in-flight batching) ----
    {"trtllm-h100-llama3-8b-fp8-maxload-128-128",
     "NVIDIA TensorRT-LLM perf-overview.md (v1.0, PyTorch backend), table 'Llama 3.1 8B', "
     "https://nvidia.github.io/TensorRT-LLM/performance/perf-overview.html, commit 00f37686 (2025)",
     "tensorrt-llm", "H100-SXM5-80GB", 1, 1, "Llama-3-8B", "fp8", "fp8", 0, 0, 128, 128, 28312, 0, 0, 0,
     "Row '128/128 | H200 27,911 | H100 28,312' (Total Output Throughput tokens/s, TP1). Requests fed at an "
     "infinite rate (30000 requests), engine picks the batch (CUDA graphs up to 8192). Model "
     "nvidia/Llama-3.1-8B-Instruct-FP8 (Llama 3.1 8B = Llama-3-8B architecture). KV dtype not stated (ModelOpt "
     "FP8 checkpoint; fp8 assumed). kv_cache_free_gpu_mem_fraction often 0.95 (doc)."},
    {"trtllm-h100-llama3-8b-fp8-maxload-2048-2048",
     "NVIDIA TensorRT-LLM perf-overview.md (v1.0), table 'Llama 3.1 8B', commit 00f37686 (2025)", "tensorrt-llm",
     "H100-SXM5-80GB", 1, 1, "Llama-3-8B", "fp8", "fp8", 0, 0, 2048, 2048, 9305, 0, 0, 0,
     "Row '2048/2048 | H200 12,194 | H100 9,305' (output tok/s, TP1, unbounded load, 1500 requests). KV-capacity "
     "bound: H200's 141 GB gives +31%."},
    {"trtllm-h200-llama3-8b-fp8-maxload-2048-2048",
     "NVIDIA TensorRT-LLM perf-overview.md (v1.0), table 'Llama 3.1 8B', commit 00f37686 (2025)", "tensorrt-llm",
     "H200-SXM-141GB", 1, 1, "Llama-3-8B", "fp8", "fp8", 0, 0, 2048, 2048, 12194, 0, 0, 0,
     "Row '2048/2048 | H200 12,194' (output tok/s, TP1, unbounded load). GPU: H200 SXM 141GB (DGX H200)."},
    {"trtllm-h200-llama3-8b-fp8-maxload-2048-128",
     "NVIDIA TensorRT-LLM perf-overview.md (v1.0), table 'Llama 3.1 8B', commit 00f37686 (2025)", "tensorrt-llm",
     "H200-SXM-141GB", 1, 1, "Llama-3-8B", "fp8", "fp8", 0, 0, 2048, 128, 3538, 0, 0, 0,
     "Row '2048/128 | H200 3,538 | H100 3,450' (output tok/s). Prefill-bound: 3538 x 16 = 56.6k prompt "
     "tokens/s = ~0.9 PFLOP/s at 2 x 8.03e9 FLOP/token (derived, shows FP8 prefill efficiency)."},
    {"trtllm-h100-llama3-70b-fp8-tp2-maxload-1000-1000",
     "NVIDIA TensorRT-LLM perf-overview.md (v1.0), table 'Llama 3.3 70B', commit 00f37686 (2025)", "tensorrt-llm",
     "H100-SXM5-80GB", 2, 2, "Llama-3-70B", "fp8", "fp8", 0, 0, 1000, 1000, 4205, 0, 0, 0,
     "Row '1000/1000 | ... | H200 TP1 2,909 | H100 TP2 4,205' (Total Output Throughput, whole TP2 instance). "
     "Llama 3.3 70B = Llama-3-70B architecture. nvidia/Llama-3.3-70B-Instruct-FP8."},
    {"trtllm-h200-llama3-70b-fp8-tp1-maxload-2048-2048",
     "NVIDIA TensorRT-LLM perf-overview.md (v1.0), table 'Llama 3.3 70B', commit 00f37686 (2025)", "tensorrt-llm",
     "H200-SXM-141GB", 1, 1, "Llama-3-70B", "fp8", "fp8", 0, 0, 2048, 2048, 2003, 0, 0, 0,
     "Row '2048/2048 | ... | H200 TP1 2,003 | H100 TP2 3,082' (output tok/s). 70B FP8 (~70 GB) on one 141 GB "
     "H200 leaves ~60 GB for KV."},
    {"trtllm-h200-llama31-405b-fp8-tp8-maxload-1000-1000",
     "NVIDIA TensorRT-LLM perf-overview.md (v1.0), table 'Llama 3.1 405B', commit 00f37686 (2025)", "tensorrt-llm",
     "H200-SXM-141GB", 8, 8, "Llama-3.1-405B", "fp8", "fp8", 0, 0, 1000, 1000, 3330, 0, 0, 0,
     "Row '1000/1000 | ... | H200 TP8 3,330 | H100 TP8 2,919' (output tok/s, whole TP8 instance)."},
    // ---- vLLM nightly performance benchmark (buildkite), latency tests: in 32, out 128, batch 8 ----
    {"vllm-a100-llama3-8b-bs8-32-128",
     "vLLM performance benchmark, Buildkite build 9523, 'Latency tests' table (latency_llama8B_tp1), "
     "https://buildkite.com/vllm/performance-benchmark/builds/9523 (build date not shown in stored copy; ~2024)",
     "vllm", "A100-SXM4-80GB", 1, 1, "Llama-3-8B", "bf16", "bf16", 8, 0, 32, 128, 648.4, 0, 0, 12.34,
     "Mean end-to-end latency 1579.27 ms (median 1579.34) for batch 8, input 32, output 128, llama-3.1 8B. Derived: "
     "output tok/s = 8 x 128 / 1.57927 s = 648.4; tpot = 1579.27 / 128 = 12.34 ms (upper bound: includes the "
     "32-token prefill). dtype not printed; vLLM default for this checkpoint is bf16."},
    {"vllm-h200-llama3-8b-bs8-32-128",
     "vLLM performance benchmark, Buildkite build 9515, 'Latency tests' table (latency_llama8B_tp1), "
     "https://buildkite.com/vllm/performance-benchmark/builds/9515 (~2024)",
     "vllm", "H200-SXM-141GB", 1, 1, "Llama-3-8B", "bf16", "bf16", 8, 0, 32, 128, 1228.7, 0, 0, 6.51,
     "Mean end-to-end latency 833.421 ms (median 833.53), batch 8, in 32, out 128. Derived: 1024 / 0.833421 s = "
     "1228.7 out tok/s; tpot = 833.421 / 128 = 6.51 ms (incl. prefill). H200 variant not printed (SXM assumed)."},
    {"vllm-a100-llama3-70b-tp4-bs8-32-128",
     "vLLM performance benchmark, Buildkite build 9523, 'Latency tests' (latency_llama70B_tp4) (~2024)", "vllm",
     "A100-SXM4-80GB", 4, 4, "Llama-3-70B", "bf16", "bf16", 8, 0, 32, 128, 256.6, 0, 0, 31.18,
     "Mean e2e latency 3990.59 ms, batch 8, in 32, out 128, llama-3 70B TP4. Derived: 1024 / 3.99059 = 256.6 out "
     "tok/s; tpot = 3990.59 / 128 = 31.18 ms (incl. prefill)."},
    {"vllm-h200-llama3-70b-tp4-bs8-32-128",
     "vLLM performance benchmark, Buildkite build 9515, 'Latency tests' (latency_llama70B_tp4) (~2024)", "vllm",
     "H200-SXM-141GB", 4, 4, "Llama-3-70B", "bf16", "bf16", 8, 0, 32, 128, 492.9, 0, 0, 16.23,
     "Mean e2e latency 2077.53 ms, batch 8, in 32, out 128, TP4. Derived: 1024 / 2.07753 = 492.9 out tok/s; "
     "tpot = 2077.53 / 128 = 16.23 ms (incl. prefill)."},
    {"vllm-a100-mixtral-8x7b-tp2-bs8-32-128",
     "vLLM performance benchmark, Buildkite build 9523, 'Latency tests' (latency_mixtral8x7B_tp2) (~2024)", "vllm",
     "A100-SXM4-80GB", 2, 2, "Mixtral-8x7B", "bf16", "bf16", 8, 0, 32, 128, 281.0, 0, 0, 28.47,
     "MoE row. Mean e2e latency 3643.84 ms (median 3648.91), batch 8, in 32, out 128, TP2. Derived: 1024 / "
     "3.64384 = 281.0 out tok/s; tpot = 3643.84 / 128 = 28.47 ms. At batch 8 x top-2 most of the 8 experts are "
     "touched each step, so decode reads nearly all 46.7B parameters."},
    {"vllm-h200-mixtral-8x7b-tp2-bs8-32-128",
     "vLLM performance benchmark, Buildkite build 9515, 'Latency tests' (latency_mixtral8x7B_tp2) (~2024)", "vllm",
     "H200-SXM-141GB", 2, 2, "Mixtral-8x7B", "bf16", "bf16", 8, 0, 32, 128, 534.0, 0, 0, 14.98,
     "MoE row. Mean e2e latency 1917.44 ms (median 1916.58), batch 8, in 32, out 128, TP2. Derived: 1024 / "
     "1.91744 = 534.0 out tok/s; tpot = 1917.44 / 128 = 14.98 ms."},
    // ---- vLLM serving benchmark at Poisson request rates (ShareGPT), Azure 4x A100 80GB PCIe ----
    {"vllm-a100pcie-llama3-70b-tp4-sharegpt-qps1",
     "GitHub gist surajssd/eef8ebf83cadd690f6fb4ee87b30fe1a, vLLM performance-benchmark serving table, row "
     "serving_meta-llama-Llama-3.3-70B-Instruct_tp4_pp1_sharegpt_qps_01 on 1xStandard_NC96ads_A100_v4 "
     "(https://gist.github.com/surajssd/eef8ebf83cadd690f6fb4ee87b30fe1a; date and vLLM version not in the stored "
     "excerpt; 2025)",
     "vllm", "A100-PCIe-80GB", 4, 4, "Llama-3-70B", "bf16", "bf16", 0, 1.0, 213, 214, 198.508, 396.441, 154.771,
     44.9394,
     "200 ShareGPT prompts, Poisson arrivals at 1 req/s (achieved 0.927978 req/s). Output 198.508 tok/s, total "
     "396.441 tok/s; TTFT mean 154.771 ms (median 128.388); TPOT mean 44.9394 ms (median 44.6347). Mean lengths "
     "derived: in = (396.441 - 198.508) / 0.927978 = 213.3, out = 198.508 / 0.927978 = 213.9. NC96ads_A100_v4 = "
     "4x A100 80GB PCIe (Azure VM size). Personal benchmark run, not an engine-vendor publication; dtype not "
     "printed (bf16 default)."},
    {"vllm-a100pcie-llama3-70b-tp4-sharegpt-qps4",
     "GitHub gist surajssd/eef8ebf83cadd690f6fb4ee87b30fe1a, row serving_meta-llama-Llama-3.3-70B-Instruct_tp4_pp1_"
     "sharegpt_qps_04 on 1xStandard_NC96ads_A100_v4 (2025)",
     "vllm", "A100-PCIe-80GB", 4, 4, "Llama-3-70B", "bf16", "bf16", 0, 4.0, 213, 214, 532.931, 1065.25, 246.338,
     73.9558,
     "Same 200 ShareGPT prompts at Poisson 4 req/s (achieved 2.4957 req/s: the replica saturates below 4). Output "
     "532.931 tok/s, total 1065.25; TTFT mean 246.338 ms (median 219.599); TPOT mean 73.9558 ms (median 73.8304). "
     "in = (1065.25 - 532.931) / 2.4957 = 213.3, out = 532.931 / 2.4957 = 213.5."},
    // ---- SGLang v0.3.0 vs vLLM v0.6.0 (SGLang repo benchmark README, ShareGPT via sglang.bench_serving) ----
    {"sglang-a100-llama3-8b-sharegpt-rps4",
     "sgl-project/sglang benchmark/benchmark_vllm_060/README.md 'How to reproduce the benchmark results for SGLang "
     "v0.3.0 compared to vLLM v0.6.0', 'Online benchmark results / Llama 3.1 8B Instruct 1 x A100 80G' (Sept 2024), "
     "https://github.com/sgl-project/sglang/blob/120affb9/benchmark/benchmark_vllm_060/README.md",
     "sglang", "A100-SXM4-80GB", 1, 1, "Llama-3-8B", "bf16", "bf16", 0, 4.0, 0, 194, 0, 0, 31.98, 13.17,
     "Row 'RPS 4 | 1200 | SGLang | 1564.17 | 31.98 | 13.17 | 11.93' (median E2E, TTFT, TPOT, ITL in ms), Llama 3.1 8B "
     "Instruct on '1 x A100 80G' (SXM/PCIe not stated), --enable-torch-compile --disable-radix-cache. ShareGPT: "
     "input mean not printed (0 here); output mean 194 derived from the same README's offline row (4281.51 / "
     "22.03 = 194.3 tokens/request). For scale, vLLM's ShareGPT sample averages 202 in / 179 out (vLLM blog "
     "2024-09-05)."},
    {"vllm-a100-llama3-8b-sharegpt-rps4",
     "sgl-project/sglang benchmark/benchmark_vllm_060/README.md 'How to reproduce the benchmark results for SGLang "
     "v0.3.0 compared to vLLM v0.6.0', 'Online benchmark results / Llama 3.1 8B Instruct 1 x A100 80G' (Sept 2024), "
     "https://github.com/sgl-project/sglang/blob/120affb9/benchmark/benchmark_vllm_060/README.md",
     "vllm", "A100-SXM4-80GB", 1, 1, "Llama-3-8B", "bf16", "bf16", 0, 4.0, 0, 194, 0, 0, 100.48, 14.14,
     "Row 'RPS 4 | 1200 | vLLM | 1691.97 | 100.48 | 14.14 | 129.32' (medians, ms). vLLM 0.6.0 with "
     "--num-scheduler-steps 10 (raises TTFT and ITL: tokens stream in bursts of 10 steps). Same workload as the "
     "SGLang row; the engines differ 3x in TTFT at equal TPOT."},
    {"sglang-h100-llama3-70b-tp4-sharegpt-rps8",
     "sgl-project/sglang benchmark/benchmark_vllm_060/README.md 'How to reproduce the benchmark results for SGLang "
     "v0.3.0 compared to vLLM v0.6.0', 'Online benchmark results / Llama 3.1 70B Instruct 4 x H100 80G' (Sept 2024), "
     "https://github.com/sgl-project/sglang/blob/120affb9/benchmark/benchmark_vllm_060/README.md",
     "sglang", "H100-SXM5-80GB", 4, 4, "Llama-3-70B", "bf16", "bf16", 0, 8.0, 0, 194, 0, 0, 58.11, 33.07,
     "Row 'RPS 8 | 2400 | SGLang | 4064.98 | 58.11 | 33.07 | 24.45' (medians, ms), Llama 3.1 70B Instruct on '4 x "
     "H100 80G' (variant not stated, SXM assumed), --tp 4 --disable-radix-cache. Output mean 194 derived from the "
     "offline row (3856.01 / 19.84 = 194.4)."},
    {"vllm-h100-llama3-70b-tp4-sharegpt-rps8",
     "sgl-project/sglang benchmark/benchmark_vllm_060/README.md 'How to reproduce the benchmark results for SGLang "
     "v0.3.0 compared to vLLM v0.6.0', 'Online benchmark results / Llama 3.1 70B Instruct 4 x H100 80G' (Sept 2024), "
     "https://github.com/sgl-project/sglang/blob/120affb9/benchmark/benchmark_vllm_060/README.md",
     "vllm", "H100-SXM5-80GB", 4, 4, "Llama-3-70B", "bf16", "bf16", 0, 8.0, 0, 194, 0, 0, 207.12, 29.15,
     "Row 'RPS 8 | 2400 | vLLM | 3752.38 | 207.12 | 29.15 | 275.32' (medians, ms); vLLM 0.6.0, "
     "--num-scheduler-steps 10, --tensor 4, max_model_len 4096."},
    {"sglang-a100-llama3-8b-sharegpt-offline",
     "sgl-project/sglang benchmark/benchmark_vllm_060/README.md 'How to reproduce the benchmark results for SGLang "
     "v0.3.0 compared to vLLM v0.6.0', 'Offline benchmark results / Llama 3.1 8B Instruct 1 x A100 80G' (Sept 2024), "
     "https://github.com/sgl-project/sglang/blob/120affb9/benchmark/benchmark_vllm_060/README.md",
     "sglang", "A100-SXM4-80GB", 1, 1, "Llama-3-8B", "bf16", "bf16", 0, 0, 0, 194, 4281.51, 0, 0, 0,
     "Offline row 'inf | 5000 | SGLang | 22.03 | 4281.51' (request/s, output tok/s): all 5000 ShareGPT prompts "
     "sent at once. vLLM in the same table: 21.27 req/s, 4132.37 tok/s. SGLang mem_frac 0.88 at TP1 (README)."},
    {"sglang-h100-llama3-70b-tp4-sharegpt-offline",
     "sgl-project/sglang benchmark/benchmark_vllm_060/README.md 'How to reproduce the benchmark results for SGLang "
     "v0.3.0 compared to vLLM v0.6.0', 'Offline benchmark results / Llama 3.1 70B Instruct 4 x H100 80G' (Sept 2024), "
     "https://github.com/sgl-project/sglang/blob/120affb9/benchmark/benchmark_vllm_060/README.md",
     "sglang", "H100-SXM5-80GB", 4, 4, "Llama-3-70B", "bf16", "bf16", 0, 0, 0, 194, 3856.01, 0, 0, 0,
     "Offline row 'inf | 5000 | SGLang | 19.84 | 3856.01', TP4, --mem-frac 0.88 (set by hand; default 0.85 at TP4). "
     "vLLM in the same table: 19.04 req/s, 3700.64 tok/s."},
    // ---- lmdeploy v0.1.0a1 docs/en/benchmark/a100_fp16.md, static inference benchmark ----
    {"lmdeploy-a100-llama2-7b-fp16-bs1-128-128",
     "InternLM lmdeploy docs/en/benchmark/a100_fp16.md, 'Static Inference Benchmark / llama2-7b' (lmdeploy "
     "v0.1.0a1, A100-80G, CUDA 11.8), https://github.com/InternLM/lmdeploy/blob/3e391df4/docs/en/benchmark/"
     "a100_fp16.md (late 2023)",
     "lmdeploy", "A100-SXM4-80GB", 1, 1, "Llama-2-7B", "fp16", "fp16", 1, 0, 128, 128, 102.21, 0, 22, 10,
     "Row 'batch 1 | tp 1 | 128 | 128 | 102.21 out tok/s | FTL(ave) 0.022 s | 50% 0.01 s'. ttft = FTL mean 22 ms; "
     "tpot = the 50% per-token latency column, printed at 10 ms resolution (1000 / 102.21 = 9.78 ms incl. "
     "prefill agrees). A100 form factor not stated. TurboMind engine."},
    {"lmdeploy-a100-llama2-7b-fp16-bs64-128-128",
     "InternLM lmdeploy docs/en/benchmark/a100_fp16.md, 'Static Inference Benchmark / llama2-7b' (v0.1.0a1), "
     "commit 3e391df4 (late 2023)",
     "lmdeploy", "A100-SXM4-80GB", 1, 1, "Llama-2-7B", "fp16", "fp16", 64, 0, 128, 128, 3024.07, 0, 440, 14,
     "Row 'batch 64 | tp 1 | 128 | 128 | 3024.07 | FTL(ave) 0.44 s | 50% 0.014 s'. ttft mean 440 ms (64 prompts "
     "admitted together); tpot p50 14 ms."},
    {"lmdeploy-a100-llama2-13b-fp16-bs1-2048-128",
     "InternLM lmdeploy docs/en/benchmark/a100_fp16.md, 'Static Inference Benchmark / llama2-13b' (v0.1.0a1), "
     "commit 3e391df4 (late 2023)",
     "lmdeploy", "A100-SXM4-80GB", 1, 1, "Llama-2-13B", "fp16", "fp16", 1, 0, 2048, 128, 48.99, 0, 242, 19,
     "Row 'batch 1 | tp 1 | 2048 | 128 | 48.99 | FTL(ave) 0.242 s | 50% 0.019 s'. ttft 242 ms (2048-token "
     "prefill at batch 1); tpot p50 19 ms."},
    {"lmdeploy-a100-llama2-70b-fp16-tp4-bs1-128-128",
     "InternLM lmdeploy docs/en/benchmark/a100_fp16.md, 'Static Inference Benchmark / llama2-70b' (v0.1.0a1), "
     "commit 3e391df4 (late 2023)",
     "lmdeploy", "A100-SXM4-80GB", 4, 4, "Llama-2-70B", "fp16", "fp16", 1, 0, 128, 128, 33.63, 0, 74, 29,
     "Row 'batch 1 | tp 4 | 128 | 128 | 33.63 | FTL(ave) 0.074 s | 50% 0.029 s'. tpot p50 29 ms at TP4."},
    {"lmdeploy-a100-llama2-70b-fp16-tp4-bs64-2048-2048",
     "InternLM lmdeploy docs/en/benchmark/a100_fp16.md, 'Static Inference Benchmark / llama2-70b' (v0.1.0a1), "
     "commit 3e391df4 (late 2023)",
     "lmdeploy", "A100-SXM4-80GB", 4, 4, "Llama-2-70B", "fp16", "fp16", 64, 0, 2048, 2048, 930.46, 0, 0, 55,
     "Row 'batch 64 | tp 4 | 2048 | 2048 | 930.46 | FTL(ave) 21.29 s | 50% 0.055 s'. tpot p50 55 ms. FTL mean "
     "21.29 s reflects KV-capacity admission queueing (not a prefill time), so ttft is left 0."},
    // ---- llama.cpp, RTX 4090 (consumer GPU), llama-bench ----
    {"llamacpp-rtx4090-llama2-7b-f16-tg128",
     "ggml-org/llama.cpp PR #4766 'llama : ggml-backend integration', comment by ggerganov 2024-01-10 (llama-bench "
     "table, RTX 4090), https://github.com/ggml-org/llama.cpp/pull/4766",
     "llama.cpp", "RTX-4090", 1, 1, "Llama-2-7B", "fp16", "fp16", 1, 0, 0, 128, 61.03, 0, 0, 16.39,
     "Row 'llama 7B F16 | 12.55 GiB | 6.74 B | CUDA | 99 | tg 128 | 61.03 +/- 0.07' (codellama-7b F16 GGUF). "
     "tpot = 1000 / 61.03 = 16.39 ms. Derived bandwidth: 13.48 GB / 16.39 ms = 822 GB/s = 82% of 1008 GB/s."},
    {"llamacpp-rtx4090-llama2-7b-q8-tg128",
     "ggml-org/llama.cpp PR #4766, comment by ggerganov 2024-01-10 (llama-bench table, RTX 4090)", "llama.cpp",
     "RTX-4090", 1, 1, "Llama-2-7B", "int8", "fp16", 1, 0, 0, 128, 98.13, 0, 0, 10.19,
     "Row 'llama 7B Q8_0 | 6.67 GiB | tg 128 | 98.13 +/- 0.07'. Q8_0 = 8.5 bits/weight (int8 + fp16 scale per 32). "
     "tpot = 1000 / 98.13 = 10.19 ms; 7.16 GB / 10.19 ms = 703 GB/s = 70% of peak."},
    {"llamacpp-rtx4090-llama2-7b-f16-pp512",
     "ggml-org/llama.cpp PR #4766, comment by ggerganov 2024-01-10 (llama-bench table, RTX 4090)", "llama.cpp",
     "RTX-4090", 1, 1, "Llama-2-7B", "fp16", "fp16", 1, 0, 512, 1, 0, 11048.22, 46.34, 0,
     "Row 'llama 7B F16 | pp 512 | 11048.22 +/- 269.74' (prompt tokens/s). Derived ttft = 512 / 11048.22 = "
     "46.34 ms (prompt processing only). 11048 x 2 x 6.74e9 = ~149 TFLOP/s achieved."},
    // ---- MLC LLM / ExLlama int4, RTX 4090, batch 1 decode ----
    {"mlc-rtx4090-llama2-7b-int4-decode256",
     "mlc-ai/llm-perf-bench README.md, table 'Int4-quantized, Single GPU' (2023), "
     "https://github.com/mlc-ai/llm-perf-bench/blob/02746003/README.md",
     "mlc-llm", "RTX-4090", 1, 1, "Llama-2-7B", "int4", "fp16", 1, 0, 7, 256, 204.8, 0, 0, 4.88,
     "Row 'Llama2-7B | RTX 4090 | MLC LLM 204.8 | Exllama 152.56 | Llama.cpp 50.13' (tok/s). 'All experiments are "
     "based on int4-quantized weights, fp16 activation and compute, decoding for 256 tokens with a prompt \"What is "
     "the meaning of life?\"' (~7 tokens). q4f16_1 = 4-bit weights + fp16 scale per 32 (~4.5 bits/weight). tpot "
     "= 1000 / 204.8 = 4.88 ms. The llama.cpp cell (50.13) is anomalously low vs llama-bench results and is not used."},
    {"mlc-rtx4090-llama2-13b-int4-decode256",
     "mlc-ai/llm-perf-bench README.md, table 'Int4-quantized, Single GPU' (2023)", "mlc-llm", "RTX-4090", 1, 1,
     "Llama-2-13B", "int4", "fp16", 1, 0, 7, 256, 113.5, 0, 0, 8.81,
     "Row 'Llama2-13B | RTX 4090 | 113.5 | 93.88 | 36.81'. tpot = 1000 / 113.5 = 8.81 ms. 13.0e9 x 0.5625 B = "
     "7.3 GB / 8.81 ms = 0.83 TB/s = 83% of 1008 GB/s (derived)."},
    {"exllama-rtx4090-llama2-7b-int4-decode256",
     "mlc-ai/llm-perf-bench README.md, table 'Int4-quantized, Single GPU', Exllama column, commit c16cf49c of "
     "turboderp/exllama (2023)",
     "exllama", "RTX-4090", 1, 1, "Llama-2-7B", "int4", "fp16", 1, 0, 7, 256, 152.56, 0, 0, 6.55,
     "Row 'Llama2-7B | RTX 4090 | ... | Exllama 152.56'. GPTQ 4-bit. tpot = 1000 / 152.56 = 6.55 ms. Same prompt "
     "and 256-token decode as the MLC row; shows a 1.34x engine spread on identical hardware and bits."},
    // ---- vLLM blog (approximate, light load) ----
    {"vllm-h100-llama3-8b-light-load-tpot",
     "vLLM blog 'vLLM v0.6.0: 2.7x Throughput Improvement and 5x Latency Reduction', 2024-09-05, section "
     "'Separating API server and inference engine', https://blog.vllm.ai/2024/09/05/perf-update.html",
     "vllm", "H100-SXM5-80GB", 1, 1, "Llama-3-8B", "bf16", "bf16", 1, 0, 0, 0, 76, 0, 0, 13,
     "Text: 'Llama3 8B can generate 1 token every 13 ms under light load. This translates to the frontend needing "
     "to stream back 76 objects per second'. Approximate (rounded, 'light load' = batch ~1, H100 variant and "
     "lengths not stated); weakest row, use with a wide tolerance."},
};

}  // namespace capplan::testdata
