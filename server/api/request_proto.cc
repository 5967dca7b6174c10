#include "server/api/request_proto.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/api/catalog_proto.h"
#include "server/api/fabric_proto.h"
#include "server/api/hf_config_json.h"
#include "server/api/time_fields.h"

namespace capplan::server {

namespace v1 = capplan::v1;
namespace planner = core::planner;

absl::Status Prefixed(const absl::Status& s, const std::string& prefix) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(prefix, s.message()));
}

int64_t PricesAsOf(int64_t requested_unix_seconds) {
  if (requested_unix_seconds > 0) return requested_unix_seconds;
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

namespace {

// A workload's model: its architecture and, from the catalog row (or the inline
// architecture), its context window.
struct ResolvedModel {
  core::ModelArchitecture arch;
  int64_t max_context_tokens = 0;  // 0: unknown, nothing is checked against it
  std::string name;                // as a message names it
};

// How a workload names its model: the oneof's case, whichever workload message it is in.
struct ModelChoice {
  bool by_name;
  const std::string& name;
  bool inline_arch;
  const v1::ModelArchitecture& arch;
  bool from_hf;
  const std::string& hf_config_json;
};

absl::StatusOr<ResolvedModel> ResolveModel(const core::CatalogView& catalog, const ModelChoice& c,
                                           const std::string& field) {
  const std::string& name = c.name;
  const v1::ModelArchitecture& arch = c.arch;
  if (c.from_hf) {
    absl::StatusOr<core::HfModel> m = ModelFromHfConfigJson(c.hf_config_json, field + ".hf_config_json");
    if (!m.ok()) return m.status();
    return ResolvedModel{m->arch, m->max_context_tokens, m->arch.name};
  }
  if (c.by_name) {
    const core::ModelRow* m = catalog.FindModel(name);
    if (m == nullptr) {
      return absl::NotFoundError(
          absl::StrCat(field, ".model_name: no model named \"", name, "\" in the catalog (ListModels lists them)"));
    }
    return ResolvedModel{m->arch, m->max_context_tokens, name};
  }
  if (c.inline_arch) {
    core::ModelArchitecture a = ArchitectureFromProto(arch);
    absl::Status s = core::ValidateModel(a);
    if (!s.ok()) return Prefixed(s, field + ".architecture.");
    if (arch.max_context_tokens() < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ".architecture.max_context_tokens: must be >= 0 (0: unknown), got ", arch.max_context_tokens()));
    }
    return ResolvedModel{a, arch.max_context_tokens(), arch.name().empty() ? "the architecture" : arch.name()};
  }
  return absl::InvalidArgumentError(absl::StrCat(field, ": set model_name, architecture or hf_config_json"));
}

// What a message says of a model's context window, e.g. "Llama-2-7B's context window of
// 4096 tokens (max_context_tokens)".
std::string ContextWindow(const ResolvedModel& m) {
  return absl::StrCat(m.name, "'s context window of ", m.max_context_tokens, " tokens (max_context_tokens)");
}

absl::StatusOr<core::TrainingMethod> MethodFrom(v1::TrainingMethod m, const std::string& field) {
  switch (m) {
    case v1::TRAINING_METHOD_UNSPECIFIED:
    case v1::TRAINING_METHOD_FULL:
      return core::TrainingMethod::kFull;
    case v1::TRAINING_METHOD_LORA:
      return core::TrainingMethod::kLora;
    case v1::TRAINING_METHOD_QLORA:
      return core::TrainingMethod::kQlora;
    default:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat(field, ".method: must be FULL, LORA or QLORA"));
}

absl::StatusOr<core::Optimizer> OptimizerFrom(v1::Optimizer o, const std::string& field) {
  switch (o) {
    case v1::OPTIMIZER_UNSPECIFIED:
    case v1::OPTIMIZER_ADAMW:
      return core::Optimizer::kAdamW;
    case v1::OPTIMIZER_ADAMW_8BIT:
      return core::Optimizer::kAdamW8bit;
    case v1::OPTIMIZER_SGD_MOMENTUM:
      return core::Optimizer::kSgdMomentum;
    default:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat(field, ".optimizer: must be ADAMW, ADAMW_8BIT or SGD_MOMENTUM"));
}

absl::StatusOr<planner::Objective> ObjectiveFrom(v1::Objective o) {
  switch (o) {
    case v1::OBJECTIVE_UNSPECIFIED:
    case v1::OBJECTIVE_CHEAPEST:
      return planner::Objective::kCheapest;
    case v1::OBJECTIVE_FASTEST:
      return planner::Objective::kFastest;
    case v1::OBJECTIVE_CHEAPEST_WITHIN_DEADLINE:
      return planner::Objective::kCheapestWithinDeadline;
    case v1::OBJECTIVE_FASTEST_WITHIN_BUDGET:
      return planner::Objective::kFastestWithinBudget;
    default:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat("objective: unknown value ", static_cast<int>(o)));
}

}  // namespace

