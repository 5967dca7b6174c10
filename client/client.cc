#include "client/client.h"

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace capplan::client {

namespace {

absl::Status FromGrpc(const grpc::Status& s) {
  if (s.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
}

}  // namespace

absl::StatusOr<std::string> AdminTokenFromEnvironment() {
  if (const char* t = std::getenv("CAPPLAN_ADMIN_TOKEN"); t != nullptr && *t != '\0') {
    return std::string(t);
  }
  const char* path = std::getenv("CAPPLAN_ADMIN_TOKEN_FILE");
  if (path == nullptr || *path == '\0') return std::string();
  std::ifstream in(path);
  if (!in) {
    return absl::FailedPreconditionError(absl::StrCat("CAPPLAN_ADMIN_TOKEN_FILE ", path, ": cannot read"));
  }
  std::string line;
  while (std::getline(in, line)) {
    absl::string_view l = absl::StripAsciiWhitespace(line);
    if (l.empty() || l[0] == '#') continue;
    std::vector<absl::string_view> parts = absl::StrSplit(l, ' ', absl::SkipEmpty());
    return std::string(parts.front());
  }
  return absl::FailedPreconditionError(absl::StrCat("CAPPLAN_ADMIN_TOKEN_FILE ", path, ": no token in file"));
}

namespace {

absl::StatusOr<std::string> ReadFile(const std::string& path, const char* what) {
  std::ifstream in(path);
  if (!in) return absl::FailedPreconditionError(absl::StrCat(what, " ", path, ": cannot read"));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

Client::Client(ClientOptions options) : options_(std::move(options)) {
  std::shared_ptr<grpc::ChannelCredentials> creds = grpc::InsecureChannelCredentials();
  if (!options_.tls_ca_file.empty()) {
    grpc::SslCredentialsOptions ssl;
    absl::StatusOr<std::string> ca = ReadFile(options_.tls_ca_file, "tls_ca_file");
    if (ca.ok())
      ssl.pem_root_certs = *ca;
    else
      setup_ = ca.status();
    if (!options_.tls_cert_file.empty()) {
      absl::StatusOr<std::string> cert = ReadFile(options_.tls_cert_file, "tls_cert_file");
      absl::StatusOr<std::string> key = ReadFile(options_.tls_key_file, "tls_key_file");
      if (cert.ok() && key.ok()) {
        ssl.pem_cert_chain = *cert;
        ssl.pem_private_key = *key;
      } else if (setup_.ok()) {
        setup_ = cert.ok() ? key.status() : cert.status();
      }
    }
    creds = grpc::SslCredentials(ssl);
  }
  channel_ = grpc::CreateChannel(options_.server, creds);
  planner_ = capplan::v1::PlannerService::NewStub(channel_);
  admin_ = capplan::v1::AdminService::NewStub(channel_);
  health_ = grpc::health::v1::Health::NewStub(channel_);
}

namespace {

// 128 random bits in hex: unique enough that two writes never share one by accident.
std::string RandomRequestId() {
  static thread_local std::mt19937_64 rng{std::random_device{}() ^
                                          (static_cast<uint64_t>(std::random_device{}()) << 32)};
  return absl::StrCat(absl::Hex(rng(), absl::kZeroPad16), absl::Hex(rng(), absl::kZeroPad16));
}

}  // namespace

template <typename Request, typename Response, typename Method>
absl::Status Client::Call(Method method, const Request& request, Response* response, bool admin) {
  if (!setup_.ok()) return setup_;
  std::chrono::milliseconds backoff = options_.initial_backoff;
  const auto overall = std::chrono::system_clock::now() + options_.timeout;
  grpc::Status status;
  for (int attempt = 1; attempt <= options_.max_read_attempts; ++attempt) {
    grpc::ClientContext context;
    context.set_deadline(overall);
    if (admin && !options_.admin_token.empty()) {
      context.AddMetadata("authorization", "Bearer " + options_.admin_token);
    }
    status = method(&context, request, response);
    if (status.error_code() != grpc::StatusCode::UNAVAILABLE) break;
    if (std::chrono::system_clock::now() + backoff >= overall) break;
    std::this_thread::sleep_for(backoff);
    backoff *= 2;
  }
  return FromGrpc(status);
}

template <typename Request, typename Response, typename Method>
absl::Status Client::ReadCall(Method method, const Request& request, Response* response) {
  return Call(method, request, response, /*admin=*/false);
}

template <typename Request, typename Response, typename Method>
absl::Status Client::WriteCall(Method method, const Request& request, Response* response) {
  // With a request id the server applies a write at most once, so UNAVAILABLE (which may
  // come after the server committed) can be retried like a read.
  if (!request.request_id().empty()) return Call(method, request, response, /*admin=*/true);
  Request with_id = request;
  with_id.set_request_id(RandomRequestId());
  return Call(method, with_id, response, /*admin=*/true);
}

absl::StatusOr<std::string> Client::Health(const std::string& service) {
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  grpc::health::v1::HealthCheckResponse response;
  absl::Status s =
      ReadCall([this](grpc::ClientContext* c, const auto& req, auto* resp) { return health_->Check(c, req, resp); },
               request, &response);
  if (!s.ok()) return s;
  return grpc::health::v1::HealthCheckResponse::ServingStatus_Name(response.status());
}

absl::StatusOr<capplan::v1::GetCatalogVersionResponse> Client::GetCatalogVersion() {
  capplan::v1::GetCatalogVersionResponse response;
  absl::Status s = ReadCall(
      [this](grpc::ClientContext* c, const auto& req, auto* resp) { return planner_->GetCatalogVersion(c, req, resp); },
      capplan::v1::GetCatalogVersionRequest(), &response);
  if (!s.ok()) return s;
  return response;
}

// One typed wrapper per RPC: reads retry UNAVAILABLE; writes carry the token and a request id.
#define CAPPLAN_READ_RPC(Name, Stub, Request, Response)                                                                \
  absl::StatusOr<capplan::v1::Response> Client::Name(const capplan::v1::Request& req) {                                \
    capplan::v1::Response response;                                                                                    \
    absl::Status s = ReadCall(                                                                                         \
        [this](grpc::ClientContext* c, const auto& r, auto* out) { return (Stub)->Name(c, r, out); }, req, &response); \
    if (!s.ok()) return s;                                                                                             \
    return response;                                                                                                   \
  }
#define CAPPLAN_WRITE_RPC(Name, Request, Response)                                                                     \
  absl::StatusOr<capplan::v1::Response> Client::Name(const capplan::v1::Request& req) {                                \
    capplan::v1::Response response;                                                                                    \
    absl::Status s = WriteCall(                                                                                        \
        [this](grpc::ClientContext* c, const auto& r, auto* out) { return admin_->Name(c, r, out); }, req, &response); \
    if (!s.ok()) return s;                                                                                             \
    return response;                                                                                                   \
  }

absl::StatusOr<capplan::v1::ListAuditLogResponse> Client::ListAuditLog(
    const capplan::v1::ListAuditLogRequest& request) {
  capplan::v1::ListAuditLogResponse response;
  absl::Status s =
      Call([this](grpc::ClientContext* c, const auto& r, auto* out) { return admin_->ListAuditLog(c, r, out); },
           request, &response, /*admin=*/true);
  if (!s.ok()) return s;
  return response;
}

absl::StatusOr<capplan::v1::ListGpusResponse> Client::ListGpus() {
  capplan::v1::ListGpusResponse response;
  absl::Status s =
      ReadCall([this](grpc::ClientContext* c, const auto& r, auto* out) { return planner_->ListGpus(c, r, out); },
               capplan::v1::ListGpusRequest(), &response);
  if (!s.ok()) return s;
  return response;
}

absl::StatusOr<capplan::v1::ListModelsResponse> Client::ListModels() {
  capplan::v1::ListModelsResponse response;
  absl::Status s =
      ReadCall([this](grpc::ClientContext* c, const auto& r, auto* out) { return planner_->ListModels(c, r, out); },
               capplan::v1::ListModelsRequest(), &response);
  if (!s.ok()) return s;
  return response;
}

absl::StatusOr<capplan::v1::ListFabricsResponse> Client::ListFabrics() {
  capplan::v1::ListFabricsResponse response;
  absl::Status s =
      ReadCall([this](grpc::ClientContext* c, const auto& r, auto* out) { return planner_->ListFabrics(c, r, out); },
               capplan::v1::ListFabricsRequest(), &response);
  if (!s.ok()) return s;
  return response;
}

absl::StatusOr<capplan::v1::ListElectricityPricesResponse> Client::ListElectricityPrices() {
  capplan::v1::ListElectricityPricesResponse response;
  absl::Status s = ReadCall(
      [this](grpc::ClientContext* c, const auto& r, auto* out) { return planner_->ListElectricityPrices(c, r, out); },
      capplan::v1::ListElectricityPricesRequest(), &response);
  if (!s.ok()) return s;
  return response;
}

namespace {

// Fetches `request` and every following page, appending each page to the first; the result
// has no next_page_token.
template <typename Request, typename Fetch, typename Append>
auto FollowPages(Request request, Fetch fetch, Append append) -> decltype(fetch(request)) {
  auto all = fetch(request);
  if (!all.ok()) return all;
  std::string token = all->next_page_token();
  while (!token.empty()) {
    request.set_page_token(token);
    auto page = fetch(request);
    if (!page.ok()) return page.status();
    append(*all, *page);
    token = page->next_page_token();
  }
  all->clear_next_page_token();
  return all;
}

}  // namespace

absl::StatusOr<capplan::v1::ListInstancesResponse> Client::ListInstancesPage(
    const capplan::v1::ListInstancesRequest& req) {
  capplan::v1::ListInstancesResponse response;
  absl::Status s =
      ReadCall([this](grpc::ClientContext* c, const auto& r, auto* out) { return planner_->ListInstances(c, r, out); },
               req, &response);
  if (!s.ok()) return s;
  return response;
}

absl::StatusOr<capplan::v1::ListInstancesResponse> Client::ListInstances(const capplan::v1::ListInstancesRequest& req) {
  return FollowPages(
      req, [this](const capplan::v1::ListInstancesRequest& r) { return ListInstancesPage(r); },
      [](capplan::v1::ListInstancesResponse& all, const capplan::v1::ListInstancesResponse& page) {
        all.mutable_offers()->MergeFrom(page.offers());
        all.set_catalog_version(page.catalog_version());
      });
}

absl::StatusOr<capplan::v1::ListPriceHistoryResponse> Client::ListPriceHistoryPage(
    const capplan::v1::ListPriceHistoryRequest& req) {
  capplan::v1::ListPriceHistoryResponse response;
  absl::Status s = ReadCall(
      [this](grpc::ClientContext* c, const auto& r, auto* out) { return planner_->ListPriceHistory(c, r, out); }, req,
      &response);
  if (!s.ok()) return s;
  return response;
}

absl::StatusOr<capplan::v1::ListPriceHistoryResponse> Client::ListPriceHistory(
    const capplan::v1::ListPriceHistoryRequest& req) {
  return FollowPages(
      req, [this](const capplan::v1::ListPriceHistoryRequest& r) { return ListPriceHistoryPage(r); },
      [](capplan::v1::ListPriceHistoryResponse& all, const capplan::v1::ListPriceHistoryResponse& page) {
        all.mutable_prices()->MergeFrom(page.prices());
      });
}
CAPPLAN_READ_RPC(ListBenchmarks, planner_, ListBenchmarksRequest, ListBenchmarksResponse)
CAPPLAN_READ_RPC(Plan, planner_, PlanRequest, PlanResponse)
CAPPLAN_READ_RPC(Compare, planner_, CompareRequest, CompareResponse)
CAPPLAN_READ_RPC(Tco, planner_, TcoRequest, TcoResponse)
CAPPLAN_READ_RPC(Deploy, planner_, DeployRequest, DeployResponse)
CAPPLAN_WRITE_RPC(SetPrice, SetPriceRequest, WriteResponse)
CAPPLAN_WRITE_RPC(UpsertGpu, UpsertGpuRequest, WriteResponse)
CAPPLAN_WRITE_RPC(DeleteGpu, DeleteGpuRequest, WriteResponse)
CAPPLAN_WRITE_RPC(UpsertInstanceType, UpsertInstanceTypeRequest, WriteResponse)
CAPPLAN_WRITE_RPC(DeleteInstanceType, DeleteInstanceTypeRequest, WriteResponse)
CAPPLAN_WRITE_RPC(UpsertModel, UpsertModelRequest, WriteResponse)
CAPPLAN_WRITE_RPC(DeleteModel, DeleteModelRequest, WriteResponse)
CAPPLAN_WRITE_RPC(RecordBenchmark, RecordBenchmarkRequest, WriteResponse)
CAPPLAN_WRITE_RPC(DeleteBenchmark, DeleteBenchmarkRequest, WriteResponse)
CAPPLAN_WRITE_RPC(UpsertFabric, UpsertFabricRequest, WriteResponse)
CAPPLAN_WRITE_RPC(DeleteFabric, DeleteFabricRequest, WriteResponse)
CAPPLAN_WRITE_RPC(UpsertElectricityPrice, UpsertElectricityPriceRequest, WriteResponse)
CAPPLAN_WRITE_RPC(DeleteElectricityPrice, DeleteElectricityPriceRequest, WriteResponse)
CAPPLAN_WRITE_RPC(ImportPricesCsv, ImportPricesCsvRequest, ImportPricesCsvResponse)
CAPPLAN_WRITE_RPC(ImportBenchmark, ImportBenchmarkRequest, ImportBenchmarkResponse)
CAPPLAN_WRITE_RPC(UpsertTcoScenario, UpsertTcoScenarioRequest, WriteResponse)
CAPPLAN_WRITE_RPC(DeleteTcoScenario, DeleteTcoScenarioRequest, WriteResponse)

absl::StatusOr<capplan::v1::ListTcoScenariosResponse> Client::ListTcoScenarios() {
  capplan::v1::ListTcoScenariosResponse response;
  absl::Status s = ReadCall(
      [this](grpc::ClientContext* c, const auto& r, auto* out) { return planner_->ListTcoScenarios(c, r, out); },
      capplan::v1::ListTcoScenariosRequest(), &response);
  if (!s.ok()) return s;
  return response;
}

#undef CAPPLAN_READ_RPC
#undef CAPPLAN_WRITE_RPC

}  // namespace capplan::client
