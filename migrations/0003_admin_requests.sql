-- 0003: the request ids of admin writes, recorded in the same transaction as the write, so
-- a retried write answers with the original result instead of applying twice. Pruned by the
-- store to the last 10,000 ids and 7 days.
CREATE TABLE admin_requests (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  request_id TEXT NOT NULL UNIQUE CHECK (length(request_id) BETWEEN 1 AND 128),
  method TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  at_unix_seconds INTEGER NOT NULL,
  catalog_version INTEGER NOT NULL,
  row_id INTEGER NOT NULL,
  rows_written INTEGER NOT NULL
);
CREATE INDEX admin_requests_at ON admin_requests (at_unix_seconds);