core::Offload OffloadFrom(v1::Offload o) {
  switch (o) {
    case v1::OFFLOAD_OPTIMIZER:
      return core::Offload::kOptimizer;
    case v1::OFFLOAD_OPTIMIZER_AND_PARAMETERS:
      return core::Offload::kOptimizerAndParameters;
    default:
      return core::Offload::kNone;  // UNSPECIFIED, NONE (unknown values never pass CheckRequest)
  }
}

core::Recompute RecomputeFrom(v1::Recompute r) {
  switch (r) {
    case v1::RECOMPUTE_SELECTIVE:
      return core::Recompute::kSelective;
    case v1::RECOMPUTE_FULL:
      return core::Recompute::kFull;
    default:
      return core::Recompute::kNone;  // UNSPECIFIED, NONE (unknown values never pass CheckRequest)
  }
}

namespace {

// A training sequence longer than the model's context window asks for something the model
// cannot do; an unset one is the default, capped at the window.
absl::Status SetSequence(const ResolvedModel& m, int64_t sequence_tokens, const std::string& field,
                         core::TrainingJob* job) {
  const int64_t max = m.max_context_tokens;
  if (sequence_tokens == 0) {
    if (max > 0 && job->sequence_length > max) job->sequence_length = max;
    return absl::OkStatus();
  }
  if (max > 0 && sequence_tokens > max) {
    return absl::InvalidArgumentError(absl::StrCat(field, ".sequence_tokens: ", sequence_tokens, " tokens is beyond ",
                                                   ContextWindow(m), "; must be at most ", max));
  }
  job->sequence_length = sequence_tokens;
  return absl::OkStatus();
}

// "major.minor" or "major.minor.patch", each part a number in [0, 999]; the patch is not used.
absl::StatusOr<core::EngineVersion> EngineVersionFrom(const std::string& text, const std::string& field) {
  const auto refuse = [&] {
    return absl::InvalidArgumentError(absl::StrCat(field, ": must be \"major.minor\" or \"major.minor.patch\" with ",
                                                   "numbers in [0, ", core::kMaxEngineVersionComponent, "], got \"",
                                                   text.substr(0, 32), "\""));
  };
  int parts[3] = {0, 0, 0};
  int count = 0;
  int digits = 0;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      if (++digits > 3) return refuse();
      parts[count] = parts[count] * 10 + (c - '0');
    } else if (c == '.' && digits > 0 && count < 2) {
      ++count;
      digits = 0;
    } else {
      return refuse();
    }
  }
  if (digits == 0 || count < 1) return refuse();
  return core::EngineVersion{parts[0], parts[1]};
}

}  // namespace

absl::StatusOr<core::TrainingJob> TrainingJobFrom(const core::CatalogView& catalog, const v1::TrainingWorkload& w,
                                                  const std::string& field) {
  core::TrainingJob job;
  absl::StatusOr<ResolvedModel> model =
      ResolveModel(catalog,
                   ModelChoice{w.model_case() == v1::TrainingWorkload::kModelName, w.model_name(),
                               w.model_case() == v1::TrainingWorkload::kArchitecture, w.architecture(),
                               w.model_case() == v1::TrainingWorkload::kHfConfigJson, w.hf_config_json()},
                   field);
  if (!model.ok()) return model.status();
  job.model = model->arch;
  job.tokens = w.tokens();
  absl::Status window = SetSequence(*model, w.sequence_tokens(), field, &job);
  if (!window.ok()) return window;
  job.global_batch_tokens = static_cast<double>(w.global_batch_tokens());  // 0: searched
  if (w.precision() != v1::PRECISION_UNSPECIFIED) {
    absl::StatusOr<core::Precision> p = PrecisionFromProto(w.precision(), field + ".precision");
    if (!p.ok()) return p.status();
    job.precision = *p;
  }
  absl::StatusOr<core::TrainingMethod> method = MethodFrom(w.method(), field);
  if (!method.ok()) return method.status();
  job.method = *method;
  absl::StatusOr<core::Optimizer> optimizer = OptimizerFrom(w.optimizer(), field);
  if (!optimizer.ok()) return optimizer.status();
  job.optimizer = *optimizer;
  if (w.lora_rank() != 0) job.lora_rank = w.lora_rank();
  job.flash_attention = !w.disable_flash_attention();
  if (w.goodput_fraction() != 0) job.goodput = w.goodput_fraction();
  absl::Status valid = core::ValidateTrainingJob(job);  // a global batch of 0 is searched
  if (!valid.ok()) return Prefixed(valid, field + ".");
  return job;
}

