// capplan: the command-line client. Readable tables by default, --json (protobuf's JSON
// mapping) for scripts. Exit 0 on success, 1 with the status on stderr on an RPC error,
// 2 on a usage error.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <google/protobuf/util/json_util.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "client/client.h"

// Connection.
ABSL_FLAG(std::string, server, "127.0.0.1:50051", "capplan-server address, host:port");
ABSL_FLAG(absl::Duration, timeout, absl::Seconds(5), "deadline for each call");
ABSL_FLAG(bool, json, false, "print responses as JSON (protobuf JSON mapping)");
ABSL_FLAG(bool, explain, false, "print each option's explanation and provenance");
ABSL_FLAG(std::string, tls_ca_file, "", "PEM CA of the server's certificate; enables TLS");
ABSL_FLAG(std::string, tls_cert_file, "", "PEM client certificate (mTLS)");
ABSL_FLAG(std::string, tls_key_file, "", "PEM client key (mTLS)");
// Workloads.
ABSL_FLAG(std::string, model, "", "catalog model name, e.g. Llama-2-7B");
ABSL_FLAG(double, tokens, 0, "training tokens");
ABSL_FLAG(int64_t, seq, 0, "training sequence length (0: 4096)");
ABSL_FLAG(std::string, precision, "", "fp32|bf16|fp16|fp8 (training), fp16|bf16|fp8|int8|int4 (serving weights)");
ABSL_FLAG(std::string, kv_precision, "", "serving KV cache: fp16|bf16|fp8|int8");
ABSL_FLAG(std::string, method, "full", "full|lora|qlora");
ABSL_FLAG(int64_t, prompt_tokens, 0, "serving prompt length");
ABSL_FLAG(int64_t, output_tokens, 0, "serving output length");
ABSL_FLAG(double, rps, 0, "serving offered load, requests per second");
ABSL_FLAG(double, ttft_ms, 0, "time-to-first-token SLO, milliseconds (0: none)");
ABSL_FLAG(double, tpot_ms, 0, "time-per-output-token SLO, milliseconds (0: none)");
// Plan.
ABSL_FLAG(std::string, objective, "cheapest", "cheapest|fastest|deadline|budget");
ABSL_FLAG(double, deadline_hours, 0, "with --objective=deadline");
ABSL_FLAG(double, budget_usd, 0, "with --objective=budget (serving: per month)");
ABSL_FLAG(int, max_gpus, 0, "largest fleet to consider (0: 64)");
ABSL_FLAG(std::string, providers, "", "comma-separated providers to allow");
ABSL_FLAG(std::string, regions, "", "comma-separated regions to allow");
ABSL_FLAG(std::string, gpus, "", "comma-separated GPU types to allow");
ABSL_FLAG(std::string, exclude_gpus, "", "comma-separated GPU types to exclude");
ABSL_FLAG(bool, spot, false, "consider spot prices");
ABSL_FLAG(int, top_k, 0, "options to return (0: 5)");
ABSL_FLAG(int64_t, as_of, 0, "prices as of this Unix time (0: now)");
// Compare.
ABSL_FLAG(std::string, targets, "",
          "comma-separated gpu:NAME:COUNT or instance:TYPE[:REGION[:COUNT]]");
// Tco.
ABSL_FLAG(std::string, gpu, "", "GPU type (tco; catalog filters)");
ABSL_FLAG(int, count, 0, "GPUs in the fleet (tco)");
ABSL_FLAG(int, months, 36, "TCO horizon in months");
ABSL_FLAG(double, usage_hours, 0, "GPU-hours used per month (0: all)");
ABSL_FLAG(double, capex_usd, 0, "purchase cost of the fleet (0: catalog list price)");
ABSL_FLAG(double, ops_usd_per_month, 0, "colocation, staff and other running costs");
ABSL_FLAG(double, power_watts, -1, "fleet power draw (-1: TDP x count)");
ABSL_FLAG(double, electricity_usd_per_kwh, -1, "tariff (-1: 0.13)");
ABSL_FLAG(double, rent_usd_per_month, 0, "flat monthly rent to compare against");
ABSL_FLAG(std::string, rent_instance, "", "instance type to rent instead (catalog price)");
// Catalog reads and admin writes.
ABSL_FLAG(std::string, provider, "", "cloud provider");
ABSL_FLAG(std::string, region, "", "region");
ABSL_FLAG(std::string, instance_type, "", "instance type");
ABSL_FLAG(std::string, kind, "on_demand", "price kind: on_demand|spot|reserved_1y|reserved_3y");
ABSL_FLAG(double, usd_per_hour, -1, "price in USD per instance-hour");
ABSL_FLAG(std::string, citation, "", "source of the figure");
ABSL_FLAG(std::string, as_of_date, "", "YYYY-MM-DD the figure was read");
ABSL_FLAG(std::string, file, "", "CSV file to import");

