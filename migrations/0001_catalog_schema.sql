-- 0001: the catalog schema. Every catalog row names its source; prices are an
-- effective-dated history; every admin write leaves an audit row.

CREATE TABLE catalog_meta (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  catalog_version INTEGER NOT NULL CHECK (catalog_version >= 1),
  updated_unix_seconds INTEGER NOT NULL
);
INSERT INTO catalog_meta (id, catalog_version, updated_unix_seconds)
VALUES (1, 1, CAST(strftime('%s', 'now') AS INTEGER));

CREATE TABLE gpu_types (
  name TEXT PRIMARY KEY,
  vendor TEXT NOT NULL,
  memory_bytes INTEGER NOT NULL CHECK (memory_bytes > 0),
  memory_bandwidth_bytes_per_second REAL NOT NULL CHECK (memory_bandwidth_bytes_per_second > 0),
  fp32_dense_tflops REAL NOT NULL DEFAULT 0 CHECK (fp32_dense_tflops >= 0),
  tf32_dense_tflops REAL NOT NULL DEFAULT 0 CHECK (tf32_dense_tflops >= 0),
  fp16_dense_tflops REAL NOT NULL DEFAULT 0 CHECK (fp16_dense_tflops >= 0),
  bf16_dense_tflops REAL NOT NULL DEFAULT 0 CHECK (bf16_dense_tflops >= 0),
  fp8_dense_tflops REAL NOT NULL DEFAULT 0 CHECK (fp8_dense_tflops >= 0),
  int8_dense_tops REAL NOT NULL DEFAULT 0 CHECK (int8_dense_tops >= 0),
  int4_dense_tops REAL NOT NULL DEFAULT 0 CHECK (int4_dense_tops >= 0),
  tdp_watts REAL NOT NULL CHECK (tdp_watts > 0),
  interconnect_kind TEXT NOT NULL CHECK (interconnect_kind IN ('pcie', 'nvlink', 'infinity_fabric', 'xe_link')),
  interconnect_bandwidth_bytes_per_second REAL NOT NULL CHECK (interconnect_bandwidth_bytes_per_second > 0),
  gpus_per_node INTEGER NOT NULL CHECK (gpus_per_node BETWEEN 1 AND 64),
  datacenter INTEGER NOT NULL CHECK (datacenter IN (0, 1)),
  form_factor TEXT NOT NULL,
  list_price_usd REAL NOT NULL DEFAULT 0 CHECK (list_price_usd >= 0),
  source_citation TEXT NOT NULL CHECK (length(source_citation) > 0),
  source_as_of_date TEXT NOT NULL,
  source_note TEXT NOT NULL DEFAULT ''
);

CREATE TABLE models (
  name TEXT PRIMARY KEY,
  num_layers INTEGER NOT NULL DEFAULT 0 CHECK (num_layers >= 0),
  hidden_size INTEGER NOT NULL DEFAULT 0 CHECK (hidden_size >= 0),
  num_attention_heads INTEGER NOT NULL DEFAULT 0 CHECK (num_attention_heads >= 0),
  num_kv_heads INTEGER NOT NULL DEFAULT 0 CHECK (num_kv_heads >= 0),
  ffn_hidden_size INTEGER NOT NULL DEFAULT 0 CHECK (ffn_hidden_size >= 0),
  gated_mlp INTEGER NOT NULL DEFAULT 1 CHECK (gated_mlp IN (0, 1)),
  vocab_size INTEGER NOT NULL DEFAULT 0 CHECK (vocab_size >= 0),
  tied_embeddings INTEGER NOT NULL DEFAULT 0 CHECK (tied_embeddings IN (0, 1)),
  num_experts INTEGER NOT NULL DEFAULT 0 CHECK (num_experts >= 0),
  experts_per_token INTEGER NOT NULL DEFAULT 0 CHECK (experts_per_token >= 0),
  max_context_tokens INTEGER NOT NULL DEFAULT 0 CHECK (max_context_tokens >= 0),
  parameter_count REAL NOT NULL DEFAULT 0 CHECK (parameter_count >= 0),
  source_citation TEXT NOT NULL CHECK (length(source_citation) > 0),
  source_as_of_date TEXT NOT NULL,
  source_note TEXT NOT NULL DEFAULT ''
);

CREATE TABLE instance_types (
  provider TEXT NOT NULL,
  instance_type TEXT NOT NULL,
  region TEXT NOT NULL,
  gpu_name TEXT NOT NULL REFERENCES gpu_types (name) ON UPDATE CASCADE ON DELETE RESTRICT,
  gpu_count INTEGER NOT NULL CHECK (gpu_count >= 1),
  vcpus INTEGER NOT NULL CHECK (vcpus >= 0),
  memory_bytes INTEGER NOT NULL CHECK (memory_bytes >= 0),
  source_citation TEXT NOT NULL CHECK (length(source_citation) > 0),
  source_as_of_date TEXT NOT NULL,
  PRIMARY KEY (provider, instance_type, region)
);

CREATE TABLE prices (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  provider TEXT NOT NULL,
  instance_type TEXT NOT NULL,
  region TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('on_demand', 'spot', 'reserved_1y', 'reserved_3y')),
  price_usd_per_hour REAL NOT NULL CHECK (price_usd_per_hour >= 0),
  effective_unix_seconds INTEGER NOT NULL,
  source_citation TEXT NOT NULL CHECK (length(source_citation) > 0),
  source_as_of_date TEXT NOT NULL,
  FOREIGN KEY (provider, instance_type, region)
    REFERENCES instance_types (provider, instance_type, region) ON DELETE CASCADE
);
CREATE INDEX prices_by_offer ON prices (provider, instance_type, region, kind, effective_unix_seconds);

CREATE TABLE benchmarks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  gpu_name TEXT NOT NULL REFERENCES gpu_types (name) ON UPDATE CASCADE ON DELETE CASCADE,
  model_name TEXT NOT NULL REFERENCES models (name) ON UPDATE CASCADE ON DELETE CASCADE,
  workload TEXT NOT NULL CHECK (workload IN ('training', 'fine_tuning', 'serving')),
  precision TEXT NOT NULL CHECK (precision IN ('fp32', 'tf32', 'fp16', 'bf16', 'fp8', 'int8', 'int4')),
  training_method TEXT NOT NULL DEFAULT 'full' CHECK (training_method IN ('full', 'lora', 'qlora')),
  gpu_count INTEGER NOT NULL CHECK (gpu_count >= 1),
  batch_size INTEGER NOT NULL DEFAULT 0 CHECK (batch_size >= 0),
  sequence_tokens INTEGER NOT NULL DEFAULT 0 CHECK (sequence_tokens >= 0),
  output_tokens INTEGER NOT NULL DEFAULT 0 CHECK (output_tokens >= 0),
  measured_value REAL NOT NULL CHECK (measured_value > 0),
  measured_unit TEXT NOT NULL CHECK (measured_unit IN ('requests_per_second', 'tokens_per_second', 'seconds_per_step')),
  source_citation TEXT NOT NULL CHECK (length(source_citation) > 0),
  source_as_of_date TEXT NOT NULL,
  source_note TEXT NOT NULL DEFAULT ''
);

CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at_unix_micros INTEGER NOT NULL,
  caller TEXT NOT NULL,
  method TEXT NOT NULL,
  entity TEXT NOT NULL,
  before_json TEXT,
  after_json TEXT,
  catalog_version INTEGER NOT NULL
);
