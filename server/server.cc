#include "server/server.h"

#include <arpa/inet.h>
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "prometheus/exposer.h"
#include "server/admin/admin_service.h"
#include "server/api/time_fields.h"
#include "server/http/http_server.h"
#include "server/planner/planner_service.h"
#include "server/planning/planning.h"
#include "server/rpc/accept_guard.h"
#include "server/rpc/auth.h"
#include "server/rpc/metrics.h"
#include "server/rpc/unparsed_request.h"
#include "server/store/catalog_store.h"
#include "server/tco/tco_exporter.h"
#include "server/tco/tco_scenario.h"
#include "server/watch/watch_hub.h"
#include "server/web/web_assets.h"

namespace capplan::server {

namespace {

// Keeps the catalog gauges in step with every published snapshot, including those a replica
// reloads after another replica's write; unsubscribes before the metrics go.
class CatalogGaugeFeed {
 public:
  CatalogGaugeFeed(store::CatalogStore* store, ServerMetrics* metrics) : store_(store) {
    handle_ = store_->AddPublishListener([store, metrics](int64_t version) {
      metrics->SetCatalogVersion(version);
      // One price lookup per offer: short enough for a publish listener.
      metrics->SetOldestPrice(store->Snapshot()->OldestCurrentPriceUnixSeconds());
    });
  }
  ~CatalogGaugeFeed() { store_->RemovePublishListener(handle_); }
  CatalogGaugeFeed(const CatalogGaugeFeed&) = delete;
  CatalogGaugeFeed& operator=(const CatalogGaugeFeed&) = delete;

