// The HTTP listener (civetweb): serves the JSON gateway under /v1/ and lets other components
// add handlers for paths outside /v1/ (the web page at "/", "/static/...").
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "CivetServer.h"
#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "prometheus/registry.h"

namespace grpc {
class Server;
}

namespace capplan::server::http {

class ApiHandler;
class Gateway;

struct HttpServerOptions {
  std::string address = "127.0.0.1:8080";  // host:port; port 0 picks a free one
  // civetweb gives every open connection a worker thread until it closes, so these bound how
  // long a slow or idle client can hold one, and how many one client address can hold.
  int threads = 64;
  // The request line and headers, in all; also the longest wait for any one read or write.
  int header_timeout_ms = 5000;
  // The whole body, from the end of the headers (also the longest time an answer may take
  // to go out to a client that does not read it).
  int body_timeout_ms = 10000;
  // Idle time between two requests on one connection.
  int keep_alive_timeout_ms = 2000;
  // Connections one client address may hold open at once; more are closed on accept. 0: no
  // cap (behind a proxy every client shares its address).
  int max_connections_per_client = 16;
  // Origins allowed to call the non-admin routes from a browser (CORS); empty: none.
  std::vector<std::string> cors_origins;
  // Bodies larger than this are refused with 413 (the gRPC server's receive limit).
  int max_body_bytes = 4 * 1024 * 1024;
  // Deadline of the in-process call when the request names none (X-Capplan-Timeout-Ms).
  int default_timeout_ms = 30000;
  std::string version;  // shown in the OpenAPI document
};

// civetweb callbacks for a listener whose connections the accept guard tracks
// (TrackConnections): each connection is reported closing (ConnectionClosing) from civetweb's
// connection_close callback, on its worker thread before the socket closes. For the HTTP/JSON
// listener and for prometheus-cpp's /metrics one alike.
CivetCallbacks TrackedConnectionCallbacks();

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
  absl::Status AddHandler(const std::string& uri, std::unique_ptr<CivetHandler> handler) ABSL_LOCKS_EXCLUDED(mu_);

  // Drains, then stops: every request from now on is answered 503 UNAVAILABLE and closes its
  // connection; requests already taken finish (their in-process calls still run) until none
  // is left or `deadline` passes; then the listener closes. Idempotent.
  void Stop(std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::now()) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  HttpServer() = default;

  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<ApiHandler> api_handler_;
  absl::Mutex mu_;
  std::vector<std::unique_ptr<CivetHandler>> extra_handlers_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<CivetServer> civet_ ABSL_GUARDED_BY(mu_);
  std::string address_;
  int port_ = 0;
};

}  // namespace capplan::server::http
