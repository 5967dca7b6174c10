-- PostgreSQL spelling of migrations/0005_owning.sql (kept in step by tests/store/pg_migrations_test.cc).
-- 0005: owning. What a GPU costs to own beyond its card: the whole server's power at full load
-- per GPU (CPUs, memory, NICs, fans, NVSwitches), the share of it drawn when idle, the server's
-- price per GPU, and the relative uncertainty of the prices; and the price of electricity
-- where each shipped cloud region is, so own-versus-rent compares like with like.
-- Every figure names its source and date; assumptions say so, with their spread. 0: not known.

ALTER TABLE gpu_types ADD COLUMN system_power_watts_per_gpu DOUBLE PRECISION NOT NULL DEFAULT 0 CHECK (system_power_watts_per_gpu >= 0);
ALTER TABLE gpu_types ADD COLUMN idle_power_fraction DOUBLE PRECISION NOT NULL DEFAULT 0 CHECK (idle_power_fraction BETWEEN 0 AND 1);
ALTER TABLE gpu_types ADD COLUMN system_price_usd_per_gpu DOUBLE PRECISION NOT NULL DEFAULT 0 CHECK (system_price_usd_per_gpu >= 0);
ALTER TABLE gpu_types ADD COLUMN price_uncertainty_fraction DOUBLE PRECISION NOT NULL DEFAULT 0 CHECK (price_uncertainty_fraction BETWEEN 0 AND 1);

-- System power. NVIDIA's DGX datasheets give each 8-GPU system's maximum power: DGX H100 and
-- DGX H200 10.2 kW, DGX A100 6.5 kW, DGX-1 (V100) 3.5 kW. Parts without a reference system are
-- an assumption: a PCIe server's host (two CPUs, memory, NICs, fans, drives) ~2 kW for 8 GPUs,
-- i.e. 250 W per GPU on top of the card's TDP (+-50%); OAM parts take the DGX H100 host share,
-- (10,200 - 8 x 700) / 8 = 575 W per GPU, on top of their TDP.
-- Idle share: an assumption for every row, 0.25 (+-0.1): datacenter GPUs idle at roughly a
-- tenth of their TDP while the host idles near 40% of its maximum (SPECpower-style server
-- curves), which for a DGX H100 gives (8 x 70 + 0.4 x 4,600) / 10,200 ~ 0.24.
UPDATE gpu_types SET system_power_watts_per_gpu = CASE name
    WHEN 'H100-SXM5-80GB' THEN 10200.0 / 8
    WHEN 'H200-SXM-141GB' THEN 10200.0 / 8
    WHEN 'A100-SXM4-40GB' THEN 6500.0 / 8
    WHEN 'A100-SXM4-80GB' THEN 6500.0 / 8
    WHEN 'V100-SXM2-16GB' THEN 3500.0 / 8
    WHEN 'V100-SXM2-32GB' THEN 3500.0 / 8
    WHEN 'MI300X' THEN tdp_watts + 575
    WHEN 'Intel-Max-1550' THEN tdp_watts + 575
    ELSE tdp_watts + 250
  END,
  idle_power_fraction = 0.25,
  source_note = source_note || CASE name
    WHEN 'H100-SXM5-80GB' THEN ' System power: NVIDIA DGX H100 datasheet, 10.2 kW max for 8 GPUs.'
    WHEN 'H200-SXM-141GB' THEN ' System power: NVIDIA DGX H200 datasheet, 10.2 kW max for 8 GPUs.'
    WHEN 'A100-SXM4-40GB' THEN ' System power: NVIDIA DGX A100 datasheet, 6.5 kW max for 8 GPUs.'
    WHEN 'A100-SXM4-80GB' THEN ' System power: NVIDIA DGX A100 datasheet, 6.5 kW max for 8 GPUs.'
    WHEN 'V100-SXM2-16GB' THEN ' System power: NVIDIA DGX-1 with V100 datasheet, 3.5 kW max for 8 GPUs.'
    WHEN 'V100-SXM2-32GB' THEN ' System power: NVIDIA DGX-1 with V100 datasheet, 3.5 kW max for 8 GPUs.'
    WHEN 'MI300X' THEN ' System power: assumption, TDP + 575 W host share per GPU (as DGX H100); no reference system figure used.'
    WHEN 'Intel-Max-1550' THEN ' System power: assumption, TDP + 575 W host share per GPU (as DGX H100); no reference system figure used.'
    ELSE ' System power: assumption, TDP + 250 W per GPU for an 8-GPU PCIe server host (~2 kW, +-50%).'
  END || ' Idle share 0.25: assumption (+-0.1), GPUs idle near 10% of TDP and hosts near 40% of max.'
