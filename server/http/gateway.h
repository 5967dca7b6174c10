// The generic HTTP/JSON -> gRPC translation: one handler for every route. It matches the
// route, turns the JSON body (or the query string) into the request message with protobuf's
// JSON parser, calls the method on the in-process channel with grpc::GenericStub, and prints
// the response (or the error) as JSON.
#pragma once

#include <google/protobuf/util/type_resolver.h>
#include <grpcpp/channel.h>
#include <grpcpp/generic/generic_stub.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "server/http/json_memo.h"
#include "server/http/routes.h"

namespace capplan::server::http {

// X-Capplan-Timeout-Ms: the caller's deadline for one request, counted from when its
// headers arrived; 1..kMaxTimeoutMs.
inline constexpr char kTimeoutHeader[] = "X-Capplan-Timeout-Ms";
inline constexpr int kMaxTimeoutMs = 300000;

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // without the query
  std::string query;   // without '?'
  std::string authorization;
  std::string timeout_ms;  // the header's text; empty when absent
  std::string body;
  std::chrono::steady_clock::time_point received = std::chrono::steady_clock::now();
};

struct HttpResponse {
  int status = 200;
  std::string body;             // JSON
  std::string allow;            // for 405: the route's method
  std::string route = "other";  // metric label: the route's path, or "other"
};

class Gateway {
 public:
  // `channel` reaches the gRPC server in-process. `openapi_json` is served at kOpenApiPath.
  Gateway(std::vector<Route> routes, std::shared_ptr<grpc::Channel> channel, std::string openapi_json,
          int default_timeout_ms);

  HttpResponse Handle(const HttpRequest& request);

  // The route for `path`; null when there is none.
  const Route* Find(const std::string& path) const;

  // Not found (404) or wrong method (405) as an error response, or null when `request`
  // matches a route; for the server to answer before reading a body.
  std::unique_ptr<HttpResponse> Refuse(const HttpRequest& request) const;

  const std::vector<Route>& routes() const { return routes_; }

 private:
  absl::StatusOr<std::string> ToRequestBytes(const Route& route, const HttpRequest& request) const;
  HttpResponse Call(const Route& route, const HttpRequest& request, const std::string& bytes);

  // Converts JSON to and from the wire format by the generated pool's descriptors.
  std::unique_ptr<google::protobuf::util::TypeResolver> resolver_;
  std::vector<Route> routes_;
  absl::flat_hash_map<std::string, size_t> by_path_;
  std::shared_ptr<grpc::Channel> channel_;
  grpc::GenericStub stub_;
  std::string openapi_json_;
  int default_timeout_ms_;
  // 64 answers of up to 1 MiB: a Plan answer is about 20 KB, so typically ~2 MB.
  JsonMemo json_memo_{64, size_t{1} << 20};
};

// An error response with `status` mapped to its HTTP code.
HttpResponse ErrorResponse(const absl::Status& status, int http_status = 0);

}  // namespace capplan::server::http
