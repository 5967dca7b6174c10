// The client library and the CLI cover the whole API: every RPC of every capplan service
// (read from the generated descriptor pool, so a new RPC fails this test until it has an
// entry below) has a Client method and a CLI command. Plus the row deletes through the CLI.
#include <google/protobuf/descriptor.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "admin_server.h"
#include "capplan/v1/admin.grpc.pb.h"
#include "capplan/v1/planner.grpc.pb.h"
#include "client/client.h"
#include "server_process.h"

namespace capplan::testing {
namespace {

// Names the Client member, so an entry for a method the library lacks does not compile.
#define CLIENT_METHOD(Name) (static_cast<void>(&client::Client::Name), #Name)

struct Coverage {
  const char* client_method;
  std::string cli_command;  // the words after `capplan`
  std::string cli_flag;     // a flag of that command the RPC needs ("" when the command is enough)
};

// RPC (full name) -> the client method and the CLI command that call it.
const std::map<std::string, Coverage>& CoverageTable() {
  static const auto* table = new std::map<std::string, Coverage>{
      {"capplan.v1.PlannerService.Plan", {CLIENT_METHOD(Plan), "plan training", ""}},
      {"capplan.v1.PlannerService.WatchPlan", {CLIENT_METHOD(WatchPlan), "plan training", "--watch"}},
      {"capplan.v1.PlannerService.Compare", {CLIENT_METHOD(Compare), "compare serving", ""}},
      {"capplan.v1.PlannerService.Tco", {CLIENT_METHOD(Tco), "tco", ""}},
      {"capplan.v1.PlannerService.Deploy", {CLIENT_METHOD(Deploy), "deploy serving", "--target"}},
      {"capplan.v1.PlannerService.GetCatalogVersion", {CLIENT_METHOD(GetCatalogVersion), "catalog version", ""}},
      {"capplan.v1.PlannerService.ListGpus", {CLIENT_METHOD(ListGpus), "catalog gpus", ""}},
      {"capplan.v1.PlannerService.ListModels", {CLIENT_METHOD(ListModels), "catalog models", ""}},
      {"capplan.v1.PlannerService.ListInstances", {CLIENT_METHOD(ListInstances), "catalog instances", ""}},
      {"capplan.v1.PlannerService.ListPriceHistory", {CLIENT_METHOD(ListPriceHistory), "catalog prices", ""}},
      {"capplan.v1.PlannerService.ListBenchmarks", {CLIENT_METHOD(ListBenchmarks), "catalog benchmarks", ""}},
      {"capplan.v1.PlannerService.ListFabrics", {CLIENT_METHOD(ListFabrics), "catalog fabrics", ""}},
      {"capplan.v1.PlannerService.ListElectricityPrices",
       {CLIENT_METHOD(ListElectricityPrices), "catalog electricity", ""}},
      {"capplan.v1.PlannerService.ListTcoScenarios", {CLIENT_METHOD(ListTcoScenarios), "catalog tco-scenarios", ""}},
      {"capplan.v1.AdminService.UpsertGpu", {CLIENT_METHOD(UpsertGpu), "admin upsert-gpu", ""}},
      {"capplan.v1.AdminService.DeleteGpu", {CLIENT_METHOD(DeleteGpu), "admin delete-gpu", ""}},
      {"capplan.v1.AdminService.UpsertInstanceType", {CLIENT_METHOD(UpsertInstanceType), "admin upsert-instance", ""}},
      {"capplan.v1.AdminService.DeleteInstanceType", {CLIENT_METHOD(DeleteInstanceType), "admin delete-instance", ""}},
      {"capplan.v1.AdminService.UpsertModel", {CLIENT_METHOD(UpsertModel), "admin upsert-model", ""}},
      {"capplan.v1.AdminService.DeleteModel", {CLIENT_METHOD(DeleteModel), "admin delete-model", ""}},
      {"capplan.v1.AdminService.SetPrice", {CLIENT_METHOD(SetPrice), "admin set-price", ""}},
      {"capplan.v1.AdminService.RecordBenchmark", {CLIENT_METHOD(RecordBenchmark), "admin record-benchmark", ""}},
      {"capplan.v1.AdminService.DeleteBenchmark", {CLIENT_METHOD(DeleteBenchmark), "admin delete-benchmark", ""}},
      {"capplan.v1.AdminService.UpsertFabric", {CLIENT_METHOD(UpsertFabric), "admin upsert-fabric", ""}},
      {"capplan.v1.AdminService.DeleteFabric", {CLIENT_METHOD(DeleteFabric), "admin delete-fabric", ""}},
      {"capplan.v1.AdminService.UpsertElectricityPrice",
       {CLIENT_METHOD(UpsertElectricityPrice), "admin upsert-electricity", ""}},
      {"capplan.v1.AdminService.DeleteElectricityPrice",
       {CLIENT_METHOD(DeleteElectricityPrice), "admin delete-electricity", ""}},
      {"capplan.v1.AdminService.ImportPricesCsv", {CLIENT_METHOD(ImportPricesCsv), "admin import-csv", ""}},
      {"capplan.v1.AdminService.ImportBenchmark", {CLIENT_METHOD(ImportBenchmark), "admin import-benchmark", ""}},
      {"capplan.v1.AdminService.ListAuditLog", {CLIENT_METHOD(ListAuditLog), "admin audit", ""}},
      {"capplan.v1.AdminService.UpsertTcoScenario",
       {CLIENT_METHOD(UpsertTcoScenario), "admin upsert-tco-scenario", ""}},
      {"capplan.v1.AdminService.DeleteTcoScenario",
       {CLIENT_METHOD(DeleteTcoScenario), "admin delete-tco-scenario", ""}},
  };
  return *table;
}

#undef CLIENT_METHOD

// Every method of every service in proto/capplan/v1/, from the generated descriptor pool
// (each .proto file in the source tree, so a new file's service is seen too).
std::set<std::string> ApiMethods() {
  std::set<std::string> out;
  const std::string dir = std::string(CAPPLAN_SOURCE_DIR) + "/proto/capplan/v1";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".proto") continue;
    const std::string name = "capplan/v1/" + entry.path().filename().string();
    const google::protobuf::FileDescriptor* file =
        google::protobuf::DescriptorPool::generated_pool()->FindFileByName(name);
    EXPECT_NE(file, nullptr) << name << " is not in the generated pool (not linked into capplan_proto?)";
    if (file == nullptr) continue;
    for (int s = 0; s < file->service_count(); ++s) {
      const google::protobuf::ServiceDescriptor* service = file->service(s);
      for (int m = 0; m < service->method_count(); ++m) out.insert(service->method(m)->full_name());
    }
  }
  return out;
}

