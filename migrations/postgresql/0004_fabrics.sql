-- PostgreSQL spelling of migrations/0004_fabrics.sql (kept in step by tests/store/pg_migrations_test.cc).
-- 0004: fabrics. How the GPUs of an offer or an owned pool talk to each other: the fast link
-- inside a node (gpus_per_node GPUs on NVLink/NVSwitch, Infinity Fabric, Xe Link or only
-- PCIe) and the network between nodes. Bandwidths are per GPU and one direction (a node's
-- NIC bandwidth divided by its GPUs; "900 GB/s NVLink" is bidirectional, so 450 GB/s).
-- Latencies are typical small-message figures, order of magnitude only: InfiniBand ~3 us,
-- EFA ~15 us, TCP over Ethernet ~30 us. Every row names its source; the uncertain ones say so.
-- Also: offers and GPUs name their fabric, benchmarks carry their published setup, and GPU
-- memory becomes the datasheet capacity in binary bytes.

CREATE TABLE fabrics (
  name TEXT COLLATE "C" PRIMARY KEY,
  gpus_per_node BIGINT NOT NULL CHECK (gpus_per_node BETWEEN 1 AND 576),
  intra_link_kind TEXT COLLATE "C" NOT NULL CHECK (intra_link_kind IN ('pcie', 'nvlink', 'infinity_fabric', 'xe_link')),
  intra_node_bytes_per_second_per_gpu DOUBLE PRECISION NOT NULL CHECK (intra_node_bytes_per_second_per_gpu > 0),
  network_kind TEXT COLLATE "C" NOT NULL CHECK (network_kind IN ('none', 'ethernet', 'efa', 'infiniband', 'roce')),
  network_bytes_per_second_per_gpu DOUBLE PRECISION NOT NULL CHECK (network_bytes_per_second_per_gpu >= 0),
  network_latency_seconds DOUBLE PRECISION NOT NULL CHECK (network_latency_seconds >= 0),
  source_citation TEXT COLLATE "C" NOT NULL CHECK (length(source_citation) > 0),
  source_as_of_date TEXT COLLATE "C" NOT NULL,
  source_note TEXT COLLATE "C" NOT NULL DEFAULT '',
  CHECK (network_kind <> 'none' OR network_bytes_per_second_per_gpu = 0)
);

ALTER TABLE instance_types ADD COLUMN fabric_name TEXT COLLATE "C" REFERENCES fabrics (name) ON UPDATE CASCADE ON DELETE RESTRICT;
ALTER TABLE gpu_types ADD COLUMN default_fabric_name TEXT COLLATE "C" REFERENCES fabrics (name) ON UPDATE CASCADE ON DELETE RESTRICT;

ALTER TABLE benchmarks ADD COLUMN tensor_parallel BIGINT NOT NULL DEFAULT 0 CHECK (tensor_parallel >= 0);
ALTER TABLE benchmarks ADD COLUMN pipeline_parallel BIGINT NOT NULL DEFAULT 0 CHECK (pipeline_parallel >= 0);
ALTER TABLE benchmarks ADD COLUMN data_parallel BIGINT NOT NULL DEFAULT 0 CHECK (data_parallel >= 0);
ALTER TABLE benchmarks ADD COLUMN context_parallel BIGINT NOT NULL DEFAULT 0 CHECK (context_parallel >= 0);
ALTER TABLE benchmarks ADD COLUMN expert_parallel BIGINT NOT NULL DEFAULT 0 CHECK (expert_parallel >= 0);
ALTER TABLE benchmarks ADD COLUMN virtual_pipeline_stages BIGINT NOT NULL DEFAULT 0 CHECK (virtual_pipeline_stages >= 0);
ALTER TABLE benchmarks ADD COLUMN figure TEXT COLLATE "C" NOT NULL DEFAULT 'steady_state' CHECK (figure IN ('steady_state', 'end_to_end'));
ALTER TABLE benchmarks ADD COLUMN fabric_name TEXT COLLATE "C" REFERENCES fabrics (name) ON UPDATE CASCADE ON DELETE RESTRICT;

