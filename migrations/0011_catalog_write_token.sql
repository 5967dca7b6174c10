-- 0011: a random token beside the catalog version, written by every admin write.
--
-- Replicas on PostgreSQL compare the database's catalog version with their snapshot's. After a
-- failover to a standby that missed acknowledged writes (or a restore from a backup), the
-- database can come back at a lower version, or reach the replica's version again through
-- other writes: same number, different content. The token tells such histories apart, since
-- each write draws a new one; the database's epoch (system identifier and timeline) is read
-- from PostgreSQL itself. The same SQL serves SQLite and PostgreSQL.
ALTER TABLE catalog_meta ADD COLUMN write_token TEXT NOT NULL DEFAULT '';
