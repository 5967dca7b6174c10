-- 0015: the current AWS p5.48xlarge on-demand price in us-east-1 and us-west-2.
--
-- Migration 0002 shipped p5.48xlarge (8 x H100) at the June 2024 list price, $98.32/h, which
-- the Tco RPC uses as its default rent for H100 in those regions. AWS cut P5 on-demand prices
-- by up to 45% in June 2025 (AWS News Blog, "Announcing up to 45% price reduction for Amazon
-- EC2 NVIDIA GPU-accelerated instances", June 2025, on-demand from 2025-06-01). The AWS Price
-- List as republished by instances.vantage.sh (tsaol/aws-gpu data/p5_instances.js @ 299375b,
-- updated 2026-08-26; the file migration 0008 read) lists p5.48xlarge at $55.04/h in both
-- regions. New rows effective 2025-06-01 00:00 UTC, dated 2026-08-26 (when the list was
-- read), so a price read as of an earlier instant still gets the 2024 row; 0002 is not edited.
-- Portable SQL: PostgreSQL runs this file as it is (migrations/postgresql/README.md).

INSERT INTO prices (provider, instance_type, region, kind, price_usd_per_hour, effective_unix_seconds, source_citation, source_as_of_date) VALUES
  ('aws', 'p5.48xlarge', 'us-east-1', 'on_demand', 55.04, 1748736000, 'instances.vantage.sh data (from the AWS Price List) via tsaol/aws-gpu data/p5_instances.js @ 299375b, Linux on-demand; the June 2025 P5 cut (AWS News Blog, "Announcing up to 45% price reduction for Amazon EC2 NVIDIA GPU-accelerated instances")', '2026-08-26'),
  ('aws', 'p5.48xlarge', 'us-west-2', 'on_demand', 55.04, 1748736000, 'instances.vantage.sh data (from the AWS Price List) via tsaol/aws-gpu data/p5_instances.js @ 299375b, Linux on-demand; the June 2025 P5 cut (AWS News Blog, "Announcing up to 45% price reduction for Amazon EC2 NVIDIA GPU-accelerated instances")', '2026-08-26');
