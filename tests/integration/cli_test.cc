// The capplan CLI as users run it: the real binary against the real server.
// Per-command help and flags, ISO dates reaching the request, several TCO
// fleets, a model from a JSON file, and the basic view.
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "admin_server.h"
#include "capplan/v1/admin.pb.h"
#include "capplan/v1/planner.pb.h"
#include "server_process.h"

namespace capplan::testing {
namespace {

std::vector<std::string> BaseArgs(const TempDir& dir) {
  return {"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--db=" + dir.path() + "/catalog.db",
          "--shutdown_grace=2s"};
}

ExitResult Cli(std::vector<std::string> args) {
  args.insert(args.begin(), CAPPLAN_CLI_BINARY);
  return RunProgram(args, 30000);
}

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

template <typename Message>
Message ParseJson(const std::string& text) {
  Message m;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(text, &m).ok()) << text;
  return m;
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<ServerProcess>(BaseArgs(dir_));
    ASSERT_TRUE(server_->started()) << server_->Wait(0).stderr_text;
  }
  // The CLI with --server set to the test server.
  ExitResult Run(std::vector<std::string> args) {
    args.insert(args.begin(), "--server=" + server_->grpc_address());
    return Cli(args);
  }

  TempDir dir_;
  std::unique_ptr<ServerProcess> server_;
};

// The README's Llama-2-7B LoRA question, used by several tests.
const std::vector<std::string> kLoraTraining = {"plan", "training", "--model=Llama-2-7B", "--tokens=2e9",
                                                "--method=lora"};

TEST(CliHelpTest, EachCommandListsItsOwnFlagsAndNotOthers) {
  ExitResult plan = Cli({"plan", "training", "--help"});
  EXPECT_EQ(plan.exit_code, 0) << plan.stderr_text;
  for (const char* own :
       {"--model=NAME", "--model_file=PATH", "--tokens=N", "--global_batch_tokens=N", "--sequence_tokens=N",
        "--optimizer=", "--lora_rank=N", "--goodput_fraction=F", "--flash_attention",
        "--owned_pool=NAME:GPU:COUNT:USD_PER_GPU_HOUR", "--prices_as_of=", "--view=basic|full", "--max_rejected=N",
        "(default: 4096, or the model's context window if shorter)", "(default: 0: searched by the server)",
        "[/KEY=VALUE...]", "network_gbit_per_s_per_gpu=Gbit/s",
        "Example:", "capplan plan training --model=Llama-2-7B"}) {
    EXPECT_TRUE(Contains(plan.stdout_text, own)) << own << "\n" << plan.stdout_text;
  }
  for (const char* other :
       {"--prompt_tokens", "--fleet", "--targets", "--usd_per_hour", "--as_of_date", "--capex_usd"}) {
    EXPECT_FALSE(Contains(plan.stdout_text, other)) << other << "\n" << plan.stdout_text;
  }
  ExitResult tco = Cli({"tco", "--help"});
  EXPECT_EQ(tco.exit_code, 0);
  EXPECT_TRUE(Contains(tco.stdout_text, "--fleet=KEY=VALUE,...")) << tco.stdout_text;
  EXPECT_TRUE(Contains(tco.stdout_text, "--capex_usd=USD")) << tco.stdout_text;
  EXPECT_FALSE(Contains(tco.stdout_text, "--owned_pool")) << tco.stdout_text;
  EXPECT_FALSE(Contains(tco.stdout_text, "--tokens=")) << tco.stdout_text;
  ExitResult set_price = Cli({"admin", "set-price", "--help"});  // no token needed for help
  EXPECT_EQ(set_price.exit_code, 0) << set_price.stderr_text;
  EXPECT_TRUE(Contains(set_price.stdout_text, "--request_id=ID")) << set_price.stdout_text;
  EXPECT_TRUE(Contains(set_price.stdout_text, "--as_of_date=YYYY-MM-DD")) << set_price.stdout_text;
  EXPECT_FALSE(Contains(set_price.stdout_text, "--prices_as_of")) << set_price.stdout_text;
  // Every command has help with flags and an example.
  for (std::vector<std::string> cmd : std::vector<std::vector<std::string>>{{"health"},
                                                                            {"plan", "serving"},
                                                                            {"compare", "training"},
                                                                            {"compare", "serving"},
                                                                            {"catalog", "version"},
                                                                            {"catalog", "instances"},
                                                                            {"catalog", "prices"},
                                                                            {"catalog", "benchmarks"},
                                                                            {"admin", "import-csv"}}) {
    cmd.push_back("--help");
    ExitResult r = Cli(cmd);
    EXPECT_EQ(r.exit_code, 0) << cmd[0] << " " << r.stderr_text;
    EXPECT_TRUE(Contains(r.stdout_text, "Flags:") && Contains(r.stdout_text, "Example:")) << cmd[0] << "\n"
                                                                                          << r.stdout_text;
  }
}