namespace v1 = capplan::v1;

namespace {

constexpr char kUsage[] = R"(capplan: GPU capacity planning for LLMs

Usage: capplan [--server=HOST:PORT] [--timeout=5s] [--json] COMMAND [flags]

Commands and examples:
  health
      capplan health
  catalog version | gpus | models | instances | prices | benchmarks
      capplan catalog instances --provider=aws --gpu=H100-SXM5-80GB
      capplan catalog prices --provider=aws --instance_type=p5.48xlarge --region=us-east-1
  plan training
      capplan plan training --model=Llama-2-7B --tokens=2e9 --method=lora
      capplan plan training --model=Llama-2-70B --tokens=2e12 --objective=deadline --deadline_hours=720 --max_gpus=1024
  plan serving
      capplan plan serving --model=Llama-2-7B --prompt_tokens=512 --output_tokens=128 --rps=35 --tpot_ms=50
  compare training | serving
      capplan compare training --model=Llama-2-13B --tokens=1e9 --method=lora \
        --targets=gpu:A100-SXM4-80GB:4,gpu:RTX-3090:8,gpu:RTX-A6000:2
      capplan compare serving --model=Llama-2-7B --prompt_tokens=512 --output_tokens=128 \
        --targets=instance:g5.xlarge:us-east-1,instance:p4d.24xlarge:us-east-1
  tco
      capplan tco --gpu=A100-SXM4-80GB --count=8 --months=36 --capex_usd=250000 \
        --ops_usd_per_month=5000 --power_watts=0 --rent_usd_per_month=15000
  admin set-price            (token from CAPPLAN_ADMIN_TOKEN or CAPPLAN_ADMIN_TOKEN_FILE)
      capplan admin set-price --provider=aws --instance_type=p5.48xlarge --region=us-east-1 \
        --usd_per_hour=55.04 --citation="AWS price change 2025-06" --as_of_date=2025-06-05
  admin import-csv           (SkyPilot catalog columns)
      capplan admin import-csv --provider=aws --file=vms.csv --citation="SkyPilot catalog" --as_of_date=2025-11-01
)";

int Usage(const std::string& why) {
  std::cerr << "capplan: " << why << "\n\n" << kUsage;
  return 2;
}

int Fail(const absl::Status& s) {
  std::cerr << "capplan: " << absl::StatusCodeToString(s.code()) << ": " << s.message() << "\n";
  return 1;
}

void PrintJson(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::util::JsonPrintOptions opts;
  opts.add_whitespace = true;
  opts.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(m, &out, opts);
  std::cout << out;
}

// Column-aligned text table.
class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void Add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void Print() const {
    std::vector<size_t> w(rows_[0].size(), 0);
    for (const auto& r : rows_) {
      for (size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], r[i].size());
    }
    for (const auto& r : rows_) {
      std::string line;
      for (size_t i = 0; i < r.size(); ++i) {
        absl::StrAppend(&line, r[i], i + 1 < r.size() ? std::string(w[i] - r[i].size() + 2, ' ') : "");
      }
      std::cout << line << "\n";
    }
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

std::string Gb(double bytes) { return absl::StrFormat("%.1f", bytes / 1e9); }
std::string Usd(double v) { return v >= 100 ? absl::StrFormat("$%.0f", v) : absl::StrFormat("$%.2f", v); }

std::vector<std::string> List(const std::string& csv) {
  std::vector<std::string> out;
  for (absl::string_view p : absl::StrSplit(csv, ',', absl::SkipEmpty())) out.emplace_back(p);
  return out;
}

