// capplan plan training|serving: ranked options over every catalog GPU,
// instance and owned pool, with the objective, constraints and view the caller
// picks.
#include <chrono>
#include <cstdint>
#include <iostream>
#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "client/cli/commands.h"
#include "client/cli/fabric_spec.h"
#include "client/cli/plan_flags.h"
#include "client/cli/workload.h"

namespace capplan::cli {
namespace {

constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();

const CommandInfo kTraining = {"plan training",
                               "rank GPUs, instances and owned pools for a training or fine-tuning run",
                               "(--model=NAME | --model_file=PATH | --hf_config=PATH) --tokens=N [flags]",
                               "  capplan plan training --model=Llama-2-7B --tokens=2e9 --method=lora\n"
                               "  capplan plan training --model=Llama-2-70B --tokens=2e12 "
                               "--objective=deadline "
                               "--deadline_hours=720 --max_gpus=1024"};
const CommandInfo kServing = {
    "plan serving", "rank GPUs, instances and owned pools for serving at a load and SLOs",
    "(--model=NAME | --model_file=PATH | --hf_config=PATH) --prompt_tokens=N --output_tokens=N "
    "--rps=R [flags]",
    "  capplan plan serving --model=Llama-2-7B --prompt_tokens=512 "
    "--output_tokens=128 "
    "--rps=35 --tpot_ms=50"};

}  // namespace

namespace {

constexpr char kOwnedPoolHelp[] =
    "GPUs you own, priced per GPU-hour, e.g. lab:A100-SXM4-80GB:16:1.10, optionally followed by "
    "/key=value segments overriding how the pool is wired (unset: the GPU's default fabric), e.g. "
    "lab:H100-SXM5-80GB:64:2.00/fabric=aws-p5-efa/network_gbit_per_s_per_gpu=200";

// NAME:GPU:COUNT:USD_PER_GPU_HOUR[/key=value...], the keys those of client/cli/fabric_spec.h.
absl::Status ParseOwnedPool(const std::string& spec, v1::OwnedPool* pool) {
  std::vector<std::string> parts = absl::StrSplit(spec, '/');
  std::vector<std::string> f = absl::StrSplit(parts[0], ':');
  int64_t count = 0;
  double usd = 0;
  if (f.size() != 4 || f[0].empty() || f[1].empty() || !absl::SimpleAtoi(f[2], &count) || count < 1 ||
      count > kInt32Max || !absl::SimpleAtod(f[3], &usd) || !(usd >= 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--owned_pool: want NAME:GPU:COUNT:USD_PER_GPU_HOUR[/fabric=NAME/...], e.g. lab:A100-SXM4-80GB:16:1.10, got \"",
        spec, "\""));
  }
  pool->set_name(f[0]);
  pool->set_gpu_name(f[1]);
  pool->set_gpu_count(static_cast<int32_t>(count));
  pool->set_cost_usd_per_gpu_hour(usd);
  for (size_t i = 1; i < parts.size(); ++i) {
    std::pair<std::string, std::string> kv = absl::StrSplit(parts[i], absl::MaxSplits('=', 1));
    absl::Status s =
        IsFabricKey(kv.first)
            ? SetFabricKey(kv.first, kv.second, pool->mutable_fabric())
            : absl::InvalidArgumentError(absl::StrCat("unknown key \"", kv.first, "\"; want ", kFabricKeysHelp));
    if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat("--owned_pool \"", spec, "\": ", s.message()));
  }
  return absl::OkStatus();
}

