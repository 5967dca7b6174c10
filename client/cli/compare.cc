// capplan compare training|serving: one workload on targets the caller names,
// side by side, optionally with a pinned parallel layout per target.
#include <cstdint>
#include <functional>
#include <iostream>
#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "client/cli/commands.h"
#include "client/cli/fabric_spec.h"
#include "client/cli/workload.h"

namespace capplan::cli {
namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

constexpr char kTargetHelp[] =
    "targets, comma-separated or repeated: gpu:NAME:COUNT or instance:TYPE[:REGION[:COUNT]], each optionally "
    "followed by /key=value segments: a pinned layout "
    "/tp=N/pp=N/dp=N/vpp=N/cp=N/ep=N/zero=N/micro_batch=N/batch=N/recompute=none|selective|full/sp=true "
    "(tensor, pipeline, data, virtual pipeline stages, context and expert parallel; unset: searched), and a fabric "
    "override of the offer's network /fabric=NAME/network_gbit_per_s_per_gpu=G/...";

const CommandInfo kTraining = {
    "compare training", "one training workload on the targets you name, side by side",
    "(--model=NAME | --model_file=PATH | --hf_config=PATH) --tokens=N --targets=SPEC[,SPEC...] "
    "[flags]",
    "  capplan compare training --model=Llama-2-13B --tokens=1e9 --method=lora "
    "\\\n"
    "    "
    "--targets=gpu:A100-SXM4-80GB:4,gpu:RTX-3090:8/tp=2/dp=4,gpu:RTX-A6000:2\n"
    "  capplan compare training --model=Llama-2-70B --tokens=2e10 \\\n"
    "    --targets=instance:p5.48xlarge:us-east-1:4/tp=8/pp=4/vpp=2,"
    "instance:p5.48xlarge:us-east-1:4/tp=8/pp=4/vpp=2/network_gbit_per_s_per_gpu=100"};
const CommandInfo kServing = {
    "compare serving", "one serving workload on the targets you name, side by side",
    "(--model=NAME | --model_file=PATH | --hf_config=PATH) --prompt_tokens=N --output_tokens=N "
    "--targets=SPEC[,SPEC...] [flags]",
    "  capplan compare serving --model=Llama-2-7B --prompt_tokens=512 "
    "--output_tokens=128 \\\n"
    "    "
    "--targets=instance:g5.xlarge:us-east-1,instance:p4d.24xlarge:us-east-1"};

// The pinned-layout keys after "/": key=value -> a Parallelism field.
absl::Status SetPinned(const std::string& key, const std::string& value, v1::Parallelism* p) {
  if (key == "recompute") {
    v1::Recompute r;
    if (!v1::Recompute_Parse("RECOMPUTE_" + absl::AsciiStrToUpper(value), &r) || r == v1::RECOMPUTE_UNSPECIFIED) {
      return absl::InvalidArgumentError("recompute: want none, selective or full");
    }
    p->set_recompute(r);
    return absl::OkStatus();
  }
  if (key == "sp") {
    if (value != "true" && value != "false") return absl::InvalidArgumentError("sp: true|false");
    p->set_sequence_parallel(value == "true");
    return absl::OkStatus();
  }
  static const std::pair<const char*, std::function<void(v1::Parallelism*, int64_t)>> kInts[] = {
      {"tp", [](v1::Parallelism* q, int64_t n) { q->set_tensor_parallel(static_cast<int32_t>(n)); }},
      {"pp", [](v1::Parallelism* q, int64_t n) { q->set_pipeline_parallel(static_cast<int32_t>(n)); }},
      {"dp", [](v1::Parallelism* q, int64_t n) { q->set_data_parallel(static_cast<int32_t>(n)); }},
      {"vpp", [](v1::Parallelism* q, int64_t n) { q->set_virtual_pipeline_stages(static_cast<int32_t>(n)); }},
      {"cp", [](v1::Parallelism* q, int64_t n) { q->set_context_parallel(static_cast<int32_t>(n)); }},
      {"ep", [](v1::Parallelism* q, int64_t n) { q->set_expert_parallel(static_cast<int32_t>(n)); }},
      {"zero", [](v1::Parallelism* q, int64_t n) { q->set_zero_stage(static_cast<int32_t>(n)); }},
      {"micro_batch", [](v1::Parallelism* q, int64_t n) { q->set_micro_batch_sequences(n); }},
      {"batch", [](v1::Parallelism* q, int64_t n) { q->set_serving_batch_sequences(n); }}};
  for (const auto& [name, set] : kInts) {
    if (key != name) continue;
    int64_t n = 0;
    if (!absl::SimpleAtoi(value, &n) || n < 0 || n > kInt32Max) {
      return absl::InvalidArgumentError(absl::StrCat(key, ": want a whole number >= 0"));
    }
    set(p, n);
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown layout key \"", key, "\""));
}

absl::Status ParseTarget(const std::string& spec, v1::CompareTarget* t) {
  std::vector<std::string> parts = absl::StrSplit(spec, '/');
  std::vector<std::string> f = absl::StrSplit(parts[0], ':');
  int64_t count = 0;
  const bool count_ok = f.size() >= 3 && absl::SimpleAtoi(f.back(), &count) && count >= 1 && count <= kInt32Max;
  if (f[0] == "gpu" && f.size() == 3 && count_ok) {
    t->set_gpu_name(f[1]);
  } else if (f[0] == "instance" && (f.size() == 2 || f.size() == 3 || (f.size() == 4 && count_ok))) {
    t->set_instance_type(f[1]);
    if (f.size() >= 3) t->set_region(f[2]);
    if (f.size() < 4) count = 0;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("cannot read target \"", spec, "\"; ", kTargetHelp));
  }
  t->set_count(static_cast<int32_t>(count));
  for (size_t i = 1; i < parts.size(); ++i) {
    std::pair<std::string, std::string> kv = absl::StrSplit(parts[i], absl::MaxSplits('=', 1));
    absl::Status s = IsFabricKey(kv.first) ? SetFabricKey(kv.first, kv.second, t->mutable_fabric())
                                           : SetPinned(kv.first, kv.second, t->mutable_pinned_parallelism());
    if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat("target \"", spec, "\": ", s.message()));
  }
  return absl::OkStatus();
}

