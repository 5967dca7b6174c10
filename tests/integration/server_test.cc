// The real capplan-server binary: health, reflection, metrics (validated by promtool),
// graceful drain on SIGTERM, and startup failures.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>

#include "client/client.h"
#include "reflection_v1alpha.grpc.pb.h"
#include "server_process.h"

namespace capplan::testing {
namespace {

std::vector<std::string> BaseArgs(const TempDir& dir) {
  return {"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--db=" + dir.path() + "/catalog.db",
          "--shutdown_grace=2s"};
}

client::Client MakeClient(const ServerProcess& server) {
  client::ClientOptions o;
  o.server = server.grpc_address();
  return client::Client(o);
}

std::set<std::string> ReflectedServices(const std::string& address) {
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  auto stub = grpc::reflection::v1alpha::ServerReflection::NewStub(channel);
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  auto stream = stub->ServerReflectionInfo(&ctx);
  grpc::reflection::v1alpha::ServerReflectionRequest req;
  req.set_list_services("*");
  stream->Write(req);
  stream->WritesDone();
  std::set<std::string> names;
  grpc::reflection::v1alpha::ServerReflectionResponse resp;
  while (stream->Read(&resp)) {
    for (const auto& s : resp.list_services_response().service()) names.insert(s.name());
  }
  stream->Finish();
  return names;
}

TEST(ServerIntegrationTest, ServesHealthReflectionAndValidMetricsThenStopsOnSigterm) {
  TempDir dir;
  ServerProcess server(BaseArgs(dir));
  ASSERT_TRUE(server.started()) << server.Wait(0).stderr_text;
  EXPECT_NE(server.banner().find("catalog version 1"), std::string::npos) << server.banner();

  client::Client client = MakeClient(server);
  absl::StatusOr<std::string> health = client.Health();
  ASSERT_TRUE(health.ok()) << health.status();
  EXPECT_EQ(*health, "SERVING");

  const std::set<std::string> services = ReflectedServices(server.grpc_address());
  EXPECT_TRUE(services.count("capplan.v1.PlannerService")) << services.size();
  EXPECT_TRUE(services.count("capplan.v1.AdminService"));
  EXPECT_TRUE(services.count("grpc.health.v1.Health"));

  absl::StatusOr<capplan::v1::GetCatalogVersionResponse> version = client.GetCatalogVersion();
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(version->catalog_version(), 1);
  EXPECT_GE(version->schema_version(), 1);

  // A Plan with no workload is refused, and the metrics record the code.
  {
    auto channel = grpc::CreateChannel(server.grpc_address(), grpc::InsecureChannelCredentials());
    auto stub = capplan::v1::PlannerService::NewStub(channel);
    grpc::ClientContext ctx;
    capplan::v1::PlanResponse resp;
    grpc::Status s = stub->Plan(&ctx, capplan::v1::PlanRequest(), &resp);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(s.error_message(), "workload: set training or serving");
  }

  int http_status = 0;
  const std::string metrics = HttpGet(server.metrics_port(), "/metrics", &http_status);
  ASSERT_EQ(http_status, 200);
  EXPECT_NE(metrics.find("grpc_server_handled_total{grpc_code=\"OK\",grpc_method=\"Check\","
                         "grpc_service=\"grpc.health.v1.Health\",grpc_type=\"unary\"} 1"),
            std::string::npos)
      << metrics.substr(0, 2000);
  EXPECT_NE(metrics.find("grpc_server_handled_total{grpc_code=\"InvalidArgument\",grpc_method=\"Plan\","
                         "grpc_service=\"capplan.v1.PlannerService\",grpc_type=\"unary\"} 1"),
            std::string::npos);
  EXPECT_NE(metrics.find("grpc_server_handling_seconds_count{grpc_method=\"GetCatalogVersion\","
                         "grpc_service=\"capplan.v1.PlannerService\",grpc_type=\"unary\"} 1"),
            std::string::npos);
  EXPECT_NE(metrics.find("capplan_catalog_version 1"), std::string::npos);
  EXPECT_NE(metrics.find("capplan_build_info{version=\""), std::string::npos);

  const std::string promtool = CAPPLAN_PROMTOOL;
  ASSERT_FALSE(promtool.empty()) << "promtool not found; scripts/install-deps.sh installs it";
  const std::string file = dir.path() + "/metrics.txt";
  std::ofstream(file) << metrics;
  ExitResult check = RunProgram({"/bin/sh", "-c", promtool + " check metrics < " + file}, 30000);
  EXPECT_EQ(check.exit_code, 0) << check.stdout_text << check.stderr_text;

  server.Signal(SIGTERM);
  ExitResult exit = server.Wait(15000);
  EXPECT_EQ(exit.exit_code, 0) << exit.stderr_text;
  EXPECT_NE(exit.stdout_text.find("stopped"), std::string::npos);
}

TEST(ServerIntegrationTest, DrainingFlipsHealthToNotServingThenExitsZero) {
  TempDir dir;
  ServerProcess server(BaseArgs(dir));
  ASSERT_TRUE(server.started()) << server.Wait(0).stderr_text;
  auto channel = grpc::CreateChannel(server.grpc_address(), grpc::InsecureChannelCredentials());
  auto stub = grpc::health::v1::Health::NewStub(channel);
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  auto watch = stub->Watch(&ctx, grpc::health::v1::HealthCheckRequest());
  grpc::health::v1::HealthCheckResponse resp;
  ASSERT_TRUE(watch->Read(&resp));
  EXPECT_EQ(resp.status(), grpc::health::v1::HealthCheckResponse::SERVING);

  const auto t0 = std::chrono::steady_clock::now();
  server.Signal(SIGTERM);
  ASSERT_TRUE(watch->Read(&resp));
  EXPECT_EQ(resp.status(), grpc::health::v1::HealthCheckResponse::NOT_SERVING);
  ExitResult exit = server.Wait(15000);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(exit.exit_code, 0) << exit.stderr_text;
  // The open Watch stream is an in-flight call: the server waits for it no longer than the
  // 2 s grace period (plus process teardown) before cancelling it.
  EXPECT_LT(seconds, 8.0);
}

TEST(ServerIntegrationTest, SigintAlsoStopsCleanly) {
  TempDir dir;
  ServerProcess server(BaseArgs(dir));
  ASSERT_TRUE(server.started());
  server.Signal(SIGINT);
  EXPECT_EQ(server.Wait(15000).exit_code, 0);
}

TEST(ServerIntegrationTest, PortTakenFailsWithOneLineNamingTheAddress) {
  TempDir dir;
  ServerProcess first(BaseArgs(dir));
  ASSERT_TRUE(first.started());
  ExitResult second = RunProgram({CAPPLAN_SERVER_BINARY, "--listen=" + first.grpc_address(),
                                  "--metrics_listen=127.0.0.1:0", "--db=" + dir.path() + "/other.db"},
                                 20000);
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_NE(second.stderr_text.find("capplan-server: cannot listen on " + first.grpc_address()), std::string::npos)
      << second.stderr_text;
}

TEST(ServerIntegrationTest, UnreadableDatabaseFailsNamingThePath) {
  TempDir dir;
  const std::string db = dir.path() + "/missing-dir/catalog.db";
  ExitResult r =
      RunProgram({CAPPLAN_SERVER_BINARY, "--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--db=" + db}, 20000);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.stderr_text.find("capplan-server: database " + db), std::string::npos) << r.stderr_text;
}

TEST(ServerIntegrationTest, NewerSchemaIsRefused) {
  TempDir dir;
  const std::string db = dir.path() + "/catalog.db";
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw,
                         "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT "
                         "NOT NULL, applied_unix_seconds INTEGER NOT NULL);"
                         "INSERT INTO schema_migrations VALUES (999, 'future', 0);",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  ExitResult r =
      RunProgram({CAPPLAN_SERVER_BINARY, "--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--db=" + db}, 20000);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.stderr_text.find("schema version 999, newer than this binary knows"), std::string::npos) << r.stderr_text;
}

