-- 0013: model architectures as current mixture-of-experts and latent-attention models are
-- built (core/model.h): an explicit per-head width, routed experts narrower than the dense
-- FFN, shared experts, leading dense layers, and multi-head latent attention (DeepSeek-V2,
-- arXiv 2405.04434, Sec. 2.1). Every new column defaults to 0, which reads as before: existing
-- rows keep their meaning and their answers.
-- PostgreSQL spelling: BIGINT for INTEGER.

ALTER TABLE models ADD COLUMN head_dim BIGINT NOT NULL DEFAULT 0 CHECK (head_dim >= 0);
ALTER TABLE models ADD COLUMN expert_ffn_hidden_size BIGINT NOT NULL DEFAULT 0 CHECK (expert_ffn_hidden_size >= 0);
ALTER TABLE models ADD COLUMN num_shared_experts BIGINT NOT NULL DEFAULT 0 CHECK (num_shared_experts >= 0);
ALTER TABLE models ADD COLUMN shared_expert_ffn_hidden_size BIGINT NOT NULL DEFAULT 0 CHECK (shared_expert_ffn_hidden_size >= 0);
ALTER TABLE models ADD COLUMN num_dense_layers BIGINT NOT NULL DEFAULT 0 CHECK (num_dense_layers >= 0);
ALTER TABLE models ADD COLUMN q_lora_rank BIGINT NOT NULL DEFAULT 0 CHECK (q_lora_rank >= 0);
ALTER TABLE models ADD COLUMN kv_lora_rank BIGINT NOT NULL DEFAULT 0 CHECK (kv_lora_rank >= 0);
ALTER TABLE models ADD COLUMN qk_rope_head_dim BIGINT NOT NULL DEFAULT 0 CHECK (qk_rope_head_dim >= 0);
ALTER TABLE models ADD COLUMN qk_nope_head_dim BIGINT NOT NULL DEFAULT 0 CHECK (qk_nope_head_dim >= 0);
ALTER TABLE models ADD COLUMN v_head_dim BIGINT NOT NULL DEFAULT 0 CHECK (v_head_dim >= 0);

-- Architectures from each model's config.json as published on Hugging Face, read from the copies
-- in github.com/ai-dynamo/aiconfigurator @ 095f58a51c4ca8e61b66ec108d86f223f8d559ce
-- (aic-core/src/aiconfigurator_core/model_configs/<org>--<model>_config.json; also committed
-- under tests/data/hf_configs/). Published sizes in each row's note.
INSERT INTO models (name, num_layers, hidden_size, num_attention_heads, num_kv_heads, ffn_hidden_size, gated_mlp, vocab_size, tied_embeddings, num_experts, experts_per_token, max_context_tokens, head_dim, expert_ffn_hidden_size, num_shared_experts, shared_expert_ffn_hidden_size, num_dense_layers, q_lora_rank, kv_lora_rank, qk_rope_head_dim, qk_nope_head_dim, v_head_dim, source_citation, source_as_of_date, source_note) VALUES
  ('DeepSeek-V3', 61, 7168, 128, 128, 18432, 1, 129280, 0, 256, 8, 163840, 192, 2048, 1, 0, 3, 1536, 512, 64, 128, 128, 'deepseek-ai/DeepSeek-V3 config.json (via ai-dynamo/aiconfigurator @ 095f58a); DeepSeek-V3 Technical Report, arXiv 2412.19437', '2026-08-21', '671B total, 37B activated per token (report abstract and Sec. 4.2), main model without the 14B multi-token-prediction module. MLA: q_lora_rank 1536, kv_lora_rank 512, rope 64, nope 128, v 128; first 3 layers dense (18432), then 256 routed + 1 shared experts of 2048, top-8. head_dim 192 = nope + rope, the per-head key width attention materialises.'),
  ('Qwen3-30B-A3B', 48, 2048, 32, 4, 6144, 1, 151936, 0, 128, 8, 40960, 128, 768, 0, 0, 0, 0, 0, 0, 0, 0, 'Qwen/Qwen3-30B-A3B config.json (via ai-dynamo/aiconfigurator @ 095f58a); Qwen3-30B-A3B model card', '2026-08-21', '30.5B total, 3.3B activated (model card). 128 experts of 768, top-8, every layer MoE; intermediate_size 6144 is unused by the MoE layers.'),
  ('GPT-OSS-120B', 36, 2880, 64, 8, 2880, 1, 201088, 0, 128, 4, 131072, 64, 0, 0, 0, 0, 0, 0, 0, 0, 0, 'openai/gpt-oss-120b config.json (via ai-dynamo/aiconfigurator @ 095f58a); gpt-oss-120b & gpt-oss-20b model card (OpenAI, 2025), Table 1', '2026-08-21', '116.8B total, 5.1B active per token (model card; its active count includes the unembedding but not the embedding table). 128 experts of 2880, top-4. Experts ship in MXFP4; biases and attention sinks not counted (<0.1%).'),
  ('GPT-OSS-20B', 24, 2880, 64, 8, 2880, 1, 201088, 0, 32, 4, 131072, 64, 0, 0, 0, 0, 0, 0, 0, 0, 0, 'openai/gpt-oss-20b config.json (via ai-dynamo/aiconfigurator @ 095f58a); gpt-oss-120b & gpt-oss-20b model card (OpenAI, 2025), Table 1', '2026-08-21', '20.9B total, 3.6B active per token (model card, as for the 120B). 32 experts of 2880, top-4.');
