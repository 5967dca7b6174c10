#include "server/http/http_server.h"

#include <grpcpp/grpcpp.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "server/http/api_handler.h"
#include "server/http/gateway.h"
#include "server/http/openapi.h"
#include "server/rpc/accept_guard.h"

namespace capplan::server::http {

namespace {

// Opens and closes one connection to the listener at `address` (host:port as configured,
// with `port` the bound one). civetweb's accept loop notices a stop request only when its
// poll returns, which without a connection takes up to 2 s.
void Poke(const std::string& address, int port) {
  std::string host = address.substr(0, address.rfind(':'));
  if (host.size() >= 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
  if (host.empty() || host == "0.0.0.0") host = "127.0.0.1";
  if (host == "::") host = "::1";
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return;
  if (found != nullptr) {
    const int fd = socket(found->ai_family, found->ai_socktype, found->ai_protocol);
    if (fd >= 0) {
      (void)connect(fd, found->ai_addr, found->ai_addrlen);
      close(fd);
    }
  }
  freeaddrinfo(found);
}

// civetweb's options. Its defaults would approve every origin's CORS preflight on every path
// ("*" for origin, methods and headers): emptied, so that CORS is the API handler's alone.
std::vector<std::string> CivetOptions(const HttpServerOptions& o) {
  const int keep_alive_ms = std::min(o.keep_alive_timeout_ms, o.header_timeout_ms);
  return {"listening_ports", o.address, "num_threads", std::to_string(o.threads),
          // Accepted connections waiting for a worker, and the kernel's queue behind them.
          "connection_queue", std::to_string(o.threads), "listen_backlog", "1024",
          // civetweb counts request_timeout_ms from the first byte of a request to the end of
          // its headers, and uses it as the longest wait for any one read or write.
          "request_timeout_ms", std::to_string(o.header_timeout_ms), "keep_alive_timeout_ms",
          std::to_string(keep_alive_ms),
          // Linger bounded but not 0 (an abortive close could drop the end of a large answer).
          "linger_timeout_ms", "1000", "enable_keep_alive", "yes",
          // TCP_NODELAY: headers and body go out in two writes, and Nagle's algorithm would
          // hold the body until the client's delayed ACK (about 40 ms per keep-alive request).
          "tcp_nodelay", "1", "access_control_allow_origin", "", "access_control_allow_methods", "",
          "access_control_allow_headers", "",
          // On civetweb's own answers (400 for a malformed request, 404 outside /v1 and the
          // page); the handlers add it to theirs.
          "additional_header", "X-Content-Type-Options: nosniff"};
}

void OnConnectionClose(const mg_connection* conn) {
  const mg_request_info* info = mg_get_request_info(conn);
  if (info != nullptr) ConnectionClosing(info->server_port, info->remote_addr, info->remote_port);
}

}  // namespace

CivetCallbacks TrackedConnectionCallbacks() {
  CivetCallbacks callbacks;
  callbacks.connection_close = OnConnectionClose;
  return callbacks;
}

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(const HttpServerOptions& options,
                                                              grpc::Server* grpc_server,
                                                              const std::shared_ptr<prometheus::Registry>& registry) {
  absl::StatusOr<std::vector<Route>> routes = BuildRoutes();
  if (!routes.ok()) return routes.status();
  absl::StatusOr<std::string> openapi = OpenApiJson(*routes, options.version);
  if (!openapi.ok()) return openapi.status();
  grpc::ChannelArguments args;
  // The server bounds requests; its own answers are taken whole.
  args.SetMaxReceiveMessageSize(-1);
  std::unique_ptr<HttpServer> server(new HttpServer());
  server->address_ = options.address;
  server->gateway_ = std::make_unique<Gateway>(std::move(*routes), grpc_server->InProcessChannel(args),
                                               std::move(*openapi), options.default_timeout_ms);
  ApiHandlerOptions api;
  api.max_body_bytes = options.max_body_bytes;
  api.body_timeout = std::chrono::milliseconds(options.body_timeout_ms);
  api.cors_origins = options.cors_origins;
  server->api_handler_ = std::make_unique<ApiHandler>(server->gateway_.get(), std::move(api), registry);
  // Not shared yet, but locked all the same: civetweb's threads start with the listener.
  absl::MutexLock lock(&server->mu_);
  try {
    const CivetCallbacks callbacks = TrackedConnectionCallbacks();
    server->civet_ = std::make_unique<CivetServer>(CivetOptions(options), &callbacks);
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat("cannot serve HTTP on ", options.address, ": ", e.what()));
  }
  const std::vector<int> ports = server->civet_->getListeningPorts();
  server->port_ = ports.empty() ? 0 : ports.front();
  // Connections may have arrived before this: they are neither capped nor given deadlines
  // beyond civetweb's, which only a client racing start-up can be.
  TrackConnections(server->port_, options.max_connections_per_client);
  server->civet_->addHandler("/v1", server->api_handler_.get());
  return server;
}

HttpServer::~HttpServer() { Stop(); }

absl::Status HttpServer::AddHandler(const std::string& uri, std::unique_ptr<CivetHandler> handler) {
  if (uri == "/v1" || absl::StartsWith(uri, "/v1/")) {
    return absl::InvalidArgumentError(absl::StrCat("http handler ", uri, ": /v1 is the JSON API's"));
  }
  if (handler == nullptr) return absl::InvalidArgumentError(absl::StrCat("http handler ", uri, ": null"));
  absl::MutexLock lock(&mu_);
  if (civet_ == nullptr) return absl::FailedPreconditionError("http server stopped");
  civet_->addHandler(uri, handler.get());
  extra_handlers_.push_back(std::move(handler));
  return absl::OkStatus();
}

void HttpServer::Stop(std::chrono::steady_clock::time_point deadline) {
  absl::MutexLock lock(&mu_);
  if (civet_ == nullptr) return;
  api_handler_->BeginDrain();
  while (api_handler_->taken_before_drain() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // Requests whose bytes had arrived, or that waited in civetweb's queue for a worker, get
  // their 503 meanwhile (each takes microseconds).
  std::this_thread::sleep_until(std::min(deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(200)));
  std::atomic<bool> closed{false};
  std::thread closer([civet = civet_.get(), &closed] {
    civet->close();  // joins the worker threads (requests still running get cut)
    closed = true;
  });
  while (!closed) {
    Poke(address_, port_);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  closer.join();
  civet_.reset();
  UntrackConnections(port_);
}

}  // namespace capplan::server::http