TEST(ServerIntegrationTest, EnvironmentFallbackAndFlagPrecedence) {
  TempDir dir;
  const std::string env_db = dir.path() + "/from-env.db";
  {
    ServerProcess server({"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0"}, {{"CAPPLAN_DB", env_db}});
    ASSERT_TRUE(server.started()) << server.Wait(0).stderr_text;
    EXPECT_NE(server.banner().find("from " + env_db), std::string::npos) << server.banner();
  }
  EXPECT_TRUE(std::filesystem::exists(env_db));
  const std::string flag_db = dir.path() + "/from-flag.db";
  ServerProcess server({"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--db=" + flag_db},
                       {{"CAPPLAN_DB", env_db}});
  ASSERT_TRUE(server.started());
  EXPECT_NE(server.banner().find("from " + flag_db), std::string::npos) << server.banner();
}

TEST(ServerIntegrationTest, BadTokenFileFailsStartup) {
  TempDir dir;
  const std::string tokens = dir.path() + "/tokens";
  WriteTokenFile(tokens, "tooshort someone admin\n");
  std::vector<std::string> args = {CAPPLAN_SERVER_BINARY};
  for (const std::string& a : BaseArgs(dir)) args.push_back(a);
  args.push_back("--admin_token_file=" + tokens);
  ExitResult r = RunProgram(args, 20000);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.stderr_text.find("line 1, field 1 (token): want 16-256 characters"), std::string::npos) << r.stderr_text;
}