WHERE name IN ('P40', 'T4', 'V100-SXM2-16GB', 'V100-SXM2-32GB', 'A10G', 'L4', 'L40S', 'RTX-3090', 'RTX-4090',
               'RTX-A6000', 'RTX-6000-Ada', 'A100-SXM4-40GB', 'A100-SXM4-80GB', 'A100-PCIe-80GB', 'H100-PCIe-80GB',
               'H100-SXM5-80GB', 'H200-SXM-141GB', 'MI300X', 'Intel-Max-1550')
  AND system_power_watts_per_gpu = 0;

-- Prices, dated in the notes. The relative uncertainty covers the spread of the reports.
-- H100: Raymond James estimate (reported by Barron's, Aug 2023) of $25,000-30,000 per H100;
-- other reports reach $40,000. DGX H100: SemiAnalysis "AI Server Cost Analysis" (May 2023)
-- estimates ~$270,000; an 8 x H100 server quotation from Thinkmate (Aug 2024) was ~$317,000.
-- DGX A100: launched at $199,000 (NVIDIA GTC keynote, May 2020, 8 x A100 40 GB). DGX-1 with
-- V100: launched at $149,000 (NVIDIA GTC, May 2017). A100 card: press estimates at launch
-- (May 2020) of ~$20,000; wide spread. H200, MI300X, Intel Max, A10G, L4, L40S, T4, P40, V100
-- cards: no public list price used here (left 0).
UPDATE gpu_types SET
  list_price_usd = CASE name
    WHEN 'H100-SXM5-80GB' THEN 30000
    WHEN 'H100-PCIe-80GB' THEN 25000
    WHEN 'A100-SXM4-40GB' THEN 20000
    WHEN 'A100-SXM4-80GB' THEN 20000
    ELSE list_price_usd
  END,
  system_price_usd_per_gpu = CASE name
    WHEN 'H100-SXM5-80GB' THEN 270000.0 / 8
    WHEN 'A100-SXM4-40GB' THEN 199000.0 / 8
    WHEN 'A100-SXM4-80GB' THEN 199000.0 / 8
    WHEN 'V100-SXM2-16GB' THEN 149000.0 / 8
    WHEN 'V100-SXM2-32GB' THEN 149000.0 / 8
    ELSE system_price_usd_per_gpu
  END,
  price_uncertainty_fraction = CASE name
    WHEN 'H100-SXM5-80GB' THEN 0.2
    WHEN 'H100-PCIe-80GB' THEN 0.25
    WHEN 'A100-SXM4-40GB' THEN 0.3
    WHEN 'A100-SXM4-80GB' THEN 0.4
    WHEN 'V100-SXM2-16GB' THEN 0.2
    WHEN 'V100-SXM2-32GB' THEN 0.3
    WHEN 'RTX-3090' THEN 0.1
    WHEN 'RTX-4090' THEN 0.1
    WHEN 'RTX-A6000' THEN 0.1
    WHEN 'RTX-6000-Ada' THEN 0.1
    ELSE price_uncertainty_fraction
  END,
  source_note = source_note || CASE name
    WHEN 'H100-SXM5-80GB' THEN ' Prices: card $30,000 (Raymond James via Barron''s, 2023-08: $25,000-30,000; up to $40,000 reported); system $270,000 / 8 (SemiAnalysis DGX H100 estimate, 2023-05; Thinkmate 8 x H100 server quote ~$317,000, 2024-08); +-20%.'
    WHEN 'H100-PCIe-80GB' THEN ' Prices: card $25,000 (low end of the $25,000-30,000 H100 estimate, Raymond James via Barron''s, 2023-08); +-25%. No PCIe system price published; left 0.'
    WHEN 'A100-SXM4-40GB' THEN ' Prices: card ~$20,000 (press estimates at launch, 2020-05; +-30%); system $199,000 / 8 (DGX A100 launch price, NVIDIA GTC 2020-05-14).'
    WHEN 'A100-SXM4-80GB' THEN ' Prices: card ~$20,000 and system $199,000 / 8 are the 40 GB launch figures (2020-05); the 80 GB parts cost more and no public list price is used, hence +-40%.'
    WHEN 'V100-SXM2-16GB' THEN ' Prices: system $149,000 / 8 (DGX-1 with V100 launch price, NVIDIA GTC 2017-05-10); +-20%. No card list price published for SXM2; left 0.'
    WHEN 'V100-SXM2-32GB' THEN ' Prices: system $149,000 / 8 is the 16 GB DGX-1 launch price (2017-05); the 32 GB version cost more, hence +-30%. No card list price; left 0.'
    WHEN 'RTX-3090' THEN ' Prices: launch MSRP (2020-09); street prices varied, +-10%. No system price; left 0.'
    WHEN 'RTX-4090' THEN ' Prices: launch MSRP (2022-10); street prices varied, +-10%. No system price; left 0.'
    WHEN 'RTX-A6000' THEN ' Prices: list price at launch (2020-10); +-10%. No system price; left 0.'
    WHEN 'RTX-6000-Ada' THEN ' Prices: list price at launch (2022-12); +-10%. No system price; left 0.'
    ELSE ' Prices: no public card or system list price used; left 0.'
  END
WHERE name IN ('P40', 'T4', 'V100-SXM2-16GB', 'V100-SXM2-32GB', 'A10G', 'L4', 'L40S', 'RTX-3090', 'RTX-4090',
               'RTX-A6000', 'RTX-6000-Ada', 'A100-SXM4-40GB', 'A100-SXM4-80GB', 'A100-PCIe-80GB', 'H100-PCIe-80GB',
               'H100-SXM5-80GB', 'H200-SXM-141GB', 'MI300X', 'Intel-Max-1550')
  AND system_price_usd_per_gpu = 0 AND price_uncertainty_fraction = 0;

-- Electricity by region: EIA Electric Power Annual 2023 (released 2024-10-17), average revenue
-- per kWh by state, commercial sector (industrial in the note). Data-centre contracts differ
-- (large loads buy on industrial or negotiated tariffs, often nearer the industrial figure).
CREATE TABLE electricity_prices (
  region TEXT COLLATE "C" PRIMARY KEY,
  usd_per_kwh DOUBLE PRECISION NOT NULL CHECK (usd_per_kwh > 0 AND usd_per_kwh < 10),
  source_citation TEXT COLLATE "C" NOT NULL CHECK (length(source_citation) > 0),
  source_as_of_date TEXT COLLATE "C" NOT NULL,
  source_note TEXT COLLATE "C" NOT NULL DEFAULT ''
);

INSERT INTO electricity_prices (region, usd_per_kwh, source_citation, source_as_of_date, source_note) VALUES
  ('us-east-1', 0.0895, 'EIA Electric Power Annual 2023 (released 2024-10-17), average revenue per kWh by state: Virginia, commercial 8.95 cents', '2023-12-31', 'AWS US East (N. Virginia); Lambda us-east-1 taken as Virginia too. Industrial: 8.92 cents. Data-centre contracts differ.'),
  ('eastus', 0.0895, 'EIA Electric Power Annual 2023 (released 2024-10-17), average revenue per kWh by state: Virginia, commercial 8.95 cents', '2023-12-31', 'Azure East US (Virginia). Industrial: 8.92 cents. Data-centre contracts differ.'),
  ('us-west-2', 0.0992, 'EIA Electric Power Annual 2023 (released 2024-10-17), average revenue per kWh by state: Oregon, commercial 9.92 cents', '2023-12-31', 'AWS US West (Oregon). Industrial: 7.52 cents. Data-centre contracts differ.'),
  ('us-west-1', 0.2391, 'EIA Electric Power Annual 2023 (released 2024-10-17), average revenue per kWh by state: California, commercial 23.91 cents', '2023-12-31', 'AWS US West (N. California); Lambda us-west-1 taken as California too. Industrial: 18.64 cents. Data-centre contracts differ.'),
  ('us-central1', 0.1033, 'EIA Electric Power Annual 2023 (released 2024-10-17), average revenue per kWh by state: Iowa, commercial 10.33 cents', '2023-12-31', 'Google Cloud us-central1 (Council Bluffs, Iowa). Industrial: 6.91 cents. Data-centre contracts differ.'),
  ('us-east1', 0.1039, 'EIA Electric Power Annual 2023 (released 2024-10-17), average revenue per kWh by state: South Carolina, commercial 10.39 cents', '2023-12-31', 'Google Cloud us-east1 (Moncks Corner, South Carolina). Industrial: 6.68 cents. Data-centre contracts differ.'),
  ('westus2', 0.0992, 'EIA Electric Power Annual 2023 (released 2024-10-17), average revenue per kWh by state: Washington, commercial 9.92 cents', '2023-12-31', 'Azure West US 2 (Washington). Industrial: 6.35 cents. Data-centre contracts differ.');
