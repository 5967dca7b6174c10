#include "server/planning/deploy.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/planner/query.h"
#include "core/serving/serving_engine.h"
#include "server/api/request_proto.h"

namespace capplan::server {

namespace v1 = capplan::v1;
namespace deploy = core::deploy;

namespace {

bool ModelPathChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
         absl::string_view("._/:@-").find(c) != absl::string_view::npos;
}

absl::StatusOr<deploy::Target> TargetFrom(v1::DeployTarget t, bool serving) {
  switch (t) {
    case v1::DEPLOY_TARGET_UNSPECIFIED:
      return serving ? deploy::Target::kKubernetes : deploy::Target::kSlurm;
    case v1::DEPLOY_TARGET_KUBERNETES:
      return deploy::Target::kKubernetes;
    case v1::DEPLOY_TARGET_SLURM:
      return deploy::Target::kSlurm;
    case v1::DEPLOY_TARGET_COMMAND:
      return deploy::Target::kCommand;
    default:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("target: unknown value ", static_cast<int>(t), "; want KUBERNETES, SLURM or COMMAND"));
}

deploy::Accelerator AcceleratorOf(const core::GpuRow& gpu) {
  return absl::StrContains(absl::AsciiStrToLower(gpu.vendor), "amd") ||
                 core::ServingVendorOf(gpu.spec) == core::ServingVendor::kAmdInstinct
             ? deploy::Accelerator::kAmd
             : deploy::Accelerator::kNvidia;
}

deploy::Provenance ProvenanceOf(const v1::PlanOption& o) {
  deploy::Provenance p;
  p.option_rank = o.rank();
  p.catalog_version = o.provenance().catalog_version();
  p.gpu_name = o.gpu_name();
  p.where = o.owned_pool().empty()
                ? absl::StrCat(o.provider(), " ", o.instance_type(), " x", o.instance_count(), " ", o.region())
                : absl::StrCat("owned pool ", o.owned_pool());
  p.cost_usd_per_hour = o.cost_usd_per_hour();
  return p;
}

absl::StatusOr<const core::GpuRow*> GpuOf(const core::CatalogView& catalog, const v1::PlanOption& o) {
  const core::GpuRow* gpu = catalog.FindGpu(o.gpu_name());
  if (gpu == nullptr) return absl::InternalError(absl::StrCat("deploy: the option's GPU ", o.gpu_name(), " is gone"));
  return gpu;
}

std::string ModelPath(const v1::DeployRequest& req, const std::string& model_name) {
  return req.model_path().empty() ? model_name : req.model_path();
}

// Nodes and GPUs per node of a training option: its instances, or an owned pool cut into
// nodes of the fabric's (else the GPU's) node size.
absl::Status TrainingNodes(const v1::PlanOption& o, const core::GpuRow& gpu, deploy::TrainingSpec* s) {
  if (o.instance_count() > 0) {
    s->nodes = o.instance_count();
    s->gpus_per_node = o.gpu_count() / o.instance_count();
  } else {
    const int node = o.fabric().gpus_per_node() > 0 ? o.fabric().gpus_per_node() : gpu.spec.gpus_per_node;
    s->gpus_per_node = std::clamp(o.gpu_count(), 1, std::max(1, node));
    s->nodes = (o.gpu_count() + s->gpus_per_node - 1) / s->gpus_per_node;
  }
  const core::ParallelConfig& p = s->parallel;
  const int64_t world = static_cast<int64_t>(p.tp) * p.pp * p.dp * p.cp;
  if (world != static_cast<int64_t>(s->nodes) * s->gpus_per_node) {
    return absl::FailedPreconditionError(
        absl::StrCat("option's layout uses ", world, " GPUs (tp x pp x dp x cp) but its ", s->nodes, " node(s) hold ",
                     s->nodes * s->gpus_per_node, "; torchrun launches one process per GPU, so it cannot be rendered"));
  }
  return absl::OkStatus();
}

core::ParallelConfig ParallelFrom(const v1::Parallelism& p) {
  core::ParallelConfig c;
  c.tp = std::max(1, p.tensor_parallel());
  c.pp = std::max(1, p.pipeline_parallel());
  c.dp = std::max(1, p.data_parallel());
  c.zero_stage = p.zero_stage();
  c.recompute = RecomputeFrom(p.recompute());
  c.sequence_parallel = p.sequence_parallel();
  c.micro_batch = std::max<int64_t>(1, p.micro_batch_sequences());
  c.vpp = std::max(1, p.virtual_pipeline_stages());
  c.cp = std::max(1, p.context_parallel());
  c.ep = std::max(1, p.expert_parallel());
  c.shard_group = p.shard_group_gpus();
  c.offload = OffloadFrom(p.offload());
  return c;
}

}  // namespace

