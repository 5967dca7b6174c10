#include "server/http/api_handler.h"

#include <sys/socket.h>

#include "absl/strings/str_cat.h"
#include "server/http/request_policy.h"
#include "server/rpc/accept_guard.h"

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

// The headers a browser may send cross-origin to a non-admin route.
constexpr char kCorsAllowHeaders[] = "Content-Type, X-Capplan-Timeout-Ms";

// How an answer goes out besides its status and body.
struct Framing {
  bool head = false;              // HEAD: headers only
  bool close = false;             // Connection: close
  std::string cors_origin;        // echoed in Access-Control-Allow-Origin; empty: no CORS headers
  bool vary_origin = false;       // the answer depends on Origin (CORS is configured)
  std::string preflight_methods;  // a CORS preflight's approval: its Allow-Methods
};

void Write(mg_connection* conn, const HttpResponse& r, const Framing& f) {
  mg_response_header_start(conn, r.status);
  if (r.status != 204) {
    mg_response_header_add(conn, "Content-Type", "application/json", -1);
    mg_response_header_add(conn, "Content-Length", std::to_string(r.body.size()).c_str(), -1);
  }
  // Every answer is JSON: browsers must not guess another type from its bytes.
  mg_response_header_add(conn, "X-Content-Type-Options", "nosniff", -1);
  if (!r.allow.empty()) mg_response_header_add(conn, "Allow", r.allow.c_str(), -1);
  if (f.vary_origin) mg_response_header_add(conn, "Vary", "Origin", -1);
  if (!f.cors_origin.empty()) {
    mg_response_header_add(conn, "Access-Control-Allow-Origin", f.cors_origin.c_str(), -1);
    if (!f.preflight_methods.empty()) {
      mg_response_header_add(conn, "Access-Control-Allow-Methods", f.preflight_methods.c_str(), -1);
      mg_response_header_add(conn, "Access-Control-Allow-Headers", kCorsAllowHeaders, -1);
      mg_response_header_add(conn, "Access-Control-Max-Age", "600", -1);
    }
  }
  if (f.close) mg_response_header_add(conn, "Connection", "close", -1);
  mg_response_header_send(conn);
  if (!f.head && r.status != 204) mg_write(conn, r.body.data(), r.body.size());
}

}  // namespace

ApiHandler::ApiHandler(Gateway* gateway, ApiHandlerOptions options,
                       const std::shared_ptr<prometheus::Registry>& registry)
    : gateway_(gateway),
      options_(std::move(options)),
      requests_(&prometheus::BuildCounter()
                     .Name("capplan_http_requests_total")
                     .Help("HTTP/JSON gateway requests, by route (\"other\": no route) and HTTP status.")
                     .Register(*registry)),
      seconds_(&prometheus::BuildHistogram()
                    .Name("capplan_http_request_seconds")
                    .Help("HTTP/JSON gateway latency from request headers to response, by route.")
                    .Register(*registry)) {}

void ApiHandler::BeginDrain() {
  absl::MutexLock lock(&mu_);
  draining_ = true;
}

int ApiHandler::taken_before_drain() const {
  absl::MutexLock lock(&mu_);
  return taken_before_drain_;
}

bool ApiHandler::Serve(mg_connection* conn) {
  bool taken = false;
  {
    absl::MutexLock lock(&mu_);
    taken = !draining_;
    if (taken) ++taken_before_drain_;
  }
  const mg_request_info* info = mg_get_request_info(conn);
  const int fd = AcceptedConnection(info->server_port, info->remote_addr, info->remote_port);
  HttpRequest req;
  req.method = info->request_method == nullptr ? "" : info->request_method;
  req.path = info->local_uri == nullptr ? "" : info->local_uri;
  req.query = info->query_string == nullptr ? "" : info->query_string;
  const Route* route = gateway_->Find(req.path);
  Framing framing;
  framing.head = req.method == "HEAD";
  // CORS: never for the admin routes (their bearer tokens belong to operators' tools, not to
  // pages of other origins); otherwise only for the configured origins.
  const bool cors_route = (route != nullptr && !route->admin) || req.path == kOpenApiPath;
  framing.vary_origin = cors_route && !options_.cors_origins.empty();
  const std::string origin = Header(conn, "Origin");
  if (cors_route && CorsOriginAllowed(options_.cors_origins, origin)) framing.cors_origin = origin;
  HttpResponse resp;
  const char* preflight = mg_get_header(conn, "Access-Control-Request-Method");
  if (!taken) {
    resp = ErrorResponse(absl::UnavailableError("server is shutting down; retry (another replica)"), 503);
    resp.route = route != nullptr ? route->path : (cors_route ? kOpenApiPath : "other");
  } else if (req.method == "OPTIONS" && preflight != nullptr && !framing.cors_origin.empty()) {
    resp.status = 204;
    resp.route = route != nullptr ? route->path : kOpenApiPath;
    framing.preflight_methods = route != nullptr ? VerbName(route->verb) : "GET";
  } else {
    resp = Answer(conn, fd, &req, &framing.close);
  }
  framing.close = framing.close || draining_;
  // Counted before the answer goes out, so a client that has its answer sees it counted.
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - req.received;
  requests_->Add({{"route", resp.route}, {"code", std::to_string(resp.status)}}).Increment();
  seconds_->Add({{"route", resp.route}}, Buckets()).Observe(elapsed.count());
  {
    // A client that does not read its answer holds the worker no longer than it may take to
    // send a body.
    ScopedSocketDeadline write_deadline(&deadlines_, fd, SHUT_RDWR,
                                        std::chrono::steady_clock::now() + options_.body_timeout);
    Write(conn, resp, framing);
  }
  if (taken) {
    absl::MutexLock lock(&mu_);
    --taken_before_drain_;
  }
  return true;
}

