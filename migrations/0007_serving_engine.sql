-- 0007: the serving engine a benchmark was measured on, and GPU memory in the bytes the
-- part carries.
--
-- Engines differ in how much memory they give the KV cache, in their per-step token budget and
-- overhead, and in the kernels they run (core/serving_engine.cc), so a serving figure is only
-- comparable with the engine it was measured on. Rows recorded before this migration name no
-- engine; they read as vLLM, the default (0002's serving figures did not say which server they used).
ALTER TABLE benchmarks ADD COLUMN serving_engine TEXT NOT NULL DEFAULT 'vllm'
  CHECK (serving_engine IN ('vllm', 'tensorrt_llm', 'sglang', 'llama_cpp'));

-- Datasheet "GB" of GPU memory is GiB of DRAM: an 80 GB H100 carries 80 GiB = 85,899,345,920
-- bytes, of which nvidia-smi reports 81,559 MiB to the CUDA runtime (the driver holds the
-- rest, counted in core's kRuntimeReservedBytes); an 80 GB A100 reports 81,920 MiB, a
-- 141 GB H200 143,771 MiB. 0002 stored the decimal figure, which refused configurations the
-- engines run (docs/estimator.md, serving memory). Rows an admin has since edited are left alone.
UPDATE gpu_types SET memory_bytes = 25769803776 WHERE name = 'P40' AND memory_bytes = 24000000000;
UPDATE gpu_types SET memory_bytes = 17179869184 WHERE name = 'T4' AND memory_bytes = 16000000000;
UPDATE gpu_types SET memory_bytes = 17179869184 WHERE name = 'V100-SXM2-16GB' AND memory_bytes = 16000000000;
UPDATE gpu_types SET memory_bytes = 34359738368 WHERE name = 'V100-SXM2-32GB' AND memory_bytes = 32000000000;
UPDATE gpu_types SET memory_bytes = 25769803776 WHERE name = 'A10G' AND memory_bytes = 24000000000;
UPDATE gpu_types SET memory_bytes = 25769803776 WHERE name = 'L4' AND memory_bytes = 24000000000;
UPDATE gpu_types SET memory_bytes = 51539607552 WHERE name = 'L40S' AND memory_bytes = 48000000000;
UPDATE gpu_types SET memory_bytes = 25769803776 WHERE name = 'RTX-3090' AND memory_bytes = 24000000000;
UPDATE gpu_types SET memory_bytes = 25769803776 WHERE name = 'RTX-4090' AND memory_bytes = 24000000000;
UPDATE gpu_types SET memory_bytes = 51539607552 WHERE name = 'RTX-A6000' AND memory_bytes = 48000000000;
UPDATE gpu_types SET memory_bytes = 51539607552 WHERE name = 'RTX-6000-Ada' AND memory_bytes = 48000000000;
UPDATE gpu_types SET memory_bytes = 42949672960 WHERE name = 'A100-SXM4-40GB' AND memory_bytes = 40000000000;
UPDATE gpu_types SET memory_bytes = 85899345920 WHERE name = 'A100-SXM4-80GB' AND memory_bytes = 80000000000;
UPDATE gpu_types SET memory_bytes = 85899345920 WHERE name = 'A100-PCIe-80GB' AND memory_bytes = 80000000000;
UPDATE gpu_types SET memory_bytes = 85899345920 WHERE name = 'H100-PCIe-80GB' AND memory_bytes = 80000000000;
UPDATE gpu_types SET memory_bytes = 85899345920 WHERE name = 'H100-SXM5-80GB' AND memory_bytes = 80000000000;
UPDATE gpu_types SET memory_bytes = 151397597184 WHERE name = 'H200-SXM-141GB' AND memory_bytes = 141000000000;
UPDATE gpu_types SET memory_bytes = 206158430208 WHERE name = 'MI300X' AND memory_bytes = 192000000000;
UPDATE gpu_types SET memory_bytes = 137438953472 WHERE name = 'Intel-Max-1550' AND memory_bytes = 128000000000;