void AddConstraintFlags(FlagSet* flags, PlanFlags* p) {
  v1::Constraints* k = p->request.mutable_constraints();
  using Adder = void (v1::Constraints::*)(const std::string&);
  static const struct {
    const char* name;
    const char* help;
    const char* default_text;
    Adder add;
  } kLists[] = {{"providers", "cloud providers to allow (comma-separated)", "all", &v1::Constraints::add_providers},
                {"regions", "regions to allow (comma-separated)", "all", &v1::Constraints::add_regions},
                {"gpus", "GPU types to allow (comma-separated)", "all", &v1::Constraints::add_allowed_gpus},
                {"exclude_gpus", "GPU types to leave out (comma-separated)", "", &v1::Constraints::add_excluded_gpus}};
  for (const auto& list : kLists) {
    const Adder add = list.add;
    flags->Custom(list.name, "A,B", list.help, list.default_text, [k, add](const std::string& v) {
      for (const std::string& s : SplitList(v)) (k->*add)(s);
      return absl::OkStatus();
    });
  }
  flags->Custom("kind", "on_demand|spot|reserved_1y|reserved_3y", "price every offer at this kind", "on_demand",
                [k](const std::string& v) {
                  absl::StatusOr<v1::PriceKind> kind = ParsePriceKind(v);
                  if (!kind.ok()) return kind.status();
                  k->set_price_kind(*kind);
                  return absl::OkStatus();
                });
  flags->Custom("spot", "", "with on-demand, consider spot prices too", "false", [k](const std::string& v) {
    if (v != "true" && v != "false") return absl::InvalidArgumentError("want true or false");
    k->set_spot_allowed(v == "true");
    return absl::OkStatus();
  });
  flags->Custom("allow_ethernet_clusters", "",
                "plan single-GPU and other Ethernet-only VMs across instances (not sold as a cluster)", "false",
                [k](const std::string& v) {
                  if (v != "true" && v != "false") return absl::InvalidArgumentError("want true or false");
                  k->set_allow_ethernet_clusters(v == "true");
                  return absl::OkStatus();
                });
  // The server's bound (core/planner/query.h kMaxSpotInterruptionsPerMonth): 100 a month.
  NumberField(flags, "spot_interruption_fraction_per_month", "FRACTION",
              "training on spot: instances interrupted per month (0.15: 15%); look the type up in the AWS Spot "
              "Instance Advisor",
              "0.15, the advisor's 10-15% band's upper edge", 0, false, 100,
              [k](double f) { k->set_spot_interruption_fraction_per_month(f); });
  IntField(flags, "max_gpus", "largest fleet to consider, GPUs",
           "0: training up to 65,536 GPUs, saying when a limit binds; serving 64 per deployment", 0, kInt32Max,
           [k](int64_t n) { k->set_max_gpus(static_cast<int32_t>(n)); });
  flags->Repeated("owned_pool", "NAME:GPU:COUNT:USD_PER_GPU_HOUR[/KEY=VALUE...]",
                  absl::StrCat(kOwnedPoolHelp, "; keys: ", kFabricKeysHelp), &p->owned_pools);
}

}  // namespace

void AddPlanFlags(FlagSet* flags, PlanFlags* p) {
  v1::PlanRequest* r = &p->request;
  flags->String("objective", "cheapest|fastest|deadline|budget",
                "what to rank by; deadline: cheapest within --deadline_hours, budget: fastest within "
                "--budget_usd; a deadline or budget given holds for every objective",
                &p->objective);
  NumberField(flags, "deadline_hours", "HOURS", "training deadline (default bound: 90 days)", "", 0, false, 1e7,
              [p](double d) { p->deadline_hours = d; });
  NumberField(flags, "budget_usd", "USD", "budget (training: whole run; serving: per month)", "", 0, false, 1e15,
              [r](double d) { r->set_budget_usd(d); });
  AddConstraintFlags(flags, p);
  IntField(flags, "top_k", "options to return", "5", 1, 1000,
           [r](int64_t n) { r->set_top_k(static_cast<int32_t>(n)); });
  IsoTimeFlag(flags, "prices_as_of", "read prices as they were at this UTC date or time",
              [r](int64_t t) { r->set_prices_as_of_unix_seconds(t); });
  ViewFlag(flags, [r](v1::View v) { r->set_view(v); });
  IntField(flags, "max_rejected", "candidates not chosen to return with --view=full", "40", 0, 200,
           [r](int64_t n) { r->set_max_rejected(static_cast<int32_t>(n)); });
}