 private:
  store::CatalogStore* store_;
  int handle_ = 0;
};

}  // namespace

struct Server::State {
  std::unique_ptr<store::CatalogStore> store;
  TokenTable tokens;
  std::unique_ptr<ServerMetrics> metrics;
  std::unique_ptr<CatalogGaugeFeed> gauge_feed;  // after metrics: destroyed first
  std::shared_ptr<ProcessCollector> process;
  std::shared_ptr<CatalogDbCollector> catalog_db;
  std::unique_ptr<TcoScenarioExporter> tco_exporter;
  std::unique_ptr<TcoScenarioWorker> tco_worker;  // before the store in destruction: it listens to it
  std::unique_ptr<prometheus::Exposer> exposer;
  std::unique_ptr<PlannerServiceImpl> planner;
  std::unique_ptr<AdminServiceImpl> admin;
  // After the services (its worker plans through the planner), before grpc_server (whose
  // streams report to it until they are done).
  std::unique_ptr<WatchHub> watch_hub;
  std::unique_ptr<grpc::Server> grpc_server;
  std::unique_ptr<http::HttpServer> http;  // after grpc_server: destroyed first
  int grpc_port = 0;
  int metrics_port = 0;
  bool shut_down = false;
};

namespace {

absl::StatusOr<std::string> ReadPem(const std::string& path, const char* flag) {
  std::ifstream in(path);
  if (!in) return absl::FailedPreconditionError(absl::StrCat(flag, " ", path, ": cannot read"));
  std::stringstream s;
  s << in.rdbuf();
  if (s.str().find("-----BEGIN ") == std::string::npos) {
    return absl::FailedPreconditionError(absl::StrCat(flag, " ", path, ": not a PEM file"));
  }
  return s.str();
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> Credentials(const ServerOptions& o) {
  if (o.tls_cert_file.empty() && o.tls_key_file.empty()) {
    if (!o.tls_client_ca_file.empty()) {
      return absl::InvalidArgumentError("tls_client_ca_file: needs tls_cert_file and tls_key_file");
    }
    return grpc::InsecureServerCredentials();
  }
  if (o.tls_cert_file.empty() || o.tls_key_file.empty()) {
    return absl::InvalidArgumentError("tls_cert_file and tls_key_file: give both or neither");
  }
  absl::StatusOr<std::string> cert = ReadPem(o.tls_cert_file, "tls_cert_file");
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadPem(o.tls_key_file, "tls_key_file");
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions ssl;
  ssl.pem_key_cert_pairs.push_back({*key, *cert});
  if (!o.tls_client_ca_file.empty()) {
    absl::StatusOr<std::string> ca = ReadPem(o.tls_client_ca_file, "tls_client_ca_file");
    if (!ca.ok()) return ca.status();
    ssl.pem_root_certs = *ca;
    ssl.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(ssl);
}

// Whether host:port names a loopback address (127.0.0.0/8, ::1 or localhost); an address
// without a host ("8080", ":8080") listens on every interface.
bool IsLoopback(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) return false;
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host == "localhost" || host == "::1") return true;
  in_addr v4{};
  return inet_pton(AF_INET, host.c_str(), &v4) == 1 && (ntohl(v4.s_addr) >> 24) == 127;
}

// Debian 12's civetweb (1.15) cannot serve TLS: it loads OpenSSL by the development names
// libssl.so/libcrypto.so and calls SSL_get_peer_certificate, which OpenSSL 3 no longer
// exports, so its first TLS connection jumps to a null function. So the HTTP listener stays
// plaintext, and must not open a way around gRPC's TLS and client certificates.
absl::Status CheckHttpTransport(const ServerOptions& options) {
  if (options.http_address.empty() || options.tls_cert_file.empty() || options.http_allow_plaintext ||
      IsLoopback(options.http_address)) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(
      absl::StrCat("http_listen ", options.http_address, ": gRPC requires TLS",
                   options.tls_client_ca_file.empty() ? "" : " and client certificates",
                   " but the HTTP/JSON listener serves plaintext without either; bind it to loopback (e.g. "
                   "127.0.0.1:8080), disable it (--http_listen=), or pass --http_allow_plaintext if a proxy in "
                   "front terminates TLS"));
}

// The HTTP/JSON gateway on options.http_address (none when empty), calling the started gRPC
// server in-process.
absl::Status StartHttp(const ServerOptions& options, Server::State* state) {
  if (options.http_address.empty()) return absl::OkStatus();
  http::HttpServerOptions http_options;
  http_options.address = options.http_address;
  http_options.threads = options.http_threads;
  http_options.header_timeout_ms = options.http_header_timeout_ms;
  http_options.body_timeout_ms = options.http_body_timeout_ms;
  http_options.max_connections_per_client = options.http_max_connections_per_client;
  http_options.cors_origins = options.http_cors_origins;
  http_options.max_body_bytes = options.max_receive_message_bytes;
  http_options.default_timeout_ms = options.http_default_timeout_ms;
  http_options.version = options.version;
  absl::StatusOr<std::unique_ptr<http::HttpServer>> http =
      http::HttpServer::Start(http_options, state->grpc_server.get(), state->metrics->registry());
  if (!http.ok()) return http.status();
  state->http = std::move(*http);
  // The web page (server/web/) at "/" and every other path outside /v1.
  web::WebOptions web_options;
  web_options.frame_ancestors = options.http_frame_ancestors;
  return state->http->AddHandler("/", std::make_unique<web::WebAssetHandler>(std::move(web_options)));
}

// The scenarios of --tco_scenarios_file written, then their exporter started.
absl::Status StartTcoScenarios(const ServerOptions& options, Server::State* state) {
  SetTcoPriceMaxAgeDays(options.tco_price_max_age_days);
  if (!options.tco_scenarios_file.empty()) {
    absl::Status loaded = LoadTcoScenariosFile(options.tco_scenarios_file, state->store.get());
    if (!loaded.ok()) return loaded;
  }
  // Rows an older server (or a hand edit) dated outside what writes now accept: served, and
  // reported here rather than failing the start.
  for (const std::string& line : PriceTimesOutOfRange(*state->store->Snapshot())) {
    std::cerr << "capplan-server: " << line << "\n";
  }
  state->tco_exporter = std::make_unique<TcoScenarioExporter>(*state->metrics->registry());
  state->tco_worker = std::make_unique<TcoScenarioWorker>(state->store.get(), state->tco_exporter.get());
  return absl::OkStatus();
}

// The metrics registry and its catalog gauges (after the standing TCO scenarios, which may
// write), and the /metrics listener.
absl::Status StartMetrics(const ServerOptions& options, Server::State* state) {
  state->metrics =
      std::make_unique<ServerMetrics>(std::make_shared<prometheus::Registry>(), ServedMethods(), options.version);
  absl::Status scenarios = StartTcoScenarios(options, state);  // may write: before the catalog gauges
  if (!scenarios.ok()) return scenarios;
  state->metrics->SetCatalogVersion(state->store->Snapshot()->catalog_version);
  state->metrics->SetOldestPrice(state->store->Snapshot()->OldestCurrentPriceUnixSeconds());
  state->gauge_feed = std::make_unique<CatalogGaugeFeed>(state->store.get(), state->metrics.get());
  state->process = std::make_shared<ProcessCollector>();
  store::CatalogStore* catalog = state->store.get();
  state->catalog_db = std::make_shared<CatalogDbCollector>([catalog] { return catalog->database_up(); },
                                                           [catalog] { return catalog->sync_reloads(); });
  try {
    // civetweb options: enough threads that slow clients cannot hold every one, a short
    // request timeout (headers in all, and any one read or write) so that each is freed
    // quickly (the default is 2 threads, 30 s), and keep-alive idling as short. Linger is
    // bounded but not 0: a 0 linger is an abortive close (RST) that drops whatever of a large
    // /metrics body (over ~128 KB) the client has not yet received. No CORS (civetweb's
    // default approves every origin's preflight).
    const std::string timeout_ms = std::to_string(options.metrics_request_timeout_ms);
    // Connections reported closing to the accept guard, which caps them per client below.
    const CivetCallbacks callbacks = http::TrackedConnectionCallbacks();
    state->exposer =
        std::make_unique<prometheus::Exposer>(std::vector<std::string>{"listening_ports",
                                                                       options.metrics_address,
                                                                       "num_threads",
                                                                       std::to_string(options.metrics_threads),
                                                                       "connection_queue",
                                                                       std::to_string(options.metrics_threads),
                                                                       "request_timeout_ms",
                                                                       timeout_ms,
                                                                       "keep_alive_timeout_ms",
                                                                       timeout_ms,
                                                                       "linger_timeout_ms",
                                                                       "1000",
                                                                       "access_control_allow_origin",
                                                                       "",
                                                                       "access_control_allow_methods",
                                                                       "",
                                                                       "access_control_allow_headers",
                                                                       "",
                                                                       "additional_header",
                                                                       "X-Content-Type-Options: nosniff"},
                                              &callbacks);
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat("cannot serve metrics on ", options.metrics_address, ": ", e.what()));
  }
  state->exposer->RegisterCollectable(state->metrics->registry());
  state->exposer->RegisterCollectable(state->process);
  state->exposer->RegisterCollectable(state->catalog_db);
  const std::vector<int> metric_ports = state->exposer->GetListeningPorts();
  state->metrics_port = metric_ports.empty() ? 0 : metric_ports.front();
  // One client address may hold all threads but one, so that a stuck or hostile client
  // cannot stop another's scrape.
  TrackConnections(state->metrics_port, std::max(1, options.metrics_threads - 1));
  return absl::OkStatus();
}

// The planner and admin services, and the WatchPlan hub, which plans through the planner
// (and its memo).
void StartServices(const ServerOptions& options, Server::State* state) {
  state->planner = std::make_unique<PlannerServiceImpl>(state->store.get());
  state->planner->SetVersion(options.version);
  state->admin = std::make_unique<AdminServiceImpl>(state->store.get(), &state->tokens, state->metrics.get());
  PlannerServiceImpl* planner = state->planner.get();
  WatchHubOptions watch;
  watch.max_watches = options.max_watches;
  watch.max_workloads = options.max_watched_workloads;
  watch.refresh_interval = options.watch_refresh_interval;
  state->watch_hub = std::make_unique<WatchHub>(
      state->store.get(),
      [planner](const store::CatalogSnapshot& snap, const capplan::v1::PlanRequest& req,
                capplan::v1::PlanResponse* resp, bool fresh) { return planner->PlanOn(snap, req, resp, fresh); },
      watch, WatchMetrics::Register(*state->metrics->registry()));
  planner->SetWatchHub(state->watch_hub.get());
}

}  // namespace