TEST(CliHelpTest, TopLevelHelpListsEveryCommandAndServerAndLoadgenListTheirFlags) {
  ExitResult help = Cli({"--help"});
  EXPECT_EQ(help.exit_code, 0) << help.stderr_text;
  // Every command the dispatchers in client/cli/ accept (main.cc, catalog.cc, admin.cc).
  for (const char* cmd : {"health",
                          "plan training",
                          "plan serving",
                          "compare training",
                          "compare serving",
                          "tco",
                          "catalog version",
                          "catalog gpus",
                          "catalog models",
                          "catalog instances",
                          "catalog prices",
                          "catalog benchmarks",
                          "catalog fabrics",
                          "catalog electricity",
                          "catalog tco-scenarios",
                          "admin set-price",
                          "admin import-csv",
                          "admin audit",
                          "upsert-gpu",
                          "delete-gpu",
                          "upsert-instance",
                          "delete-instance",
                          "upsert-model",
                          "delete-model",
                          "upsert-fabric",
                          "delete-fabric",
                          "upsert-electricity",
                          "delete-electricity",
                          "upsert-tco-scenario",
                          "delete-tco-scenario",
                          "record-benchmark",
                          "delete-benchmark"}) {
    EXPECT_TRUE(Contains(help.stdout_text, cmd)) << cmd << "\n" << help.stdout_text;
  }
  ExitResult server = RunProgram({CAPPLAN_SERVER_BINARY, "--help"}, 10000);
  EXPECT_FALSE(Contains(server.stdout_text + server.stderr_text, "No flags matched"));
  for (const char* flag : {"--listen", "--db", "--admin_token_file", "--max_connections"}) {
    EXPECT_TRUE(Contains(server.stdout_text + server.stderr_text, flag)) << flag << "\n" << server.stdout_text;
  }
  ExitResult loadgen = RunProgram({CAPPLAN_LOADGEN_BINARY, "--help"}, 10000);
  EXPECT_FALSE(Contains(loadgen.stdout_text + loadgen.stderr_text, "No flags matched"));
  for (const char* flag : {"--rpcs", "--distinct", "--concurrency", "--server_pid"}) {
    EXPECT_TRUE(Contains(loadgen.stdout_text + loadgen.stderr_text, flag)) << flag << "\n" << loadgen.stdout_text;
  }
}

TEST(CliHelpTest, AnUnknownFlagIsAnErrorNamingItAndPointingAtHelp) {
  // --fleet belongs to tco; --as_of was split into --prices_as_of and
  // --as_of_date.
  for (const char* flag : {"--fleet=gpu=L4,count=1", "--as_of=1700000000"}) {
    std::vector<std::string> args = kLoraTraining;
    args.push_back(flag);
    ExitResult r = Cli(args);
    EXPECT_EQ(r.exit_code, 2) << flag;
    const std::string name = std::string(flag).substr(0, std::string(flag).find('='));
    EXPECT_TRUE(Contains(r.stderr_text, "unknown flag " + name)) << r.stderr_text;
    EXPECT_TRUE(Contains(r.stderr_text, "capplan plan training --help")) << r.stderr_text;
  }
  ExitResult no_sub = Cli({"plan", "--model=Llama-2-7B"});
  EXPECT_EQ(no_sub.exit_code, 2);
  EXPECT_TRUE(Contains(no_sub.stderr_text, "want plan training|serving")) << no_sub.stderr_text;
  ExitResult bad_date = Cli({"plan", "training", "--model=Llama-2-7B", "--tokens=2e9", "--prices_as_of=1700000000"});
  EXPECT_EQ(bad_date.exit_code, 2);
  EXPECT_TRUE(Contains(bad_date.stderr_text, "--prices_as_of: want an ISO 8601 date")) << bad_date.stderr_text;
}

// Shipped prices (migrations/0002_shipped_catalog.sql): AWS rows are effective
// 2024-06-01, Lambda rows 2025-11-01. Read as of 2025-06-05 the Lambda offers
// have no price yet.
TEST_F(CliTest, PricesAsOfReachesThePlanRequest) {
  constexpr int64_t k20250605 = 1749081600;  // 2025-06-05T00:00:00Z
  std::vector<std::string> args = kLoraTraining;
  for (const char* a : {"--json", "--top_k=20", "--prices_as_of=2025-06-05"}) args.push_back(a);
  ExitResult then = Run(args);
  ASSERT_EQ(then.exit_code, 0) << then.stderr_text;
  const auto plan = ParseJson<v1::PlanResponse>(then.stdout_text);
  ASSERT_GT(plan.options_size(), 0) << then.stdout_text;
  for (const v1::PlanOption& o : plan.options()) {
    EXPECT_NE(o.provider(), "lambda") << o.instance_type();
    for (const v1::Price& p : o.provenance().prices()) {
      EXPECT_LT(p.effective_unix_seconds(), k20250605) << p.instance_type();
    }
  }
  args.pop_back();
  ExitResult now = Run(args);
  ASSERT_EQ(now.exit_code, 0) << now.stderr_text;
  bool lambda = false;
  const auto plan_now = ParseJson<v1::PlanResponse>(now.stdout_text);
  for (const v1::PlanOption& o : plan_now.options()) {
    lambda = lambda || o.provider() == "lambda";
  }
  EXPECT_TRUE(lambda) << "without --prices_as_of the 2025-11-01 Lambda prices apply";
}