bool ParsePrecision(const std::string& s, v1::Precision* out) {
  static const std::pair<const char*, v1::Precision> kMap[] = {
      {"fp32", v1::PRECISION_FP32}, {"tf32", v1::PRECISION_TF32}, {"fp16", v1::PRECISION_FP16},
      {"bf16", v1::PRECISION_BF16}, {"fp8", v1::PRECISION_FP8},   {"int8", v1::PRECISION_INT8},
      {"int4", v1::PRECISION_INT4}};
  if (s.empty()) {
    *out = v1::PRECISION_UNSPECIFIED;
    return true;
  }
  for (const auto& [name, p] : kMap) {
    if (s == name) {
      *out = p;
      return true;
    }
  }
  return false;
}

absl::Status TrainingFromFlags(v1::TrainingWorkload* w) {
  if (absl::GetFlag(FLAGS_model).empty()) return absl::InvalidArgumentError("--model is required");
  w->set_model_name(absl::GetFlag(FLAGS_model));
  w->set_tokens(absl::GetFlag(FLAGS_tokens));
  w->set_sequence_tokens(absl::GetFlag(FLAGS_seq));
  v1::Precision p;
  if (!ParsePrecision(absl::GetFlag(FLAGS_precision), &p)) return absl::InvalidArgumentError("--precision: unknown");
  w->set_precision(p);
  const std::string m = absl::GetFlag(FLAGS_method);
  if (m == "full") w->set_method(v1::TRAINING_METHOD_FULL);
  else if (m == "lora") w->set_method(v1::TRAINING_METHOD_LORA);
  else if (m == "qlora") w->set_method(v1::TRAINING_METHOD_QLORA);
  else return absl::InvalidArgumentError("--method: full, lora or qlora");
  return absl::OkStatus();
}

absl::Status ServingFromFlags(v1::ServingWorkload* w) {
  if (absl::GetFlag(FLAGS_model).empty()) return absl::InvalidArgumentError("--model is required");
  w->set_model_name(absl::GetFlag(FLAGS_model));
  v1::Precision p;
  if (!ParsePrecision(absl::GetFlag(FLAGS_precision), &p)) return absl::InvalidArgumentError("--precision: unknown");
  w->set_weight_precision(p);
  if (!ParsePrecision(absl::GetFlag(FLAGS_kv_precision), &p)) return absl::InvalidArgumentError("--kv_precision: unknown");
  w->set_kv_cache_precision(p);
  w->set_prompt_tokens(absl::GetFlag(FLAGS_prompt_tokens));
  w->set_output_tokens(absl::GetFlag(FLAGS_output_tokens));
  w->set_requests_per_second(absl::GetFlag(FLAGS_rps));
  w->set_ttft_slo_seconds(absl::GetFlag(FLAGS_ttft_ms) / 1000);
  w->set_tpot_slo_seconds(absl::GetFlag(FLAGS_tpot_ms) / 1000);
  return absl::OkStatus();
}

std::string Where(const v1::PlanOption& o) {
  if (!o.owned_pool().empty()) return absl::StrCat("pool ", o.owned_pool());
  if (o.instance_type().empty()) return absl::StrCat(o.gpu_count(), " x ", o.gpu_name());
  return absl::StrCat(o.provider(), " ", o.instance_type(), " x", o.instance_count(), " ", o.region());
}

std::string Layout(const v1::Parallelism& p, bool serving) {
  if (serving) return absl::StrFormat("tp=%d x%d batch=%d", p.tensor_parallel(), p.data_parallel(), p.serving_batch_sequences());
  return absl::StrFormat("tp=%d pp=%d dp=%d z%d", p.tensor_parallel(), p.pipeline_parallel(), p.data_parallel(),
                         p.zero_stage());
}

std::string Bottleneck(v1::Bottleneck b) {
  std::string s = v1::Bottleneck_Name(b).substr(sizeof("BOTTLENECK_") - 1);
  for (char& c : s) c = static_cast<char>(std::tolower(c));
  return s;
}

