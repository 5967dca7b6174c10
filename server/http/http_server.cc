#include "server/http/http_server.h"

#include <grpcpp/grpcpp.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "CivetServer.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "prometheus/counter.h"
#include "prometheus/histogram.h"
#include "server/http/gateway.h"
#include "server/http/openapi.h"

namespace capplan::server::http {

namespace {

// The same latency buckets as grpc_server_handling_seconds (from 50 µs).
const prometheus::Histogram::BucketBoundaries& Buckets() {
  static const prometheus::Histogram::BucketBoundaries kBuckets = {
      0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0};
  return kBuckets;
}

const char* Header(mg_connection* conn, const char* name) {
  const char* v = mg_get_header(conn, name);
  return v == nullptr ? "" : v;
}

void Write(mg_connection* conn, const HttpResponse& r, bool head, bool close) {
  mg_response_header_start(conn, r.status);
  mg_response_header_add(conn, "Content-Type", "application/json", -1);
  mg_response_header_add(conn, "Content-Length", std::to_string(r.body.size()).c_str(), -1);
  if (!r.allow.empty()) mg_response_header_add(conn, "Allow", r.allow.c_str(), -1);
  if (close) mg_response_header_add(conn, "Connection", "close", -1);
  mg_response_header_send(conn);
  if (!head) mg_write(conn, r.body.data(), r.body.size());
}

// Serves every method of every path under /v1 through the gateway.
class ApiHandler final : public CivetHandler {
 public:
  ApiHandler(Gateway* gateway, int max_body_bytes, const std::shared_ptr<prometheus::Registry>& registry)
      : gateway_(gateway),
        max_body_bytes_(max_body_bytes),
        requests_(&prometheus::BuildCounter()
                       .Name("capplan_http_requests_total")
                       .Help("HTTP/JSON gateway requests, by route (\"other\": no route) and HTTP status.")
                       .Register(*registry)),
        seconds_(&prometheus::BuildHistogram()
                      .Name("capplan_http_request_seconds")
                      .Help("HTTP/JSON gateway latency from request headers to response, by route.")
                      .Register(*registry)) {}

  bool handleGet(CivetServer*, mg_connection* conn) override { return Serve(conn); }
  bool handlePost(CivetServer*, mg_connection* conn) override { return Serve(conn); }
  bool handleHead(CivetServer*, mg_connection* conn) override { return Serve(conn); }
  bool handlePut(CivetServer*, mg_connection* conn) override { return Serve(conn); }
  bool handleDelete(CivetServer*, mg_connection* conn) override { return Serve(conn); }
  bool handleOptions(CivetServer*, mg_connection* conn) override { return Serve(conn); }
  bool handlePatch(CivetServer*, mg_connection* conn) override { return Serve(conn); }

 private:
  bool Serve(mg_connection* conn) {
    const mg_request_info* info = mg_get_request_info(conn);
    HttpRequest req;
    req.method = info->request_method == nullptr ? "" : info->request_method;
    req.path = info->local_uri == nullptr ? "" : info->local_uri;
    req.query = info->query_string == nullptr ? "" : info->query_string;
    HttpResponse resp;
    bool close = false;
    if (std::unique_ptr<HttpResponse> refused = gateway_->Refuse(req)) {
      resp = std::move(*refused);
      close = info->content_length != 0;  // an unread body cannot be skipped safely
    } else if (!ReadBody(conn, info->content_length, &req.body)) {
      resp = ErrorResponse(absl::ResourceExhaustedError(
                               absl::StrCat("body: larger than the server's limit of ", max_body_bytes_, " bytes")),
                           413);
      resp.route = gateway_->Find(req.path) != nullptr ? req.path : kOpenApiPath;
      close = true;
    } else {
      req.authorization = Header(conn, "Authorization");
      req.timeout_ms = Header(conn, kTimeoutHeader);
      resp = gateway_->Handle(req);
    }
    // Counted before the answer goes out, so a client that has its answer sees it counted.
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - req.received;
    requests_->Add({{"route", resp.route}, {"code", std::to_string(resp.status)}}).Increment();
    seconds_->Add({{"route", resp.route}}, Buckets()).Observe(elapsed.count());
    Write(conn, resp, req.method == "HEAD", close);
    return true;
  }

  // False when the body is over the limit (by its Content-Length or by what arrives).
  bool ReadBody(mg_connection* conn, long long content_length, std::string* body) const {
    if (content_length > max_body_bytes_) return false;
    if (content_length > 0) body->reserve(static_cast<size_t>(content_length));
    char buf[16384];
    while (true) {
      const int n = mg_read(conn, buf, sizeof buf);
      if (n <= 0) return true;
      if (body->size() + static_cast<size_t>(n) > static_cast<size_t>(max_body_bytes_)) return false;
      body->append(buf, static_cast<size_t>(n));
    }
  }

  Gateway* gateway_;
  int max_body_bytes_;
  prometheus::Family<prometheus::Counter>* requests_;
  prometheus::Family<prometheus::Histogram>* seconds_;
};

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

}  // namespace

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
  server->api_handler_ = std::make_unique<ApiHandler>(server->gateway_.get(), options.max_body_bytes, registry);
  try {
    // Linger bounded but not 0 (an abortive close could drop the end of a large answer).
    // TCP_NODELAY: headers and body go out in two writes, and Nagle's algorithm would hold
    // the body until the client's delayed ACK (about 40 ms per keep-alive request).
    server->civet_ = std::make_unique<CivetServer>(
        std::vector<std::string>{"listening_ports", options.address, "num_threads", std::to_string(options.threads),
                                 "request_timeout_ms", std::to_string(options.request_timeout_ms), "linger_timeout_ms",
                                 "1000", "enable_keep_alive", "yes", "tcp_nodelay", "1"});
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat("cannot serve HTTP on ", options.address, ": ", e.what()));
  }
  const std::vector<int> ports = server->civet_->getListeningPorts();
  server->port_ = ports.empty() ? 0 : ports.front();
  server->civet_->addHandler("/v1", server->api_handler_.get());
  return server;
}

HttpServer::~HttpServer() { Stop(); }

absl::Status HttpServer::AddHandler(const std::string& uri, std::unique_ptr<CivetHandler> handler) {
  if (uri == "/v1" || absl::StartsWith(uri, "/v1/")) {
    return absl::InvalidArgumentError(absl::StrCat("http handler ", uri, ": /v1 is the JSON API's"));
  }
  if (handler == nullptr) return absl::InvalidArgumentError(absl::StrCat("http handler ", uri, ": null"));
  std::lock_guard<std::mutex> lock(mu_);
  if (civet_ == nullptr) return absl::FailedPreconditionError("http server stopped");
  civet_->addHandler(uri, handler.get());
  extra_handlers_.push_back(std::move(handler));
  return absl::OkStatus();
}

void HttpServer::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  if (civet_ == nullptr) return;
  std::atomic<bool> closed{false};
  std::thread closer([this, &closed] {
    civet_->close();  // waits for in-flight requests, joins the worker threads
    closed = true;
  });
  while (!closed) {
    Poke(address_, port_);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  closer.join();
  civet_.reset();
}

}  // namespace capplan::server::http