// The README's TCO template: 8 x A100-SXM4-80GB, capex $250,000,
// ops $5,000 a month, power 0, rent $15,000 a month, 36 months: break-even in
// month 25. Two such fleets double both sides, so the break-even month
// stays 25.
TEST_F(CliTest, TwoFleetFlagsGiveATwoFleetTco) {
  const std::string fleet =
      "gpu=A100-SXM4-80GB,count=8,capex_usd=250000,ops_usd_per_month=5000,"
      "power_watts=0,"
      "rent_usd_per_month=15000";
  ExitResult r =
      Run({"--json", "tco", "--months=36", "--fleet=role=training," + fleet, "--fleet=role=serving," + fleet});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const auto tco = ParseJson<v1::TcoResponse>(r.stdout_text);
  ASSERT_EQ(tco.fleets_size(), 2) << r.stdout_text;
  EXPECT_EQ(tco.fleets(0).role(), "training");
  EXPECT_EQ(tco.fleets(1).role(), "serving");
  for (const v1::TcoFleetResult& f : tco.fleets()) {
    EXPECT_EQ(f.gpu_count(), 8);
    EXPECT_DOUBLE_EQ(f.own_capex_usd(), 250000);
    EXPECT_DOUBLE_EQ(f.rent_usd_per_month(), 15000);
  }
  EXPECT_EQ(tco.break_even_month(), 25);
  // The single-fleet flags, as in the README.
  ExitResult single = Run({"tco", "--gpu=A100-SXM4-80GB", "--count=8", "--months=36", "--capex_usd=250000",
                           "--ops_usd_per_month=5000", "--power_watts=0", "--rent_usd_per_month=15000"});
  ASSERT_EQ(single.exit_code, 0) << single.stderr_text;
  EXPECT_TRUE(Contains(single.stdout_text, "break-even: month 25 (cash)")) << single.stdout_text;
}

// 64 x H100 over 36 months with the finance flags (inputs as in
// tests/server/tco_test.cc: DGX H100's 10.2 kW per 8 GPUs, an assumed $2,342,000
// of capex in five lines, a 30% -> 80% ramp, 8% cost of capital): break-even in
// month 7 on cash and month 8 discounted at the June 2024 list rent (prices as of
// 2025-01-01, before the June 2025 P5 cut), every line printed with its source, and
// --json carries the series, the rent options and the tornado.
TEST_F(CliTest, TcoFinanceFlagsPrintTheBreakdownAndTornado) {
  const std::vector<std::string> args = {"tco",
                                         "--gpu=H100-SXM5-80GB",
                                         "--count=64",
                                         "--months=36",
                                         "--gpus_usd=1600000",
                                         "--host_usd=400000",
                                         "--network_usd=192000",
                                         "--storage_usd=100000",
                                         "--installation_usd=50000",
                                         "--power_watts=81600",
                                         "--idle_power_fraction=0.3",
                                         "--pue=1.2",
                                         "--electricity_usd_per_kwh=0.13",
                                         "--ops_usd_per_month=20000",
                                         "--maintenance_fraction_per_year=0.05",
                                         "--failure_replacement_fraction_per_year=0.02",
                                         "--residual_decline_fraction_per_year=0.4",
                                         "--start_utilization_fraction=0.3",
                                         "--steady_utilization_fraction=0.8",
                                         "--ramp_months=3",
                                         "--discount_rate_fraction_per_year=0.08",
                                         "--rent_instance=p5.48xlarge",
                                         "--rent_region=us-east-1",
                                         "--prices_as_of=2025-01-01",
                                         "--on_demand_usd_per_gpu_hour=12.29",
                                         "--reserved_1y_usd_per_gpu_hour=8.6",
                                         "--reserved_3y_usd_per_gpu_hour=5.9",
                                         "--spot_usd_per_gpu_hour=5",
                                         "--spot_overhead_fraction=0.1"};
  ExitResult text = Run(args);
  ASSERT_EQ(text.exit_code, 0) << text.stderr_text;
  for (const char* want :
       {"break-even: month 7 (cash)", "discounted at 8.0%/year: month 8", "capex: GPUs", "capex: installation",
        "resale at the horizon", "sensitivity (+-20%)", "rent_price", "rent option"}) {
    EXPECT_TRUE(Contains(text.stdout_text, want)) << want << "\n" << text.stdout_text;
  }
  std::vector<std::string> json = {"--json"};
  json.insert(json.end(), args.begin(), args.end());
  ExitResult r = Run(json);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const auto tco = ParseJson<v1::TcoResponse>(r.stdout_text);
  EXPECT_EQ(tco.series_size(), 36);
  EXPECT_EQ(tco.sensitivity_size(), 5);
  EXPECT_EQ(tco.rent_options_size(), 5);
  ASSERT_EQ(tco.fleets_size(), 1);
  EXPECT_EQ(tco.fleets(0).capex_lines_size(), 5);
  EXPECT_EQ(tco.discounted_break_even_month(), 8);
  EXPECT_GT(tco.series(35).own_discounted_cumulative_usd(), 0);
}

