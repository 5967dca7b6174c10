#include "server/api/option_proto.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "core/format.h"
#include "core/units.h"
#include "server/api/catalog_proto.h"

namespace capplan::server {

namespace v1 = capplan::v1;
namespace planner = core::planner;

v1::Bottleneck BottleneckToProto(core::Bottleneck b) {
  switch (b) {
    case core::Bottleneck::kCompute:
      return v1::BOTTLENECK_COMPUTE;
    case core::Bottleneck::kMemoryBandwidth:
      return v1::BOTTLENECK_MEMORY_BANDWIDTH;
    case core::Bottleneck::kInterconnect:
      return v1::BOTTLENECK_INTERCONNECT;
    case core::Bottleneck::kNetwork:
      return v1::BOTTLENECK_NETWORK;
    case core::Bottleneck::kPipelineBubble:
      return v1::BOTTLENECK_PIPELINE_BUBBLE;
    case core::Bottleneck::kMemoryCapacity:
      return v1::BOTTLENECK_MEMORY_CAPACITY;
  }
  return v1::BOTTLENECK_UNSPECIFIED;
}

v1::Offload OffloadToProto(core::Offload o) {
  switch (o) {
    case core::Offload::kNone:
      return v1::OFFLOAD_NONE;
    case core::Offload::kOptimizer:
      return v1::OFFLOAD_OPTIMIZER;
    case core::Offload::kOptimizerAndParameters:
      return v1::OFFLOAD_OPTIMIZER_AND_PARAMETERS;
  }
  return v1::OFFLOAD_UNSPECIFIED;
}

v1::Recompute RecomputeToProto(core::Recompute r) {
  switch (r) {
    case core::Recompute::kNone:
      return v1::RECOMPUTE_NONE;
    case core::Recompute::kSelective:
      return v1::RECOMPUTE_SELECTIVE;
    case core::Recompute::kFull:
      return v1::RECOMPUTE_FULL;
  }
  return v1::RECOMPUTE_UNSPECIFIED;
}

v1::RejectionReason RejectionReasonToProto(planner::RejectionReason r) {
  switch (r) {
    case planner::RejectionReason::kRankedLower:
      return v1::REJECTION_REASON_RANKED_LOWER;
    case planner::RejectionReason::kOverDeadline:
      return v1::REJECTION_REASON_OVER_DEADLINE;
    case planner::RejectionReason::kOverBudget:
      return v1::REJECTION_REASON_OVER_BUDGET;
    case planner::RejectionReason::kTooManyGpus:
      return v1::REJECTION_REASON_TOO_MANY_GPUS;
    case planner::RejectionReason::kMemory:
      return v1::REJECTION_REASON_MEMORY;
    case planner::RejectionReason::kSlo:
      return v1::REJECTION_REASON_SLO;
    case planner::RejectionReason::kNoLayout:
      return v1::REJECTION_REASON_NO_LAYOUT;
    case planner::RejectionReason::kInvalid:
      return v1::REJECTION_REASON_INVALID;
    case planner::RejectionReason::kNotClustered:
      return v1::REJECTION_REASON_NOT_CLUSTERED;
    case planner::RejectionReason::kNoOffer:
      return v1::REJECTION_REASON_NO_OFFER;
  }
  return v1::REJECTION_REASON_UNSPECIFIED;
}

const std::vector<std::string>& TrainingFormulas() {
  static const std::vector<std::string>* k = new std::vector<std::string>{
      "training FLOPs 6*N*D + 12*L*h*s*D (Kaplan et al. 2020; Chowdhery et al. 2022, App. B)",
      "activation memory per layer, term by term for the model's attention and MLP (Korthikanti et al. 2022)",
      "model states: 16-bit weights, fp32 gradients, master weights, optimizer; ZeRO (Rajbhandari et al. 2020)",
      "interleaved 1F1B: bubble (p-1)/(m*v), activations x (1 + (p-1)/(p*v)) (Narayanan et al. 2021)",
      "communication on the fabric's links (tp-cp-ep-dp-pp rank order); only what compute cannot hide costs time",
      "steady state = steps x step time; end to end = steady state / goodput",
      "cost = end-to-end duration_hours x price_usd_per_hour x instances"};
  return *k;
}

const std::vector<std::string>& ServingFormulas() {
  static const std::vector<std::string>* k = new std::vector<std::string>{
      "decode step = max(weights and KV read at the average context / bandwidth, FLOPs / peak) + engine overhead",
      "KV cache = 2 x layers x KV heads x head dim x bytes per token, within the engine's memory fraction",
      "TTFT = prefill in chunks of the engine's token budget (+ the prefills ahead of it in a burst)",
      "continuous batching: prefill chunks ride in decode iterations (Agrawal 2024); req/s = batch / e2e",
      "replicas = max(ceil(offered load / (capacity x target utilisation)), ceil(offered load / SLO break load))",
      "queueing: batch slots M/G/c, Erlang C x (1 + cs^2) / 2 (Allen-Cunneen); prefill M/D/1 (DistServe 2024)",
      "p99 wait from the exponential tail P(W > t) = P(wait) x exp(-t x P(wait) / E[W])",
      "disaggregated: prefill replicas by prompt work under p99 TTFT, decode replicas by concurrent sequences",
      "KV transfer = 2 x layers x KV heads x head dim x bytes x prompt tokens / link bytes per second, in TTFT",
      // NOLINTNEXTLINE(bugprone-suspicious-missing-comma): one formula over three literals
      "across nodes: tp inside a node, pp nodes of ceil(layers / pp); TPOT = pp x stage step + (pp - 1) x stage "
      "boundary + latency; boundary = latency + tokens x hidden x 2 tensors x 2 bytes / (tp x network bytes/s per "
      "GPU); pp micro-batches in flight (vLLM)",
      "cost per 1M requests = price_usd_per_hour x 1e6 / (requests_per_second x 3600)"};
  return *k;
}

namespace {

void MemoryToProto(const core::MemoryBreakdown& m, double capacity, v1::MemoryBreakdown* out) {
  out->set_weights_bytes(m.weights_bytes);
  out->set_gradients_bytes(m.gradients_bytes);
  out->set_optimizer_bytes(m.optimizer_bytes);
  out->set_activations_bytes(m.activations_bytes);
  out->set_kv_cache_bytes(m.kv_cache_bytes);
  out->set_overhead_bytes(m.overhead_bytes);
  out->set_total_bytes(m.TotalBytes());
  out->set_capacity_bytes(capacity);
}

void SetRange(v1::Range* r, double point, double low, double high) {
  r->set_point(point);
  r->set_low(low);
  r->set_high(high);
}

// Where the GPUs come from, and the provenance every option carries.
void SetSupply(int64_t catalog_version, const planner::Supply& s, int units, const core::Efficiency& eff,
               v1::PlanOption* o) {
  o->set_gpu_name(s.gpu->spec.name);
  o->set_gpu_count(units * s.GpusPerUnit());
  if (s.pool != nullptr) {
    o->set_owned_pool(s.pool->name);
  } else if (s.instance != nullptr) {
    o->set_provider(s.instance->provider);
    o->set_instance_type(s.instance->instance_type);
    o->set_instance_count(units);
    o->set_region(s.instance->region);
  }
  // Unknown until the planner resolves it (a supply built by hand, or a planner before
  // the fabric resolution): an all-zero fabric would read as a PCIe box with no network, so none is sent.
  if (s.fabric.Known()) FabricToProto(s.fabric, s.fabric_name, o->mutable_fabric());
  v1::Provenance* p = o->mutable_provenance();
  p->set_catalog_version(catalog_version);
  if (s.price != nullptr) {
    PriceToProto(*s.price, p->add_prices());
    p->set_price_kind(core::PriceKindName(s.price->kind));
    p->set_price_note(planner::PriceKindNote(s.price->kind));
  }
  if (eff.benchmark_id > 0) p->add_benchmark_ids(eff.benchmark_id);
  p->set_efficiency_source(eff.source);
  p->set_efficiency_fraction(eff.point);
}

void AppendRegions(const std::vector<std::string>& regions, std::string* explanation) {
  for (const std::string& r : regions) absl::StrAppend(explanation, "; same offer in ", r);
}

}  // namespace

void FillTrainingOption(int64_t catalog_version, const planner::Supply& s, const planner::TrainingChoice& c,
                        v1::PlanOption* o) {
  const core::TrainingEstimate& e = c.estimate;
  SetSupply(catalog_version, s, c.units, c.efficiency, o);
  v1::Parallelism* p = o->mutable_parallelism();
  p->set_tensor_parallel(e.parallel.tp);
  p->set_pipeline_parallel(e.parallel.pp);
  p->set_data_parallel(e.parallel.dp);
  p->set_zero_stage(e.parallel.zero_stage);
  p->set_recompute(RecomputeToProto(e.parallel.recompute));
  p->set_sequence_parallel(e.parallel.sequence_parallel && e.parallel.tp > 1);
  p->set_micro_batch_sequences(e.parallel.micro_batch);
  p->set_virtual_pipeline_stages(e.parallel.vpp);
  p->set_context_parallel(e.parallel.cp);
  p->set_expert_parallel(e.parallel.ep);
  p->set_shard_group_gpus(e.parallel.shard_group);
  p->set_offload(OffloadToProto(e.parallel.offload));
  MemoryToProto(e.memory_per_gpu, e.capacity_bytes, o->mutable_memory_per_gpu());
  SetRange(o->mutable_duration_seconds(), e.duration_seconds, e.duration_seconds_low, e.duration_seconds_high);
  SetRange(o->mutable_steady_state_duration_seconds(), e.steady_duration_seconds, e.steady_duration_seconds_low,
           e.steady_duration_seconds_high);
  o->set_global_batch_tokens(std::llround(e.global_batch_tokens));  // at most 1e9 (ValidateTrainingJob)
  o->set_model_tflops_per_gpu(e.model_tflops_per_gpu);
  o->set_mfu_fraction(e.mfu);
  o->set_goodput_fraction(e.goodput);
  o->set_tokens_per_second(e.tokens_per_second);
  const double usd_per_hour = c.units * s.UsdPerUnitHour();
  o->set_cost_usd_per_hour(usd_per_hour);
  const double hours = 1 / units::kSecondsPerHour;
  SetRange(o->mutable_total_cost_usd(), e.duration_seconds * hours * usd_per_hour,
           e.duration_seconds_low * hours * usd_per_hour, e.duration_seconds_high * hours * usd_per_hour);
  o->set_energy_kwh(e.energy_kwh);
  o->set_bottleneck(BottleneckToProto(e.bottleneck));
  constexpr double kSecondsPerDay = 86400;
  std::string* x = o->mutable_explanation();
  absl::StrAppend(x, core::ExplainTraining(e, s.gpu->spec), "; end to end ",
                  core::Fixed(e.duration_seconds / kSecondsPerDay, 1), " days (",
                  core::Fixed(e.duration_seconds_low / kSecondsPerDay, 1), "-",
                  core::Fixed(e.duration_seconds_high / kSecondsPerDay, 1), ")");
  if (e.steady_duration_seconds > 0) {
    absl::StrAppend(x, ", steady state ", core::Fixed(e.steady_duration_seconds / kSecondsPerDay, 1), " days at ",
                    core::Fixed(e.goodput * 100, 0), "% goodput");
  }
  absl::StrAppend(x, ", $", core::Fixed(o->total_cost_usd().point(), 0), " at $", core::Fixed(usd_per_hour, 2), "/h",
                  s.fabric_name.empty() ? "" : "; fabric " + s.fabric_name,
                  e.shape_inferred ? "; model shape inferred from its parameter count" : "");
  if (!c.ceiling_note.empty()) absl::StrAppend(x, "; ", c.ceiling_note);
  if (!c.spot_note.empty()) {
    absl::StrAppend(x, "; ", c.spot_note);
    v1::Provenance* prov = o->mutable_provenance();
    prov->set_price_note(absl::StrCat(c.spot_note, ". ", prov->price_note()));
  }
  AppendRegions(c.same_offer_regions, x);
}

namespace {

v1::SloMetric SloMetricToProto(planner::SloMetric m) {
  switch (m) {
    case planner::SloMetric::kTtftP99:
      return v1::SLO_METRIC_TTFT_P99;
    case planner::SloMetric::kTpot:
      return v1::SLO_METRIC_TPOT;
    case planner::SloMetric::kE2eP99:
      return v1::SLO_METRIC_E2E_P99;
  }
  return v1::SLO_METRIC_UNSPECIFIED;
}

// Percentiles under queueing, the SLO break load and the warnings; for a disaggregated
// option its two pools, their capacity and the KV transfer.
void FillServingQueue(const planner::ServingChoice& c, v1::PlanOption* o) {
  o->set_deployment(c.deployment == core::ServingDeployment::kDisaggregated ? v1::SERVING_DEPLOYMENT_DISAGGREGATED
                                                                            : v1::SERVING_DEPLOYMENT_COLOCATED);
  if (c.latency.load_per_second > 0) {
    o->set_ttft_p50_seconds(c.latency.ttft_p50_seconds);
    o->set_ttft_p99_seconds(c.latency.ttft_p99_seconds);
    o->set_e2e_p50_seconds(c.latency.e2e_p50_seconds);
    o->set_e2e_p99_seconds(c.latency.e2e_p99_seconds);
    o->set_slo_break_requests_per_second(c.slo_break_requests_per_second);
  }
  for (const planner::SloWarning& w : c.warnings) {
    v1::SloWarning* out = o->add_slo_warnings();
    out->set_metric(SloMetricToProto(w.metric));
    out->set_high_seconds(w.high_seconds);
    out->set_high_unbounded(w.unbounded);
    out->set_slo_seconds(w.slo_seconds);
    out->set_meets_slo_at_requests_per_second(w.meets_slo_at_requests_per_second);
    out->set_meets_slo_at_batch_sequences(w.meets_slo_at_batch_sequences);
    out->set_message(w.message);
  }
  if (!c.disagg) return;
  const core::DisaggregatedServing& d = *c.disagg;
  o->set_prefill_gpu_count(static_cast<int>(d.PrefillGpus()));
  o->set_decode_gpu_count(static_cast<int>(d.DecodeGpus()));
  o->set_prefill_tensor_parallel(d.prefill_tp);
  o->set_prefill_replicas(static_cast<int>(d.prefill_replicas));
  o->set_kv_transfer_seconds(d.kv_transfer_seconds);
  o->set_kv_transfer_bytes(d.kv_bytes_per_request);
  // What both pools carry together: the smaller of the two.
  const double np = static_cast<double>(d.prefill_replicas), nd = static_cast<double>(d.decode_replicas);
  const double prefill = d.prefill_capacity_per_second * np;
  SetRange(o->mutable_requests_per_second(), std::min(prefill, d.decode_capacity_per_second * nd),
           std::min(prefill * d.prefill_seconds / d.prefill_seconds_high, d.decode_capacity_low_per_second * nd),
           std::min(prefill * d.prefill_seconds / d.prefill_seconds_low, d.decode_capacity_high_per_second * nd));
}

void ExplainServingQueue(const planner::ServingChoice& c, std::string* x) {
  if (c.disagg) {
    const core::DisaggregatedServing& d = *c.disagg;
    absl::StrAppend(x, "; disaggregated: ", d.prefill_replicas, " prefill replicas x tp=", d.prefill_tp, " (",
                    d.PrefillGpus(), " GPUs) and ", d.decode_replicas, " decode replicas x tp=", d.decode_tp,
                    " at batch ", d.decode_batch, " (", d.DecodeGpus(), " GPUs); KV cache ",
                    core::Fixed(d.kv_bytes_per_request / 1e6, 1), " MB per request over ",
                    d.kv_over_network ? "the network" : "the node's link", " in ",
                    core::Fixed(d.kv_transfer_seconds * 1e3, 2), " ms");
  }
  if (c.latency.load_per_second > 0) {
    absl::StrAppend(x, "; under queueing TTFT p50 ", core::Fixed(c.latency.ttft_p50_seconds, 3), " s, p99 ",
                    core::Fixed(c.latency.ttft_p99_seconds, 3), " s; end to end p50 ",
                    core::Fixed(c.latency.e2e_p50_seconds, 2), " s, p99 ", core::Fixed(c.latency.e2e_p99_seconds, 2),
                    " s; p99 SLOs hold up to ", core::Fixed(c.slo_break_requests_per_second, 1), " req/s");
  }
  for (const planner::SloWarning& w : c.warnings) absl::StrAppend(x, "; warning: ", w.message);
}

// Which nodes the option takes: each replica's nodes and GPUs per node, every node billed,
// and for replicas across nodes the stage boundary's cost.
void FillServingNodes(const planner::Supply& s, const planner::ServingChoice& c, v1::PlanOption* o) {
  const int node = std::max(1, s.fabric.gpus_per_node);
  if (c.multinode) {
    const core::MultiNodeServing& m = *c.multinode;
    o->set_replica_node_count(m.pp);
    o->set_replica_gpus_per_node(m.tp);
    o->set_node_count(static_cast<int>(c.estimate.replicas) * m.pp);
    o->set_pipeline_hop_seconds(m.decode_hop_seconds);
    o->set_pipeline_hop_bytes(m.decode_hop_bytes);
    o->set_pipeline_micro_batch_sequences(static_cast<int>(m.micro_batch));
    return;
  }
  o->set_replica_node_count(1);
  o->set_replica_gpus_per_node(c.estimate.tp);
  o->set_node_count(s.instance != nullptr ? c.units : (c.units + node - 1) / node);
}

void ExplainServingNodes(const planner::Supply& s, const planner::ServingChoice& c, std::string* x) {
  if (!c.multinode) return;
  const core::MultiNodeServing& m = *c.multinode;
  absl::StrAppend(x, "; each replica spans ", m.pp, " nodes (", m.stage_layers, " layers and ", m.tp,
                  " GPUs in tensor parallel per node) over ", core::NetworkKindName(m.network),
                  s.fabric_name.empty() ? "" : " (" + s.fabric_name + ")", ", ", m.pp, " micro-batches of ",
                  m.micro_batch, " in flight; a stage boundary moves ", core::Fixed(m.decode_hop_bytes / 1e3, 1),
                  " KB per decode step in ", core::Fixed(m.decode_hop_seconds * 1e6, 1), " us, the prompt's hops add ",
                  core::Fixed(m.prefill_hops_seconds * 1e3, 2), " ms to TTFT; ", c.estimate.replicas * m.pp,
                  " nodes billed");
}

}  // namespace

void FillServingOption(int64_t catalog_version, const planner::Supply& s, const planner::ServingChoice& c,
                       const core::ServingWorkload& w, v1::PlanOption* o) {
  const core::ServingEstimate& e = c.estimate;
  const int gpus = c.units * s.GpusPerUnit();
  SetSupply(catalog_version, s, c.units, c.efficiency.bandwidth, o);
  // A prefill-dominated benchmark calibrates the compute efficiency alone: its id is cited too.
  const int64_t compute_id = c.efficiency.compute.benchmark_id;
  if (compute_id > 0 && compute_id != c.efficiency.bandwidth.benchmark_id) {
    o->mutable_provenance()->add_benchmark_ids(compute_id);
  }
  o->mutable_provenance()->set_efficiency_source(
      absl::StrCat(c.efficiency.bandwidth.source, " | ", c.efficiency.compute.source));
  o->mutable_parallelism()->set_tensor_parallel(e.tp);
  o->mutable_parallelism()->set_pipeline_parallel(c.multinode ? c.multinode->pp : 1);
  o->mutable_parallelism()->set_data_parallel(static_cast<int>(e.replicas));
  o->mutable_parallelism()->set_serving_batch_sequences(e.batch);
  core::MemoryBreakdown m;
  m.weights_bytes = e.memory.weights_bytes;
  m.kv_cache_bytes = e.memory.kv_bytes_per_sequence * static_cast<double>(e.batch);
  m.activations_bytes = e.memory.activation_bytes;
  m.overhead_bytes = e.memory.overhead_bytes;
  MemoryToProto(m, e.memory.capacity_bytes, o->mutable_memory_per_gpu());
  const double replicas = static_cast<double>(e.replicas);
  SetRange(o->mutable_requests_per_second(), e.requests_per_second_per_replica * replicas,
           e.requests_per_second_low * replicas, e.requests_per_second_high * replicas);
  SetRange(o->mutable_ttft_seconds(), e.ttft_seconds, e.ttft_seconds_low, e.ttft_seconds_high);
  SetRange(o->mutable_tpot_seconds(), e.tpot_seconds, e.tpot_seconds_low, e.tpot_seconds_high);
  o->set_cost_usd_per_hour(c.usd_per_hour);
  o->set_usd_per_month(c.usd_per_hour * units::kHoursPerMonth);
  SetRange(o->mutable_total_cost_usd(), o->usd_per_month(), o->usd_per_month(), o->usd_per_month());
  const double rps = c.offered_requests_per_second;
  o->set_usd_per_million_requests(core::CostPerMillionRequests(c.usd_per_hour, rps));
  o->set_usd_per_million_output_tokens(
      core::CostPerMillionTokens(c.usd_per_hour, rps * static_cast<double>(w.output_tokens)));
  o->set_replicas(static_cast<int>(e.replicas));
  o->set_idle_gpu_count(c.idle_gpus);
  o->set_energy_kwh(s.gpu->spec.tdp_watts * gpus * units::kHoursPerMonth * core::kDefaultPue /
                    units::kWattHoursPerKilowattHour);
  o->set_bottleneck(BottleneckToProto(e.bottleneck));
  FillServingQueue(c, o);
  FillServingNodes(s, c, o);
  std::string* x = o->mutable_explanation();
  absl::StrAppend(x, e.replicas, " replicas x tp=", e.tp, " at batch ", e.batch, " carry ", core::Fixed(rps, 1),
                  " req/s (", core::Fixed(e.requests_per_second_per_replica, 1), " each at ",
                  core::Fixed(w.target_utilization * 100, 0), "% planned use); TTFT ", core::Fixed(e.ttft_seconds, 3),
                  " s, TPOT ", core::Fixed(e.tpot_seconds, 4), " s; ", core::BottleneckName(e.bottleneck), "-bound; $",
                  core::Fixed(c.usd_per_hour, 2), "/h, $", core::Fixed(o->usd_per_million_requests(), 2),
                  " per 1M requests", e.shape_inferred ? "; model shape inferred from its parameter count" : "");
  absl::StrAppend(x, "; engine ", core::ServingEngineName(w.engine), " (",
                  core::Fixed(e.step_overhead_seconds * 1e3, 1), " ms per step), prefill alone ",
                  core::Fixed(e.prefill_seconds, 3), " s");
  const std::string pessimistic = c.disagg
                                      ? core::PessimisticEndAssumptions(w, s.gpu->spec, c.disagg->decode_tp, false)
                                      : core::PessimisticEndAssumptions(w, s.gpu->spec, e.tp, !w.batch_arrives_at_once);
  if (!pessimistic.empty()) absl::StrAppend(x, "; the high latency end also assumes ", pessimistic);
  ExplainServingNodes(s, c, x);
  if (!c.disagg && e.range_id[0] != '\0') {
    absl::StrAppend(x, "; low-high: the development-set band ", e.range_id, " (docs/validation/README.md)");
  }
  ExplainServingQueue(c, x);
  if (c.idle_gpus > 0) absl::StrAppend(x, "; ", c.idle_gpus, " of the ", gpus, " GPUs billed run nothing");
  AppendRegions(c.same_offer_regions, x);
}

void RejectionsToProto(const std::vector<planner::Rejection>& rejected, v1::PlanResponse* resp) {
  for (const planner::Rejection& r : rejected) {
    v1::RejectedCandidate* out = resp->add_rejected();
    out->set_candidate(r.candidate);
    out->set_reason(r.reason);
    out->set_reason_code(RejectionReasonToProto(r.code));
    out->set_distance(r.distance);
    out->set_gpu_name(r.gpu_name);
  }
}

void FrontierToProto(const std::vector<planner::FrontierPoint>& frontier, bool training, v1::PlanResponse* resp) {
  for (const planner::FrontierPoint& p : frontier) {
    v1::FrontierPoint* out = resp->add_frontier();
    out->set_candidate(p.candidate);
    out->set_gpu_name(p.gpu_name);
    out->set_gpu_count(p.gpus);
    if (training) {
      out->set_duration_seconds(p.seconds);
      out->set_total_cost_usd(p.cost);
    } else {
      out->set_e2e_p99_seconds(p.seconds);
      out->set_usd_per_month(p.cost);
    }
    out->set_chosen(p.chosen);
  }
}

}  // namespace capplan::server
