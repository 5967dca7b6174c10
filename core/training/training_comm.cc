// Training communication: the collectives of one step at the link each parallel group uses,
// and the host-link traffic of offloaded state. See training.h for the papers.
#include <algorithm>
#include <cmath>

#include "core/assumptions.h"
#include "core/training/training.h"
#include "core/training/training_internal.h"

namespace capplan::core::training_internal {

namespace {

constexpr double kLatencyNvlinkSeconds = assumptions::kNvlinkCollectiveLatency.value.point;
constexpr double kLatencyPcieSeconds = assumptions::kPcieCollectiveLatency.value.point;
constexpr double kCpuOptimizerParametersPerSecond = assumptions::kCpuOptimizerParametersPerSecond.value.point;

double IntraLatency(const Fabric& f) {
  return f.intra_link == Interconnect::kPcie ? kLatencyPcieSeconds : kLatencyNvlinkSeconds;
}

// Bus bandwidth of a ring collective (reduce-scatter, all-gather, all-reduce) over `members`
// ranks that sit `stride` apart in rank order. Inside a node: the intra-node link. Across
// nodes NCCL builds one ring per NIC, so a node's ranks of the group cross the network in
// parallel, each on its own NIC: the group moves members-per-node x the per-GPU network
// bandwidth, up to the intra-node link that feeds them (NCCL rings and bus bandwidth:
// nccl-tests doc/PERFORMANCE.md; Jeaugey, "Massively Scale Your Deep Learning Training with
// NCCL 2.4", NVIDIA blog 2019). A group with one rank per node (tp = 8) gets the NIC alone.
double RingBandwidth(const Fabric& f, double members, double stride, double intra, double net) {
  const double node = f.gpus_per_node;
  if (members * stride <= node || f.network == NetworkKind::kNone) return intra;
  const double per_node = std::clamp(std::floor(node / stride), 1.0, members);
  return std::min(intra, per_node * net);
}

// Data parallel over dp x cp ranks: gradients reduce-scattered (fp32) and parameters
// all-gathered (16-bit) with a distributed optimizer / ZeRO-1+, or one all-reduce without
// (Rajbhandari et al. 2020, Sec. 7). ZeRO-3 gathers each layer's parameters for every
// micro-batch's forward and backward and reduce-scatters its gradients in every backward
// (PyTorch FSDP, Zhao et al. 2023, Sec. 3.3). With a shard group (HSDP; MiCS, Zhang et al.
// 2022) both stay inside the group, and the gradient shards are all-reduced across the
// groups on the slower link. Expert parameters reduce over their own dp x cp / ep ranks.
void DataParallelCommFor(const Prepared& p, const ParallelConfig& par, double intra, double net, double net_lat,
                         Eval* e) {
  const double d = static_cast<double>(par.dp) * par.cp;
  const double m = e->micro_batches;
  e->dp_over_network = static_cast<double>(par.tp) * d > p.fabric.gpus_per_node;
  e->dp_reduce = e->dp_gather = 0;
  if (d <= 1) return;
  const double stage_params =
      (e->stages.first_layers * (p.layer_dense_params + p.layer_expert_params / par.ep) + p.embedding_params) / par.tp;
  const double trainable =
      p.job->method == TrainingMethod::kFull ? stage_params : p.trainable / (static_cast<double>(par.tp) * par.pp);
  if (par.zero_stage == 0) {
    e->dp_reduce = 2.0 * (d - 1) / d * trainable * p.grad_bytes / RingBandwidth(p.fabric, d, par.tp, intra, net);
    return;
  }
  const double shard = par.ShardRanks(), groups = d / shard;
  const double bw = RingBandwidth(p.fabric, shard, par.tp, intra, net);
  const double frac = (shard - 1) / shard;
  const bool z3 = par.zero_stage >= 3;
  // A ring reduce-scatter or all-gather over n ranks takes n - 1 steps, each paying the
  // slowest hop's latency: (n-1)·alpha + (n-1)/n·bytes/bandwidth (Thakur et al. 2005,
  // "Optimization of Collective Communication Operations in MPICH", Sec. 3; NCCL has no tree
  // for these two). ZeRO-3 issues one per layer per micro-batch and direction, so at
  // thousands of ranks the latency term rivals the bytes; bucketed ZeRO-1/2 issue a few
  // (Megatron-LM distributed_data_parallel.py: buckets of max(40M, 1M x dp) parameters).
  const double hop = static_cast<double>(par.tp) * shard > p.fabric.gpus_per_node ? net_lat : IntraLatency(p.fabric);
  const double ring_latency = (shard - 1) * hop;
  const double collectives = z3 ? e->stages.first_layers * m : std::ceil(trainable / std::max(40e6, 1e6 * d));
  e->dp_reduce = frac * trainable * p.grad_bytes / bw * (z3 ? m : 1.0) + collectives * ring_latency;
  e->dp_gather =
      frac * trainable * p.weight_bytes / bw * (z3 ? 2.0 * m : 1.0) + collectives * ring_latency * (z3 ? 2.0 : 1.0);
  if (groups > 1) {
    const double across = RingBandwidth(p.fabric, groups, static_cast<double>(par.tp) * shard, intra, net);
    e->dp_reduce += 2.0 * (groups - 1) / groups * trainable / shard * p.grad_bytes / across;
    e->dp_over_network = static_cast<double>(par.tp) * shard > p.fabric.gpus_per_node || groups > 1;
  }
}

// Offloaded state crosses the host link (ZeRO-Offload, Ren et al. 2021, Sec. 4-5): this GPU's
// gradient shard goes down during the backward pass, the CPU runs the optimizer step on its
// shard, and the updated 16-bit shard comes back before the next forward; with parameter
// offload every micro-batch's forward and backward also copy the 16-bit shard in, ahead of its
// all-gather (ZeRO-Infinity, Rajbhandari et al. 2021, Sec. 5; FSDP CPUOffload).
void OffloadFor(const Prepared& p, const ParallelConfig& par, Eval* e) {
  e->offload_grads = e->offload_params = e->offload_exposed = 0;
  if (par.offload == Offload::kNone) return;
  const double stage_params =
      (e->stages.first_layers * (p.layer_dense_params + p.layer_expert_params / par.ep) + p.embedding_params) / par.tp;
  const double trainable =
      p.job->method == TrainingMethod::kFull ? stage_params : p.trainable / (static_cast<double>(par.tp) * par.pp);
  const double own = trainable / (par.zero_stage >= 1 ? par.ShardRanks() : 1.0);
  const double host = HostLinkBytesPerSecond(p.cluster->gpu);
  e->offload_grads = own * p.grad_bytes / host;
  e->offload_exposed = own * p.weight_bytes / host + own / kCpuOptimizerParametersPerSecond;
  if (par.offload == Offload::kOptimizerAndParameters) {
    e->offload_params = 2.0 * e->micro_batches * own * p.weight_bytes / host;
  }
}

// Copies of a token's hidden state one layer's MLP handles, averaged over the layers: 1 for a
// dense FFN; in an MoE layer the top-k routed copies plus one for the shared experts.
double MlpCopies(const ModelArchitecture& m) {
  if (!m.IsMoe()) return 1.0;
  const double moe = static_cast<double>(m.experts_per_token) + (m.num_shared_experts > 0 ? 1.0 : 0.0);
  const double share = static_cast<double>(m.MoeLayers()) / static_cast<double>(m.num_layers);
  return share * moe + (1.0 - share);
}

}  // namespace

// Communication of one step, at the link each group uses. Megatron-LM orders ranks
// tp-cp-ep-dp-pp (innermost first): a group is inside a node while the product of its
// own and the inner sizes fits in one.
void CommFor(const Prepared& p, const ParallelConfig& par, Eval* e) {
  const TrainingJob& job = *p.job;
  const Fabric& f = p.fabric;
  const double node = f.gpus_per_node;
  const double intra = f.intra_node_bytes_per_second_per_gpu;
  const double net = f.network == NetworkKind::kNone ? intra : std::min(f.network_bytes_per_second_per_gpu, intra);
  const double net_lat = std::max(f.network_latency_seconds, IntraLatency(f));
  const double m = e->micro_batches;
  const double tokens_mb = static_cast<double>(par.micro_batch) * job.sequence_length / par.cp;  // per CP rank
  const double h = static_cast<double>(p.shape.hidden_size);
  const double act_msg = tokens_mb * h * p.act_elem_bytes;  // one layer's activations of a micro-batch
  const double layers = e->stages.first_layers;
  e->tp_comm = 0;
  if (par.tp > 1) {
    // Two all-reduces forward and two backward per layer (Narayanan et al. 2021, Sec. 2.3),
    // two more when the forward is recomputed; with sequence parallelism the same volume as
    // reduce-scatter + all-gather. Not overlapped with compute. Half belong to the attention
    // and half to the MLP; in an MoE layer whose experts are split by tp the MLP's all-gather
    // and reduce-scatter carry every routed copy of a token, k of them, and the shared experts
    // their own copy (MoE Parallel Folding, Liu et al. 2025, arXiv 2504.14960, Sec. 3.2:
    // AllGather-V / ReduceScatter-V in the expert-tensor-parallel group; Sec. 4.4: expert
    // tensor parallelism costs far more communication than expert parallelism).
    const double per_layer = par.recompute == Recompute::kFull ? 6.0 : 4.0;
    const double ring = 2.0 * (par.tp - 1) / par.tp * act_msg / intra + IntraLatency(f);
    e->tp_comm = per_layer * layers * m * ring * 0.5 * (1.0 + MlpCopies(p.shape));
  }
  e->tp_cp_over_network = static_cast<double>(par.tp) * par.cp > node;
  e->cp_comm_raw = 0;
  if (par.cp > 1) {
    // Ring attention: K and V chunks go around the cp ranks forward (cp - 1 hops), K, V and
    // their gradients backward; overlapped with the attention it feeds (Liu et al. 2023).
    const double kv =
        2.0 * tokens_mb * static_cast<double>(p.shape.KvHeads() * p.shape.HeadDim()) * p.act_elem_bytes / par.tp;
    const double bw = e->tp_cp_over_network ? net : intra;
    e->cp_comm_raw = 3.0 * (par.cp - 1) * layers * m * (kv / bw + (e->tp_cp_over_network ? net_lat : 0.0));
  }
  e->ep_over_network = static_cast<double>(par.tp) * par.cp * par.ep > node;
  e->ep_comm = 0;
  if (par.ep > 1) {
    // Token dispatch and combine all-to-alls, forward and backward, per MoE layer: each
    // token's hidden state to its top-k experts (DeepSeek-V3 report, arXiv 2412.19437, Sec.
    // 3.2.2; Megatron-Core MoE docs, token dispatcher). Of the ep ranks, those in the same
    // node are reached over the intra-node link and the others over each GPU's own NIC, at
    // the same time. Not overlapped (Megatron-Core's default schedule; DualPipe hides it).
    const double bytes = tokens_mb / par.tp * h * p.act_elem_bytes * static_cast<double>(p.shape.experts_per_token);
    const double in_node =
        std::clamp(std::floor(node / (static_cast<double>(par.tp) * par.cp)), 1.0, static_cast<double>(par.ep));
    const double off = (par.ep - in_node) / par.ep, on = (in_node - 1.0) / par.ep;
    const double moe_layers = layers * static_cast<double>(p.shape.MoeLayers()) / p.shape.num_layers;
    e->ep_comm = 4.0 * moe_layers * m *
                 (std::max(bytes * off / net, bytes * on / intra) + (e->ep_over_network ? net_lat : IntraLatency(f)));
  }
  // Point-to-point between stages: one micro-batch's activations, scattered over tp.
  e->pp_over_network = static_cast<double>(par.tp) * par.cp * par.dp * par.pp > node;
  e->pp_send = par.pp > 1 ? act_msg / par.tp / (e->pp_over_network ? net : intra) +
                                (e->pp_over_network ? net_lat : IntraLatency(f))
                          : 0.0;
  DataParallelCommFor(p, par, intra, net, net_lat, e);
  OffloadFor(p, par, e);
}

}  // namespace capplan::core::training_internal
