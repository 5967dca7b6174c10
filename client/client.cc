#include "client/client.h"

#include <grpcpp/grpcpp.h>

#include <cstdlib>
#include <fstream>
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
    return absl::FailedPreconditionError(
        absl::StrCat("CAPPLAN_ADMIN_TOKEN_FILE ", path, ": cannot read"));
  }
  std::string line;
  while (std::getline(in, line)) {
    absl::string_view l = absl::StripAsciiWhitespace(line);
    if (l.empty() || l[0] == '#') continue;
    std::vector<absl::string_view> parts = absl::StrSplit(l, ' ', absl::SkipEmpty());
    return std::string(parts.front());
  }
  return absl::FailedPreconditionError(
      absl::StrCat("CAPPLAN_ADMIN_TOKEN_FILE ", path, ": no token in file"));
}

Client::Client(ClientOptions options) : options_(std::move(options)) {
  channel_ = grpc::CreateChannel(options_.server, grpc::InsecureChannelCredentials());
  planner_ = capplan::v1::PlannerService::NewStub(channel_);
  admin_ = capplan::v1::AdminService::NewStub(channel_);
  health_ = grpc::health::v1::Health::NewStub(channel_);
}

template <typename Request, typename Response, typename Method>
absl::Status Client::ReadCall(Method method, const Request& request, Response* response) {
  std::chrono::milliseconds backoff = options_.initial_backoff;
  const auto overall = std::chrono::system_clock::now() + options_.timeout;
  grpc::Status status;
  for (int attempt = 1; attempt <= options_.max_read_attempts; ++attempt) {
    grpc::ClientContext context;
    context.set_deadline(overall);
    status = method(&context, request, response);
    if (status.error_code() != grpc::StatusCode::UNAVAILABLE) break;
    if (std::chrono::system_clock::now() + backoff >= overall) break;
    std::this_thread::sleep_for(backoff);
    backoff *= 2;
  }
  return FromGrpc(status);
}

absl::StatusOr<std::string> Client::Health(const std::string& service) {
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  grpc::health::v1::HealthCheckResponse response;
  absl::Status s = ReadCall(
      [this](grpc::ClientContext* c, const auto& req, auto* resp) {
        return health_->Check(c, req, resp);
      },
      request, &response);
  if (!s.ok()) return s;
  return grpc::health::v1::HealthCheckResponse::ServingStatus_Name(response.status());
}

absl::StatusOr<capplan::v1::GetCatalogVersionResponse> Client::GetCatalogVersion() {
  capplan::v1::GetCatalogVersionResponse response;
  absl::Status s = ReadCall(
      [this](grpc::ClientContext* c, const auto& req, auto* resp) {
        return planner_->GetCatalogVersion(c, req, resp);
      },
      capplan::v1::GetCatalogVersionRequest(), &response);
  if (!s.ok()) return s;
  return response;
}

}  // namespace capplan::client