HttpResponse ApiHandler::Answer(mg_connection* conn, int fd, HttpRequest* req, bool* close) {
  const mg_request_info* info = mg_get_request_info(conn);
  const Route* route = gateway_->Find(req->path);
  const std::string label = route != nullptr ? route->path : (req->path == kOpenApiPath ? kOpenApiPath : "other");
  auto refuse = [&](const absl::Status& status, int http_status) {
    HttpResponse r = ErrorResponse(status, http_status);
    r.route = label;
    *close = true;  // an unread body cannot be skipped safely
    return r;
  };
  if (std::unique_ptr<HttpResponse> refused = gateway_->Refuse(*req)) {
    *close = info->content_length != 0;
    return std::move(*refused);
  }
  if (info->content_length > options_.max_body_bytes) {
    return refuse(absl::ResourceExhaustedError(
                      absl::StrCat("body: larger than the server's limit of ", options_.max_body_bytes, " bytes")),
                  413);
  }
  // Only JSON bodies: a page of another origin can send a form or text/plain POST without a
  // CORS preflight, never an application/json one.
  if (req->method == "POST" && info->content_length != 0) {
    const std::string type = Header(conn, "Content-Type");
    if (!IsJsonContentType(type)) {
      return refuse(absl::InvalidArgumentError(absl::StrCat("Content-Type: want application/json (charset utf-8 if "
                                                            "any), got \"",
                                                            type.substr(0, 100), "\"")),
                    415);
    }
  }
  if (std::unique_ptr<HttpResponse> bad = ReadBody(conn, fd, *req, &req->body)) {
    bad->route = label;
    *close = true;
    return std::move(*bad);
  }
  req->authorization = Header(conn, "Authorization");
  req->timeout_ms = Header(conn, kTimeoutHeader);
  return gateway_->Handle(*req);
}

std::unique_ptr<HttpResponse> ApiHandler::ReadBody(mg_connection* conn, int fd, const HttpRequest& req,
                                                   std::string* body) {
  const long long length = mg_get_request_info(conn)->content_length;
  auto too_large = [&] {
    return std::make_unique<HttpResponse>(
        ErrorResponse(absl::ResourceExhaustedError(
                          absl::StrCat("body: larger than the server's limit of ", options_.max_body_bytes, " bytes")),
                      413));
  };
  if (length > options_.max_body_bytes) return too_large();
  if (length == 0) return nullptr;
  if (length > 0) body->reserve(static_cast<size_t>(length));
  const auto deadline = req.received + options_.body_timeout;
  ScopedSocketDeadline read_deadline(&deadlines_, fd, SHUT_RD, deadline);
  char buf[16384];
  while (true) {
    const int n = mg_read(conn, buf, sizeof buf);
    if (n <= 0) break;
    if (body->size() + static_cast<size_t>(n) > static_cast<size_t>(options_.max_body_bytes)) return too_large();
    body->append(buf, static_cast<size_t>(n));
  }
  const bool late = read_deadline.Disarm() || std::chrono::steady_clock::now() > deadline;
  const bool short_body = length > 0 && body->size() < static_cast<size_t>(length);
  if (short_body || (late && length < 0)) {
    if (late) {
      const auto seconds =
          std::chrono::duration_cast<std::chrono::milliseconds>(options_.body_timeout).count() / 1000.0;
      return std::make_unique<HttpResponse>(ErrorResponse(
          absl::DeadlineExceededError(absl::StrCat("body: ", body->size(), " of ", length, " bytes arrived within ",
                                                   seconds, " s; send it faster")),
          408));
    }
    return std::make_unique<HttpResponse>(ErrorResponse(
        absl::InvalidArgumentError(absl::StrCat("body: ended after ", body->size(), " of ", length, " bytes")), 400));
  }
  return nullptr;
}

}  // namespace capplan::server::http