INSERT INTO fabrics (name, gpus_per_node, intra_link_kind, intra_node_bytes_per_second_per_gpu, network_kind, network_bytes_per_second_per_gpu, network_latency_seconds, source_citation, source_as_of_date, source_note) VALUES
  -- AWS: Amazon EC2 accelerated computing instance specifications (network bandwidth, EFA
  -- support, GPU peer link) and the instance family pages.
  ('aws-g4dn-xlarge', 1, 'pcie', 16000000000, 'ethernet', 3125000000, 0.00003, 'Amazon EC2 G4 instances page and EC2 accelerated computing instance specifications: g4dn.xlarge, 1 x T4, up to 25 Gbps, no EFA', '2026-12-01', 'One GPU: the intra-node figure is the PCIe Gen3 x16 host link and is not used. "Up to" is a burst figure; the baseline is lower.'),
  ('aws-g4dn-12xlarge', 4, 'pcie', 16000000000, 'efa', 1562500000, 0.000015, 'Amazon EC2 G4 instances page and EC2 accelerated computing instance specifications: g4dn.12xlarge, 4 x T4 on PCIe, 50 Gbps, EFA supported', '2026-12-01', '50 Gbit/s over 4 GPUs. T4 has no NVLink; peers talk over PCIe Gen3 x16.'),
  ('aws-g5-1gpu', 1, 'pcie', 32000000000, 'ethernet', 1250000000, 0.00003, 'Amazon EC2 G5 instances page: g5.xlarge and g5.2xlarge, 1 x A10G, up to 10 Gbps, no EFA', '2026-12-01', 'One GPU: the intra-node figure is the PCIe Gen4 x16 host link and is not used. "Up to" is a burst figure.'),
  ('aws-g5-12xlarge', 4, 'pcie', 32000000000, 'efa', 1250000000, 0.000015, 'Amazon EC2 G5 instances page: g5.12xlarge, 4 x A10G on PCIe, 40 Gbps, EFA supported', '2026-12-01', '40 Gbit/s over 4 GPUs. A10G has no NVLink; peers talk over PCIe Gen4.'),
  ('aws-g5-48xlarge', 8, 'pcie', 32000000000, 'efa', 1562500000, 0.000015, 'Amazon EC2 G5 instances page: g5.48xlarge, 8 x A10G on PCIe, 100 Gbps, EFA supported', '2026-12-01', '100 Gbit/s over 8 GPUs. Uncertain: PCIe peer bandwidth across the two CPU sockets is below the Gen4 x16 figure used.'),
  ('aws-g6-xlarge', 1, 'pcie', 32000000000, 'ethernet', 1250000000, 0.00003, 'Amazon EC2 G6 instances page: g6.xlarge, 1 x L4, up to 10 Gbps, no EFA', '2026-12-01', 'One GPU: the intra-node figure is the PCIe Gen4 x16 host link and is not used.'),
  ('aws-g6e-xlarge', 1, 'pcie', 32000000000, 'ethernet', 2500000000, 0.00003, 'Amazon EC2 G6e instances page: g6e.xlarge, 1 x L40S, up to 20 Gbps, no EFA', '2026-12-01', 'One GPU: the intra-node figure is the PCIe Gen4 x16 host link and is not used.'),
  ('aws-p3-2xlarge', 1, 'pcie', 16000000000, 'ethernet', 1250000000, 0.00003, 'Amazon EC2 P3 instances page and EC2 user guide, accelerated computing network performance: p3.2xlarge, 1 x V100, up to 10 Gbps, no EFA', '2026-12-01', 'One GPU: NVLink unused; the intra-node figure is the PCIe Gen3 host link and is not used.'),
  ('aws-p3-16xlarge', 8, 'nvlink', 150000000000, 'ethernet', 390625000, 0.00003, 'Amazon EC2 P3 instances page and EC2 user guide, accelerated computing network performance: p3.16xlarge, 8 x V100 with NVLink (300 GB/s per GPU bidirectional), 25 Gbps, no EFA', '2026-12-01', '25 Gbit/s over 8 GPUs. NVLink 2 hybrid cube mesh: not every pair is directly linked.'),
  ('aws-p3dn-24xlarge', 8, 'nvlink', 150000000000, 'efa', 1562500000, 0.000015, 'Amazon EC2 P3 instances page and EC2 user guide, accelerated computing network performance: p3dn.24xlarge, 8 x V100 32 GB with NVLink, 100 Gbps, EFA supported', '2026-12-01', '100 Gbit/s over 8 GPUs. NVLink 2 hybrid cube mesh.'),
  ('aws-p4d-efa', 8, 'nvlink', 300000000000, 'efa', 6250000000, 0.000015, 'Amazon EC2 P4 instances page: p4d.24xlarge and p4de.24xlarge, 8 x A100 on NVSwitch (600 GB/s per GPU bidirectional), 400 Gbps EFA (4 x 100 Gbps)', '2026-12-01', '400 Gbit/s over 8 GPUs.'),
  ('aws-p5-efa', 8, 'nvlink', 450000000000, 'efa', 50000000000, 0.000015, 'Amazon EC2 P5 instances page and EC2 user guide "Maximize network bandwidth" (P5: up to 32 network cards, 3,200 Gbps): p5.48xlarge, 8 x H100 on NVSwitch (900 GB/s per GPU bidirectional), 3,200 Gbps EFAv2', '2026-12-01', '3,200 Gbit/s over 8 GPUs.'),
  -- Google Cloud: Compute Engine GPU machine types and network bandwidth pages.
  ('gcp-g2-standard-4', 1, 'pcie', 32000000000, 'ethernet', 1250000000, 0.00003, 'Google Cloud Compute Engine GPU machine types: g2-standard-4, 1 x L4, 10 Gbps maximum egress', '2026-12-01', 'One GPU: the intra-node figure is the PCIe Gen4 host link and is not used.'),
  ('gcp-a2-highgpu-1g', 1, 'pcie', 32000000000, 'ethernet', 3000000000, 0.00003, 'Google Cloud Compute Engine GPU machine types: a2-highgpu-1g, 1 x A100 40 GB, 24 Gbps maximum egress', '2026-12-01', 'One GPU: NVLink unused; the intra-node figure is the PCIe Gen4 host link and is not used.'),
  ('gcp-a2-8g', 8, 'nvlink', 300000000000, 'ethernet', 1562500000, 0.00003, 'Google Cloud Compute Engine GPU machine types: a2-highgpu-8g and a2-ultragpu-8g, 8 x A100 on NVSwitch, 100 Gbps maximum egress', '2026-12-01', '100 Gbit/s over 8 GPUs over the VPC network (gVNIC); A2 has no GPUDirect RDMA NICs.'),
  ('gcp-a3-highgpu-8g-tcpx', 8, 'nvlink', 450000000000, 'ethernet', 12500000000, 0.00003, 'Google Cloud Compute Engine GPU machine types and "Maximize GPU network bandwidth" (GPUDirect-TCPX): a3-highgpu-8g, 8 x H100 on NVSwitch, 4 x 200 Gbps GPU NICs', '2026-12-01', '800 Gbit/s over 8 GPUs (the 100 Gbps host NIC not counted). GPUDirect-TCPX is TCP with device-memory buffers, not RDMA, so it is typed ethernet. a3-megagpu-8g (8 x 200 Gbps, GPUDirect-TCPXO) is not a shipped offer.'),
  -- Azure: virtual machine size series pages on Microsoft Learn.
  ('azure-nc4as-t4-v3', 1, 'pcie', 16000000000, 'ethernet', 1000000000, 0.00003, 'Microsoft Learn, NCasT4_v3 size series (page dated 2024-07-31): Standard_NC4as_T4_v3, 1 x T4, 8,000 Mbps max bandwidth', '2026-12-01', 'One GPU: the intra-node figure is the PCIe Gen3 host link and is not used. Max bandwidth is an upper limit across all NICs, not guaranteed.'),
  ('azure-nc24ads-a100-v4', 1, 'pcie', 32000000000, 'ethernet', 2500000000, 0.00003, 'Microsoft Learn, NC_A100_v4 size series (page dated 2024-07-31): Standard_NC24ads_A100_v4, 1 x A100 PCIe 80 GB, 20,000 Mbps max bandwidth', '2026-12-01', 'One GPU: the intra-node figure is the PCIe Gen4 host link and is not used. Max bandwidth is an upper limit across all NICs, not guaranteed.'),
  ('azure-nd-a100-v4-hdr', 8, 'nvlink', 300000000000, 'infiniband', 25000000000, 0.000003, 'Microsoft Learn, ND A100 v4 and NDm A100 v4 size series: Standard_ND96asr_v4 and Standard_ND96amsr_A100_v4, 8 x A100 with NVLink 3.0, a dedicated 200 Gb/s HDR InfiniBand link per GPU (1.6 Tb/s per VM)', '2026-12-01', 'One 200 Gbit/s HDR link per GPU.'),
  ('azure-nd-h100-v5-ndr', 8, 'nvlink', 450000000000, 'infiniband', 50000000000, 0.000003, 'Microsoft Learn, ND H100 v5 size series (page dated 2024-08-01): Standard_ND96isr_H100_v5, 8 x H100 with NVLink 4.0, a dedicated 400 Gb/s Quantum-2 CX7 InfiniBand link per GPU (3.2 Tb/s per VM)', '2026-12-01', 'One 400 Gbit/s NDR ConnectX-7 link per GPU.'),
  -- Lambda: on-demand instances; Lambda publishes no inter-instance bandwidth for them.
  ('lambda-1gpu', 1, 'pcie', 32000000000, 'ethernet', 1250000000, 0.00003, 'Lambda Cloud on-demand instance types (gpu_1x_a6000, gpu_1x_h100_sxm5): one GPU per VM', '2026-12-01', 'Uncertain: Lambda publishes no network bandwidth for on-demand VMs; 10 Gbit/s assumed (pessimistic). One GPU: the intra-node figure is not used.'),
  ('lambda-4x-a6000', 4, 'pcie', 32000000000, 'ethernet', 312500000, 0.00003, 'Lambda Cloud on-demand instance types: gpu_4x_a6000, 4 x RTX A6000', '2026-12-01', 'Uncertain: whether the cards are NVLink-bridged in pairs is not published; PCIe Gen4 assumed. Network: 10 Gbit/s per VM assumed, none published.'),
  ('lambda-8x-v100', 8, 'nvlink', 150000000000, 'ethernet', 156250000, 0.00003, 'Lambda Cloud on-demand instance types: gpu_8x_v100, 8 x V100 SXM2 with NVLink', '2026-12-01', 'NVLink 2 hybrid cube mesh (300 GB/s per GPU bidirectional, V100 datasheet). Uncertain: no InfiniBand on on-demand VMs; 10 Gbit/s per VM assumed, none published.'),
  ('lambda-8x-a100', 8, 'nvlink', 300000000000, 'ethernet', 156250000, 0.00003, 'Lambda Cloud on-demand instance types: gpu_8x_a100, 8 x A100 SXM4 on NVSwitch', '2026-12-01', 'Uncertain: no InfiniBand on on-demand VMs (Lambda''s InfiniBand clusters are a separate product); 10 Gbit/s per VM assumed, none published.'),
  ('lambda-8x-h100-sxm5', 8, 'nvlink', 450000000000, 'ethernet', 156250000, 0.00003, 'Lambda Cloud on-demand instance types: gpu_8x_h100_sxm5, 8 x H100 SXM5 on NVSwitch', '2026-12-01', 'Uncertain: no InfiniBand on on-demand VMs (Lambda''s InfiniBand clusters are a separate product); 10 Gbit/s per VM assumed, none published.'),
  -- Owned pools: NVIDIA reference systems, and an assumed PCIe server.
  ('dgx-h100-ndr', 8, 'nvlink', 450000000000, 'infiniband', 50000000000, 0.000003, 'NVIDIA DGX H100 datasheet and DGX SuperPOD (H100) reference architecture: 8 x H100 on NVSwitch, 8 x 400 Gb/s ConnectX-7 NDR InfiniBand compute links', '2026-12-01', 'One 400 Gbit/s NDR link per GPU on a rail-optimised fabric.'),
  ('dgx-h200-ndr', 8, 'nvlink', 450000000000, 'infiniband', 50000000000, 0.000003, 'NVIDIA DGX H200 datasheet: 8 x H200 on NVSwitch (900 GB/s per GPU bidirectional), 8 x 400 Gb/s ConnectX-7 compute links', '2026-12-01', 'Same network as DGX H100.'),
  ('dgx-a100-hdr', 8, 'nvlink', 300000000000, 'infiniband', 25000000000, 0.000003, 'NVIDIA DGX A100 datasheet and DGX SuperPOD (A100) reference architecture: 8 x A100 on NVSwitch, 8 x 200 Gb/s ConnectX-6 HDR InfiniBand compute links', '2026-12-01', 'One 200 Gbit/s HDR link per GPU.'),
  ('dgx1-v100-edr', 8, 'nvlink', 150000000000, 'infiniband', 6250000000, 0.000003, 'NVIDIA DGX-1 with V100 datasheet: 8 x V100 SXM2 in an NVLink hybrid cube mesh, 4 x 100 Gb/s EDR InfiniBand', '2026-12-01', '400 Gbit/s over 8 GPUs. Not every GPU pair is directly linked.'),
  ('meta-llama2-a100-200g', 8, 'nvlink', 300000000000, 'infiniband', 25000000000, 0.000003, 'Touvron et al. 2023 (Llama 2), section 2.2.1: A100-80GB clusters (RSC on NVIDIA Quantum InfiniBand, production on RoCE), both with 200 Gbps endpoints', '2026-12-01', 'The paper''s runs used two clusters; InfiniBand is recorded. 8-GPU NVSwitch nodes assumed (the paper does not say).'),
  ('pcie-server-gen3-100gbe', 8, 'pcie', 16000000000, 'ethernet', 1562500000, 0.00003, 'Assumption: an 8-GPU PCIe Gen3 server on 100 Gbit/s Ethernet (PCIe 3.0 x16: ~16 GB/s per direction)', '2026-12-01', 'Not a published system: a typical owned pool for PCIe parts without NVLink. Record the real fabric with UpsertFabric.'),
  ('pcie-server-gen4-100gbe', 8, 'pcie', 32000000000, 'ethernet', 1562500000, 0.00003, 'Assumption: an 8-GPU PCIe Gen4 server on 100 Gbit/s Ethernet (PCIe 4.0 x16: ~32 GB/s per direction)', '2026-12-01', 'Not a published system: a typical owned pool for PCIe and consumer parts. NVLink bridges between card pairs are not modelled. Record the real fabric with UpsertFabric.'),
  ('pcie-server-gen5-100gbe', 8, 'pcie', 64000000000, 'ethernet', 1562500000, 0.00003, 'Assumption: an 8-GPU PCIe Gen5 server on 100 Gbit/s Ethernet (PCIe 5.0 x16: ~64 GB/s per direction)', '2026-12-01', 'Not a published system: a typical owned pool for H100 PCIe. Record the real fabric with UpsertFabric.'),
  ('amd-mi300x-platform-400g', 8, 'infinity_fabric', 448000000000, 'infiniband', 50000000000, 0.000003, 'AMD Instinct MI300X platform data sheet (8 x MI300X OAM, 896 GB/s peer-to-peer Infinity Fabric per GPU); Microsoft Learn ND MI300X v5 size series (8 x 400 Gb/s InfiniBand)', '2026-12-01', 'Assumption: one 400 Gbit/s NIC per GPU as in Azure ND MI300X v5; 448 GB/s per direction as in the GPU row.'),
  ('intel-max-1550-x8', 8, 'xe_link', 53000000000, 'ethernet', 1562500000, 0.00003, 'Intel Data Center GPU Max Series product brief (Xe Link subsystem)', '2026-12-01', 'Uncertain: the Xe Link figure is the GPU row''s assumption, and the network (100 Gbit/s Ethernet per node) is assumed; no reference cluster fabric is published.');