Server::Server(std::unique_ptr<State> state) : state_(std::move(state)) {}

Server::~Server() { Shutdown(std::chrono::milliseconds(0)); }

int Server::grpc_port() const { return state_->grpc_port; }
int Server::metrics_port() const { return state_->metrics_port; }
int Server::http_port() const { return state_->http == nullptr ? 0 : state_->http->port(); }
http::HttpServer* Server::http_server() const { return state_->http.get(); }
int64_t Server::catalog_version() const { return state_->store->Snapshot()->catalog_version; }
std::string Server::catalog_location() const { return state_->store->database().path(); }

absl::StatusOr<std::unique_ptr<Server>> Server::Start(const ServerOptions& options) {
  auto state = std::make_unique<State>();

  if (!options.admin_token_file.empty()) {
    absl::StatusOr<TokenTable> tokens = TokenTable::LoadFile(options.admin_token_file);
    if (!tokens.ok()) return tokens.status();
    state->tokens = std::move(*tokens);
  }

  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> creds = Credentials(options);
  if (!creds.ok()) return creds.status();
  if (absl::Status http = CheckHttpTransport(options); !http.ok()) return http;

  store::DatabaseOptions db_options;
  db_options.path = options.db_path;
  db_options.poll_interval_ms = options.db_poll_interval_ms;
  db_options.log = [](const std::string& line) { std::cerr << "capplan-server: " << line << "\n"; };
  absl::StatusOr<std::unique_ptr<store::CatalogStore>> store = store::CatalogStore::Open(db_options);
  if (!store.ok()) return store.status();
  state->store = std::move(*store);

  absl::Status metrics = StartMetrics(options, state.get());
  if (!metrics.ok()) return metrics;

  StartServices(options, state.get());

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  // gRPC enables SO_REUSEPORT by default, which would let a second server share a taken port
  // silently; a planner must fail loudly instead.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // A connection that has not finished its HTTP/2 (or TLS) handshake in 10 s is closed, so
  // idle sockets cannot pile up; idle connections go after 10 minutes; each connection may
  // carry at most 128 calls at once.
  builder.AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS, 10000);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, 600000);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, 128);
  builder.SetMaxReceiveMessageSize(std::max(options.max_receive_message_bytes, options.max_import_message_bytes));
  builder.AddListeningPort(options.listen_address, *creds, &state->grpc_port);
  builder.RegisterService(state->planner.get());
  builder.RegisterService(state->admin.get());
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> creators;
  creators.push_back(UnparsedRequestInterceptorFactory());  // first: metrics count what it answers
  creators.push_back(state->metrics->InterceptorFactory());
  builder.experimental().SetInterceptorCreators(std::move(creators));
  state->grpc_server = builder.BuildAndStart();
  if (state->grpc_server == nullptr || state->grpc_port == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", options.listen_address, " (address in use or invalid)"));
  }
  absl::Status http = StartHttp(options, state.get());
  if (!http.ok()) return http;
  // After everything else is open, so that the connection cap counts connections only.
  AcceptGuardOptions guard;
  guard.max_connections = options.max_connections;
  absl::Status guarded = InstallAcceptGuard(guard);
  if (!guarded.ok()) return guarded;
  state->grpc_server->GetHealthCheckService()->SetServingStatus(true);
  grpc::Server* serving = state->grpc_server.get();
  // Only a SQLite file deleted or replaced under the server makes it unhealthy. A PostgreSQL
  // catalog that is away is not: reads keep answering from the snapshot, writes fail with
  // Unavailable, and the store reconnects by itself.
  state->store->SetHealthListener(
      [serving](const absl::Status&) { serving->GetHealthCheckService()->SetServingStatus(false); });
  return std::unique_ptr<Server>(new Server(std::move(state)));
}