TEST(ApiCoverageTest, EveryRpcHasAClientMethodAndACliCommand) {
  const std::set<std::string> methods = ApiMethods();
  // Plan, WatchPlan, Compare, Tco and the catalog reads; the admin writes, import and audit.
  ASSERT_GE(methods.size(), 30u);
  for (const std::string& m : methods) {
    EXPECT_EQ(CoverageTable().count(m), 1u)
        << m << " has no entry in CoverageTable: add its Client method (client/client.h) and CLI command";
  }
  for (const auto& [rpc, coverage] : CoverageTable()) {
    EXPECT_EQ(methods.count(rpc), 1u) << rpc << " is in CoverageTable but not in the protos";
  }
}

TEST(ApiCoverageTest, EveryCliCommandInTheTableAnswersHelp) {
  for (const auto& [rpc, coverage] : CoverageTable()) {
    std::vector<std::string> args = {CAPPLAN_CLI_BINARY};
    for (absl::string_view word : absl::StrSplit(coverage.cli_command, ' ')) args.emplace_back(word);
    args.emplace_back("--help");
    ExitResult help = RunProgram(args, 30000);
    EXPECT_EQ(help.exit_code, 0) << rpc << ": capplan " << coverage.cli_command << " --help\n" << help.stderr_text;
    // Each command's help starts with its own path, so a group's fallback usage cannot pass.
    EXPECT_EQ(help.stdout_text.rfind("capplan " + coverage.cli_command + ":", 0), 0u) << rpc << "\n"
                                                                                      << help.stdout_text;
    if (!coverage.cli_flag.empty()) {
      EXPECT_NE(help.stdout_text.find(coverage.cli_flag), std::string::npos) << rpc << "\n" << help.stdout_text;
    }
  }
}