void PrintOptions(const google::protobuf::RepeatedPtrField<v1::PlanOption>& options, bool serving) {
  Table t = serving ? Table({"#", "where", "GPUs", "layout", "req/s", "TTFT s", "TPOT ms", "$/h", "$/1M req", "bound"})
                    : Table({"#", "where", "GPUs", "layout", "days (low-high)", "cost (low-high)", "$/h", "mem GB/GPU", "bound"});
  for (const v1::PlanOption& o : options) {
    if (serving) {
      t.Add({absl::StrCat(o.rank()), Where(o), absl::StrCat(o.gpu_count(), "x", o.gpu_name()),
             Layout(o.parallelism(), true), absl::StrFormat("%.1f", o.requests_per_second().point()),
             absl::StrFormat("%.3f", o.ttft_seconds().point()), absl::StrFormat("%.1f", o.tpot_seconds().point() * 1000),
             Usd(o.cost_usd_per_hour()), Usd(o.usd_per_million_requests()), Bottleneck(o.bottleneck())});
    } else {
      const v1::Range& d = o.duration_seconds();
      const v1::Range& c = o.total_cost_usd();
      t.Add({absl::StrCat(o.rank()), Where(o), absl::StrCat(o.gpu_count(), "x", o.gpu_name()),
             Layout(o.parallelism(), false),
             absl::StrFormat("%.2f (%.2f-%.2f)", d.point() / 86400, d.low() / 86400, d.high() / 86400),
             absl::StrCat(Usd(c.point()), " (", Usd(c.low()), "-", Usd(c.high()), ")"), Usd(o.cost_usd_per_hour()),
             absl::StrFormat("%s/%s", Gb(o.memory_per_gpu().total_bytes()), Gb(o.memory_per_gpu().capacity_bytes())),
             Bottleneck(o.bottleneck())});
    }
  }
  t.Print();
  if (absl::GetFlag(FLAGS_explain)) {
    for (const v1::PlanOption& o : options) {
      std::cout << "\n#" << o.rank() << " " << o.explanation() << "\n  efficiency: "
                << o.provenance().efficiency_source() << "\n";
      for (const v1::Price& p : o.provenance().prices()) {
        std::cout << "  price: " << p.provider() << " " << p.instance_type() << " " << p.region() << " $"
                  << p.price_usd_per_hour() << "/h, " << p.source().citation() << " (" << p.source().as_of_date()
                  << ")\n";
      }
    }
  }
}

int RunPlan(capplan::client::Client& c, const std::string& kind) {
  v1::PlanRequest r;
  absl::Status s = kind == "training" ? TrainingFromFlags(r.mutable_training())
                   : kind == "serving" ? ServingFromFlags(r.mutable_serving())
                                       : absl::InvalidArgumentError("plan training|serving");
  if (!s.ok()) return Usage(std::string(s.message()));
  const std::string obj = absl::GetFlag(FLAGS_objective);
  if (obj == "cheapest") r.set_objective(v1::OBJECTIVE_CHEAPEST);
  else if (obj == "fastest") r.set_objective(v1::OBJECTIVE_FASTEST);
  else if (obj == "deadline") r.set_objective(v1::OBJECTIVE_CHEAPEST_WITHIN_DEADLINE);
  else if (obj == "budget") r.set_objective(v1::OBJECTIVE_FASTEST_WITHIN_BUDGET);
  else return Usage("--objective: cheapest, fastest, deadline or budget");
  r.set_deadline_seconds(absl::GetFlag(FLAGS_deadline_hours) * 3600);
  r.set_budget_usd(absl::GetFlag(FLAGS_budget_usd));
  r.set_top_k(absl::GetFlag(FLAGS_top_k));
  r.set_prices_as_of_unix_seconds(absl::GetFlag(FLAGS_as_of));
  v1::Constraints* k = r.mutable_constraints();
  k->set_max_gpus(absl::GetFlag(FLAGS_max_gpus));
  k->set_spot_allowed(absl::GetFlag(FLAGS_spot));
  for (const std::string& p : List(absl::GetFlag(FLAGS_providers))) k->add_providers(p);
  for (const std::string& p : List(absl::GetFlag(FLAGS_regions))) k->add_regions(p);
  for (const std::string& p : List(absl::GetFlag(FLAGS_gpus))) k->add_allowed_gpus(p);
  for (const std::string& p : List(absl::GetFlag(FLAGS_exclude_gpus))) k->add_excluded_gpus(p);
  absl::StatusOr<v1::PlanResponse> resp = c.Plan(r);
  if (!resp.ok()) return Fail(resp.status());
  if (absl::GetFlag(FLAGS_json)) {
    PrintJson(*resp);
    return 0;
  }
  PrintOptions(resp->options(), kind == "serving");
  if (resp->rejected_size() > 0) {
    std::cout << "\nnot chosen (" << resp->rejected_size() << "):\n";
    for (int i = 0; i < resp->rejected_size() && i < 8; ++i) {
      std::cout << "  " << resp->rejected(i).candidate() << ": " << resp->rejected(i).reason() << "\n";
    }
  }
  std::cout << "catalog version " << resp->catalog_version() << "\n";
  return 0;
}

