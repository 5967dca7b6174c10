-- 0012: every shipped row cites a source a reader can open.
--
-- Migration 0002 shipped four benchmark rows and one model whose only source was an
-- unpublished blog post: Llama-2-7B serving throughputs of 35 and 28 req/s on an A10G and
-- 12 req/s on a T4, and a 4 x A100 training timing of a "Bloom-13B", a size BigScience never
-- released (so the model had no architecture, only a parameter count, and the timing no batch
-- size, so calibration could not use it). They are deleted here; estimates on those GPUs fall
-- back to the cited default efficiencies until a public measurement is recorded. The BLOOM
-- checkpoints that do exist are added beside 0002's BLOOM-7B1 and BLOOM-176B (BigScience,
-- "BLOOM: A 176B-Parameter Open-Access Multilingual Language Model", arXiv:2211.05100,
-- Table 3, and each checkpoint's config.json on Hugging Face: a GELU MLP of 4h, ALiBi
-- positions, tied embeddings, a 250,880-token vocabulary and a 2,048-token context).
--
-- Six GPU notes and four price citations of 0002 compared a datasheet with that post; they now
-- state the public fact alone. 0002's text was corrected the same way for new databases (the
-- runner records applied versions by number and never re-runs an applied file), so a database
-- created before this migration and one created after hold the same rows, with the same ids.
-- Portable SQL: PostgreSQL runs this file as it is (migrations/postgresql/README.md).

DELETE FROM benchmarks
WHERE workload = 'serving' AND model_name = 'Llama-2-7B' AND source_as_of_date = '2024-01-01'
  AND measured_unit = 'requests_per_second'
  AND ((gpu_name = 'A10G' AND measured_value IN (35, 28)) OR (gpu_name = 'T4' AND measured_value = 12));
