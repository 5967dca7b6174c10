-- PostgreSQL spelling of migrations/0006_tco_scenarios.sql (kept in step by tests/store/pg_migrations_test.cc).
-- 0006: standing TCO scenarios. Ops name a TcoRequest; the server recomputes every scenario
-- for each catalog version and exports the answers as capplan_tco_* gauges labelled by name.
-- The request is kept as protobuf JSON (proto field names), so the audit log and a backup
-- show it readably; the server checks it like a Tco call before it is written.
CREATE TABLE tco_scenarios (
  name TEXT COLLATE "C" PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
  request_json TEXT COLLATE "C" NOT NULL CHECK ((request_json::json IS NOT NULL) AND length(request_json) <= 65536),
  updated_by TEXT COLLATE "C" NOT NULL,
  updated_unix_seconds BIGINT NOT NULL
);