int RunCompare(capplan::client::Client& c, const std::string& kind) {
  v1::CompareRequest r;
  absl::Status s = kind == "training" ? TrainingFromFlags(r.mutable_training())
                   : kind == "serving" ? ServingFromFlags(r.mutable_serving())
                                       : absl::InvalidArgumentError("compare training|serving");
  if (!s.ok()) return Usage(std::string(s.message()));
  for (const std::string& spec : List(absl::GetFlag(FLAGS_targets))) {
    std::vector<std::string> f = absl::StrSplit(spec, ':');
    v1::CompareTarget* t = r.add_targets();
    int count = 0;
    if (f[0] == "gpu" && f.size() == 3 && absl::SimpleAtoi(f[2], &count)) {
      t->set_gpu_name(f[1]);
      t->set_count(count);
    } else if (f[0] == "instance" && f.size() >= 2 && f.size() <= 4) {
      t->set_instance_type(f[1]);
      if (f.size() >= 3) t->set_region(f[2]);
      if (f.size() == 4 && absl::SimpleAtoi(f[3], &count)) t->set_count(count);
    } else {
      return Usage(absl::StrCat("--targets: cannot read \"", spec, "\""));
    }
  }
  r.set_prices_as_of_unix_seconds(absl::GetFlag(FLAGS_as_of));
  absl::StatusOr<v1::CompareResponse> resp = c.Compare(r);
  if (!resp.ok()) return Fail(resp.status());
  if (absl::GetFlag(FLAGS_json)) {
    PrintJson(*resp);
    return 0;
  }
  const bool serving = kind == "serving";
  Table t(serving ? std::vector<std::string>{"target", "layout", "req/s", "TPOT ms", "$/h", "speed x", "cost x", "note"}
                  : std::vector<std::string>{"target", "layout", "days", "cost", "speed x", "cost x", "bound"});
  for (const v1::CompareRow& row : resp->rows()) {
    const v1::CompareTarget& tg = row.target();
    const std::string name = tg.instance_type().empty() ? absl::StrCat(tg.count(), " x ", tg.gpu_name())
                                                        : absl::StrCat(tg.instance_type(), " ", tg.region());
    const v1::PlanOption& o = row.option();
    if (!row.infeasible_reason().empty()) {
      t.Add({name, "-", "-", "-", "-", "-", "-", row.infeasible_reason()});
    } else if (serving) {
      t.Add({name, Layout(o.parallelism(), true), absl::StrFormat("%.1f", o.requests_per_second().point()),
             absl::StrFormat("%.1f", o.tpot_seconds().point() * 1000),
             o.cost_usd_per_hour() > 0 ? Usd(o.cost_usd_per_hour()) : "-",
             absl::StrFormat("%.2f", row.speed_ratio_vs_first()),
             row.cost_ratio_vs_first() > 0 ? absl::StrFormat("%.2f", row.cost_ratio_vs_first()) : "-", ""});
    } else {
      t.Add({name, Layout(o.parallelism(), false), absl::StrFormat("%.2f", o.duration_seconds().point() / 86400),
             o.cost_usd_per_hour() > 0 ? Usd(o.total_cost_usd().point()) : "-",
             absl::StrFormat("%.2f", row.speed_ratio_vs_first()),
             row.cost_ratio_vs_first() > 0 ? absl::StrFormat("%.2f", row.cost_ratio_vs_first()) : "-",
             Bottleneck(o.bottleneck())});
    }
  }
  t.Print();
  return 0;
}

