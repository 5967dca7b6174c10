// capplan deploy training|serving: plan the workload as `capplan plan` does, then print one
// option rendered as the files that run it (Kubernetes manifests, a Slurm script, or the
// launch command), or write them under --out_dir.
#include <fstream>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "client/cli/commands.h"
#include "client/cli/plan_flags.h"
#include "client/cli/workload.h"

namespace capplan::cli {
namespace {

constexpr int kMaxOptionRank = 100;  // the server's largest top_k (core/planner/query.h kMaxTopK)

const CommandInfo kTraining = {
    "deploy training", "render a training option as a Slurm script, a JobSet or the torchrun command",
    "(--model=NAME | --model_file=PATH | --hf_config=PATH) --tokens=N [--option=N] [--target=slurm] [flags]",
    "  capplan deploy training --model=Llama-2-70B --tokens=2e12 --max_gpus=256 --target=slurm"};
const CommandInfo kServing = {
    "deploy serving", "render a serving option as Kubernetes manifests or the engine's launch command",
    "(--model=NAME | --model_file=PATH | --hf_config=PATH) --prompt_tokens=N --output_tokens=N --rps=R "
    "[--option=N] [--target=kubernetes] [flags]",
    "  capplan deploy serving --model=Llama-2-7B --prompt_tokens=512 --output_tokens=128 --rps=35 --tpot_ms=50 "
    "--model_path=meta-llama/Llama-2-7b-hf"};

struct DeployFlags {
  std::string target;
  std::string out_dir;
};

absl::Status SetTarget(const std::string& name, v1::DeployRequest* r) {
  static const std::pair<const char*, v1::DeployTarget> kTargets[] = {{"kubernetes", v1::DEPLOY_TARGET_KUBERNETES},
                                                                      {"slurm", v1::DEPLOY_TARGET_SLURM},
                                                                      {"command", v1::DEPLOY_TARGET_COMMAND}};
  if (name.empty()) return absl::OkStatus();  // the workload's default
  for (const auto& [n, t] : kTargets) {
    if (name == n) {
      r->set_target(t);
      return absl::OkStatus();
    }
  }
  return absl::InvalidArgumentError("--target: want kubernetes, slurm or command");
}

// A file name the server sent, checked before it names a path under --out_dir.
bool PlainFileName(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\\') == std::string::npos;
}

int WriteFiles(const v1::DeployResponse& resp, const std::string& dir) {
  for (const v1::DeployFile& f : resp.files()) {
    if (!PlainFileName(f.name())) {
      return Fail(absl::InternalError(absl::StrCat("the server sent a file name that is not plain: ", f.name())));
    }
    const std::string path = absl::StrCat(dir, "/", f.name());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << f.content();
    out.close();
    if (!out) return Fail(absl::UnavailableError(absl::StrCat("cannot write ", path)));
    std::cout << "wrote " << path << " (" << f.media_type() << ")\n";
  }
  return 0;
}

}  // namespace

int RunDeploy(const std::vector<std::string>& args, GlobalOptions* global) {
  const std::string kind = args.empty() ? "" : args[0];
  FlagSet flags;
  WorkloadFlags workload;
  if (!AddWorkloadFlags(kind, &flags, &workload)) return SubcommandUsage("deploy", {"training", "serving"}, args);
  PlanFlags p;
  AddPlanFlags(&flags, &p);
  v1::DeployRequest r;
  DeployFlags d;
  IntField(&flags, "option", "which option of the plan to render (1: the top one)", "1", 1, kMaxOptionRank,
           [&r](int64_t n) { r.set_option_rank(static_cast<int32_t>(n)); });
  flags.String("target", "kubernetes|slurm|command",
               "what to render (default: kubernetes for serving, slurm for training)", &d.target);
  flags.String("model_path", "PATH",
               "the model as the engine or trainer loads it: a Hugging Face repo id or a local path (default: the "
               "plan's model name)",
               r.mutable_model_path());
  flags.String("out_dir", "DIR", "write the files into this existing directory instead of printing them", &d.out_dir);
  const CommandInfo& info = workload.serving ? kServing : kTraining;
  const int rc = ParseCommandFlags(info, {args.begin() + 1, args.end()}, &flags, global);
  if (rc >= 0) return rc;
  *r.mutable_plan() = p.request;
  absl::Status s = BuildWorkload(workload, r.mutable_plan());
  if (s.ok()) s = FinishRequest(p, r.mutable_plan());
  if (s.ok()) s = SetTarget(d.target, &r);
  if (!s.ok()) return UsageError(info.path, std::string(s.message()));
  client::Client client(global->client);
  absl::StatusOr<v1::DeployResponse> resp = client.Deploy(r);
  if (!resp.ok()) return Fail(resp.status());
  if (global->json) {
    PrintJson(*resp);
    return 0;
  }
  for (const std::string& note : resp->notes()) std::cerr << "note: " << note << "\n";
  if (!d.out_dir.empty()) return WriteFiles(*resp, d.out_dir);
  for (const v1::DeployFile& f : resp->files()) {
    if (resp->files_size() > 1) std::cout << "# ---- " << f.name() << " (" << f.media_type() << ")\n";
    std::cout << f.content();
  }
  return 0;
}

}  // namespace capplan::cli
