// capplan-loadgen: drives a running capplan-server at a fixed concurrency for a fixed time
// with the gRPC callback API and reports QPS and latency percentiles for Plan, Compare, Tco
// and, as the transport floor, the health Check; http_* RPCs drive the same calls through the
// HTTP/JSON gateway. A measuring tool, not a test.
#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "capplan/v1/admin.grpc.pb.h"
#include "capplan/v1/planner.grpc.pb.h"
#include "client/loadgen_http.h"
#include "client/loadgen_watch.h"
#include "grpc/health/v1/health.grpc.pb.h"

ABSL_FLAG(std::string, server, "127.0.0.1:50051", "capplan-server address");
ABSL_FLAG(int, concurrency, 16, "calls in flight at once");
ABSL_FLAG(absl::Duration, duration, absl::Seconds(10), "how long to drive each RPC");
ABSL_FLAG(std::string, rpcs, "health,plan_serving,plan_training,compare,tco",
          "comma-separated: health, plan_serving, plan_training, plan_heavy, compare, compare_heavy, "
          "tco, set_price, upsert_instance; http_plan_serving, http_health over --http_server");
ABSL_FLAG(std::string, http_server, "127.0.0.1:8080",
          "capplan-server HTTP/JSON address for the http_* RPCs (one keep-alive connection per slot)");
ABSL_FLAG(std::string, background_rpc, "",
          "an RPC driven at the same time as each measured one (e.g. plan_heavy), to measure "
          "cheap calls while heavy ones run");
ABSL_FLAG(int, background_concurrency, 8, "calls of --background_rpc in flight at once");
ABSL_FLAG(std::string, view, "full", "Plan view for plan_serving and plan_training: basic or full");
ABSL_FLAG(bool, distinct, false,
          "make every plan_* call a different question (the offered load or "
          "token count moves by a tiny step), so none is answered from the server's memo");
ABSL_FLAG(int, server_pid, 0, "server process id, to report its resident memory (VmRSS)");
ABSL_FLAG(std::string, admin_token_file, "",
          "token file for the set_price and upsert_instance RPCs (admin writes: commit with fsync, "
          "audit, publish)");
ABSL_FLAG(int, watches, 0,
          "WatchPlan streams to hold open during the load (0..100000), to measure what open "
          "watches cost the other calls");
ABSL_FLAG(int, watch_workloads, 1,
          "distinct workloads among the --watches (1..1000; the README's serving request with the load "
          "moved by a tiny step each)");

namespace v1 = capplan::v1;
using Clock = std::chrono::steady_clock;

