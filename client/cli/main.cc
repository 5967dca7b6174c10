// capplan: the command-line client. Readable tables by default, --json
// (protobuf's JSON mapping) for scripts. Exit 0 on success, 1 with the status
// on stderr on an RPC error, 2 on a usage error. Each command group lives in
// its own file and owns its flags.
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/cli/commands.h"

namespace capplan::cli {
namespace {

constexpr char kUsage[] = R"(capplan: GPU capacity planning for LLMs

Usage: capplan [global flags] COMMAND [SUBCOMMAND] [flags]
       capplan COMMAND [SUBCOMMAND] --help     the command's own flags, units and defaults

Commands:
  health                          is the server serving?
  plan training                   ranked training options over every GPU, instance and owned pool
  plan serving                    ranked serving options
  deploy training                 a training option as a Slurm script, a JobSet or the command
  deploy serving                  a serving option as Kubernetes manifests or the command
  compare training                one training workload on the targets you name, side by side
  compare serving                 one serving workload on the targets you name
  tco                             own vs rent over a horizon, one fleet or several
  catalog version                 the catalog version and when it last changed
  catalog gpus                    GPU specs
  catalog models                  model architectures
  catalog instances               rentable offers (provider, type, region, GPUs)
  catalog prices                  price history of one offer
  catalog benchmarks              published measurements
  catalog fabrics                 interconnects
  catalog electricity             electricity prices by site
  catalog tco-scenarios           standing TCO scenarios
  admin set-price                 record one price
  admin import-csv                import a SkyPilot price catalog (CSV)
  admin audit                     the audit log of catalog writes
  admin upsert-gpu | delete-gpu
  admin upsert-instance | delete-instance
  admin upsert-model | delete-model
  admin upsert-fabric | delete-fabric
  admin upsert-electricity | delete-electricity
  admin upsert-tco-scenario | delete-tco-scenario
  admin record-benchmark | delete-benchmark
  admin import-benchmark          import measured runs (vLLM, SGLang, MLPerf, torchtitan, Megatron-LM)
                                  admin writes take a token from CAPPLAN_ADMIN_TOKEN or
                                  CAPPLAN_ADMIN_TOKEN_FILE

Examples:
  capplan plan training --model=Llama-2-7B --tokens=2e9 --method=lora
  capplan plan serving --model=Llama-2-7B --prompt_tokens=512 --output_tokens=128 --rps=35 --tpot_ms=50
  capplan tco --gpu=A100-SXM4-80GB --count=8 --capex_usd=250000 --ops_usd_per_month=5000 \
    --power_watts=0 --rent_usd_per_month=15000
  capplan --json catalog instances --provider=aws --prices_as_of=2025-06-05

Global flags (before or after the command):
)";

int Health(const std::vector<std::string>& args, GlobalOptions* global) {
  FlagSet flags;
  const CommandInfo info = {"health", "the server's health status (exit 0 when SERVING)", "",
                            "  capplan --server=127.0.0.1:50051 health"};
  const int rc = ParseCommandFlags(info, args, &flags, global);
  if (rc >= 0) return rc;
  client::Client client(global->client);
  absl::StatusOr<std::string> status = client.Health();
  if (!status.ok()) return Fail(status.status());
  std::cout << *status << "\n";
  return *status == "SERVING" ? 0 : kExitRpcError;
}

int Main(int argc, char** argv) {
  GlobalOptions global;
  FlagSet flags;
  AddGlobalFlags(&flags, &global);
  std::vector<std::string> rest;
  bool help = false;
  absl::Status s = flags.Parse({argv + 1, argv + argc}, true, &rest, &help);
  if (help || (s.ok() && rest.empty())) {
    (help ? std::cout : std::cerr) << kUsage << flags.Help();
    return help ? 0 : kExitUsage;
  }
  if (!s.ok()) {
    std::cerr << "capplan: " << s.message() << "\nSee: capplan --help\n";
    return kExitUsage;
  }
  const std::string command = rest[0];
  const std::vector<std::string> args(rest.begin() + 1, rest.end());
  if (command == "health") return Health(args, &global);
  if (command == "plan") return RunPlan(args, &global);
  if (command == "deploy") return RunDeploy(args, &global);
  if (command == "compare") return RunCompare(args, &global);
  if (command == "tco") return RunTco(args, &global);
  if (command == "catalog") return RunCatalog(args, &global);
  if (command == "admin") return RunAdmin(args, &global);
  std::cerr << "capplan: unknown command \"" << command << "\"\nSee: capplan --help\n";
  return kExitUsage;
}

}  // namespace
}  // namespace capplan::cli

int main(int argc, char** argv) { return capplan::cli::Main(argc, argv); }