-- The placeholder model (its name carried the post's label in parentheses) and its timing.
DELETE FROM benchmarks WHERE model_name LIKE 'Bloom-13B (%';
DELETE FROM models WHERE name LIKE 'Bloom-13B (%' AND num_layers = 0;

INSERT INTO models (name, num_layers, hidden_size, num_attention_heads, num_kv_heads, ffn_hidden_size, gated_mlp,
                    vocab_size, tied_embeddings, num_experts, experts_per_token, max_context_tokens, source_citation,
                    source_as_of_date, source_note) VALUES
  ('BLOOM-560M', 24, 1024, 16, 16, 4096, 0, 250880, 1, 0, 0, 2048,
   'bigscience/bloom-560m config.json; BigScience 2022 (arXiv:2211.05100), Table 3', '2022-11-09', '559M parameters'),
  ('BLOOM-1B1', 24, 1536, 16, 16, 6144, 0, 250880, 1, 0, 0, 2048,
   'bigscience/bloom-1b1 config.json; BigScience 2022 (arXiv:2211.05100), Table 3', '2022-11-09', '1.07B parameters'),
  ('BLOOM-1B7', 24, 2048, 16, 16, 8192, 0, 250880, 1, 0, 0, 2048,
   'bigscience/bloom-1b7 config.json; BigScience 2022 (arXiv:2211.05100), Table 3', '2022-11-09', '1.72B parameters'),
  ('BLOOM-3B', 30, 2560, 32, 32, 10240, 0, 250880, 1, 0, 0, 2048,
   'bigscience/bloom-3b config.json; BigScience 2022 (arXiv:2211.05100), Table 3', '2022-11-09', '3.00B parameters');

UPDATE prices SET source_citation = 'AWS EC2 On-Demand pricing page (Linux)'
WHERE provider = 'aws' AND instance_type IN ('g5.xlarge', 'g5.48xlarge')
  AND source_citation LIKE 'AWS EC2 On-Demand pricing page (Linux); % quotes $%';

UPDATE gpu_types SET source_note =
  'No tensor cores; FP16 runs at 1/64 of FP32 and INT8 via DP4A, so training uses FP32. Memory: the datasheet''s GB in binary bytes (GiB). System power: assumption, TDP + 250 W per GPU for an 8-GPU PCIe server host (~2 kW, +-50%). Idle share 0.25: assumption (+-0.1), GPUs idle near 10% of TDP and hosts near 40% of max. Prices: no public card or system list price used; left 0.'
WHERE name = 'P40' AND source_citation = 'NVIDIA Tesla P40 datasheet (2016)';
UPDATE gpu_types SET source_note =
  'Consumer part: throttles in server racks. FP16/BF16 tensor with FP32 accumulate (71; 142 with FP16 accumulate). 35.6 TFLOPS is plain FP32 (and non-tensor FP16), not a tensor rate. NVLink bridge pairs two cards (112.5 GB/s bidirectional). Memory: the datasheet''s GB in binary bytes (GiB). System power: assumption, TDP + 250 W per GPU for an 8-GPU PCIe server host (~2 kW, +-50%). Idle share 0.25: assumption (+-0.1), GPUs idle near 10% of TDP and hosts near 40% of max. Prices: launch MSRP (2020-09); street prices varied, +-10%. No system price; left 0.'
WHERE name = 'RTX-3090' AND source_citation = 'NVIDIA Ampere GA102 GPU architecture whitepaper, RTX 3090 column';
UPDATE gpu_types SET source_note =
  'Consumer part: open-air cooler built for desktop cases; NVIDIA''s GeForce driver licence excludes datacenter deployment. FP16/BF16/FP8 tensor with FP32 accumulate; no NVLink. Memory: the datasheet''s GB in binary bytes (GiB). System power: assumption, TDP + 250 W per GPU for an 8-GPU PCIe server host (~2 kW, +-50%). Idle share 0.25: assumption (+-0.1), GPUs idle near 10% of TDP and hosts near 40% of max. Prices: launch MSRP (2022-10); street prices varied, +-10%. No system price; left 0.'
WHERE name = 'RTX-4090' AND source_citation = 'NVIDIA Ada Lovelace GPU architecture whitepaper, RTX 4090 column';
UPDATE gpu_types SET source_note =
  'The datasheet says 768 GB/s (600 GB/s, sometimes quoted, is wrong). NVLink bridge pairs two cards. Memory: the datasheet''s GB in binary bytes (GiB). System power: assumption, TDP + 250 W per GPU for an 8-GPU PCIe server host (~2 kW, +-50%). Idle share 0.25: assumption (+-0.1), GPUs idle near 10% of TDP and hosts near 40% of max. Prices: list price at launch (2020-10); +-10%. No system price; left 0.'
WHERE name = 'RTX-A6000' AND source_citation = 'NVIDIA RTX A6000 datasheet';
UPDATE gpu_types SET source_note =
  '1555 GB/s is the 40 GB part (the 80 GB SXM part has 2039 GB/s; the two are often confused). Memory: the datasheet''s GB in binary bytes (GiB). System power: NVIDIA DGX A100 datasheet, 6.5 kW max for 8 GPUs. Idle share 0.25: assumption (+-0.1), GPUs idle near 10% of TDP and hosts near 40% of max. Prices: card ~$20,000 (press estimates at launch, 2020-05; +-30%); system $199,000 / 8 (DGX A100 launch price, NVIDIA GTC 2020-05-14).'
WHERE name = 'A100-SXM4-40GB' AND source_citation = 'NVIDIA A100 Tensor Core GPU datasheet';
UPDATE gpu_types SET source_note =
  'Uncertain: Xe Link per-GPU bandwidth not stated as one figure; 53 GB/s per direction assumed. No Max SKU has 64 GB of HBM (1100: 48 GB, 1550: 128 GB). Memory: the datasheet''s GB in binary bytes (GiB). System power: assumption, TDP + 575 W host share per GPU (as DGX H100); no reference system figure used. Idle share 0.25: assumption (+-0.1), GPUs idle near 10% of TDP and hosts near 40% of max. Prices: no public card or system list price used; left 0.'
WHERE name = 'Intel-Max-1550' AND source_citation = 'Intel Data Center GPU Max 1550 product brief';