// Llama-2-7B's architecture (Touvron et al. 2023, and its Hugging Face
// config.json): 32 layers, hidden 4096, 32 heads, FFN 11008 (SwiGLU),
// vocabulary 32000, context 4096.
TEST_F(CliTest, ModelFileGivesTheArchitecture) {
  const std::string path = dir_.path() + "/llama.json";
  std::ofstream(path) << R"({"name": "file-llama-7b", "num_layers": 32, "hidden_size": 4096,
      "num_attention_heads": 32, "num_kv_heads": 32, "ffn_hidden_size": 11008,
      "gated_mlp": true, "vocab_size": 32000, "max_context_tokens": 4096})";
  ExitResult r =
      Run({"--json", "plan", "training", "--model_file=" + path, "--tokens=2e9", "--method=lora", "--view=basic"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_GT(ParseJson<v1::PlanResponse>(r.stdout_text).options_size(), 0) << r.stdout_text;
  std::ofstream(dir_.path() + "/bad.json") << R"({"num_layers": "many"})";
  ExitResult bad = Run({"plan", "training", "--model_file=" + dir_.path() + "/bad.json", "--tokens=2e9"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(Contains(bad.stderr_text, "not a ModelArchitecture")) << bad.stderr_text;
  ExitResult both = Run({"plan", "training", "--model=Llama-2-7B", "--model_file=" + path, "--tokens=2e9"});
  EXPECT_EQ(both.exit_code, 2);
}

// A Hugging Face config.json as published (tests/data/hf_configs/README.md names its source)
// is sent as is and mapped by the server; one it cannot map names the config.json key.
TEST_F(CliTest, HfConfigGivesTheArchitecture) {
  const std::string configs = std::string(CAPPLAN_SOURCE_DIR) + "/tests/data/hf_configs/";
  ExitResult r = Run({"--json", "plan", "training", "--hf_config=" + configs + "meta-llama--Meta-Llama-3.1-8B.json",
                      "--tokens=2e9", "--method=lora", "--view=basic"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_GT(ParseJson<v1::PlanResponse>(r.stdout_text).options_size(), 0) << r.stdout_text;
  ExitResult moe = Run({"--json", "compare", "serving", "--hf_config=" + configs + "Qwen--Qwen3-30B-A3B.json",
                        "--prompt_tokens=512", "--output_tokens=128", "--targets=gpu:H100-SXM5-80GB:1"});
  EXPECT_EQ(moe.exit_code, 0) << moe.stderr_text;
  const std::string path = dir_.path() + "/mamba.json";
  std::ofstream(path) << R"({"model_type": "mamba", "hidden_size": 768})";
  ExitResult bad = Run({"plan", "training", "--hf_config=" + path, "--tokens=2e9"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_TRUE(Contains(bad.stderr_text, "hf_config_json.model_type: \"mamba\" is not supported")) << bad.stderr_text;
  ExitResult two = Run({"plan", "training", "--model=Llama-2-7B", "--hf_config=" + path, "--tokens=2e9"});
  EXPECT_EQ(two.exit_code, 2);
}

// The shipped Lambda prices take effect at 2025-11-01T00:00:00Z (1761955200 in
// migrations/0002_shipped_catalog.sql): a second earlier they have no price.
TEST_F(CliTest, PricesAsOfTakesAnIsoDateTime) {
  auto lambda_prices = [&](const std::string& as_of) {
    ExitResult r = Run({"--json", "catalog", "instances", "--provider=lambda", "--prices_as_of=" + as_of});
    EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
    int prices = 0;
    const auto offers = ParseJson<v1::ListInstancesResponse>(r.stdout_text);
    for (const v1::InstanceOffer& o : offers.offers()) {
      prices += o.current_prices_size();
    }
    return prices;
  };
  EXPECT_EQ(lambda_prices("2025-10-31T23:59:59Z"), 0);
  EXPECT_GT(lambda_prices("2025-11-01T00:00:00Z"), 0);
  EXPECT_GT(lambda_prices("2025-11-01T01:00:00+01:00"), 0);  // the same instant
}

// An owned pool and a pinned compare layout are the caller's own figures: they
// come back.
TEST_F(CliTest, OwnedPoolsAndPinnedLayoutsReachTheRequest) {
  std::vector<std::string> args = kLoraTraining;
  for (const char* a :
       {"--json", "--view=basic", "--owned_pool=lab:A100-SXM4-80GB:16:0.50", "--owned_pool=attic:RTX-3090:8:0.10"}) {
    args.push_back(a);
  }
  ExitResult plan = Run(args);
  ASSERT_EQ(plan.exit_code, 0) << plan.stderr_text;
  bool pool = false;
  const auto planned = ParseJson<v1::PlanResponse>(plan.stdout_text);
  for (const v1::PlanOption& o : planned.options()) {
    pool = pool || o.owned_pool() == "lab" || o.owned_pool() == "attic";
  }
  EXPECT_TRUE(pool) << plan.stdout_text;
  ExitResult bad_pool =
      Run({"plan", "training", "--model=Llama-2-7B", "--tokens=2e9", "--owned_pool=lab:A100-SXM4-80GB:many:0.5"});
  EXPECT_EQ(bad_pool.exit_code, 2);
  EXPECT_TRUE(Contains(bad_pool.stderr_text, "NAME:GPU:COUNT:USD_PER_GPU_HOUR"));

  ExitResult cmp = Run({"--json", "compare", "training", "--model=Llama-2-13B", "--tokens=1e9", "--method=lora",
                        "--targets=gpu:A100-SXM4-80GB:4/tp=2/dp=2"});
  ASSERT_EQ(cmp.exit_code, 0) << cmp.stderr_text;
  const auto compared = ParseJson<v1::CompareResponse>(cmp.stdout_text);
  ASSERT_EQ(compared.rows_size(), 1);
  EXPECT_EQ(compared.rows(0).target().pinned_parallelism().tensor_parallel(), 2);
  EXPECT_EQ(compared.rows(0).option().parallelism().tensor_parallel(), 2) << cmp.stdout_text;
  EXPECT_EQ(compared.rows(0).option().parallelism().data_parallel(), 2) << cmp.stdout_text;
}

TEST_F(CliTest, BasicViewPrintsNoNotChosenSection) {
  std::vector<std::string> args = kLoraTraining;
  args.push_back("--top_k=3");
  ExitResult full = Run(args);
  ASSERT_EQ(full.exit_code, 0) << full.stderr_text;
  EXPECT_TRUE(Contains(full.stdout_text, "not chosen (")) << full.stdout_text;
  args.push_back("--view=basic");
  ExitResult basic = Run(args);
  ASSERT_EQ(basic.exit_code, 0) << basic.stderr_text;
  EXPECT_FALSE(Contains(basic.stdout_text, "not chosen")) << basic.stdout_text;
  EXPECT_TRUE(Contains(basic.stdout_text, "catalog version")) << basic.stdout_text;
}

TEST(CliHelpTest, CompareHelpNamesEveryPinAndFabricKey) {
  ExitResult r = Cli({"compare", "training", "--help"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  for (const char* key : {"/tp=N", "/pp=N", "/dp=N", "/vpp=N", "/cp=N", "/ep=N", "/zero=N", "/micro_batch=N",
                          "/recompute=none|selective|full", "fabric=NAME", "gpus_per_node=N",
                          "intra_link=pcie|nvlink|infinity_fabric|xe_link", "intra_node_gbyte_per_s_per_gpu=GB/s",
                          "network_kind=none|ethernet|efa|infiniband|roce", "network_gbit_per_s_per_gpu=Gbit/s",
                          "network_latency_us=US"}) {
    EXPECT_TRUE(Contains(r.stdout_text, key)) << key << "\n" << r.stdout_text;
  }
}

// A pinned vpp/cp/ep layout and a fabric override come back in the compare row's target, in
// the API's units: 100 Gbit/s per GPU is 12.5e9 bytes/s (8 bits a byte); H100 NVLink's
// 450 GB/s per direction (datasheet: 900 GB/s bidirectional) is 450e9; 5 us is 5e-6 s.
TEST_F(CliTest, CompareSendsPinsAndFabricOverrides) {
  ExitResult r = Run({"--json", "compare", "training", "--model=Llama-2-13B", "--tokens=1e9", "--method=lora",
                      "--targets=gpu:H100-SXM5-80GB:8/tp=2/dp=4/vpp=1/cp=1/ep=1/gpus_per_node=8/intra_link=nvlink/"
                      "intra_node_gbyte_per_s_per_gpu=450/network_kind=infiniband/network_gbit_per_s_per_gpu=100/"
                      "network_latency_us=5"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const auto cmp = ParseJson<v1::CompareResponse>(r.stdout_text);
  ASSERT_EQ(cmp.rows_size(), 1) << r.stdout_text;
  const v1::CompareTarget& t = cmp.rows(0).target();
  EXPECT_EQ(t.pinned_parallelism().virtual_pipeline_stages(), 1);
  EXPECT_EQ(t.pinned_parallelism().context_parallel(), 1);
  EXPECT_EQ(t.pinned_parallelism().expert_parallel(), 1);
  EXPECT_EQ(t.fabric().gpus_per_node(), 8);
  EXPECT_EQ(t.fabric().intra_link(), v1::INTERCONNECT_KIND_NVLINK);
  EXPECT_DOUBLE_EQ(t.fabric().intra_node_bytes_per_second_per_gpu(), 450e9);
  EXPECT_EQ(t.fabric().network(), v1::NETWORK_KIND_INFINIBAND);
  EXPECT_DOUBLE_EQ(t.fabric().network_bytes_per_second_per_gpu(), 12.5e9);
  EXPECT_DOUBLE_EQ(t.fabric().network_latency_seconds(), 5e-6);
  EXPECT_EQ(cmp.rows(0).option().parallelism().data_parallel(), 4) << r.stdout_text;

  // A fabric name the catalog lacks reaches the server, which names the field.
  ExitResult unknown = Run({"compare", "training", "--model=Llama-2-13B", "--tokens=1e9", "--method=lora",
                            "--targets=gpu:H100-SXM5-80GB:8/fabric=no-such-fabric"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_TRUE(Contains(unknown.stderr_text, "targets[0].fabric.name")) << unknown.stderr_text;
  // A bad fabric value is a usage error before anything is sent.
  ExitResult bad = Run({"compare", "training", "--model=Llama-2-13B", "--tokens=1e9",
                        "--targets=gpu:H100-SXM5-80GB:8/network_kind=carrier_pigeon"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(Contains(bad.stderr_text, "network_kind: want none, ethernet, efa, infiniband or roce"))
      << bad.stderr_text;
}

TEST_F(CliTest, OwnedPoolFabricAndTrainingFieldsReachTheRequest) {
  // The pool's fabric override reaches the server: an unknown name is refused by field path.
  std::vector<std::string> args = kLoraTraining;
  args.push_back("--owned_pool=lab:H100-SXM5-80GB:16:2.00/fabric=no-such-fabric");
  ExitResult unknown = Run(args);
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_TRUE(Contains(unknown.stderr_text, "constraints.owned_pools[0].fabric.name")) << unknown.stderr_text;
  args.back() = "--owned_pool=lab:H100-SXM5-80GB:16:2.00/network_gbit_per_s_per_gpu=-5";
  ExitResult negative = Run(args);
  EXPECT_EQ(negative.exit_code, 2);
  EXPECT_TRUE(Contains(negative.stderr_text, "network_gbit_per_s_per_gpu: want a number > 0")) << negative.stderr_text;
  args.back() = "--owned_pool=lab:H100-SXM5-80GB:16:2.00/network_kind=infiniband/network_gbit_per_s_per_gpu=400";
  args.push_back("--json");
  ExitResult pool = Run(args);
  ASSERT_EQ(pool.exit_code, 0) << pool.stderr_text;

  // A global batch of 0 is "searched"; a sequence beyond Llama 2's 4k window (Touvron et
  // al. 2023, Table 1) is refused by the server, naming the field.
  std::vector<std::string> batch = kLoraTraining;
  batch.push_back("--global_batch_tokens=0");
  ExitResult searched = Run(batch);
  EXPECT_EQ(searched.exit_code, 0) << searched.stderr_text;
  std::vector<std::string> longer = kLoraTraining;
  longer.push_back("--sequence_tokens=8192");
  ExitResult too_long = Run(longer);
  EXPECT_EQ(too_long.exit_code, 1);
  EXPECT_TRUE(Contains(too_long.stderr_text, "training.sequence_tokens: 8192 tokens is beyond Llama-2-7B's context"))
      << too_long.stderr_text;
}

// The training table says which duration is which, and shows MFU, the batch and the fabric.
TEST_F(CliTest, TrainingTablesNameEndToEndAndSteadyState) {
  std::vector<std::string> args = kLoraTraining;
  args.push_back("--top_k=1");
  ExitResult plan = Run(args);
  ASSERT_EQ(plan.exit_code, 0) << plan.stderr_text;
  for (const char* column : {"e2e days (low-high)", "steady days", "MFU", "batch", "fabric"}) {
    EXPECT_TRUE(Contains(plan.stdout_text, column)) << column << "\n" << plan.stdout_text;
  }
  ExitResult cmp = Run({"compare", "training", "--model=Llama-2-13B", "--tokens=1e9", "--method=lora",
                        "--targets=gpu:A100-SXM4-80GB:4/tp=2/dp=2/cp=1"});
  ASSERT_EQ(cmp.exit_code, 0) << cmp.stderr_text;
  for (const char* column : {"e2e days", "steady days", "MFU", "batch", "fabric"}) {
    EXPECT_TRUE(Contains(cmp.stdout_text, column)) << column << "\n" << cmp.stdout_text;
  }
}

// The CLI against a server with an admin token (AdminServerTest), the token passed to it
// through the environment as operators do.
class CliAdminTest : public AdminServerTest {
 protected:
  ExitResult Run(std::vector<std::string> args) {
    args.insert(args.begin(), {CAPPLAN_CLI_BINARY, "--server=" + server_->grpc_address()});
    return RunProgram(args, 30000, {{"CAPPLAN_ADMIN_TOKEN", kAdminToken}});
  }
};

using CliFabricTest = CliAdminTest;

// Fabrics through the CLI: the catalog's table in vendor units, and the admin writes with a
// token from the environment.
TEST_F(CliFabricTest, ListsWritesAndRefusesDeletingAUsedFabric) {
  ExitResult list = Run({"catalog", "fabrics"});
  ASSERT_EQ(list.exit_code, 0) << list.stderr_text;
  // Amazon EC2 P5 page: 3,200 Gbps EFA per instance, printed per node as vendors do.
  EXPECT_TRUE(Contains(list.stdout_text, "aws-p5-efa")) << list.stdout_text;
  EXPECT_TRUE(Contains(list.stdout_text, "3200")) << list.stdout_text;

  // 25 Gbit/s per 4-GPU node is stored per GPU: 25e9 / 8 / 4 bytes/s.
  ExitResult up =
      Run({"admin", "upsert-fabric", "--name=lab-rig", "--gpus_per_node=4", "--intra_link=pcie",
           "--intra_node_gbyte_per_s_per_gpu=32", "--network_kind=ethernet", "--network_gbit_per_s_per_node=25",
           "--network_latency_us=30", "--citation=lab inventory", "--as_of_date=2026-11-30"});
  ASSERT_EQ(up.exit_code, 0) << up.stderr_text;
  ExitResult json = Run({"--json", "catalog", "fabrics"});
  const auto fabrics = ParseJson<v1::ListFabricsResponse>(json.stdout_text);
  bool found = false;
  for (const v1::Fabric& f : fabrics.fabrics()) {
    if (f.name() != "lab-rig") continue;
    found = true;
    EXPECT_DOUBLE_EQ(f.network_bytes_per_second_per_gpu(), 25e9 / 8 / 4);
    EXPECT_DOUBLE_EQ(f.network_latency_seconds(), 30e-6);
  }
  EXPECT_TRUE(found) << json.stdout_text;

  ExitResult inst =
      Run({"admin", "upsert-instance", "--provider=lab", "--instance_type=rig-4x-a10g", "--region=home", "--gpu=A10G",
           "--gpu_count=4", "--fabric=lab-rig", "--citation=lab inventory", "--as_of_date=2026-11-30"});
  ASSERT_EQ(inst.exit_code, 0) << inst.stderr_text;
  ExitResult del = Run({"admin", "delete-fabric", "--name=lab-rig"});
  EXPECT_EQ(del.exit_code, 1);
  EXPECT_TRUE(Contains(del.stderr_text, "FAILED_PRECONDITION")) << del.stderr_text;
  EXPECT_TRUE(Contains(del.stderr_text, "lab rig-4x-a10g home")) << del.stderr_text;

  ExitResult bench =
      Run({"admin", "record-benchmark", "--gpu=A10G", "--model=Llama-2-7B", "--workload=training", "--precision=bf16",
           "--gpu_count=4", "--value=4000", "--unit=tokens_per_second", "--tensor_parallel=2", "--pipeline_parallel=1",
           "--data_parallel=3", "--citation=test", "--as_of_date=2026-11-30"});
  EXPECT_EQ(bench.exit_code, 1);  // 2 x 1 x 3 is not 4 GPUs
  EXPECT_TRUE(Contains(bench.stderr_text, "gpu_count 4")) << bench.stderr_text;
  ExitResult gpu = Run({"admin", "upsert-gpu", "--name=A10G", "--fabric=lab-rig"});
  ASSERT_EQ(gpu.exit_code, 0) << gpu.stderr_text;
  ExitResult gpus = Run({"--json", "catalog", "gpus"});
  EXPECT_TRUE(Contains(gpus.stdout_text, "\"default_fabric_name\": \"lab-rig\"")) << gpus.stdout_text;
}

// The public SkyPilot files as ops import them on a schedule (tests/store/fixtures: rows from
// skypilot-org/skypilot-catalog), then the catalog lists the offers.
using CliImportTest = CliAdminTest;

TEST_F(CliImportTest, PublicCatalogFilesImportThroughTheCliAndShowInTheCatalog) {
  const std::string fixtures = std::string(CAPPLAN_SOURCE_DIR) + "/tests/store/fixtures/";
  auto import = [&](const std::string& provider, const std::string& file, std::vector<std::string> extra) {
    std::vector<std::string> args = {"admin",
                                     "import-csv",
                                     "--provider=" + provider,
                                     "--file=" + fixtures + file,
                                     "--citation=SkyPilot catalog " + file,
                                     "--as_of_date=2026-12-01"};
    args.insert(args.end(), extra.begin(), extra.end());
    return Run(args);
  };
  // AWS: p5e's two rows have no on-demand price: 2 of 9 GPU rows, over the default 5%, so
  // exit 3; the other offers are in.
  ExitResult aws = import("aws", "aws_v7_vms.csv", {});
  EXPECT_EQ(aws.exit_code, 3) << aws.stderr_text;
  EXPECT_TRUE(Contains(aws.stdout_text, "layout skypilot-aws-v7")) << aws.stdout_text;
  EXPECT_TRUE(Contains(aws.stdout_text, "row 9 Price: empty")) << aws.stdout_text;
  EXPECT_TRUE(Contains(aws.stderr_text, "--max_skipped_fraction")) << aws.stderr_text;

  ExitResult dry =
      Run({"--json", "admin", "import-csv", "--provider=gcp", "--file=" + fixtures + "gcp_v7_vms.csv",
           "--citation=SkyPilot catalog", "--as_of_date=2026-12-01", "--dry_run", "--max_skipped_fraction=1"});
  ASSERT_EQ(dry.exit_code, 0) << dry.stderr_text;
  const auto diff = ParseJson<v1::ImportPricesCsvResponse>(dry.stdout_text);
  EXPECT_TRUE(diff.dry_run());
  EXPECT_EQ(diff.offers_new(), 2);  // a3-highgpu-1g and -4g in us-central1
  // B200 and H100-MEGA are in the catalog, but no host VM for them is listed in their zone:
  // nothing is sold there, so the rows are unsupported, not bad.
  EXPECT_EQ(diff.rows_unsupported(), 2);

  // GCP: with those two left out of the fraction, nothing is skipped: the default 5% passes
  // (it used to fail every nightly refresh). Azure: ND96isr_H100_v5 listed with 12 H100s, 1
  // of 6 (K80, M60 and MI25 are unsupported, not counted).
  ExitResult gcp = import("gcp", "gcp_v7_vms.csv", {});
  EXPECT_EQ(gcp.exit_code, 0) << gcp.stdout_text << gcp.stderr_text;
  EXPECT_TRUE(Contains(gcp.stdout_text, "row 10 InstanceType (unsupported)")) << gcp.stdout_text;
  ExitResult strict = import("azure", "azure_v6_vms.csv", {"--mode=strict"});
  EXPECT_EQ(strict.exit_code, 1);
  EXPECT_TRUE(Contains(strict.stderr_text, "INVALID_ARGUMENT")) << strict.stderr_text;
  ExitResult azure = import("azure", "azure_v6_vms.csv", {"--max_skipped_fraction=0.25"});
  EXPECT_EQ(azure.exit_code, 0) << azure.stdout_text << azure.stderr_text;
  EXPECT_TRUE(Contains(azure.stdout_text, "row 9 AcceleratorCount")) << azure.stdout_text;

  ExitResult h100 = Run({"catalog", "instances", "--gpu=H100-SXM5-80GB"});
  ASSERT_EQ(h100.exit_code, 0) << h100.stderr_text;
  // GCP a3-highgpu-1g: host 1.18251 + H100 4.20076 = 5.38327 USD/h.
  EXPECT_TRUE(Contains(h100.stdout_text, "a3-highgpu-1g")) << h100.stdout_text;
  EXPECT_TRUE(Contains(h100.stdout_text, "5.383")) << h100.stdout_text;
  EXPECT_TRUE(Contains(h100.stdout_text, "ca-central-1")) << h100.stdout_text;  // AWS p5, 113.068
  // Azure NCads H100 v5 carries the H100 NVL card (Azure's series page), 6.98.
  ExitResult nvl = Run({"catalog", "instances", "--gpu=H100-NVL-94GB"});
  EXPECT_TRUE(Contains(nvl.stdout_text, "Standard_NC40ads_H100_v5")) << nvl.stdout_text;
  ExitResult h200 = Run({"catalog", "instances", "--gpu=H200-SXM-141GB"});
  EXPECT_TRUE(Contains(h200.stdout_text, "p5en.48xlarge")) << h200.stdout_text;  // AWS, 84.8
  // Prices print as the list has them: AWS p4de us-east-1 is 40.96575, not 40.97.
  ExitResult p4de = Run({"catalog", "prices", "--provider=aws", "--instance_type=p4de.24xlarge", "--region=us-east-1"});
  EXPECT_TRUE(Contains(p4de.stdout_text, "40.96575")) << p4de.stdout_text << p4de.stderr_text;

  // Importing the same file again writes nothing and says so.
  ExitResult again = import("gcp", "gcp_v7_vms.csv", {});
  EXPECT_EQ(again.exit_code, 0) << again.stderr_text;
  EXPECT_TRUE(Contains(again.stdout_text, "unchanged")) << again.stdout_text;

  // A file whose GPU rows all name GPUs the catalog lacks: Azure's K80 and M60 rows
  // (catalogs/v6/azure/vms.csv @ 098741e7). Nothing can be imported: exit 3, with the reason.
  const std::string unknown = dir_.path() + "/unknown.csv";
  std::ofstream(unknown)
      << ("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
          "Generation\n"
          "Standard_NC6,K80,1,6.0,56,K80,0.9,0.099,westus2,V1\n"
          "Standard_NV6,M60,1,6.0,56,M60,1.14,0.1254,northcentralus,V1\n");
  ExitResult none = Run({"admin", "import-csv", "--provider=azure", "--file=" + unknown, "--citation=SkyPilot catalog",
                         "--as_of_date=2026-12-01"});
  EXPECT_EQ(none.exit_code, 3) << none.stdout_text;
  EXPECT_TRUE(Contains(none.stderr_text, "nothing imported")) << none.stderr_text;
}

TEST_F(CliTest, PlanWatchPrintsTheFirstAnswerAndStopsWhenTold) {
  std::vector<std::string> args = kLoraTraining;
  args.insert(args.end(), {"--watch", "--watch_updates=1", "--min_cost_change=0.05"});
  ExitResult r = Run(args);
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_TRUE(Contains(r.stdout_text, "catalog version 1: initial")) << r.stdout_text;
  EXPECT_TRUE(Contains(r.stdout_text, "where")) << r.stdout_text;  // the options table
  args.back() = "--min_cost_change=20";
  ExitResult bad = Run(args);
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_TRUE(Contains(bad.stderr_text, "--min_cost_change")) << bad.stderr_text;
}

}  // namespace
}  // namespace capplan::testing
