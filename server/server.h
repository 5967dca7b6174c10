// The server's lifecycle: open the catalog, start gRPC (with health, reflection and the
// metrics interceptor), the metrics endpoint and the HTTP/JSON gateway, and drain on shutdown.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/planning/planning.h"
#include "server/rpc/request_limits.h"

namespace capplan::server {

namespace http {
class HttpServer;
}

struct ServerOptions {
  std::string listen_address = "127.0.0.1:50051";
  std::string metrics_address = "127.0.0.1:9464";
  // HTTP/JSON gateway (server/http/): host:port, port 0 picks a free one, empty disables.
  std::string http_address = "127.0.0.1:8080";
  // A SQLite file, or a postgresql:// DSN (a catalog shared by replicas).
  std::string db_path = "var/capplan.db";
  // PostgreSQL: how often a replica checks the catalog version in case a change notification
  // was missed (notifications themselves arrive at once).
  int db_poll_interval_ms = 2000;
  std::string admin_token_file;                             // empty: no tokens, every admin write is refused
  std::string tco_scenarios_file;                           // empty: none; see LoadTcoScenariosFile (tco_scenario.h)
  int tco_price_max_age_days = kDefaultTcoPriceMaxAgeDays;  // Tco warns about catalog prices older than this
  // TLS: server certificate chain and key (PEM files); with a client CA, clients must present
  // a certificate it signed (mTLS). All empty: plaintext.
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_client_ca_file;
  int max_receive_message_bytes = 4 * 1024 * 1024;
  // ImportPricesCsv carries a whole price list (up to 64 MiB): the gRPC transport accepts the
  // larger of the two limits, and the request limits (server/rpc/request_limits.h) hold every
  // other method to 4 MiB.
  int max_import_message_bytes = static_cast<int>(kMaxImportRequestBytes);
  // Concurrent client connections beyond those the server opens itself; more are closed on
  // accept (see accept_guard.h). 0: only the descriptor limit.
  int max_connections = 4096;
  // WatchPlan: open streams, and distinct watched Plan requests (each recomputed once per
  // catalog change); RESOURCE_EXHAUSTED beyond.
  int max_watches = 10000;
  int max_watched_workloads = 1000;
  // How often every watched workload is recomputed without a catalog change (a price dated
  // in the future takes effect without one); 0: never.
  std::chrono::milliseconds watch_refresh_interval{60000};
  // Threads serving /metrics, and how long one may wait for a slow client's request.
  int metrics_threads = 8;
  int metrics_request_timeout_ms = 3000;
  // The HTTP/JSON listener's bounds (see http::HttpServerOptions): worker threads, the time
  // a request's headers and its body may take, connections per client address (0: no cap),
  // and the deadline of a call that names none.
  int http_threads = 64;
  int http_header_timeout_ms = 5000;
  int http_body_timeout_ms = 10000;
  int http_max_connections_per_client = 16;
  int http_default_timeout_ms = 30000;
  // Origins allowed to call the non-admin HTTP routes from a browser; empty: CORS off.
  std::vector<std::string> http_cors_origins;
  // The web page's CSP frame-ancestors sources (web::ParseFrameAncestors checked them).
  std::string http_frame_ancestors = "'none'";
  // With TLS configured, plaintext HTTP on an address other than loopback is refused at
  // start-up unless this is set (e.g. behind a proxy that terminates TLS and checks clients).
  bool http_allow_plaintext = false;
  std::string version;
};

class Server {
 public:
  // Fails with one status naming the cause: unreadable database, newer schema, failed
  // migration, address in use, bad token file.
  static absl::StatusOr<std::unique_ptr<Server>> Start(const ServerOptions& options);
  ~Server();

  int grpc_port() const;
  int metrics_port() const;
  // 0 when HTTP is disabled.
  int http_port() const;
  // The HTTP listener, for components that serve more paths on it (HttpServer::AddHandler);
  // null when HTTP is disabled.
  http::HttpServer* http_server() const;
  int64_t catalog_version() const;
  // The catalog database: the SQLite path, or the PostgreSQL DSN without its password.
  std::string catalog_location() const;

  // Health goes NOT_SERVING; HTTP answers new requests 503 and finishes those it has taken;
  // gRPC keeps serving for a short notice (at most 500 ms, a quarter of `grace`) so that
  // calls already sent reach it, then refuses new calls; in-flight calls get up to `grace`
  // from the start to finish, then are cancelled. Idempotent.
  void Shutdown(std::chrono::milliseconds grace);

  struct State;

 private:
  explicit Server(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace capplan::server
