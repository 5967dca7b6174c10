-- 0009: per-engine serving calibration benchmarks (docs/estimator.md, calibration).
--
-- Published serving measurements tagged with the engine that made them, on GPUs the validation
-- rows use. They are calibration rows: none of them is a measurement in
-- tests/core/published_serving_results.h (the validation set, never used to calibrate), and
-- docs/validation/serving-estimator-results.md lists which rows calibrate and which validate.
-- core/serving_calibration.cc uses a row only for estimates under the same engine on the same
-- GPU; a decode-dominated row sets the bandwidth efficiency, a prefill-dominated row the
-- compute efficiency.
--
-- A prefill-only measurement (llama-bench pp512: prompt processing, no generated tokens) is a
-- request of sequence_tokens prompt tokens and output_tokens = 1 (the first token comes out of
-- the prefill, so no decode step runs), measured in requests_per_second = prompt tokens/s
-- divided by the prompt length.
INSERT INTO benchmarks (gpu_name, model_name, workload, precision, training_method, gpu_count, batch_size,
                        sequence_tokens, output_tokens, measured_value, measured_unit, source_citation,
                        source_as_of_date, source_note, tensor_parallel, serving_engine) VALUES
  ('RTX-4090', 'Llama-2-7B', 'serving', 'int4', 'full', 1, 1, 512, 1, 15.58564453125, 'requests_per_second',
   'ggml-org/llama.cpp PR #4766 "llama : ggml-backend integration", comment by ggerganov 2024-01-10 (llama-bench -ngl 99, RTX 4090), https://github.com/ggml-org/llama.cpp/pull/4766',
   '2024-01-10',
   'Calibration row (not a validation row). llama-bench row "llama 7B Q4_0 | 3.56 GiB | 6.74 B | CUDA | 99 | pp 512 | 7979.85 +/- 114.18" (codellama-7b Q4_0 GGUF): 512-token prompt processing at batch 1, no generation; 7979.85 prompt tokens/s / 512 = 15.5856 requests/s of 512 prompt + 1 output token. Q4_0 is 4.5 bits/weight (a 16-bit scale per 32 weights); capplan counts int4 at 4. Prefill-dominated: calibrates llama.cpp compute efficiency on the RTX 4090.',
   1, 'llama_cpp'),
  ('H100-SXM5-80GB', 'Llama-3-8B', 'serving', 'fp8', 'full', 1, 0, 128, 2048, 22714, 'tokens_per_second',
   'NVIDIA TensorRT-LLM docs/source/performance/perf-overview.md, v1.0 (PyTorch backend, trtllm-bench throughput), commit 00f37686, https://nvidia.github.io/TensorRT-LLM/performance/perf-overview.html',
   '2025-01-01',
   'Calibration row (not a validation row). Llama 3.1 8B FP8 (nvidia/Llama-3.1-8B-Instruct-FP8), H100 SXM 80GB, TP1, ISL 128 / OSL 2048: 22,714 total output tokens/s with requests fed at an infinite rate (the engine picks the batch; batch_size 0). KV-cache dtype not stated. Decode-dominated: calibrates TensorRT-LLM bandwidth efficiency on the H100 SXM. The publication year is 2025; month not in the stored copy, so the date is the year''s first day.',
   1, 'tensorrt_llm');