int RunTco(capplan::client::Client& c) {
  v1::TcoRequest r;
  r.set_horizon_months(absl::GetFlag(FLAGS_months));
  r.set_prices_as_of_unix_seconds(absl::GetFlag(FLAGS_as_of));
  v1::TcoFleet* f = r.add_fleets();
  f->set_gpu_name(absl::GetFlag(FLAGS_gpu));
  f->set_gpu_count(absl::GetFlag(FLAGS_count));
  f->set_usage_gpu_hours_per_month(absl::GetFlag(FLAGS_usage_hours));
  f->mutable_own()->set_capex_usd(absl::GetFlag(FLAGS_capex_usd));
  f->mutable_own()->set_ops_usd_per_month(absl::GetFlag(FLAGS_ops_usd_per_month));
  if (absl::GetFlag(FLAGS_power_watts) >= 0) f->mutable_own()->set_power_watts(absl::GetFlag(FLAGS_power_watts));
  if (absl::GetFlag(FLAGS_electricity_usd_per_kwh) >= 0) {
    f->mutable_own()->set_electricity_usd_per_kwh(absl::GetFlag(FLAGS_electricity_usd_per_kwh));
  }
  f->mutable_rent()->set_price_usd_per_month(absl::GetFlag(FLAGS_rent_usd_per_month));
  f->mutable_rent()->set_instance_type(absl::GetFlag(FLAGS_rent_instance));
  f->mutable_rent()->set_region(absl::GetFlag(FLAGS_region));
  if (absl::GetFlag(FLAGS_rps) > 0) {
    absl::Status s = ServingFromFlags(r.mutable_serving());
    if (!s.ok()) return Usage(std::string(s.message()));
  }
  absl::StatusOr<v1::TcoResponse> resp = c.Tco(r);
  if (!resp.ok()) return Fail(resp.status());
  if (absl::GetFlag(FLAGS_json)) {
    PrintJson(*resp);
    return 0;
  }
  const v1::TcoFleetResult& fr = resp->fleets(0);
  std::cout << absl::StrFormat(
      "own:  %s up front, %s/month amortised (power %s/month)\nrent: %s/month (%s per GPU-hour)\n",
      Usd(fr.own_capex_usd()), Usd(fr.own_usd_per_month()), Usd(fr.own_power_usd_per_month()),
      Usd(fr.rent_usd_per_month()), Usd(fr.rent_usd_per_gpu_hour()));
  std::cout << absl::StrFormat("break-even: month %d (cash); owning wins above %.0f GPU-hours/month\n",
                               resp->break_even_month(), resp->break_even_gpu_hours_per_month());
  std::cout << absl::StrFormat("per used GPU-hour: own %s, rent %s\n", Usd(resp->own_usd_per_used_gpu_hour()),
                               Usd(resp->rent_usd_per_used_gpu_hour()));
  if (resp->own_usd_per_million_requests() > 0) {
    std::cout << absl::StrFormat("per 1M requests: own %s, rent %s\n", Usd(resp->own_usd_per_million_requests()),
                                 Usd(resp->rent_usd_per_million_requests()));
  }
  Table t({"month", "own", "rent", "own cumulative", "rent cumulative"});
  for (const v1::TcoPoint& p : resp->series()) {
    if (p.month() != 1 && p.month() % 6 != 0 && p.month() != resp->break_even_month()) continue;
    t.Add({absl::StrCat(p.month()), Usd(p.own_usd()), Usd(p.rent_usd()), Usd(p.own_cumulative_usd()),
           Usd(p.rent_cumulative_usd())});
  }
  t.Print();
  return 0;
}