// The row writes the CLI lacked until the coverage test: a model written from a JSON file
// and deleted again; a GPU no instance type names deleted, one in use refused.
class CliRowDeleteTest : public AdminServerTest {
 protected:
  ExitResult Run(std::vector<std::string> args) {
    args.insert(args.begin(), {CAPPLAN_CLI_BINARY, "--server=" + server_->grpc_address()});
    return RunProgram(args, 30000, {{"CAPPLAN_ADMIN_TOKEN", kAdminToken}});
  }
  bool HasModel(const std::string& name) {
    const absl::StatusOr<v1::ListModelsResponse> models = MakeClient(kReadToken).ListModels();
    EXPECT_TRUE(models.ok()) << models.status();
    if (!models.ok()) return false;
    for (const v1::ModelArchitecture& m : models->models()) {
      if (m.name() == name) return true;
    }
    return false;
  }
  bool HasGpu(const std::string& name) {
    const absl::StatusOr<v1::ListGpusResponse> gpus = MakeClient(kReadToken).ListGpus();
    EXPECT_TRUE(gpus.ok()) << gpus.status();
    if (!gpus.ok()) return false;
    for (const v1::Gpu& g : gpus->gpus()) {
      if (g.name() == name) return true;
    }
    return false;
  }
};

TEST_F(CliRowDeleteTest, UpsertsAndDeletesAModel) {
  // BLOOM-560m's shape (bigscience/bloom-560m config.json: 24 layers, hidden 1024, 16 heads).
  const std::string file = dir_.path() + "/model.json";
  std::ofstream(file) << R"({"name":"lab-560m","num_layers":24,"hidden_size":1024,"num_attention_heads":16,)"
                      << R"("num_kv_heads":16,"ffn_hidden_size":4096,"vocab_size":250880,"tied_embeddings":true,)"
                      << R"("max_context_tokens":2048,"source":{"citation":"lab test","as_of_date":"2026-12-01"}})";
  ExitResult up = Run({"admin", "upsert-model", "--file=" + file});
  ASSERT_EQ(up.exit_code, 0) << up.stderr_text;
  EXPECT_TRUE(HasModel("lab-560m"));
  ExitResult del = Run({"admin", "delete-model", "--name=lab-560m"});
  ASSERT_EQ(del.exit_code, 0) << del.stderr_text;
  EXPECT_NE(del.stdout_text.find("model lab-560m deleted"), std::string::npos) << del.stdout_text;
  EXPECT_FALSE(HasModel("lab-560m"));
  ExitResult again = Run({"admin", "delete-model", "--name=lab-560m"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.stderr_text.find("NOT_FOUND"), std::string::npos) << again.stderr_text;
}

TEST_F(CliRowDeleteTest, DeletesAnUnusedGpuAndRefusesOneInUse) {
  // The shipped catalog offers T4s (AWS g4dn) but no P4 instance.
  ExitResult used = Run({"admin", "delete-gpu", "--name=T4"});
  EXPECT_EQ(used.exit_code, 1);
  EXPECT_NE(used.stderr_text.find("FAILED_PRECONDITION"), std::string::npos) << used.stderr_text;
  EXPECT_TRUE(HasGpu("T4"));
  ExitResult del = Run({"admin", "delete-gpu", "--name=P4"});
  ASSERT_EQ(del.exit_code, 0) << del.stderr_text;
  EXPECT_FALSE(HasGpu("P4"));
  ExitResult missing = Run({"admin", "delete-gpu"});
  EXPECT_EQ(missing.exit_code, 2);  // usage error: --name is required
}

}  // namespace
}  // namespace capplan::testing
