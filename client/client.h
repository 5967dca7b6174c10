// A small typed client for capplan: every call has a deadline and returns absl::StatusOr;
// read-only calls retry UNAVAILABLE with exponential backoff.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "capplan/v1/admin.grpc.pb.h"
#include "capplan/v1/planner.grpc.pb.h"
#include "client/watch.h"
#include "grpc/health/v1/health.grpc.pb.h"

namespace capplan::client {

struct ClientOptions {
  std::string server = "127.0.0.1:50051";
  std::chrono::milliseconds timeout{5000};
  int max_read_attempts = 4;  // reads, and writes (which carry a request id)
  std::chrono::milliseconds initial_backoff{50};
  std::string admin_token;  // sent as "authorization: Bearer <token>" on admin calls
  // TLS: the CA that signed the server's certificate (PEM file); empty: plaintext. For mTLS
  // also this client's certificate and key.
  std::string tls_ca_file;
  std::string tls_cert_file;
  std::string tls_key_file;
};

// The admin token from CAPPLAN_ADMIN_TOKEN, or else the first token in the file named by
// CAPPLAN_ADMIN_TOKEN_FILE; empty when neither is set.
absl::StatusOr<std::string> AdminTokenFromEnvironment();

class Client {
 public:
  // A client whose TLS files cannot be read still constructs; every call then fails with
  // that reason.
  explicit Client(ClientOptions options);

  // The health service's status for `service` ("" = the whole server): "SERVING", ...
  absl::StatusOr<std::string> Health(const std::string& service = "");
  absl::StatusOr<capplan::v1::GetCatalogVersionResponse> GetCatalogVersion();
  absl::StatusOr<capplan::v1::ListGpusResponse> ListGpus();
  absl::StatusOr<capplan::v1::ListModelsResponse> ListModels();
  absl::StatusOr<capplan::v1::ListFabricsResponse> ListFabrics();
  absl::StatusOr<capplan::v1::ListElectricityPricesResponse> ListElectricityPrices();
  absl::StatusOr<capplan::v1::ListTcoScenariosResponse> ListTcoScenarios();
  // Every page, merged (catalog_version from the last page). The *Page calls fetch one.
  absl::StatusOr<capplan::v1::ListInstancesResponse> ListInstances(const capplan::v1::ListInstancesRequest& request);
  absl::StatusOr<capplan::v1::ListInstancesResponse> ListInstancesPage(
      const capplan::v1::ListInstancesRequest& request);
  absl::StatusOr<capplan::v1::ListPriceHistoryResponse> ListPriceHistory(
      const capplan::v1::ListPriceHistoryRequest& request);
  absl::StatusOr<capplan::v1::ListPriceHistoryResponse> ListPriceHistoryPage(
      const capplan::v1::ListPriceHistoryRequest& request);
  absl::StatusOr<capplan::v1::ListBenchmarksResponse> ListBenchmarks(const capplan::v1::ListBenchmarksRequest& request);
  absl::StatusOr<capplan::v1::PlanResponse> Plan(const capplan::v1::PlanRequest& request);
  // Streams Plan's answer and each later change worth telling (see client/watch.h). Blocks
  // until `on_update` returns false or `canceller` is cancelled (OK), or the stream ends with
  // an error other than UNAVAILABLE or a server's CANCELLED (INVALID_ARGUMENT for a bad
  // request comes at once), or WatchOptions::max_reconnects fail in a row (UNAVAILABLE).
  absl::Status WatchPlan(const capplan::v1::WatchPlanRequest& request, const WatchCallback& on_update,
                         WatchCanceller* canceller = nullptr, const WatchOptions& options = WatchOptions());
  absl::StatusOr<capplan::v1::CompareResponse> Compare(const capplan::v1::CompareRequest& request);
  absl::StatusOr<capplan::v1::TcoResponse> Tco(const capplan::v1::TcoRequest& request);
  absl::StatusOr<capplan::v1::DeployResponse> Deploy(const capplan::v1::DeployRequest& request);

  // Admin writes, with the admin token. A request without a request_id gets a random one, so
  // retrying UNAVAILABLE (up to max_read_attempts) never applies a write twice.
  absl::StatusOr<capplan::v1::WriteResponse> SetPrice(const capplan::v1::SetPriceRequest& request);
  absl::StatusOr<capplan::v1::WriteResponse> UpsertGpu(const capplan::v1::UpsertGpuRequest& request);
  absl::StatusOr<capplan::v1::WriteResponse> DeleteGpu(const capplan::v1::DeleteGpuRequest& request);
  absl::StatusOr<capplan::v1::WriteResponse> UpsertInstanceType(const capplan::v1::UpsertInstanceTypeRequest& request);
  absl::StatusOr<capplan::v1::WriteResponse> DeleteInstanceType(const capplan::v1::DeleteInstanceTypeRequest& request);
  absl::StatusOr<capplan::v1::WriteResponse> UpsertModel(const capplan::v1::UpsertModelRequest& request);
  absl::StatusOr<capplan::v1::WriteResponse> DeleteModel(const capplan::v1::DeleteModelRequest& request);
  absl::StatusOr<capplan::v1::WriteResponse> RecordBenchmark(const capplan::v1::RecordBenchmarkRequest& request);
  absl::StatusOr<capplan::v1::WriteResponse> DeleteBenchmark(const capplan::v1::DeleteBenchmarkRequest& request);
  absl::StatusOr<capplan::v1::WriteResponse> UpsertFabric(const capplan::v1::UpsertFabricRequest& request);
  absl::StatusOr<capplan::v1::WriteResponse> DeleteFabric(const capplan::v1::DeleteFabricRequest& request);
  absl::StatusOr<capplan::v1::WriteResponse> UpsertElectricityPrice(
      const capplan::v1::UpsertElectricityPriceRequest& request);
  absl::StatusOr<capplan::v1::WriteResponse> DeleteElectricityPrice(
      const capplan::v1::DeleteElectricityPriceRequest& request);
  absl::StatusOr<capplan::v1::ImportPricesCsvResponse> ImportPricesCsv(
      const capplan::v1::ImportPricesCsvRequest& request);
  absl::StatusOr<capplan::v1::ImportBenchmarkResponse> ImportBenchmark(
      const capplan::v1::ImportBenchmarkRequest& request);
  // A read with the admin token (a read-role token is enough); retried like other reads.
  absl::StatusOr<capplan::v1::ListAuditLogResponse> ListAuditLog(const capplan::v1::ListAuditLogRequest& request);
  absl::StatusOr<capplan::v1::WriteResponse> UpsertTcoScenario(const capplan::v1::UpsertTcoScenarioRequest& request);
  absl::StatusOr<capplan::v1::WriteResponse> DeleteTcoScenario(const capplan::v1::DeleteTcoScenarioRequest& request);

  const ClientOptions& options() const { return options_; }

 private:
  template <typename Request, typename Response, typename Method>
  absl::Status Call(Method method, const Request& request, Response* response, bool admin);
  template <typename Request, typename Response, typename Method>
  absl::Status ReadCall(Method method, const Request& request, Response* response);
  template <typename Request, typename Response, typename Method>
  absl::Status WriteCall(Method method, const Request& request, Response* response);

  ClientOptions options_;
  absl::Status setup_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<capplan::v1::PlannerService::Stub> planner_;
  std::unique_ptr<capplan::v1::AdminService::Stub> admin_;
  std::unique_ptr<grpc::health::v1::Health::Stub> health_;
};

}  // namespace capplan::client
