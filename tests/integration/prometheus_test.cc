// A real Prometheus server (Debian's `prometheus`) on loopback scrapes a real capplan-server
// under a little load, with the shipped alert rules and a standing TCO scenario; every PromQL
// expression in both Grafana dashboards must return data and every rule must evaluate without
// error, through the Prometheus HTTP API.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "client/client.h"
#include "server_process.h"

namespace capplan::testing {
namespace {

std::string UrlEncode(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

// The "expr" strings of a Grafana dashboard JSON, unescaped, with the dashboard variable
// $scenario as its "All" value.
std::vector<std::string> DashboardExprs(const std::string& json) {
  std::vector<std::string> out;
  static const std::regex kExpr(R"re("expr":\s*"((?:[^"\\]|\\.)*)")re");
  for (std::sregex_iterator it(json.begin(), json.end(), kExpr), end; it != end; ++it) {
    std::string raw = (*it)[1], s;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '\\' && i + 1 < raw.size()) ++i;
      s += raw[i];
    }
    for (size_t at = s.find("$scenario"); at != std::string::npos; at = s.find("$scenario")) s.replace(at, 9, ".+");
    out.push_back(s);
  }
  return out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class PrometheusProcess {
 public:
  PrometheusProcess(const std::string& dir, int port) : port_(port) {
    pid_ = fork();
    if (pid_ == 0) {
      const std::string log = dir + "/prometheus.log";
      freopen(log.c_str(), "w", stdout);
      freopen(log.c_str(), "a", stderr);
      execl("/usr/bin/prometheus", "prometheus", ("--config.file=" + dir + "/prometheus.yml").c_str(),
            ("--storage.tsdb.path=" + dir + "/data").c_str(),
            ("--web.listen-address=127.0.0.1:" + std::to_string(port)).c_str(), "--log.level=warn",
            static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  ~PrometheusProcess() {
    kill(pid_, SIGTERM);
    RunProgram({"/bin/sh", "-c", "sleep 0"}, 1000);
    int status;
    for (int i = 0; i < 100 && waitpid(pid_, &status, WNOHANG) == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
  }
  std::string Get(const std::string& path) {
    int code = 0;
    return HttpGet(port_, path, &code);
  }

 private:
  pid_t pid_;
  int port_;
};

TEST(PrometheusTest, DashboardQueriesReturnDataAndRulesEvaluate) {
  if (access("/usr/bin/prometheus", X_OK) != 0) {
    GTEST_SKIP() << "prometheus not installed (scripts/install-deps.sh installs Debian's prometheus)";
  }
  TempDir dir;
  const std::string admin_token = "admin-token-0123456789abcdef";
  WriteTokenFile(dir.path() + "/tokens", admin_token + " ops admin\n");
  ServerProcess server({"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--db=" + dir.path() + "/c.db",
                        "--admin_token_file=" + dir.path() + "/tokens"});
  ASSERT_TRUE(server.started()) << server.Wait(0).stderr_text;
  const std::string deploy = std::string(CAPPLAN_SOURCE_DIR) + "/deploy";
  std::ofstream(dir.path() + "/prometheus.yml")
      << "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
      << "rule_files:\n  - " << deploy << "/prometheus/alerts.yml\n"
      << "scrape_configs:\n  - job_name: capplan\n    static_configs:\n      - targets: [\"127.0.0.1:"
      << server.metrics_port() << "\"]\n";
  const int port = UnusedLoopbackPort();
  PrometheusProcess prom(dir.path(), port);

  // A little load of every kind: health, plans, a refused admin write.
  client::ClientOptions o;
  o.server = server.grpc_address();
  client::Client c(o);
  capplan::v1::PlanRequest plan;
  plan.mutable_serving()->set_model_name("Llama-2-7B");
  plan.mutable_serving()->set_prompt_tokens(512);
  plan.mutable_serving()->set_output_tokens(128);
  plan.mutable_serving()->set_requests_per_second(35);
  // The TCO dashboard's scenario: the README's template (8 x A100 bought for $250,000, $5,000
  // a month to run, against $15,000 a month of rent) serving the workload above.
  client::ClientOptions ao = o;
  ao.admin_token = admin_token;
  capplan::v1::UpsertTcoScenarioRequest scenario;
  scenario.mutable_scenario()->set_name("own-or-rent-a100");
  capplan::v1::TcoRequest* tco = scenario.mutable_scenario()->mutable_request();
  *tco = ReadmeOwnOrRentRequest();
  *tco->mutable_serving() = plan.serving();
  absl::StatusOr<capplan::v1::WriteResponse> written = client::Client(ao).UpsertTcoScenario(scenario);
  ASSERT_TRUE(written.ok()) << written.status();
  // One that never breaks even, on an hourly rent so that use matters: the same 8 A100s
  // against the catalog's cheapest on-demand A100-SXM4-80GB price (the shipped AWS
  // p4de.24xlarge rows: $37.62-$40.97 an hour for 8 GPUs, from the AWS EC2 on-demand prices
  // their sources cite) at a 95% discount, at most $0.26 per GPU-hour: at most
  // 8 x 730 x 0.26 = $1,520 a month, below the $5,000 of running costs alone, so no month and
  // no use level makes owning cheaper.
  capplan::v1::UpsertTcoScenarioRequest never = scenario;
  never.mutable_scenario()->set_name("never-breaks-even");
  capplan::v1::TcoFleet* fleet = never.mutable_scenario()->mutable_request()->mutable_fleets(0);
  fleet->mutable_rent()->clear_price_usd_per_month();
  fleet->mutable_rent()->set_discount_fraction(0.95);
  never.mutable_scenario()->mutable_request()->clear_serving();
  written = client::Client(ao).UpsertTcoScenario(never);
  ASSERT_TRUE(written.ok()) << written.status();
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(6);
  while (std::chrono::steady_clock::now() < until) {
    (void)c.Health();
    (void)c.Plan(plan);
    (void)c.SetPrice(capplan::v1::SetPriceRequest());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // Wait until Prometheus has the target up and a few scrapes for rate() windows.
  bool up = false;
  for (int i = 0; i < 100 && !up; ++i) {
    up =
        prom.Get("/api/v1/query?query=" + UrlEncode("up{job=\"capplan\"} == 1")).find("\"value\"") != std::string::npos;
    if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_TRUE(up) << ReadFile(dir.path() + "/prometheus.log");
  std::this_thread::sleep_for(std::chrono::seconds(3));

  const std::vector<std::string> exprs = DashboardExprs(ReadFile(deploy + "/grafana/capplan-dashboard.json"));
  ASSERT_GE(exprs.size(), 8u);
  const std::vector<std::string> tco_exprs = DashboardExprs(ReadFile(deploy + "/grafana/capplan-tco.json"));
  ASSERT_GE(tco_exprs.size(), 6u);
  std::vector<std::string> all = exprs;
  all.insert(all.end(), tco_exprs.begin(), tco_exprs.end());
  for (const std::string& e : all) {
    const std::string body = prom.Get("/api/v1/query?query=" + UrlEncode(e));
    EXPECT_NE(body.find("\"status\":\"success\""), std::string::npos) << e << "\n" << body;
    EXPECT_EQ(body.find("\"result\":[]"), std::string::npos) << "no data for: " << e << "\n" << body;
  }
  // The break-even panels show "never" (a value mapping of -1) for the scenario that never
  // breaks even, and the README's month 25 for the other.
  int never_panels = 0;
  for (const std::string& e : tco_exprs) {
    if (e.find("capplan_tco_break_even_month{") != 0 && e.find("capplan_tco_break_even_utilization_fraction{") != 0) {
      continue;
    }
    ++never_panels;
    const std::string body = prom.Get("/api/v1/query?query=" + UrlEncode(e));
    const size_t at = body.find("\"scenario\":\"never-breaks-even\"");
    ASSERT_NE(at, std::string::npos) << e << "\n" << body;
    EXPECT_NE(body.find(",\"-1\"]", at), std::string::npos) << e << "\n" << body;
    if (e.find("capplan_tco_break_even_month{") == 0) {
      EXPECT_NE(body.find("\"scenario\":\"own-or-rent-a100\"},\"value\":["), std::string::npos) << body;
      EXPECT_NE(body.find(",\"25\"]"), std::string::npos) << body;
    }
  }
  EXPECT_EQ(never_panels, 2);  // the cash break-even month and the break-even use
  // Every rule evaluated, healthy.
  std::string rules;
  for (int i = 0; i < 50; ++i) {
    rules = prom.Get("/api/v1/rules");
    if (rules.find("\"health\":\"unknown\"") == std::string::npos &&
        rules.find("\"health\":\"ok\"") != std::string::npos)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  int ok = 0;
  for (size_t p = rules.find("\"health\":\"ok\""); p != std::string::npos; p = rules.find("\"health\":\"ok\"", p + 1))
    ++ok;
  EXPECT_EQ(ok, 9) << rules;  // every rule in deploy/prometheus/alerts.yml
  EXPECT_EQ(rules.find("\"health\":\"err\""), std::string::npos) << rules;
  // The shipped catalog's prices date from 2024, so the staleness alert is already pending:
  // proof that the gauge and the rule meet.
  EXPECT_NE(rules.find("CapplanStalePrices"), std::string::npos);
}

}  // namespace
}  // namespace capplan::testing