// Like ssh with a private key: a token file others may read fails start-up with one line that
// names the file, its mode and the fix; the explicit environment switch admits group read.
TEST(ServerIntegrationTest, SharedTokenFileFailsStartupUnlessGroupReadIsAllowed) {
  TempDir dir;
  const std::string tokens = dir.path() + "/tokens";
  WriteTokenFile(tokens, "0123456789abcdef0123 alice admin\n");
  ASSERT_EQ(chmod(tokens.c_str(), 0640), 0);
  std::vector<std::string> args = {CAPPLAN_SERVER_BINARY};
  for (const std::string& a : BaseArgs(dir)) args.push_back(a);
  args.push_back("--admin_token_file=" + tokens);
  ExitResult r = RunProgram(args, 20000);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.stderr_text.find(tokens + ": mode 0640"), std::string::npos) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("chmod 600 " + tokens), std::string::npos) << r.stderr_text;

  ServerProcess server(std::vector<std::string>(args.begin() + 1, args.end()),
                       {{"CAPPLAN_ADMIN_TOKEN_FILE_ALLOW_GROUP_READ", "1"}});
  EXPECT_TRUE(server.started()) << server.Wait(0).stderr_text;
}

TEST(CliIntegrationTest, HealthAndCatalogVersion) {
  TempDir dir;
  ServerProcess server(BaseArgs(dir));
  ASSERT_TRUE(server.started());
  ExitResult health = RunProgram({CAPPLAN_CLI_BINARY, "--server=" + server.grpc_address(), "health"}, 20000);
  EXPECT_EQ(health.exit_code, 0) << health.stderr_text;
  EXPECT_EQ(health.stdout_text, "SERVING\n");
  ExitResult version =
      RunProgram({CAPPLAN_CLI_BINARY, "--server=" + server.grpc_address(), "--json", "catalog", "version"}, 20000);
  EXPECT_EQ(version.exit_code, 0) << version.stderr_text;
  EXPECT_NE(version.stdout_text.find("\"catalog_version\": \"1\""), std::string::npos) << version.stdout_text;
  // A server that is not there: non-zero exit and the status on stderr.
  ExitResult down = RunProgram({CAPPLAN_CLI_BINARY, "--server=127.0.0.1:1", "--timeout=1s", "health"}, 20000);
  EXPECT_EQ(down.exit_code, 1);
  EXPECT_NE(down.stderr_text.find("capplan: UNAVAILABLE"), std::string::npos) << down.stderr_text;
}

}  // namespace
}  // namespace capplan::testing
