// The civetweb handler for every path under /v1: reads one request within its time and size
// bounds, applies the listener's policy (CORS, JSON bodies only, draining), lets the gateway
// answer, and writes the answer with the headers every answer carries.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "CivetServer.h"
#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "prometheus/counter.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "server/http/gateway.h"
#include "server/http/socket_deadlines.h"

namespace capplan::server::http {

struct ApiHandlerOptions {
  int max_body_bytes = 4 * 1024 * 1024;
  // The whole body must arrive within this, counted from the end of the headers.
  std::chrono::milliseconds body_timeout{10000};
  // Origins CORS admits on the non-admin routes (exact, lower-case); empty: CORS off.
  std::vector<std::string> cors_origins;
};

class ApiHandler final : public CivetHandler {
 public:
  ApiHandler(Gateway* gateway, ApiHandlerOptions options, const std::shared_ptr<prometheus::Registry>& registry);

  bool handleGet(CivetServer*, mg_connection* conn) override { return Serve(conn); }
  bool handlePost(CivetServer*, mg_connection* conn) override { return Serve(conn); }
  bool handleHead(CivetServer*, mg_connection* conn) override { return Serve(conn); }
  bool handlePut(CivetServer*, mg_connection* conn) override { return Serve(conn); }
  bool handleDelete(CivetServer*, mg_connection* conn) override { return Serve(conn); }
  bool handleOptions(CivetServer*, mg_connection* conn) override { return Serve(conn); }
  bool handlePatch(CivetServer*, mg_connection* conn) override { return Serve(conn); }

  // From now on every new request is answered 503 UNAVAILABLE, and every answer closes its
  // connection, so that the listener can stop without dropping a request it has taken.
  void BeginDrain() ABSL_LOCKS_EXCLUDED(mu_);
  // Requests taken before BeginDrain and not yet answered.
  int taken_before_drain() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  bool Serve(mg_connection* conn) ABSL_LOCKS_EXCLUDED(mu_);
  // `fd`: the connection's socket, or -1 when unknown (then only civetweb's bounds apply).
  HttpResponse Answer(mg_connection* conn, int fd, HttpRequest* req, bool* close);
  // The body into `body`; an error answer when it is too large, too slow or cut short.
  std::unique_ptr<HttpResponse> ReadBody(mg_connection* conn, int fd, const HttpRequest& req, std::string* body);

  Gateway* gateway_;
  ApiHandlerOptions options_;
  prometheus::Family<prometheus::Counter>* requests_;
  prometheus::Family<prometheus::Histogram>* seconds_;
  SocketDeadlines deadlines_;
  std::atomic<bool> draining_{false};
  mutable absl::Mutex mu_;  // orders BeginDrain against requests starting
  int taken_before_drain_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace capplan::server::http