void Server::Shutdown(std::chrono::milliseconds grace) {
  if (state_ == nullptr || state_->shut_down) return;
  state_->shut_down = true;
  const auto start = std::chrono::steady_clock::now();
  const auto system_deadline = std::chrono::system_clock::now() + grace;
  state_->store->BeginDrain();
  if (state_->grpc_server != nullptr) {
    // Shutdown() of the health service flips every status to NOT_SERVING and holds it there.
    state_->grpc_server->GetHealthCheckService()->Shutdown();
    // HTTP first: it answers new requests 503 and finishes those it has taken, whose
    // in-process calls gRPC still serves.
    if (state_->http != nullptr) state_->http->Stop(start + grace);
    // gRPC's own shutdown cancels every call that has reached the server but not yet a
    // handler, so calls already on their way get a notice period to arrive while health
    // says NOT_SERVING.
    const auto notice = std::min<std::chrono::milliseconds>(grace / 4, std::chrono::milliseconds(500));
    std::this_thread::sleep_until(start + notice);
    // Open watches never end by themselves: end them now (UNAVAILABLE, so that clients
    // reconnect elsewhere) instead of letting them hold the whole grace period.
    if (state_->watch_hub != nullptr) state_->watch_hub->Close();
    state_->grpc_server->Shutdown(system_deadline);
    state_->grpc_server->Wait();
  }
  state_->exposer.reset();
  if (state_->metrics_port > 0) UntrackConnections(state_->metrics_port);
}

}  // namespace capplan::server