int RunCatalog(capplan::client::Client& c, const std::string& what) {
  const bool json = absl::GetFlag(FLAGS_json);
  if (what == "version") {
    auto r = c.GetCatalogVersion();
    if (!r.ok()) return Fail(r.status());
    if (json) PrintJson(*r);
    else std::cout << "catalog version " << r->catalog_version() << " (schema " << r->schema_version() << ", loaded "
                   << absl::FormatTime(absl::FromUnixSeconds(r->loaded_unix_seconds()), absl::UTCTimeZone()) << ")\n";
    return 0;
  }
  if (what == "gpus") {
    auto r = c.ListGpus();
    if (!r.ok()) return Fail(r.status());
    if (json) return PrintJson(*r), 0;
    Table t({"gpu", "memory GB", "GB/s", "bf16 TFLOPS", "TDP W", "link GB/s", "datacenter", "source"});
    for (const v1::Gpu& g : r->gpus()) {
      double bf16 = 0;
      for (const auto& th : g.throughput()) if (th.precision() == v1::PRECISION_BF16) bf16 = th.dense_tflops();
      t.Add({g.name(), Gb(static_cast<double>(g.memory_bytes())), absl::StrFormat("%.0f", g.memory_bandwidth_bytes_per_second() / 1e9),
             absl::StrFormat("%.1f", bf16), absl::StrFormat("%.0f", g.tdp_watts()),
             absl::StrFormat("%.0f", g.interconnect_bandwidth_bytes_per_second() / 1e9), g.datacenter() ? "yes" : "no",
             g.source().citation()});
    }
    t.Print();
    return 0;
  }
  if (what == "models") {
    auto r = c.ListModels();
    if (!r.ok()) return Fail(r.status());
    if (json) return PrintJson(*r), 0;
    Table t({"model", "layers", "hidden", "heads", "kv heads", "experts", "context"});
    for (const v1::ModelArchitecture& m : r->models()) {
      t.Add({m.name(), absl::StrCat(m.num_layers()), absl::StrCat(m.hidden_size()), absl::StrCat(m.num_attention_heads()),
             absl::StrCat(m.num_kv_heads()), absl::StrCat(m.num_experts()), absl::StrCat(m.max_context_tokens())});
    }
    t.Print();
    return 0;
  }
  if (what == "instances") {
    v1::ListInstancesRequest req;
    req.set_provider(absl::GetFlag(FLAGS_provider));
    req.set_region(absl::GetFlag(FLAGS_region));
    req.set_gpu_name(absl::GetFlag(FLAGS_gpu));
    req.set_prices_as_of_unix_seconds(absl::GetFlag(FLAGS_as_of));
    auto r = c.ListInstances(req);
    if (!r.ok()) return Fail(r.status());
    if (json) return PrintJson(*r), 0;
    Table t({"provider", "instance", "region", "GPUs", "$/h", "kind", "as of", "source"});
    for (const v1::InstanceOffer& o : r->offers()) {
      for (const v1::Price& p : o.current_prices()) {
        t.Add({o.instance().provider(), o.instance().instance_type(), o.instance().region(),
               absl::StrCat(o.instance().gpu_count(), "x", o.instance().gpu_name()), absl::StrFormat("%.4g", p.price_usd_per_hour()),
               v1::PriceKind_Name(p.kind()).substr(sizeof("PRICE_KIND_") - 1), p.source().as_of_date(), p.source().citation()});
      }
    }
    t.Print();
    return 0;
  }
  if (what == "prices") {
    v1::ListPriceHistoryRequest req;
    req.set_provider(absl::GetFlag(FLAGS_provider));
    req.set_instance_type(absl::GetFlag(FLAGS_instance_type));
    req.set_region(absl::GetFlag(FLAGS_region));
    auto r = c.ListPriceHistory(req);
    if (!r.ok()) return Fail(r.status());
    if (json) return PrintJson(*r), 0;
    Table t({"id", "kind", "$/h", "effective", "source"});
    for (const v1::Price& p : r->prices()) {
      t.Add({absl::StrCat(p.id()), v1::PriceKind_Name(p.kind()).substr(sizeof("PRICE_KIND_") - 1),
             absl::StrFormat("%.4g", p.price_usd_per_hour()),
             absl::FormatTime("%Y-%m-%d", absl::FromUnixSeconds(p.effective_unix_seconds()), absl::UTCTimeZone()),
             absl::StrCat(p.source().citation(), " (", p.source().as_of_date(), ")")});
    }
    t.Print();
    return 0;
  }
  if (what == "benchmarks") {
    v1::ListBenchmarksRequest req;
    req.set_gpu_name(absl::GetFlag(FLAGS_gpu));
    req.set_model_name(absl::GetFlag(FLAGS_model));
    auto r = c.ListBenchmarks(req);
    if (!r.ok()) return Fail(r.status());
    if (json) return PrintJson(*r), 0;
    Table t({"id", "gpu", "model", "workload", "GPUs", "value", "unit", "source"});
    for (const v1::Benchmark& b : r->benchmarks()) {
      t.Add({absl::StrCat(b.id()), b.gpu_name(), b.model_name(), v1::WorkloadKind_Name(b.workload()).substr(14),
             absl::StrCat(b.gpu_count()), absl::StrFormat("%.4g", b.measured_value()), b.measured_unit(),
             b.source().citation()});
    }
    t.Print();
    return 0;
  }
  return Usage("catalog version|gpus|models|instances|prices|benchmarks");
}