absl::Status FinishRequest(const PlanFlags& p, v1::PlanRequest* r) {
  static const std::pair<const char*, v1::Objective> kObjectives[] = {
      {"cheapest", v1::OBJECTIVE_CHEAPEST},
      {"fastest", v1::OBJECTIVE_FASTEST},
      {"deadline", v1::OBJECTIVE_CHEAPEST_WITHIN_DEADLINE},
      {"budget", v1::OBJECTIVE_FASTEST_WITHIN_BUDGET}};
  r->set_objective(v1::OBJECTIVE_UNSPECIFIED);
  for (const auto& [name, objective] : kObjectives) {
    if (p.objective == name) r->set_objective(objective);
  }
  if (r->objective() == v1::OBJECTIVE_UNSPECIFIED) {
    return absl::InvalidArgumentError("--objective: want cheapest, fastest, deadline or budget");
  }
  if (r->objective() == v1::OBJECTIVE_CHEAPEST_WITHIN_DEADLINE && !(p.deadline_hours > 0)) {
    return absl::InvalidArgumentError("--objective=deadline needs --deadline_hours");
  }
  if (r->objective() == v1::OBJECTIVE_FASTEST_WITHIN_BUDGET && !(r->budget_usd() > 0)) {
    return absl::InvalidArgumentError("--objective=budget needs --budget_usd");
  }
  r->set_deadline_seconds(p.deadline_hours * 3600);
  for (const std::string& spec : p.owned_pools) {
    absl::Status s = ParseOwnedPool(spec, r->mutable_constraints()->add_owned_pools());
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

namespace {

// Plan's own: explanations and watching.
void AddPlanOutputFlags(FlagSet* flags, PlanFlags* p) {
  flags->Bool("explain", "print each option's explanation and provenance, then the formulas", &p->explain);
  flags->Bool("watch", "keep watching: print the answer again whenever a catalog change moves the top options",
              &p->watch);
  v1::WatchPlanRequest* w = &p->watch_request;
  NumberField(flags, "min_cost_change", "FRACTION", "with --watch: a cost change worth an update", "0.01", 1e-6, true,
              10, [w](double f) { w->set_min_cost_change_fraction(f); });
  IntField(flags, "watch_top_n", "with --watch: how many of the best options are watched", "3", 1, 100,
           [w](int64_t n) { w->set_top_n(static_cast<int32_t>(n)); });
  IntField(flags, "watch_updates", "with --watch: stop after this many updates", "0: until interrupted", 0, kInt32Max,
           [p](int64_t n) { p->watch_updates = n; });
}

// "-" where the server modelled no queueing (an older server, or nothing to model).
std::string Seconds3(double v) { return v > 0 ? absl::StrFormat("%.3f", v) : "-"; }
std::string RequestsPerSecond(double v) { return v > 0 ? absl::StrFormat("%.1f", v) : "-"; }

std::string DeploymentLabel(const v1::PlanOption& o) {
  return o.deployment() == v1::SERVING_DEPLOYMENT_UNSPECIFIED
             ? "-"
             : EnumLabel(v1::ServingDeployment_Name(o.deployment()), "SERVING_DEPLOYMENT_");
}

// Disaggregated: "P tp=8 x9 + D tp=8 x1 batch=203"; co-located as before.
std::string ServingLayout(const v1::PlanOption& o) {
  if (o.deployment() != v1::SERVING_DEPLOYMENT_DISAGGREGATED) return ServingLayoutWithNodes(o);
  const v1::Parallelism& p = o.parallelism();
  return absl::StrFormat("P tp=%d x%d + D tp=%d x%d batch=%d", o.prefill_tensor_parallel(), o.prefill_replicas(),
                         p.tensor_parallel(), p.data_parallel(), p.serving_batch_sequences());
}

// Every option's SLO warnings, under the table: what the pessimistic latencies miss.
void PrintSloWarnings(const v1::PlanResponse& resp) {
  bool header = false;
  for (const v1::PlanOption& o : resp.options()) {
    for (const v1::SloWarning& w : o.slo_warnings()) {
      if (!header) std::cout << "\nSLO warnings:\n";
      header = true;
      std::cout << "  #" << o.rank() << " " << EnumLabel(v1::SloMetric_Name(w.metric()), "SLO_METRIC_") << ": "
                << w.message() << "\n";
    }
  }
}

// Training rows say which duration is which: end to end (what the cost is for; failures,
// restarts and checkpoints included) and steady state (what MFU describes).
void PrintOptionTable(const v1::PlanResponse& resp, bool serving) {
  Table t = serving ? Table({"#", "where", "GPUs", "deploy", "layout", "req/s", "TTFT s", "p99 TTFT s", "TPOT ms",
                             "SLO breaks req/s", "$/h", "$/1M req", "bound"})
                    : Table({"#", "where", "GPUs", "layout", "e2e days (low-high)", "steady days", "cost (low-high)",
                             "$/h", "MFU", "batch", "mem GiB/GPU", "fabric", "bound"});
  for (const v1::PlanOption& o : resp.options()) {
    const std::string gpus = absl::StrCat(o.gpu_count(), "x", o.gpu_name());
    if (serving) {
      t.Add({absl::StrCat(o.rank()), Where(o), gpus, DeploymentLabel(o), ServingLayout(o),
             absl::StrFormat("%.1f", o.requests_per_second().point()),
             absl::StrFormat("%.3f", o.ttft_seconds().point()), Seconds3(o.ttft_p99_seconds()),
             absl::StrFormat("%.1f", o.tpot_seconds().point() * 1000),
             RequestsPerSecond(o.slo_break_requests_per_second()), Usd(o.cost_usd_per_hour()),
             Usd(o.usd_per_million_requests()), BottleneckLabel(o.bottleneck())});
      continue;
    }
    const v1::Range& d = o.duration_seconds();
    const v1::Range& c = o.total_cost_usd();
    t.Add({absl::StrCat(o.rank()), Where(o), gpus, Layout(o.parallelism(), false),
           absl::StrFormat("%.2f (%.2f-%.2f)", d.point() / 86400, d.low() / 86400, d.high() / 86400),
           Days(o.steady_state_duration_seconds().point()),
           absl::StrCat(Usd(c.point()), " (", Usd(c.low()), "-", Usd(c.high()), ")"), Usd(o.cost_usd_per_hour()),
           Mfu(o), BatchTokens(o),
           absl::StrFormat("%s/%s", Gib(o.memory_per_gpu().total_bytes()), Gib(o.memory_per_gpu().capacity_bytes())),
           FabricLabel(o), BottleneckLabel(o.bottleneck())});
  }
  t.Print();
  if (serving) PrintSloWarnings(resp);
}

// Which rule picked the top option, and the cost-time frontier it sits on.
void PrintFrontier(const v1::PlanResponse& resp, bool serving) {
  if (!resp.selection_rule().empty()) std::cout << "\nchosen by: " << resp.selection_rule() << "\n";
  if (resp.frontier_size() == 0) return;
  std::cout << "cost-time frontier (" << resp.frontier_size() << " points, * chosen):\n";
  for (const v1::FrontierPoint& f : resp.frontier()) {
    std::cout << (f.chosen() ? "  * " : "    ") << f.candidate() << ": "
              << (serving ? absl::StrCat("p99 e2e ", absl::StrFormat("%.3f", f.e2e_p99_seconds()), " s, ",
                                         Usd(f.usd_per_month()), "/month")
                          : absl::StrCat(Days(f.duration_seconds()), " days, ", Usd(f.total_cost_usd())))
              << "\n";
  }
}

// Prints up to `limit` of the rejected candidates (the server may send more
// than asked).
void PrintRejected(const v1::PlanResponse& resp, int limit) {
  if (resp.rejected_size() == 0) return;
  std::cout << "\nnot chosen (" << resp.rejected_size() << "):\n";
  for (int i = 0; i < resp.rejected_size() && i < limit; ++i) {
    const v1::RejectedCandidate& c = resp.rejected(i);
    std::cout << "  " << c.candidate() << ": " << c.reason();
    if (c.reason_code() != v1::REJECTION_REASON_UNSPECIFIED) {
      std::cout << " [" << EnumLabel(v1::RejectionReason_Name(c.reason_code()), "REJECTION_REASON_")
                << absl::StrFormat(", distance %.2f]", c.distance());
    }
    std::cout << "\n";
  }
}

// One watch update: why, what changed, then the answer's table.
void PrintWatchUpdate(const v1::WatchPlanResponse& u, bool serving) {
  std::cout << "catalog version " << u.catalog_version() << ": "
            << EnumLabel(v1::WatchReason_Name(u.reason()), "WATCH_REASON_") << "\n";
  // "-" for the side an added or removed option lacks.
  auto rank = [](int r) { return r > 0 ? absl::StrCat("#", r) : std::string("-"); };
  for (const v1::WatchOptionChange& c : u.changes()) {
    std::cout << "  " << EnumLabel(v1::WatchChangeKind_Name(c.kind()), "WATCH_CHANGE_KIND_") << " " << c.option()
              << ": " << rank(c.rank_before()) << " -> " << rank(c.rank_after()) << ", $/h "
              << (c.rank_before() > 0 ? Usd(c.cost_usd_per_hour_before()) : "-") << " -> "
              << (c.rank_after() > 0 ? Usd(c.cost_usd_per_hour_after()) : "-");
    if (c.rank_before() > 0 && c.rank_after() > 0) {
      std::cout << absl::StrFormat(" (cost %+.1f%%)", c.cost_change_fraction() * 100);
    }
    std::cout << "\n";
  }
  if (u.reason() == v1::WATCH_REASON_NO_LONGER_FEASIBLE) {
    std::cout << "  no option fits: " << u.plan_status_message() << "\n";
  } else {
    PrintOptionTable(u.plan(), serving);
  }
  std::cout << std::endl;  // flushed: a reader of a pipe sees each update as it comes
}

// `capplan plan ... --watch`: prints each update until interrupted (or --watch_updates),
// reconnecting when the server restarts.
int RunWatch(const PlanFlags& p, const v1::PlanRequest& r, bool serving, GlobalOptions* global) {
  v1::WatchPlanRequest w = p.watch_request;
  *w.mutable_plan() = r;
  client::Client client(global->client);
  int64_t seen = 0;
  client::WatchOptions options;
  options.on_reconnect = [](const absl::Status& why, std::chrono::milliseconds backoff) {
    std::cerr << "capplan: the watch ended (" << why << "); reconnecting in " << backoff.count() << " ms\n";
  };
  absl::Status s = client.WatchPlan(
      w,
      [&](const v1::WatchPlanResponse& u) {
        if (global->json) {
          PrintJson(u);
          std::cout.flush();
        } else {
          PrintWatchUpdate(u, serving);
        }
        return p.watch_updates == 0 || ++seen < p.watch_updates;
      },
      nullptr, options);
  return s.ok() ? 0 : Fail(s);
}

}  // namespace

int RunPlan(const std::vector<std::string>& args, GlobalOptions* global) {
  const std::string kind = args.empty() ? "" : args[0];
  FlagSet flags;
  WorkloadFlags workload;
  if (!AddWorkloadFlags(kind, &flags, &workload)) {
    return SubcommandUsage("plan", {"training", "serving"}, args);
  }
  const bool serving = workload.serving;
  PlanFlags p;
  AddPlanFlags(&flags, &p);
  AddPlanOutputFlags(&flags, &p);
  const CommandInfo& info = serving ? kServing : kTraining;
  const int rc = ParseCommandFlags(info, {args.begin() + 1, args.end()}, &flags, global);
  if (rc >= 0) return rc;
  v1::PlanRequest r = p.request;
  absl::Status s = BuildWorkload(workload, &r);
  if (s.ok()) s = FinishRequest(p, &r);
  if (!s.ok()) return UsageError(info.path, std::string(s.message()));
  if (p.watch) return RunWatch(p, r, serving, global);
  client::Client client(global->client);
  absl::StatusOr<v1::PlanResponse> resp = client.Plan(r);
  if (!resp.ok()) return Fail(resp.status());
  if (global->json) {
    PrintJson(*resp);
    return 0;
  }
  PrintOptionTable(*resp, serving);
  // The basic view asks for the options only: print only those, whatever the
  // server sent.
  const bool basic = r.view() == v1::VIEW_BASIC;
  std::vector<const v1::PlanOption*> options;
  for (const v1::PlanOption& o : resp->options()) options.push_back(&o);
  PrintPriceNotes(options);
  if (p.explain) {
    PrintExplanations(options, basic ? google::protobuf::RepeatedPtrField<std::string>() : resp->formulas());
  }
  if (!basic) PrintFrontier(*resp, serving);
  if (!basic) PrintRejected(*resp, r.max_rejected() > 0 ? r.max_rejected() : 8);
  std::cout << "catalog version " << resp->catalog_version() << "\n";
  return 0;
}

}  // namespace capplan::cli
