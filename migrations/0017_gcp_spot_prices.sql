-- 0017: spot prices for the shipped GCP offers (migration 0002) whose on-demand price the public
-- file confirms.
--
-- Read 2026-12-07 from the public SkyPilot catalog, github.com/skypilot-org/skypilot-catalog
-- catalogs/v7/gcp/vms.csv at commit 017e2502fb63c7a28757acd94002b2d6099d3e3d (the file the
-- reference price bands and tests/store/fixtures/gcp_v7_vms.csv already cite). GCP prices a GPU
-- VM in two rows per zone: the host VM (InstanceType set) and its accelerators (InstanceType
-- empty). Each price below is host + accelerator, SpotPrice column for SpotPrice column, which
-- is what ImportPricesCsv makes of the same rows (docs/catalog.md, "Importing prices"); every
-- zone of each region listed here carries the same two prices, so the region's price is that
-- of any zone.
--
-- As migration 0016 did for AWS, a spot price is shipped only where the file's on-demand sum is
-- the price the catalog holds for the offer, so that both come from one price regime, and only
-- when spot is below it:
--   g2-standard-4 (1 x L4): 0.14679 + 0.56004 = 0.70683 in the file, 0.70683 in 0002.
--   a2-highgpu-1g (1 x A100 40GB): 0.73948 + 2.93391 = 3.67339 in the file, 3.673477 in 0002.
--   a2-highgpu-8g (8 x A100 40GB): 5.91582 + 23.47126 = 29.38708 in the file, 29.387818 in 0002.
-- The two A2 High sums differ from 0002 in the fifth or sixth significant digit (under 0.003%):
-- far below any list price change, so both are taken as one price (0016 did likewise for p4de).
-- Left out: a2-ultragpu-8g (us-central1 is 8.79698 + 14.76958 = 23.56656 in the file, 40.5503
-- in 0002) and a3-highgpu-8g (us-central1 is 9.46006 + 33.60609 = 43.06615 in the file, 88.2549
-- in 0002): the file's on-demand price is not the catalog's (40-50% lower; its H100
-- accelerator price alone runs from 33.60609 in us-central1 to 78.37241 in us-east4), so its spot
-- price is not comparable with the shipped on-demand row. Neither is listed in us-east1 in the
-- file at all (a2-ultragpu-8g: us-central1, us-east4, us-east5 and others; a3-highgpu-8g:
-- us-central1, us-east4, us-east5 and others), so the shipped us-east1 rows have no public spot
-- price here. Azure: the two SkyPilot Azure files disagree on spot by 3x for the same offer
-- (Standard_NC4as_T4_v3 eastus: 0.062699 in catalogs/v6/azure/vms.csv @ 098741e7, 0.208612 in
-- catalogs/azure/instances.csv @ 5940ede7, both at on-demand 0.526), so neither is shipped.
--
-- Spot prices move; the file is undated, so these are a snapshot, not a quote. As migrations
-- 0008 and 0016 did for undated SkyPilot files, each row takes effect when it was read,
-- 2026-12-07 00:00 UTC. Portable SQL: PostgreSQL runs this file as it is
-- (migrations/postgresql/README.md).

INSERT INTO prices (provider, instance_type, region, kind, price_usd_per_hour, effective_unix_seconds, source_citation, source_as_of_date) VALUES
  ('gcp', 'g2-standard-4', 'us-central1', 'spot', 0.28184, 1796601600, 'SkyPilot catalog v7 gcp/vms.csv @ 017e250 (GCP spot price, host g2-standard-4 0.05874 + 1 x L4 0.2231, zones us-central1-a/b/c; on-demand in the same file 0.14679 + 0.56004 = 0.70683); the file carries no date', '2026-12-07'),
  ('gcp', 'g2-standard-4', 'us-east1', 'spot', 0.28184, 1796601600, 'SkyPilot catalog v7 gcp/vms.csv @ 017e250 (GCP spot price, host g2-standard-4 0.05874 + 1 x L4 0.2231, zones us-east1-b/c/d; on-demand in the same file 0.14679 + 0.56004 = 0.70683); the file carries no date', '2026-12-07'),
  ('gcp', 'a2-highgpu-1g', 'us-central1', 'spot', 1.44296, 1796601600, 'SkyPilot catalog v7 gcp/vms.csv @ 017e250 (GCP spot price, host a2-highgpu-1g 0.29576 + 1 x A100 1.1472, zones us-central1-a/b/c/f; on-demand in the same file 0.73948 + 2.93391 = 3.67339); the file carries no date', '2026-12-07'),
  ('gcp', 'a2-highgpu-1g', 'us-east1', 'spot', 1.44296, 1796601600, 'SkyPilot catalog v7 gcp/vms.csv @ 017e250 (GCP spot price, host a2-highgpu-1g 0.29576 + 1 x A100 1.1472, zone us-east1-b; on-demand in the same file 0.73948 + 2.93391 = 3.67339); the file carries no date', '2026-12-07'),
  ('gcp', 'a2-highgpu-8g', 'us-central1', 'spot', 11.54364, 1796601600, 'SkyPilot catalog v7 gcp/vms.csv @ 017e250 (GCP spot price, host a2-highgpu-8g 2.36604 + 8 x A100 9.1776, zones us-central1-a/b/c/f; on-demand in the same file 5.91582 + 23.47126 = 29.38708); the file carries no date', '2026-12-07'),
  ('gcp', 'a2-highgpu-8g', 'us-east1', 'spot', 11.54364, 1796601600, 'SkyPilot catalog v7 gcp/vms.csv @ 017e250 (GCP spot price, host a2-highgpu-8g 2.36604 + 8 x A100 9.1776, zone us-east1-b; on-demand in the same file 5.91582 + 23.47126 = 29.38708); the file carries no date', '2026-12-07');