absl::StatusOr<core::ServingWorkload> ServingWorkloadFrom(const core::CatalogView& catalog,
                                                          const v1::ServingWorkload& w, const std::string& field) {
  core::ServingWorkload s;
  absl::StatusOr<ResolvedModel> model =
      ResolveModel(catalog,
                   ModelChoice{w.model_case() == v1::ServingWorkload::kModelName, w.model_name(),
                               w.model_case() == v1::ServingWorkload::kArchitecture, w.architecture(),
                               w.model_case() == v1::ServingWorkload::kHfConfigJson, w.hf_config_json()},
                   field);
  if (!model.ok()) return model.status();
  s.model = model->arch;
  if (w.weight_precision() != v1::PRECISION_UNSPECIFIED) {
    absl::StatusOr<core::Precision> p = PrecisionFromProto(w.weight_precision(), field + ".weight_precision");
    if (!p.ok()) return p.status();
    s.weight_precision = *p;
  }
  if (w.kv_cache_precision() != v1::PRECISION_UNSPECIFIED) {
    absl::StatusOr<core::Precision> p = PrecisionFromProto(w.kv_cache_precision(), field + ".kv_cache_precision");
    if (!p.ok()) return p.status();
    s.kv_precision = *p;
  }
  s.prompt_tokens = w.prompt_tokens();
  s.output_tokens = w.output_tokens();
  s.requests_per_second = w.requests_per_second();
  s.ttft_slo_seconds = w.ttft_slo_seconds();
  s.tpot_slo_seconds = w.tpot_slo_seconds();
  s.e2e_slo_seconds = w.e2e_slo_seconds();
  if (w.target_utilization_fraction() != 0) s.target_utilization = w.target_utilization_fraction();
  absl::StatusOr<core::ServingEngine> engine = ServingEngineFromProto(w.engine(), field + ".engine");
  if (!engine.ok()) return engine.status();
  s.engine = *engine;
  s.batch_arrives_at_once = w.batch_arrives_at_once();
  s.concurrent_requests = w.concurrent_requests();
  if (!w.engine_version().empty()) {
    absl::StatusOr<core::EngineVersion> v = EngineVersionFrom(w.engine_version(), field + ".engine_version");
    if (!v.ok()) return v.status();
    s.engine_version = *v;
  }
  absl::Status valid = core::ValidateServingWorkload(s);
  if (!valid.ok()) return Prefixed(valid, field + ".");
  // Both lengths are bounded by the check above, so their sum cannot overflow.
  const int64_t max = model->max_context_tokens;
  if (max > 0 && s.prompt_tokens + s.output_tokens > max) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".prompt_tokens + ", field, ".output_tokens: ", s.prompt_tokens, " + ", s.output_tokens,
                     " = ", s.prompt_tokens + s.output_tokens, " tokens is beyond ", ContextWindow(*model)));
  }
  return s;
}