UPDATE instance_types SET fabric_name = CASE instance_type
    WHEN 'g4dn.xlarge' THEN 'aws-g4dn-xlarge'
    WHEN 'g4dn.12xlarge' THEN 'aws-g4dn-12xlarge'
    WHEN 'g5.xlarge' THEN 'aws-g5-1gpu'
    WHEN 'g5.2xlarge' THEN 'aws-g5-1gpu'
    WHEN 'g5.12xlarge' THEN 'aws-g5-12xlarge'
    WHEN 'g5.48xlarge' THEN 'aws-g5-48xlarge'
    WHEN 'g6.xlarge' THEN 'aws-g6-xlarge'
    WHEN 'g6e.xlarge' THEN 'aws-g6e-xlarge'
    WHEN 'p3.2xlarge' THEN 'aws-p3-2xlarge'
    WHEN 'p3.16xlarge' THEN 'aws-p3-16xlarge'
    WHEN 'p3dn.24xlarge' THEN 'aws-p3dn-24xlarge'
    WHEN 'p4d.24xlarge' THEN 'aws-p4d-efa'
    WHEN 'p4de.24xlarge' THEN 'aws-p4d-efa'
    WHEN 'p5.48xlarge' THEN 'aws-p5-efa'
    WHEN 'g2-standard-4' THEN 'gcp-g2-standard-4'
    WHEN 'a2-highgpu-1g' THEN 'gcp-a2-highgpu-1g'
    WHEN 'a2-highgpu-8g' THEN 'gcp-a2-8g'
    WHEN 'a2-ultragpu-8g' THEN 'gcp-a2-8g'
    WHEN 'a3-highgpu-8g' THEN 'gcp-a3-highgpu-8g-tcpx'
    WHEN 'Standard_NC4as_T4_v3' THEN 'azure-nc4as-t4-v3'
    WHEN 'Standard_NC24ads_A100_v4' THEN 'azure-nc24ads-a100-v4'
    WHEN 'Standard_ND96asr_v4' THEN 'azure-nd-a100-v4-hdr'
    WHEN 'Standard_ND96amsr_A100_v4' THEN 'azure-nd-a100-v4-hdr'
    WHEN 'Standard_ND96isr_H100_v5' THEN 'azure-nd-h100-v5-ndr'
    WHEN 'gpu_1x_a6000' THEN 'lambda-1gpu'
    WHEN 'gpu_1x_h100_sxm5' THEN 'lambda-1gpu'
    WHEN 'gpu_4x_a6000' THEN 'lambda-4x-a6000'
    WHEN 'gpu_8x_v100' THEN 'lambda-8x-v100'
    WHEN 'gpu_8x_a100' THEN 'lambda-8x-a100'
    WHEN 'gpu_8x_h100_sxm5' THEN 'lambda-8x-h100-sxm5'
  END