absl::Status CheckDeployRequest(const v1::DeployRequest& req) {
  if (req.option_rank() < 0 || req.option_rank() > core::planner::kMaxTopK) {
    return absl::InvalidArgumentError(absl::StrCat("option_rank: ", req.option_rank(), " is out of range; want 1..",
                                                   core::planner::kMaxTopK, " (0: 1)"));
  }
  if (!v1::DeployTarget_IsValid(req.target())) {
    return absl::InvalidArgumentError(absl::StrCat("target: unknown value ", static_cast<int>(req.target())));
  }
  if (req.model_path().size() > static_cast<size_t>(kMaxModelPathChars) ||
      !std::all_of(req.model_path().begin(), req.model_path().end(), ModelPathChar)) {
    return absl::InvalidArgumentError(
        absl::StrCat("model_path: want at most ", kMaxModelPathChars, " characters of A-Z a-z 0-9 . _ / : @ -"));
  }
  if (!req.has_plan()) return absl::InvalidArgumentError("plan: required (the PlanRequest to deploy)");
  return absl::OkStatus();
}

absl::StatusOr<deploy::ServingSpec> ServingSpecFrom(const core::CatalogView& catalog, const v1::DeployRequest& req,
                                                    const v1::PlanOption& o) {
  absl::StatusOr<core::ServingWorkload> w = ServingWorkloadFrom(catalog, req.plan().serving(), "plan.serving");
  if (!w.ok()) return w.status();
  absl::StatusOr<const core::GpuRow*> gpu = GpuOf(catalog, o);
  if (!gpu.ok()) return gpu.status();
  deploy::ServingSpec s;
  s.from = ProvenanceOf(o);
  s.model_path = ModelPath(req, w->model.name);
  s.name = deploy::DnsLabel(absl::StrCat(w->model.name, "-", core::ServingEngineName(w->engine)));
  s.engine = w->engine;
  s.accelerator = AcceleratorOf(**gpu);
  s.tensor_parallel = std::max(1, o.parallelism().tensor_parallel());
  s.pipeline_parallel = std::max(1, o.parallelism().pipeline_parallel());
  s.replicas = std::max(1, o.replicas());
  s.replica_nodes = std::max(1, o.replica_node_count());
  s.gpus_per_pod = o.replica_gpus_per_node() > 0 ? o.replica_gpus_per_node()
                                                 : s.tensor_parallel * s.pipeline_parallel / s.replica_nodes;
  s.max_num_seqs = o.parallelism().serving_batch_sequences();
  s.max_model_len = w->prompt_tokens + w->output_tokens;
  s.memory_fraction =
      core::EngineProfileFor(w->engine, (*gpu)->spec, s.tensor_parallel, w->engine_version).memory_fraction;
  s.weight_precision = w->weight_precision;
  s.kv_precision = w->kv_precision;
  s.disaggregated = o.deployment() == v1::SERVING_DEPLOYMENT_DISAGGREGATED;
  if (s.disaggregated) {
    // The option's parallelism and replicas are the decode pool's (option_proto.cc).
    s.prefill_replicas = o.prefill_replicas();
    s.prefill_tp = o.prefill_tensor_parallel();
    s.replicas = std::max(1, o.decode_gpu_count() / s.tensor_parallel);
  }
  s.requests_per_second = o.requests_per_second().point();
  s.ttft_seconds = o.ttft_seconds().point();
  s.tpot_seconds = o.tpot_seconds().point();
  s.memory_per_gpu_bytes = o.memory_per_gpu().total_bytes();
  return s;
}

