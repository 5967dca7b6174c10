// The HTTP listener (civetweb): serves the JSON gateway under /v1/ and lets other components
// add handlers for paths outside /v1/ (the web page at "/", "/static/...").
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "prometheus/registry.h"

class CivetServer;
class CivetHandler;

namespace grpc {
class Server;
}

namespace capplan::server::http {

class Gateway;

struct HttpServerOptions {
  std::string address = "127.0.0.1:8080";  // host:port; port 0 picks a free one
  // Bounded like the metrics endpoint: enough threads that slow clients cannot hold every
  // one, a short per-request timeout to free them.
  int threads = 8;
  int request_timeout_ms = 10000;
  // Bodies larger than this are refused with 413 (the gRPC server's receive limit).
  int max_body_bytes = 4 * 1024 * 1024;
  // Deadline of the in-process call when the request names none (X-Capplan-Timeout-Ms).
  int default_timeout_ms = 30000;
  std::string version;  // shown in the OpenAPI document
};

class HttpServer {
 public:
  // Listens on options.address and serves /v1/ by calling `grpc_server` in-process (so the
  // same interceptors, validation, limits and auth apply). `registry` gets the HTTP request
  // counters. `grpc_server` must outlive this object.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(const HttpServerOptions& options, grpc::Server* grpc_server,
                                                           const std::shared_ptr<prometheus::Registry>& registry);
  ~HttpServer();  // stops listening, then waits for in-flight requests

  int port() const { return port_; }

  // Serves `uri` (and paths below it, civetweb's prefix rule) with `handler`, owned from now
  // on. Paths under /v1 are the gateway's: refused with InvalidArgument. Safe while serving.
  absl::Status AddHandler(const std::string& uri, std::unique_ptr<CivetHandler> handler);

  // Stops accepting and finishes in-flight requests. Idempotent.
  void Stop();

 private:
  HttpServer() = default;

  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<CivetHandler> api_handler_;
  std::mutex mu_;
  std::vector<std::unique_ptr<CivetHandler>> extra_handlers_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<CivetServer> civet_ ABSL_GUARDED_BY(mu_);
  std::string address_;
  int port_ = 0;
};

}  // namespace capplan::server::http