absl::StatusOr<planner::PlanQuery> PlanQueryFrom(const core::CatalogView& catalog, const v1::PlanRequest& req) {
  if (req.top_k() < 0 || req.top_k() > planner::kMaxTopK) {
    return absl::InvalidArgumentError(absl::StrCat("top_k: must be in [0, ", planner::kMaxTopK,
                                                   "] (0: ", planner::kDefaultTopK, "), got ", req.top_k()));
  }
  if (req.max_rejected() < 0 || req.max_rejected() > planner::kMaxRejected) {
    return absl::InvalidArgumentError(absl::StrCat("max_rejected: must be in [0, ", planner::kMaxRejected, "] (0: ",
                                                   planner::kDefaultMaxRejected, "), got ", req.max_rejected()));
  }
  absl::StatusOr<int64_t> as_of =
      PricesAsOfFrom(req.prices_as_of_unix_seconds(), req.has_prices_as_of_time() ? &req.prices_as_of_time() : nullptr);
  if (!as_of.ok()) return as_of.status();
  const v1::Constraints& c = req.constraints();
  if (c.max_gpus() < 0 || c.max_gpus() > planner::kMaxGpus) {
    return absl::InvalidArgumentError(absl::StrCat("constraints.max_gpus: must be in [0, ", planner::kMaxGpus,
                                                   "] (0: serving deployments up to ", planner::kDefaultMaxGpus,
                                                   " GPUs, training without a limit), got ", c.max_gpus()));
  }
  for (const auto& [list, name] : {std::pair{&c.providers(), "providers"},
                                   {&c.regions(), "regions"},
                                   {&c.allowed_gpus(), "allowed_gpus"},
                                   {&c.excluded_gpus(), "excluded_gpus"}}) {
    if (list->size() > planner::kMaxFilterNames) {
      return absl::InvalidArgumentError(
          absl::StrCat("constraints.", name, ": at most ", planner::kMaxFilterNames, " names, got ", list->size()));
    }
  }
  absl::StatusOr<planner::Objective> objective = ObjectiveFrom(req.objective());
  if (!objective.ok()) return objective.status();
  planner::PlanQuery q;
  q.objective = *objective;
  q.deadline_seconds = req.deadline_seconds();
  q.budget_usd = req.budget_usd();
  q.top_k = req.top_k() > 0 ? req.top_k() : planner::kDefaultTopK;
  q.max_rejected = req.view() == v1::VIEW_BASIC ? 0
                   : req.max_rejected() > 0     ? req.max_rejected()
                                                : planner::kDefaultMaxRejected;
  q.prices_as_of_unix_seconds = *as_of;
  q.constraints.providers.insert(c.providers().begin(), c.providers().end());
  q.constraints.regions.insert(c.regions().begin(), c.regions().end());
  q.constraints.allowed_gpus.insert(c.allowed_gpus().begin(), c.allowed_gpus().end());
  q.constraints.excluded_gpus.insert(c.excluded_gpus().begin(), c.excluded_gpus().end());
  q.constraints.spot_allowed = c.spot_allowed();
  q.constraints.allow_ethernet_clusters = c.allow_ethernet_clusters();
  q.constraints.spot_interruptions_per_month = c.spot_interruption_fraction_per_month();
  if (c.price_kind() != v1::PRICE_KIND_UNSPECIFIED) {
    absl::StatusOr<core::PriceKind> kind = PriceKindFromProto(c.price_kind(), "constraints.price_kind");
    if (!kind.ok()) return kind.status();
    q.constraints.price_kind = *kind;
  }
  if (c.max_gpus() > 0) q.constraints.max_gpus = c.max_gpus();
  for (int i = 0; i < c.owned_pools_size(); ++i) {
    const v1::OwnedPool& p = c.owned_pools(i);
    absl::StatusOr<core::FabricOverride> fabric =
        FabricOverrideFrom(catalog, p.fabric(), absl::StrCat("constraints.owned_pools[", i, "].fabric"));
    if (!fabric.ok()) return fabric.status();
    q.constraints.owned_pools.push_back(
        {p.name(), p.gpu_name(), p.gpu_count(), p.cost_usd_per_gpu_hour(), *std::move(fabric)});
  }
  return q;
}

absl::StatusOr<std::vector<planner::CompareTarget>> CompareTargetsFrom(const core::CatalogView& catalog,
                                                                       const v1::CompareRequest& req) {
  std::vector<planner::CompareTarget> out;
  out.reserve(static_cast<size_t>(req.targets_size()));
  for (int i = 0; i < req.targets_size(); ++i) {
    const v1::CompareTarget& t = req.targets(i);
    const std::string field = absl::StrCat("targets[", i, "]");
    planner::CompareTarget c;
    c.gpu_name = t.gpu_name();
    c.instance_type = t.instance_type();
    c.region = t.region();
    c.count = t.count();
    const v1::Parallelism& p = t.pinned_parallelism();
    c.pin.tensor_parallel = p.tensor_parallel();
    c.pin.pipeline_parallel = p.pipeline_parallel();
    c.pin.data_parallel = p.data_parallel();
    // Unset: searched. A set zero_stage (0 included) or an explicit RECOMPUTE_NONE pins it;
    // callers written before zero_stage had presence never sent 0, so their meaning holds.
    if (p.has_zero_stage()) c.pin.zero_stage = p.zero_stage();
    if (p.recompute() != v1::RECOMPUTE_UNSPECIFIED) c.pin.recompute = RecomputeFrom(p.recompute());
    c.pin.sequence_parallel = p.sequence_parallel();
    c.pin.micro_batch_sequences = p.micro_batch_sequences();
    c.pin.serving_batch_sequences = p.serving_batch_sequences();
    c.pin.virtual_pipeline_stages = p.virtual_pipeline_stages();
    c.pin.context_parallel = p.context_parallel();
    c.pin.expert_parallel = p.expert_parallel();
    if (p.has_shard_group_gpus()) c.pin.shard_group_gpus = p.shard_group_gpus();
    if (p.offload() != v1::OFFLOAD_UNSPECIFIED) c.pin.offload = OffloadFrom(p.offload());
    absl::StatusOr<core::FabricOverride> fabric = FabricOverrideFrom(catalog, t.fabric(), field + ".fabric");
    if (!fabric.ok()) return fabric.status();
    c.fabric = *std::move(fabric);
    if (t.price_kind() != v1::PRICE_KIND_UNSPECIFIED) {
      if (t.instance_type().empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, ".price_kind: prices belong to instance types; set instance_type or leave it unset"));
      }
      absl::StatusOr<core::PriceKind> kind = PriceKindFromProto(t.price_kind(), field + ".price_kind");
      if (!kind.ok()) return kind.status();
      c.price_kind = *kind;
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace capplan::server