absl::StatusOr<deploy::TrainingSpec> TrainingSpecFrom(const core::CatalogView& catalog, const v1::DeployRequest& req,
                                                      const v1::PlanOption& o) {
  absl::StatusOr<core::TrainingJob> job = TrainingJobFrom(catalog, req.plan().training(), "plan.training");
  if (!job.ok()) return job.status();
  absl::StatusOr<const core::GpuRow*> gpu = GpuOf(catalog, o);
  if (!gpu.ok()) return gpu.status();
  deploy::TrainingSpec s;
  s.from = ProvenanceOf(o);
  s.model_path = ModelPath(req, job->model.name);
  s.name = deploy::DnsLabel(absl::StrCat(job->model.name, "-train"));
  s.accelerator = AcceleratorOf(**gpu);
  s.model = job->model;
  s.method = job->method;
  s.precision = job->precision;
  s.parallel = ParallelFrom(o.parallelism());
  if (absl::Status ok = TrainingNodes(o, **gpu, &s); !ok.ok()) return ok;
  s.sequence_tokens = job->sequence_length;
  const int64_t batch_tokens = std::max<int64_t>(1, o.global_batch_tokens());
  s.global_batch_sequences = batch_tokens / std::max<int64_t>(1, s.sequence_tokens);
  // tokens and the batch are bounded by request validation (at most 1e15 and 1e9).
  s.train_iters = static_cast<int64_t>(std::ceil(job->tokens / static_cast<double>(batch_tokens)));
  s.step_seconds =
      s.train_iters > 0 ? o.steady_state_duration_seconds().point() / static_cast<double>(s.train_iters) : 0;
  s.mfu_fraction = o.mfu_fraction();
  s.duration_seconds = o.duration_seconds().point();
  s.tokens_per_second = o.tokens_per_second();
  return s;
}

absl::Status RenderDeploy(const core::CatalogView& catalog, const v1::DeployRequest& req, const v1::PlanResponse& plan,
                          const std::string& capplan_version, v1::DeployResponse* resp) {
  const int rank = req.option_rank() == 0 ? 1 : req.option_rank();
  if (rank > plan.options_size()) {
    return absl::InvalidArgumentError(absl::StrCat("option_rank: ", rank, " is beyond the ", plan.options_size(),
                                                   " option(s) the plan returned; want 1..", plan.options_size()));
  }
  const v1::PlanOption& o = plan.options(rank - 1);
  const bool serving = req.plan().workload_case() == v1::PlanRequest::kServing;
  const std::string version = capplan_version.empty() ? "dev" : capplan_version;
  absl::StatusOr<deploy::Target> target = TargetFrom(req.target(), serving);
  if (!target.ok()) return target.status();
  absl::StatusOr<deploy::Rendered> r;
  if (serving) {
    absl::StatusOr<deploy::ServingSpec> s = ServingSpecFrom(catalog, req, o);
    if (!s.ok()) return s.status();
    s->from.capplan_version = version;
    r = deploy::RenderServing(*s, *target);
  } else {
    absl::StatusOr<deploy::TrainingSpec> s = TrainingSpecFrom(catalog, req, o);
    if (!s.ok()) return s.status();
    s->from.capplan_version = version;
    r = deploy::RenderTraining(*s, *target);
  }
  if (!r.ok()) return r.status();
  for (deploy::RenderedFile& f : r->files) {
    v1::DeployFile* out = resp->add_files();
    out->set_name(std::move(f.name));
    out->set_content(std::move(f.content));
    out->set_media_type(std::move(f.media_type));
  }
  for (std::string& n : r->notes) resp->add_notes(std::move(n));
  *resp->mutable_option() = o;
  resp->set_catalog_version(plan.catalog_version());
  return absl::OkStatus();
}

absl::Status Deploy(const core::CatalogView& catalog, const v1::DeployRequest& req, const std::string& capplan_version,
                    const PlanFn& plan, v1::DeployResponse* resp) {
  absl::Status s = CheckDeployRequest(req);
  if (!s.ok()) return s;
  v1::PlanResponse answer;
  s = plan(req.plan(), &answer);
  // The plan's own errors name their field under plan ("plan.serving.prompt_tokens").
  if (!s.ok()) return Prefixed(s, absl::IsInvalidArgument(s) ? "plan." : "plan: ");
  return RenderDeploy(catalog, req, answer, capplan_version, resp);
}

}  // namespace capplan::server