std::string TargetName(const v1::CompareTarget& t) {
  return t.instance_type().empty() ? absl::StrCat(t.count(), " x ", t.gpu_name())
                                   : absl::StrCat(t.instance_type(), " ", t.region());
}

std::string Ratio(double r) { return r > 0 ? absl::StrFormat("%.2f", r) : "-"; }

void PrintRows(const v1::CompareResponse& resp, bool serving) {
  Table t(serving ? std::vector<std::string>{"target", "layout", "req/s", "TPOT ms", "$/h", "speed x", "cost x", "note"}
                  : std::vector<std::string>{"target", "layout", "e2e days", "steady days", "cost", "MFU", "batch",
                                             "fabric", "speed x", "cost x", "bound", "note"});
  for (const v1::CompareRow& row : resp.rows()) {
    const std::string name = TargetName(row.target());
    const v1::PlanOption& o = row.option();
    if (!row.infeasible_reason().empty()) {
      std::vector<std::string> cells(serving ? 8 : 12, "-");
      cells.front() = name;
      cells.back() = row.infeasible_reason();
      t.Add(std::move(cells));
    } else if (serving) {
      t.Add({name, ServingLayoutWithNodes(o), absl::StrFormat("%.1f", o.requests_per_second().point()),
             absl::StrFormat("%.1f", o.tpot_seconds().point() * 1000),
             o.cost_usd_per_hour() > 0 ? Usd(o.cost_usd_per_hour()) : "-",
             absl::StrFormat("%.2f", row.speed_ratio_vs_first()), Ratio(row.cost_ratio_vs_first()), ""});
    } else {
      t.Add({name, Layout(o.parallelism(), false), Days(o.duration_seconds().point()),
             Days(o.steady_state_duration_seconds().point()),
             o.cost_usd_per_hour() > 0 ? Usd(o.total_cost_usd().point()) : "-", Mfu(o), BatchTokens(o), FabricLabel(o),
             absl::StrFormat("%.2f", row.speed_ratio_vs_first()), Ratio(row.cost_ratio_vs_first()),
             BottleneckLabel(o.bottleneck()), ""});
    }
  }
  t.Print();
}

}  // namespace

int RunCompare(const std::vector<std::string>& args, GlobalOptions* global) {
  const std::string kind = args.empty() ? "" : args[0];
  FlagSet flags;
  WorkloadFlags workload;
  if (!AddWorkloadFlags(kind, &flags, &workload)) {
    return SubcommandUsage("compare", {"training", "serving"}, args);
  }
  const bool serving = workload.serving;
  std::vector<std::string> targets;
  v1::CompareRequest r;
  bool explain = false;
  flags.Repeated("targets", "SPEC[,SPEC...]", absl::StrCat(kTargetHelp, "; fabric keys: ", kFabricKeysHelp), &targets);
  IsoTimeFlag(&flags, "prices_as_of", "read prices as they were at this UTC date or time",
              [&r](int64_t t) { r.set_prices_as_of_unix_seconds(t); });
  v1::PriceKind price_kind = v1::PRICE_KIND_UNSPECIFIED;
  flags.Custom("kind", "on_demand|spot|reserved_1y|reserved_3y", "price instance targets at this kind", "on_demand",
               [&price_kind](const std::string& v) {
                 absl::StatusOr<v1::PriceKind> k = ParsePriceKind(v);
                 if (!k.ok()) return k.status();
                 price_kind = *k;
                 return absl::OkStatus();
               });
  ViewFlag(&flags, [&r](v1::View v) { r.set_view(v); });
  flags.Bool("explain", "print each row's explanation and provenance, then the formulas", &explain);
  const CommandInfo& info = serving ? kServing : kTraining;
  const int rc = ParseCommandFlags(info, {args.begin() + 1, args.end()}, &flags, global);
  if (rc >= 0) return rc;
  absl::Status s = BuildWorkload(workload, &r);
  for (const std::string& list : targets) {
    for (const std::string& spec : SplitList(list)) {
      if (s.ok()) s = ParseTarget(spec, r.add_targets());
    }
  }
  if (s.ok() && r.targets_size() == 0) s = absl::InvalidArgumentError("--targets is required");
  for (v1::CompareTarget& t : *r.mutable_targets()) {
    if (!t.instance_type().empty()) t.set_price_kind(price_kind);
  }
  if (!s.ok()) return UsageError(info.path, std::string(s.message()));
  client::Client client(global->client);
  absl::StatusOr<v1::CompareResponse> resp = client.Compare(r);
  if (!resp.ok()) return Fail(resp.status());
  if (global->json) {
    PrintJson(*resp);
    return 0;
  }
  PrintRows(*resp, serving);
  std::vector<const v1::PlanOption*> options;
  for (const v1::CompareRow& row : resp->rows()) {
    if (row.infeasible_reason().empty()) options.push_back(&row.option());
  }
  PrintPriceNotes(options);
  if (explain) {
    PrintExplanations(
        options, r.view() == v1::VIEW_BASIC ? google::protobuf::RepeatedPtrField<std::string>() : resp->formulas());
  }
  return 0;
}

}  // namespace capplan::cli