int RunAdmin(capplan::client::Client& c, const std::string& what) {
  if (what == "set-price") {
    v1::SetPriceRequest r;
    v1::Price* p = r.mutable_price();
    p->set_provider(absl::GetFlag(FLAGS_provider));
    p->set_instance_type(absl::GetFlag(FLAGS_instance_type));
    p->set_region(absl::GetFlag(FLAGS_region));
    v1::PriceKind kind;
    std::string k = absl::GetFlag(FLAGS_kind);
    for (char& ch : k) ch = static_cast<char>(std::toupper(ch));
    if (!v1::PriceKind_Parse("PRICE_KIND_" + k, &kind)) return Usage("--kind: on_demand, spot, reserved_1y or reserved_3y");
    p->set_kind(kind);
    p->set_price_usd_per_hour(absl::GetFlag(FLAGS_usd_per_hour));
    p->set_effective_unix_seconds(absl::GetFlag(FLAGS_as_of));
    p->mutable_source()->set_citation(absl::GetFlag(FLAGS_citation));
    p->mutable_source()->set_as_of_date(absl::GetFlag(FLAGS_as_of_date));
    auto w = c.SetPrice(r);
    if (!w.ok()) return Fail(w.status());
    if (absl::GetFlag(FLAGS_json)) return PrintJson(*w), 0;
    std::cout << "price row " << w->id() << " recorded; catalog version " << w->catalog_version() << "\n";
    return 0;
  }
  if (what == "import-csv") {
    std::ifstream in(absl::GetFlag(FLAGS_file));
    if (!in) return Usage(absl::StrCat("--file: cannot read ", absl::GetFlag(FLAGS_file)));
    std::stringstream s;
    s << in.rdbuf();
    v1::ImportPricesCsvRequest r;
    r.set_provider(absl::GetFlag(FLAGS_provider));
    r.set_csv(s.str());
    r.mutable_source()->set_citation(absl::GetFlag(FLAGS_citation));
    r.mutable_source()->set_as_of_date(absl::GetFlag(FLAGS_as_of_date));
    r.set_effective_unix_seconds(absl::GetFlag(FLAGS_as_of));
    auto w = c.ImportPricesCsv(r);
    if (!w.ok()) return Fail(w.status());
    if (absl::GetFlag(FLAGS_json)) return PrintJson(*w), 0;
    std::cout << w->rows_imported() << " offers imported; catalog version " << w->catalog_version() << "\n";
    return 0;
  }
  return Usage("admin set-price|import-csv");
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(kUsage);
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  if (args.size() < 2) return Usage("no command");
  capplan::client::ClientOptions options;
  options.server = absl::GetFlag(FLAGS_server);
  options.timeout = absl::ToChronoMilliseconds(absl::GetFlag(FLAGS_timeout));
  options.tls_ca_file = absl::GetFlag(FLAGS_tls_ca_file);
  options.tls_cert_file = absl::GetFlag(FLAGS_tls_cert_file);
  options.tls_key_file = absl::GetFlag(FLAGS_tls_key_file);
  const std::string command = args[1];
  const std::string sub = args.size() >= 3 ? args[2] : "";
  if (command == "admin") {
    absl::StatusOr<std::string> token = capplan::client::AdminTokenFromEnvironment();
    if (!token.ok()) return Fail(token.status());
    options.admin_token = *token;
  }
  capplan::client::Client client(options);
  if (command == "health") {
    absl::StatusOr<std::string> status = client.Health();
    if (!status.ok()) return Fail(status.status());
    std::cout << *status << "\n";
    return *status == "SERVING" ? 0 : 1;
  }
  if (command == "catalog") return RunCatalog(client, sub);
  if (command == "plan") return RunPlan(client, sub);
  if (command == "compare") return RunCompare(client, sub);
  if (command == "tco") return RunTco(client);
  if (command == "admin") return RunAdmin(client, sub);
  return Usage(absl::StrCat("unknown command \"", command, "\""));
}