WHERE provider IN ('aws', 'gcp', 'azure', 'lambda');

UPDATE gpu_types SET default_fabric_name = CASE name
    WHEN 'P40' THEN 'pcie-server-gen3-100gbe'
    WHEN 'T4' THEN 'pcie-server-gen3-100gbe'
    WHEN 'V100-SXM2-16GB' THEN 'dgx1-v100-edr'
    WHEN 'V100-SXM2-32GB' THEN 'dgx1-v100-edr'
    WHEN 'A10G' THEN 'pcie-server-gen4-100gbe'
    WHEN 'L4' THEN 'pcie-server-gen4-100gbe'
    WHEN 'L40S' THEN 'pcie-server-gen4-100gbe'
    WHEN 'RTX-3090' THEN 'pcie-server-gen4-100gbe'
    WHEN 'RTX-4090' THEN 'pcie-server-gen4-100gbe'
    WHEN 'RTX-A6000' THEN 'pcie-server-gen4-100gbe'
    WHEN 'RTX-6000-Ada' THEN 'pcie-server-gen4-100gbe'
    WHEN 'A100-SXM4-40GB' THEN 'dgx-a100-hdr'
    WHEN 'A100-SXM4-80GB' THEN 'dgx-a100-hdr'
    WHEN 'A100-PCIe-80GB' THEN 'pcie-server-gen4-100gbe'
    WHEN 'H100-PCIe-80GB' THEN 'pcie-server-gen5-100gbe'
    WHEN 'H100-SXM5-80GB' THEN 'dgx-h100-ndr'
    WHEN 'H200-SXM-141GB' THEN 'dgx-h200-ndr'
    WHEN 'MI300X' THEN 'amd-mi300x-platform-400g'
    WHEN 'Intel-Max-1550' THEN 'intel-max-1550-x8'
  END;