namespace {

// Sends one call and invokes `done(ok)` when it finishes. A fresh context per call.
using Caller = std::function<void(std::function<void(bool)>)>;

// GPU types of the shipped catalog, for the heavy requests.
constexpr const char* kHeavyGpus[] = {"T4",
                                      "V100-SXM2-32GB",
                                      "A10G",
                                      "L4",
                                      "L40S",
                                      "RTX-3090",
                                      "RTX-4090",
                                      "RTX-A6000",
                                      "RTX-6000-Ada",
                                      "A100-SXM4-40GB",
                                      "A100-SXM4-80GB",
                                      "A100-PCIe-80GB",
                                      "H100-PCIe-80GB",
                                      "H100-SXM5-80GB",
                                      "H200-SXM-141GB",
                                      "MI300X"};

// One asynchronous unary call per invocation: `method(ctx, req, resp, on_done)` on a stub.
template <typename Req, typename Resp, typename Method>
Caller Unary(std::shared_ptr<Req> req, Method method, const std::string& token = "") {
  return [req, method, token](const std::function<void(bool)>& done) {
    auto ctx = std::make_shared<grpc::ClientContext>();
    if (!token.empty()) ctx->AddMetadata("authorization", "Bearer " + token);
    auto resp = std::make_shared<Resp>();
    method(ctx.get(), req.get(), resp.get(), [ctx, req, resp, done](const grpc::Status& s) { done(s.ok()); });
  };
}

std::shared_ptr<v1::SetPriceRequest> SetPriceRequest() {
  auto req = std::make_shared<v1::SetPriceRequest>();
  v1::Price* p = req->mutable_price();
  p->set_provider("aws");
  p->set_instance_type("g5.xlarge");
  p->set_region("us-east-1");
  p->set_kind(v1::PRICE_KIND_SPOT);
  p->set_price_usd_per_hour(0.4);
  p->mutable_source()->set_citation("capplan-loadgen");
  p->mutable_source()->set_as_of_date("2026-11-30");
  return req;
}

// The shipped aws g5.xlarge in us-east-1, rewritten as it is (migrations/0002).
std::shared_ptr<v1::UpsertInstanceTypeRequest> UpsertInstanceRequest() {
  auto req = std::make_shared<v1::UpsertInstanceTypeRequest>();
  v1::InstanceType* i = req->mutable_instance();
  i->set_provider("aws");
  i->set_instance_type("g5.xlarge");
  i->set_region("us-east-1");
  i->set_gpu_name("A10G");
  i->set_gpu_count(1);
  i->set_vcpus(4);
  i->set_memory_bytes(17179869184);
  req->mutable_source()->set_citation("AWS EC2 On-Demand pricing page (Linux)");
  req->mutable_source()->set_as_of_date("2024-06-01");
  return req;
}

// The README's examples: Llama-2-7B served at 35 req/s; a 7B model fine-tuned.
std::shared_ptr<v1::PlanRequest> ReadmePlan(bool serving) {
  auto req = std::make_shared<v1::PlanRequest>();
  if (serving) {
    v1::ServingWorkload* w = req->mutable_serving();
    w->set_model_name("Llama-2-7B");
    w->set_prompt_tokens(512);
    w->set_output_tokens(128);
    w->set_requests_per_second(35);
    w->set_tpot_slo_seconds(0.05);
  } else {
    req->mutable_training()->set_model_name("Llama-2-7B");
    req->mutable_training()->set_tokens(2e9);
    req->mutable_training()->set_method(v1::TRAINING_METHOD_LORA);
  }
  req->set_view(absl::GetFlag(FLAGS_view) == "basic" ? v1::VIEW_BASIC : v1::VIEW_FULL);
  return req;
}

// With --distinct, every call moves the offered load or token count by a tiny step, so no
// two calls ask the same question (none is answered from the server's memo).
Caller PlanCaller(v1::PlannerService::Stub* planner, const std::shared_ptr<v1::PlanRequest>& req) {
  auto counter = std::make_shared<std::atomic<int64_t>>(0);
  const bool distinct = absl::GetFlag(FLAGS_distinct);
  return [planner, req, distinct, counter](const std::function<void(bool)>& done) {
    auto ctx = std::make_shared<grpc::ClientContext>();
    auto resp = std::make_shared<v1::PlanResponse>();
    std::shared_ptr<v1::PlanRequest> call = req;
    if (distinct) {
      call = std::make_shared<v1::PlanRequest>(*req);
      const double step = static_cast<double>(counter->fetch_add(1) % 1000000);
      if (call->has_serving()) {
        call->mutable_serving()->set_requests_per_second(call->serving().requests_per_second() + step * 1e-6);
      } else {
        call->mutable_training()->set_tokens(call->training().tokens() + step);
      }
    }
    planner->async()->Plan(ctx.get(), call.get(), resp.get(),
                           [ctx, call, resp, done](const grpc::Status& s) { done(s.ok()); });
  };
}

// The most work one valid Plan can ask for: a 70B full pre-training run over every offer
// (spot too) up to 65,536 GPUs, 64 owned pools of distinct sizes over 16 GPU types, the
// largest answer (top_k 100).
std::shared_ptr<v1::PlanRequest> HeavyPlan() {
  auto req = std::make_shared<v1::PlanRequest>();
  req->mutable_training()->set_model_name("Llama-2-70B");
  req->mutable_training()->set_tokens(2e12);
  req->set_top_k(100);
  v1::Constraints* c = req->mutable_constraints();
  c->set_max_gpus(65536);
  c->set_spot_allowed(true);
  for (int i = 0; i < 64; ++i) {
    v1::OwnedPool* p = c->add_owned_pools();
    p->set_name(absl::StrCat("pool-", i));
    p->set_gpu_name(kHeavyGpus[i % 16]);
    p->set_gpu_count(65536 - 997 * i);
    p->set_cost_usd_per_gpu_hour(1.0 + 0.01 * i);
  }
  return req;
}

// Compare: a LoRA of a 13B model on three targets (docs/cli.md); or the most work one valid
// Compare can ask for: 32 targets of up to 65,536 GPUs, each searched for its best layout
// of a 70B pre-training run.
std::shared_ptr<v1::CompareRequest> CompareRequest(bool heavy) {
  auto req = std::make_shared<v1::CompareRequest>();
  if (heavy) {
    req->mutable_training()->set_model_name("Llama-2-70B");
    req->mutable_training()->set_tokens(2e12);
    for (int i = 0; i < 32; ++i) {
      v1::CompareTarget* t = req->add_targets();
      t->set_gpu_name(kHeavyGpus[i % 16]);
      t->set_count(i < 16 ? 65536 : 49152);
    }
    return req;
  }
  req->mutable_training()->set_model_name("Llama-2-13B");
  req->mutable_training()->set_tokens(1e9);
  req->mutable_training()->set_method(v1::TRAINING_METHOD_LORA);
  for (auto [gpu, n] : {std::pair{"A100-SXM4-80GB", 4}, std::pair{"RTX-3090", 8}, std::pair{"RTX-A6000", 2}}) {
    v1::CompareTarget* t = req->add_targets();
    t->set_gpu_name(gpu);
    t->set_count(n);
  }
  return req;
}

// The README's own-vs-cloud template.
std::shared_ptr<v1::TcoRequest> TcoRequest() {
  auto req = std::make_shared<v1::TcoRequest>();
  req->set_horizon_months(36);
  v1::TcoFleet* f = req->add_fleets();
  f->set_gpu_name("A100-SXM4-80GB");
  f->set_gpu_count(8);
  f->mutable_own()->set_capex_usd(250000);
  f->mutable_own()->set_ops_usd_per_month(5000);
  f->mutable_rent()->set_price_usd_per_month(15000);
  return req;
}

Caller MakeCaller(const std::string& rpc, v1::PlannerService::Stub* planner, grpc::health::v1::Health::Stub* health,
                  v1::AdminService::Stub* admin, const std::string& token) {
  auto compare = [planner](auto... a) { planner->async()->Compare(a...); };
  if (rpc == "set_price") {
    return Unary<v1::SetPriceRequest, v1::WriteResponse>(
        SetPriceRequest(), [admin](auto... a) { admin->async()->SetPrice(a...); }, token);
  }
  if (rpc == "upsert_instance") {
    return Unary<v1::UpsertInstanceTypeRequest, v1::WriteResponse>(
        UpsertInstanceRequest(), [admin](auto... a) { admin->async()->UpsertInstanceType(a...); }, token);
  }
  if (rpc == "health") {
    return Unary<grpc::health::v1::HealthCheckRequest, grpc::health::v1::HealthCheckResponse>(
        std::make_shared<grpc::health::v1::HealthCheckRequest>(),
        [health](auto... a) { health->async()->Check(a...); });
  }
  if (rpc == "plan_serving" || rpc == "plan_training") return PlanCaller(planner, ReadmePlan(rpc == "plan_serving"));
  if (rpc == "plan_heavy") return PlanCaller(planner, HeavyPlan());
  if (rpc == "compare" || rpc == "compare_heavy") {
    return Unary<v1::CompareRequest, v1::CompareResponse>(CompareRequest(rpc == "compare_heavy"), compare);
  }
  return Unary<v1::TcoRequest, v1::TcoResponse>(TcoRequest(), [planner](auto... a) { planner->async()->Tco(a...); });
}

struct Result {
  int64_t ok = 0, failed = 0;
  double seconds = 0;
  std::vector<double> latencies;
};

// The counts and the sorted latencies of a run that began at `start` and ends now.
Result Collect(Clock::time_point start, int64_t ok, int64_t failed, const std::vector<std::vector<double>>& per_slot) {
  Result r;
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.ok = ok;
  r.failed = failed;
  for (const auto& v : per_slot) r.latencies.insert(r.latencies.end(), v.begin(), v.end());
  std::sort(r.latencies.begin(), r.latencies.end());
  return r;
}

Result Drive(const Caller& call, int concurrency, absl::Duration duration) {
  absl::Mutex mu;
  int active = concurrency;  // under mu
  const Clock::time_point end = Clock::now() + absl::ToChronoNanoseconds(duration);
  const Clock::time_point start = Clock::now();
  std::vector<std::vector<double>> per_slot(concurrency);
  std::atomic<int64_t> ok{0}, failed{0};
  std::vector<std::function<void()>> slots(concurrency);
  for (int i = 0; i < concurrency; ++i) {
    slots[i] = [&, i]() {
      const Clock::time_point t0 = Clock::now();
      call([&, i, t0](bool success) {
        const Clock::time_point t1 = Clock::now();
        per_slot[i].push_back(std::chrono::duration<double>(t1 - t0).count());
        (success ? ok : failed)++;
        if (t1 < end) {
          slots[i]();
        } else {
          absl::MutexLock l(&mu);
          --active;
        }
      });
    };
  }
  for (int i = 0; i < concurrency; ++i) slots[i]();
  absl::MutexLock l(&mu);
  const auto finished = [&active] { return active == 0; };
  mu.Await(absl::Condition(&finished));
  return Collect(start, ok, failed, per_slot);
}

// The http_* RPCs: `concurrency` threads, each with its own keep-alive connection, each
// sending its next request when the last is answered (the gRPC slots' closed loop).
Result DriveHttp(const std::string& rpc, int concurrency, absl::Duration duration) {
  std::string path = "/v1/health", method = "GET";
  std::shared_ptr<v1::PlanRequest> plan;
  if (rpc == "http_plan_serving") {
    path = "/v1/plan";
    method = "POST";
    plan = ReadmePlan(true);
  }
  const bool distinct = absl::GetFlag(FLAGS_distinct);
  std::atomic<int64_t> counter{0}, ok{0}, failed{0};
  std::vector<std::vector<double>> per_slot(concurrency);
  const Clock::time_point start = Clock::now();
  const Clock::time_point end = start + absl::ToChronoNanoseconds(duration);
  std::vector<std::thread> threads;
  threads.reserve(concurrency);
  for (int i = 0; i < concurrency; ++i) {
    threads.emplace_back([&, i] {
      capplan::loadgen::KeepAliveHttp http(absl::GetFlag(FLAGS_http_server));
      std::string body;
      if (plan != nullptr) (void)google::protobuf::util::MessageToJsonString(*plan, &body);
      while (Clock::now() < end) {
        if (plan != nullptr && distinct) {
          v1::PlanRequest call = *plan;
          const double step = static_cast<double>(counter.fetch_add(1) % 1000000);
          call.mutable_serving()->set_requests_per_second(call.serving().requests_per_second() + step * 1e-6);
          body.clear();
          (void)google::protobuf::util::MessageToJsonString(call, &body);
        }
        const Clock::time_point t0 = Clock::now();
        const int status = http.Call(method, path, body);
        per_slot[i].push_back(std::chrono::duration<double>(Clock::now() - t0).count());
        (status == 200 ? ok : failed)++;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  return Collect(start, ok, failed, per_slot);
}

double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const size_t i = std::min(sorted.size() - 1, static_cast<size_t>(p * static_cast<double>(sorted.size())));
  return sorted[i];
}

// VmRSS (resident now) or VmHWM (peak resident) of a process, in MB.
std::string RssMb(int pid, const std::string& key = "VmRSS:") {
  if (pid <= 0) return "-";
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      long kb = std::atol(line.c_str() + key.size());
      return absl::StrFormat("%.1f", kb / 1024.0);
    }
  }
  return "?";
}

// --watches streams over --watch_workloads distinct serving requests; null for none.
std::unique_ptr<capplan::loadgen::WatchCrowd> OpenWatches() {
  const int n = absl::GetFlag(FLAGS_watches);
  const int k = absl::GetFlag(FLAGS_watch_workloads);
  if (n <= 0 || n > 100000 || k < 1 || k > 1000) return nullptr;
  std::vector<v1::WatchPlanRequest> requests(k);
  for (int i = 0; i < k; ++i) {
    *requests[i].mutable_plan() = *ReadmePlan(true);
    v1::ServingWorkload* w = requests[i].mutable_plan()->mutable_serving();
    w->set_requests_per_second(w->requests_per_second() + 0.001 * i);
  }
  auto crowd = std::make_unique<capplan::loadgen::WatchCrowd>(absl::GetFlag(FLAGS_server), n, 100, requests);
  std::cout << "open watches: " << crowd->open() << " of " << n << " (" << k << " workloads), failed "
            << crowd->failed() << "\n";
  return crowd;
}

}  // namespace

int main(int argc, char** argv) {
  // --help lists this file's flags (Abseil's default looks for a file named after the
  // binary, loadgen-main.cc or main.cc, and finds none: "No flags matched").
  absl::FlagsUsageConfig usage;
  const auto ours = [](absl::string_view file) { return absl::StrContains(file, "client/loadgen_"); };
  usage.contains_help_flags = ours;
  usage.contains_helpshort_flags = ours;
  absl::SetFlagsUsageConfig(usage);
  absl::SetProgramUsageMessage("capplan-loadgen: fixed-concurrency load against capplan-server");
  absl::ParseCommandLine(argc, argv);
  auto channel = grpc::CreateChannel(absl::GetFlag(FLAGS_server), grpc::InsecureChannelCredentials());
  if (!channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(5))) {
    std::cerr << "capplan-loadgen: cannot connect to " << absl::GetFlag(FLAGS_server) << "\n";
    return 1;
  }
  auto planner = v1::PlannerService::NewStub(channel);
  auto health = grpc::health::v1::Health::NewStub(channel);
  auto admin = v1::AdminService::NewStub(channel);
  std::string token;
  if (!absl::GetFlag(FLAGS_admin_token_file).empty()) {
    std::ifstream in(absl::GetFlag(FLAGS_admin_token_file));
    in >> token;
  }
  const int pid = absl::GetFlag(FLAGS_server_pid);
  std::unique_ptr<capplan::loadgen::WatchCrowd> watches = OpenWatches();
  std::cout << "server RSS idle: " << RssMb(pid) << " MB\n";
  std::cout << absl::StrFormat("%-14s %8s %10s %10s %10s %8s\n", "rpc", "calls", "QPS", "p50 ms", "p99 ms", "errors");
  auto print = [](const std::string& name, const Result& r) {
    std::cout << absl::StrFormat("%-14s %8d %10.0f %10.3f %10.3f %8d\n", name, r.ok + r.failed,
                                 static_cast<double>(r.ok + r.failed) / r.seconds, Percentile(r.latencies, 0.5) * 1000,
                                 Percentile(r.latencies, 0.99) * 1000, r.failed);
  };
  const std::string background = absl::GetFlag(FLAGS_background_rpc);
  for (absl::string_view rpc : absl::StrSplit(absl::GetFlag(FLAGS_rpcs), ',', absl::SkipEmpty())) {
    if (absl::StartsWith(rpc, "http_")) {
      print(std::string(rpc),
            DriveHttp(std::string(rpc), absl::GetFlag(FLAGS_concurrency), absl::GetFlag(FLAGS_duration)));
      continue;
    }
    Caller call = MakeCaller(std::string(rpc), planner.get(), health.get(), admin.get(), token);
    Result heavy;
    std::thread bg;
    if (!background.empty()) {
      Caller bg_call = MakeCaller(background, planner.get(), health.get(), admin.get(), token);
      bg = std::thread([&, bg_call] {
        heavy = Drive(bg_call, absl::GetFlag(FLAGS_background_concurrency), absl::GetFlag(FLAGS_duration));
      });
    }
    Result r = Drive(call, absl::GetFlag(FLAGS_concurrency), absl::GetFlag(FLAGS_duration));
    print(std::string(rpc), r);
    if (bg.joinable()) {
      bg.join();
      print(absl::StrCat("  bg ", background), heavy);
    }
  }
  std::cout << "server RSS after load: " << RssMb(pid) << " MB, peak " << RssMb(pid, "VmHWM:") << " MB\n";
  if (watches != nullptr) {
    std::cout << "watch updates received: " << watches->updates() << ", watches failed: " << watches->failed() << "\n";
  }
  return 0;
}
