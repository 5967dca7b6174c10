// The rules a top Plan option must follow to be signed off, checked on the answer as a
// caller sees it (the proto): each broken rule is one line "rule: detail".
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "capplan/v1/planner.pb.h"
#include "server/store/catalog.h"

namespace capplan::server::judgement {

namespace v1 = capplan::v1;

struct Question {
  std::string name;
  v1::PlanRequest request;
};

// A training run nobody would start: longer than this without a deadline from the caller.
inline constexpr double kDefaultBoundSeconds = 90 * 86400.0;
// Ethernet fast enough to be sold as a cluster product (Google Cloud A3 with
// GPUDirect-TCPX: 4 x 200 Gbit/s over 8 GPUs, 100 Gbit/s = 12.5 GB/s per GPU).
inline constexpr double kClusterEthernetBytesPerSecondPerGpu = 12.5e9;

inline bool ClusterFabric(const v1::Fabric& f) {
  switch (f.network()) {
    case v1::NETWORK_KIND_EFA:
    case v1::NETWORK_KIND_INFINIBAND:
    case v1::NETWORK_KIND_ROCE:
      return true;
    case v1::NETWORK_KIND_ETHERNET:
      return f.network_bytes_per_second_per_gpu() >= kClusterEthernetBytesPerSecondPerGpu;
    default:
      return false;
  }
}

inline void TrainingRules(const v1::PlanRequest& r, const v1::PlanOption& o, std::vector<std::string>* why) {
  const double bound = r.deadline_seconds() > 0 ? r.deadline_seconds() : kDefaultBoundSeconds;
  if (o.duration_seconds().point() > bound * (1 + 1e-9)) {
    why->push_back(absl::StrCat("bound: takes ", o.duration_seconds().point() / 86400, " days"));
  }
  if (r.budget_usd() > 0 && o.total_cost_usd().point() > r.budget_usd() * (1 + 1e-9)) {
    why->push_back(absl::StrCat("budget: costs ", o.total_cost_usd().point(), " over ", r.budget_usd()));
  }
  const v1::Parallelism& p = o.parallelism();
  const int64_t used = int64_t{std::max(1, p.tensor_parallel())} * std::max(1, p.pipeline_parallel()) *
                       std::max(1, p.data_parallel()) * std::max(1, p.context_parallel());
  if (used != o.gpu_count()) why->push_back(absl::StrCat("uses-what-it-bills: ", used, " of ", o.gpu_count()));
  if (o.instance_count() > 1 && !ClusterFabric(o.fabric())) {
    why->push_back(absl::StrCat("cluster: ", o.instance_count(), " x ", o.instance_type(), " over ",
                                v1::NetworkKind_Name(o.fabric().network())));
  }
  const double seq = static_cast<double>(r.training().sequence_tokens() > 0 ? r.training().sequence_tokens() : 4096);
  const double micro_batches =
      o.global_batch_tokens() / seq / (std::max(1, p.data_parallel()) * std::max<double>(1, p.micro_batch_sequences()));
  const double bubble =
      (std::max(1, p.pipeline_parallel()) - 1) / (micro_batches * std::max(1, p.virtual_pipeline_stages()));
  if (bubble > 0.5 + 1e-9) why->push_back(absl::StrCat("bubble: ", bubble, " at pp", p.pipeline_parallel()));
}

inline void ServingRules(const v1::PlanRequest& r, const v1::PlanOption& o, std::vector<std::string>* why) {
  const v1::ServingWorkload& w = r.serving();
  if (w.e2e_slo_seconds() > 0 && o.e2e_p99_seconds() > w.e2e_slo_seconds() * (1 + 1e-9)) {
    why->push_back(absl::StrCat("bound: e2e p99 ", o.e2e_p99_seconds()));
  }
  if (r.budget_usd() > 0 && o.usd_per_month() > r.budget_usd() * (1 + 1e-9)) {
    why->push_back(absl::StrCat("budget: ", o.usd_per_month(), " per month"));
  }
  const int tp = std::max(1, o.parallelism().tensor_parallel());
  const int64_t used = o.deployment() == v1::SERVING_DEPLOYMENT_DISAGGREGATED
                           ? int64_t{o.prefill_gpu_count()} + o.decode_gpu_count()
                           : int64_t{o.replicas()} * tp * std::max(1, o.parallelism().pipeline_parallel());
  // Every GPU billed runs a replica, or the option says how many do not.
  if (used + o.idle_gpu_count() != o.gpu_count()) {
    why->push_back(absl::StrCat("uses-what-it-bills: ", used, " of ", o.gpu_count()));
  }
  const int per_instance = o.instance_count() > 0 ? o.gpu_count() / o.instance_count() : o.gpu_count();
  const v1::MemoryBreakdown& m = o.memory_per_gpu();
  const double room = m.capacity_bytes() - m.weights_bytes() - m.activations_bytes() - m.overhead_bytes();
  if (o.deployment() != v1::SERVING_DEPLOYMENT_DISAGGREGATED && m.capacity_bytes() > 0 &&
      room < 0.1 * m.capacity_bytes() && 2 * tp <= per_instance) {
    why->push_back(absl::StrCat("kv-room: tp=", tp, " leaves ", room / m.capacity_bytes(), " for KV"));
  }
}

// Every GPU type of the catalog is named in an option or a rejected candidate.
inline void AccountedFor(const store::CatalogSnapshot& snap, const v1::PlanResponse& resp,
                         std::vector<std::string>* why) {
  for (const core::GpuRow& g : snap.gpus) {
    bool found = false;
    for (const v1::PlanOption& o : resp.options()) found = found || o.gpu_name() == g.spec.name;
    for (const v1::RejectedCandidate& c : resp.rejected()) found = found || c.gpu_name() == g.spec.name;
    if (!found) {
      why->push_back(absl::StrCat("accounted: ", g.spec.name, " missing"));
      return;
    }
  }
}

// Every broken rule of one answer.
inline std::vector<std::string> Broken(const store::CatalogSnapshot& snap, const v1::PlanRequest& r,
                                       const absl::Status& st, const v1::PlanResponse& resp) {
  std::vector<std::string> why;
  if (!st.ok()) {
    // No option: only an answer that says which constraint cannot be met.
    if (st.code() != absl::StatusCode::kFailedPrecondition) why.push_back(absl::StrCat("error: ", st.ToString()));
    return why;
  }
  if (resp.options().empty()) {
    why.push_back("error: OK with no options");
    return why;
  }
  const v1::PlanOption& top = resp.options(0);
  if (r.constraints().max_gpus() > 0 && top.gpu_count() > r.constraints().max_gpus()) {
    why.push_back(absl::StrCat("max-gpus: ", top.gpu_count()));
  }
  if (r.has_training()) {
    TrainingRules(r, top, &why);
  } else {
    ServingRules(r, top, &why);
  }
  AccountedFor(snap, resp, &why);
  return why;
}

}  // namespace capplan::server::judgement
