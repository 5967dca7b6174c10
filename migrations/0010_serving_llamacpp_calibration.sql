-- 0010: llama.cpp token-generation and F16 prompt-processing calibration rows on the RTX 4090
-- (docs/estimator.md, calibration).
--
-- 0009 shipped a llama.cpp Q4_0 prompt-processing row only, so llama.cpp decode on the RTX 4090
-- ran on its default and F16 prompts on a Q4_0 figure. These two rows are a different public
-- measurement: another person's llama-bench runs (RunPod, CUDA 12.1.1, May 2024) of another
-- model (Llama 3 8B, F16 GGUF, 14.96 GiB). They are calibration rows, not validation rows: the
-- validation rows in tests/core/published_serving_results.h are ggerganov's CodeLlama-7B
-- (Llama 2 7B architecture) runs of January 2024 (llama.cpp PR #4766), and none of them is
-- one of these measurements (docs/validation/serving-estimator-results.md lists which rows
-- calibrate and which validate).
--
-- A generation-only measurement (llama-bench tg512: no prompt, 512 generated tokens at batch 1)
-- is a request of 1 prompt token and 512 output tokens, measured in output tokens/s. A
-- prefill-only one (pp512) is 512 prompt tokens and 1 output token, in requests/s = prompt
-- tokens/s / 512, as in 0009.
INSERT INTO benchmarks (gpu_name, model_name, workload, precision, training_method, gpu_count, batch_size,
                        sequence_tokens, output_tokens, measured_value, measured_unit, source_citation,
                        source_as_of_date, source_note, tensor_parallel, serving_engine) VALUES
  ('RTX-4090', 'Llama-3-8B', 'serving', 'fp16', 'full', 1, 1, 1, 512, 54.84, 'tokens_per_second',
   'XiongjieDai/GPU-Benchmarks-on-LLM-Inference README.md, LLaMA 3 NVIDIA GPUs table (llama-bench on RunPod, snapshots in May 2024), commit 00dd2bde, https://github.com/XiongjieDai/GPU-Benchmarks-on-LLM-Inference',
   '2024-05-01',
   'Calibration row (not a validation row). Row "4090 24GB | 8B F16 | tg 512 54.84": batch-1 generation of 512 tokens with no prompt, llama.cpp CUDA build, Llama 3 8B F16 (14.96 GiB = 16.06 GB read per token, 881 GB/s = 87% of 1,008). Decode-dominated: calibrates llama.cpp bandwidth efficiency on the RTX 4090. Month from the table heading; the day is not given, so the first.',
   1, 'llama_cpp'),
  ('RTX-4090', 'Llama-3-8B', 'serving', 'fp16', 'full', 1, 1, 512, 1, 18.32421875, 'requests_per_second',
   'XiongjieDai/GPU-Benchmarks-on-LLM-Inference README.md, LLaMA 3 NVIDIA GPUs table (llama-bench on RunPod, snapshots in May 2024), commit 00dd2bde, https://github.com/XiongjieDai/GPU-Benchmarks-on-LLM-Inference',
   '2024-05-01',
   'Calibration row (not a validation row). Row "4090 24GB | 8B F16 | pp 512 9382.00": 512-token prompt processing at batch 1, no generation; 9382.00 prompt tokens/s / 512 = 18.3242 requests/s of 512 prompt + 1 output token (about 151 TFLOP/s: 46% of the RTX 4090''s 330 TFLOP/s FP16-accumulate peak, which llama.cpp''s cuBLAS path runs at). Prefill-dominated: calibrates llama.cpp compute efficiency on the RTX 4090 for F16 weights.',
   1, 'llama_cpp');
