-- 0016: spot prices for the shipped AWS offers in us-east-1 and us-west-2 (migration 0002).
--
-- Read 2026-12-02 from the public SkyPilot catalog, github.com/skypilot-org/skypilot-catalog
-- catalogs/v7/aws/vms.csv at commit 001367d22a0033fac286a8c71aeac7109e431bcb (the file the
-- reference price bands and tests/store/fixtures/aws_v7_vms.csv already cite). Its SpotPrice
-- column is the AWS spot price per availability zone; each row below is the cheapest zone of
-- the region, which is what ImportPricesCsv makes of the same rows (docs/catalog.md), so a
-- re-import of that file finds these spot prices. The zone is named in each citation.
--
-- A spot price is shipped only where the file's on-demand price for the offer is the one the
-- catalog holds (p4de: 40.96575 in the file, 40.9657 in 0002), so both come from one price
-- regime, and only when it is below on-demand. Left out: p5.48xlarge (the file lists p5 at
-- pre-cut prices, ap-northeast-1 $123.19496/h where 0008 holds $68.80/h, while 0015 holds
-- the June 2025 cut in us-east-1 and us-west-2: a spot price from before the cut is not
-- comparable, and some p5 zones list a spot price equal to on-demand); the regions 0008
-- added for p4d, p4de, p5, p5en and p6-b200 (0008 holds post-cut prices the file does not);
-- the GCP, Azure and Lambda offers (not read this round; Lambda publishes no spot price).
--
-- Spot prices move by the hour; the file is undated and its P4/P5 on-demand prices predate
-- AWS's June 2025 cut, so these are a snapshot from before mid-2025 at the latest, not a
-- quote. As migration 0008 did for the undated SkyPilot Azure file, each row takes effect
-- when it was read, 2026-12-02 00:00 UTC. Portable SQL: PostgreSQL runs this file as it is
-- (migrations/postgresql/README.md).

INSERT INTO prices (provider, instance_type, region, kind, price_usd_per_hour, effective_unix_seconds, source_citation, source_as_of_date) VALUES
  ('aws', 'g4dn.xlarge', 'us-east-1', 'spot', 0.1845, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: use1-az5; on-demand in the same file 0.526); the file carries no date', '2026-12-02'),
  ('aws', 'g4dn.xlarge', 'us-west-2', 'spot', 0.1779, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: usw2-az3; on-demand in the same file 0.526); the file carries no date', '2026-12-02'),
  ('aws', 'g4dn.12xlarge', 'us-east-1', 'spot', 1.2684, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: use1-az6; on-demand in the same file 3.912); the file carries no date', '2026-12-02'),
  ('aws', 'g4dn.12xlarge', 'us-west-2', 'spot', 1.4264, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: usw2-az2; on-demand in the same file 3.912); the file carries no date', '2026-12-02'),
  ('aws', 'g5.xlarge', 'us-east-1', 'spot', 0.397, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: use1-az2; on-demand in the same file 1.006); the file carries no date', '2026-12-02'),
  ('aws', 'g5.xlarge', 'us-west-2', 'spot', 0.357, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: usw2-az2; on-demand in the same file 1.006); the file carries no date', '2026-12-02'),
  ('aws', 'g5.2xlarge', 'us-east-1', 'spot', 0.4288, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: use1-az5; on-demand in the same file 1.212); the file carries no date', '2026-12-02'),
  ('aws', 'g5.2xlarge', 'us-west-2', 'spot', 0.409, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: usw2-az1; on-demand in the same file 1.212); the file carries no date', '2026-12-02'),
  ('aws', 'g5.12xlarge', 'us-east-1', 'spot', 1.9937, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: use1-az1; on-demand in the same file 5.672); the file carries no date', '2026-12-02'),
  ('aws', 'g5.12xlarge', 'us-west-2', 'spot', 1.8005, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: usw2-az1; on-demand in the same file 5.672); the file carries no date', '2026-12-02'),
  ('aws', 'g5.48xlarge', 'us-east-1', 'spot', 3.9266, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: use1-az1; on-demand in the same file 16.288); the file carries no date', '2026-12-02'),
  ('aws', 'g5.48xlarge', 'us-west-2', 'spot', 4.8284, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: usw2-az3; on-demand in the same file 16.288); the file carries no date', '2026-12-02'),
  ('aws', 'g6.xlarge', 'us-east-1', 'spot', 0.3879, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: use1-az2; on-demand in the same file 0.8048); the file carries no date', '2026-12-02'),
  ('aws', 'g6.xlarge', 'us-west-2', 'spot', 0.399, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: usw2-az1; on-demand in the same file 0.8048); the file carries no date', '2026-12-02'),
  ('aws', 'g6e.xlarge', 'us-east-1', 'spot', 0.787, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: use1-az2; on-demand in the same file 1.861); the file carries no date', '2026-12-02'),
  ('aws', 'g6e.xlarge', 'us-west-2', 'spot', 0.7915, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: usw2-az2; on-demand in the same file 1.861); the file carries no date', '2026-12-02'),
  ('aws', 'p3.2xlarge', 'us-east-1', 'spot', 0.5197, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: use1-az1; on-demand in the same file 3.06); the file carries no date', '2026-12-02'),
  ('aws', 'p3.2xlarge', 'us-west-2', 'spot', 0.9362, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: usw2-az2; on-demand in the same file 3.06); the file carries no date', '2026-12-02'),
  ('aws', 'p3.16xlarge', 'us-east-1', 'spot', 2.7531, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: use1-az5; on-demand in the same file 24.48); the file carries no date', '2026-12-02'),
  ('aws', 'p3.16xlarge', 'us-west-2', 'spot', 7.7473, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: usw2-az2; on-demand in the same file 24.48); the file carries no date', '2026-12-02'),
  ('aws', 'p3dn.24xlarge', 'us-east-1', 'spot', 3.2632, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: use1-az6; on-demand in the same file 31.212); the file carries no date', '2026-12-02'),
  ('aws', 'p3dn.24xlarge', 'us-west-2', 'spot', 9.186, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: usw2-az1; on-demand in the same file 31.212); the file carries no date', '2026-12-02'),
  ('aws', 'p4d.24xlarge', 'us-east-1', 'spot', 5.0933, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: use1-az6; on-demand in the same file 32.7726); the file carries no date', '2026-12-02'),
  ('aws', 'p4d.24xlarge', 'us-west-2', 'spot', 10.507, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: usw2-az1; on-demand in the same file 32.7726); the file carries no date', '2026-12-02'),
  ('aws', 'p4de.24xlarge', 'us-east-1', 'spot', 5.8394, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: use1-az6; on-demand in the same file 40.96575); the file carries no date', '2026-12-02'),
  ('aws', 'p4de.24xlarge', 'us-west-2', 'spot', 6.8849, 1796169600, 'SkyPilot catalog v7 aws/vms.csv @ 001367d (AWS spot price, Linux, cheapest availability zone of the region: usw2-az3; on-demand in the same file 40.96575); the file carries no date', '2026-12-02');