-- Llama 2's rows are 2T tokens over the published GPU-hours: whole runs, failures and
-- restarts included, not steady-state throughput.
-- The Llama 2 rows as the runs they were, so that calibration re-runs their setup: the paper
-- gives GPU-hours (end to end) but not the GPU count; 2,048 A100s as for LLaMA 65B (Touvron et
-- al. 2023a, Sec. 2.4) and the 4M-token batch of 4,096-token sequences (Touvron et al. 2023,
-- Table 1). The figure becomes cluster-wide tokens/s (per GPU x 2,048); the per-GPU rate, which
-- is what was measured, is unchanged.
UPDATE benchmarks SET figure = 'end_to_end', fabric_name = 'meta-llama2-a100-200g', gpu_count = 2048,
  batch_size = 1024, measured_value = measured_value * 2048,
  source_note = source_note || ' Setup: GPU count not published; 2,048 assumed (as LLaMA 65B), 4M-token batch; value is cluster-wide tokens/s.'
WHERE source_citation = 'Touvron et al. 2023 (Llama 2), Table 2';

-- GPU memory: the datasheet's "GB" of HBM or GDDR is binary (an "80 GB" part carries 80 GiB;
-- memory dies come in powers of two), so capacity is the datasheet figure in GiB. Usable
-- memory is a little lower (driver reservations), which the estimator's fixed overhead covers.
UPDATE gpu_types SET memory_bytes = CASE name
    WHEN 'P40' THEN 24 * CAST(1073741824 AS BIGINT)
    WHEN 'T4' THEN 16 * CAST(1073741824 AS BIGINT)
    WHEN 'V100-SXM2-16GB' THEN 16 * CAST(1073741824 AS BIGINT)
    WHEN 'V100-SXM2-32GB' THEN 32 * CAST(1073741824 AS BIGINT)
    WHEN 'A10G' THEN 24 * CAST(1073741824 AS BIGINT)
    WHEN 'L4' THEN 24 * CAST(1073741824 AS BIGINT)
    WHEN 'L40S' THEN 48 * CAST(1073741824 AS BIGINT)
    WHEN 'RTX-3090' THEN 24 * CAST(1073741824 AS BIGINT)
    WHEN 'RTX-4090' THEN 24 * CAST(1073741824 AS BIGINT)
    WHEN 'RTX-A6000' THEN 48 * CAST(1073741824 AS BIGINT)
    WHEN 'RTX-6000-Ada' THEN 48 * CAST(1073741824 AS BIGINT)
    WHEN 'A100-SXM4-40GB' THEN 40 * CAST(1073741824 AS BIGINT)
    WHEN 'A100-SXM4-80GB' THEN 80 * CAST(1073741824 AS BIGINT)
    WHEN 'A100-PCIe-80GB' THEN 80 * CAST(1073741824 AS BIGINT)
    WHEN 'H100-PCIe-80GB' THEN 80 * CAST(1073741824 AS BIGINT)
    WHEN 'H100-SXM5-80GB' THEN 80 * CAST(1073741824 AS BIGINT)
    WHEN 'H200-SXM-141GB' THEN 141 * CAST(1073741824 AS BIGINT)
    WHEN 'MI300X' THEN 192 * CAST(1073741824 AS BIGINT)
    WHEN 'Intel-Max-1550' THEN 128 * CAST(1073741824 AS BIGINT)
    ELSE memory_bytes
  END,
  source_note = source_note || CASE name
    WHEN 'H200-SXM-141GB' THEN ' Memory: 141 GiB read from the datasheet''s "141 GB"; uncertain, as the part carries 6 x 24 GiB stacks of which 141 are exposed, and nvidia-smi reports about 140.4 GiB.'
    ELSE ' Memory: the datasheet''s GB in binary bytes (GiB).'
  END
-- Only the shipped rows still holding the decimal figure 0002 wrote.
WHERE memory_bytes % 1000000000 = 0
  AND name IN ('P40', 'T4', 'V100-SXM2-16GB', 'V100-SXM2-32GB', 'A10G', 'L4', 'L40S', 'RTX-3090', 'RTX-4090',
               'RTX-A6000', 'RTX-6000-Ada', 'A100-SXM4-40GB', 'A100-SXM4-80GB', 'A100-PCIe-80GB', 'H100-PCIe-80GB',
               'H100-SXM5-80GB', 'H200-SXM-141GB', 'MI300X', 'Intel-Max-1550');
