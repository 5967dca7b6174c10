// capplan-server: parses flags (with environment fallbacks), starts the server, waits for
// SIGTERM or SIGINT, drains and exits 0. Startup failures exit 1 with one line naming why.
#include <signal.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "server/allocator.h"
#include "server/http/request_policy.h"
#include "server/server.h"
#include "server/web/web_assets.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50051",
          "gRPC listen address, host:port (port 0 picks a free one). Env: CAPPLAN_LISTEN");
ABSL_FLAG(std::string, metrics_listen, "127.0.0.1:9464",
          "Prometheus /metrics address, host:port. Env: CAPPLAN_METRICS_LISTEN");
ABSL_FLAG(std::string, http_listen, "127.0.0.1:8080",
          "HTTP/JSON API address (every RPC under /v1/, OpenAPI at /v1/openapi.json), host:port "
          "(port 0 picks a free one; empty disables). Plaintext only; the container and Kubernetes "
          "files bind 0.0.0.0:8080 so that the Service can reach it. Env: CAPPLAN_HTTP_LISTEN");
ABSL_FLAG(int, http_threads, 64,
          "HTTP/JSON worker threads (1..1024). Each open connection holds one while it sends its request "
          "and waits for its answer");
ABSL_FLAG(absl::Duration, http_header_timeout, absl::Seconds(5),
          "Longest time an HTTP request line and headers may take to arrive (also the longest wait for any "
          "one read or write); the connection is closed after it (100ms..60s)");
ABSL_FLAG(absl::Duration, http_body_timeout, absl::Seconds(10),
          "Longest time an HTTP request body may take to arrive, and an answer to be taken by its client; "
          "408 after it (100ms..300s)");
ABSL_FLAG(int, http_max_connections_per_client, 16,
          "HTTP connections one client address may hold open at once; more are closed on accept, so that "
          "one slow or idle client cannot hold every worker thread (0: no cap, e.g. behind a proxy whose "
          "address every client shares; 0..100000)");
ABSL_FLAG(std::string, http_cors_origins, "",
          "Comma-separated origins (scheme://host[:port]) whose browser pages may call the HTTP/JSON API "
          "(CORS); empty: none, and no preflight is approved. Never applies to /v1/admin/ routes, whose "
          "bearer tokens are for operators' tools. Env: CAPPLAN_HTTP_CORS_ORIGINS");
ABSL_FLAG(std::string, http_frame_ancestors, "'none'",
          "The web page's Content-Security-Policy frame-ancestors: which pages may embed it in a frame "
          "(e.g. \"'self' https://grafana.example\"); 'none', or space-separated 'self', scheme sources "
          "(https:) and host sources (https://host[:port], https://*.example). Env: CAPPLAN_HTTP_FRAME_ANCESTORS");
ABSL_FLAG(bool, http_allow_plaintext, false,
          "With --tls_cert_file, start plaintext HTTP/JSON on an address other than loopback anyway (for a "
          "proxy in front that terminates TLS and checks client certificates); without it such a start "
          "fails, so that HTTP is no way around gRPC's TLS and mTLS. Env: CAPPLAN_HTTP_ALLOW_PLAINTEXT=1");
ABSL_FLAG(std::string, db, "var/capplan.db",
          "Catalog database: a SQLite file (created and migrated if missing), or a PostgreSQL DSN "
          "postgresql://user:password@host:port/dbname shared by replicas (migrated at start-up). "
          "Env: CAPPLAN_DB");
ABSL_FLAG(absl::Duration, db_poll_interval, absl::Seconds(2),
          "PostgreSQL: how often each replica checks the catalog version in case a change "
          "notification was missed (0 disables). Env: CAPPLAN_DB_POLL_INTERVAL");
ABSL_FLAG(std::string, admin_token_file, "",
          "File of admin bearer tokens, one \"<token> <caller> <role>\" per line. "
          "Env: CAPPLAN_ADMIN_TOKEN_FILE");
ABSL_FLAG(std::string, tco_scenarios_file, "",
          "JSON array of standing TCO scenarios {\"name\", \"request\"} written at start-up (a bad "
          "one stops the server). Env: CAPPLAN_TCO_SCENARIOS_FILE");
ABSL_FLAG(int, tco_price_max_age_days, capplan::server::kDefaultTcoPriceMaxAgeDays,
          "Tco answers warn about every catalog price they use older than this many days "
          "(1..3650; TcoResponse.stale_prices)");
ABSL_FLAG(std::string, tls_cert_file, "",
          "PEM certificate chain; with --tls_key_file serves TLS. Env: CAPPLAN_TLS_CERT_FILE");
ABSL_FLAG(std::string, tls_key_file, "", "PEM private key. Env: CAPPLAN_TLS_KEY_FILE");
ABSL_FLAG(std::string, tls_client_ca_file, "",
          "PEM CA bundle; clients must present a certificate it signed (mTLS). "
          "Env: CAPPLAN_TLS_CLIENT_CA_FILE");
ABSL_FLAG(int, max_connections, 4096,
          "Concurrent client connections; more are closed on accept (0: only the descriptor "
          "limit, which the server raises to its hard limit). Env: CAPPLAN_MAX_CONNECTIONS");
ABSL_FLAG(int, max_watches, 10000, "Open WatchPlan streams (0..1000000); more are refused with RESOURCE_EXHAUSTED");
ABSL_FLAG(int, max_watched_workloads, 1000,
          "Distinct Plan requests watched at once (1..100000); more are refused with "
          "RESOURCE_EXHAUSTED. Each is recomputed once per catalog change");
ABSL_FLAG(absl::Duration, watch_refresh, absl::Seconds(60),
          "How often every watched workload is recomputed without a catalog change, so that a price "
          "dated in the future reaches watchers when it takes effect (0: never; at most 1h)");
ABSL_FLAG(absl::Duration, shutdown_grace, absl::Seconds(10),
          "How long in-flight calls may run after SIGTERM. Env: CAPPLAN_SHUTDOWN_GRACE");

namespace {

// --max_watches and --max_watched_workloads into `options`; false (with a line) when out of range.
bool WatchBounds(capplan::server::ServerOptions* options) {
  options->max_watches = absl::GetFlag(FLAGS_max_watches);
  options->max_watched_workloads = absl::GetFlag(FLAGS_max_watched_workloads);
  if (options->max_watches < 0 || options->max_watches > 1000000) {
    std::cerr << "capplan-server: --max_watches: must be in [0, 1000000], got " << options->max_watches << "\n";
    return false;
  }
  if (options->max_watched_workloads < 1 || options->max_watched_workloads > 100000) {
    std::cerr << "capplan-server: --max_watched_workloads: must be in [1, 100000], got "
              << options->max_watched_workloads << "\n";
    return false;
  }
  options->tco_price_max_age_days = absl::GetFlag(FLAGS_tco_price_max_age_days);
  if (options->tco_price_max_age_days < 1 || options->tco_price_max_age_days > 3650) {
    std::cerr << "capplan-server: --tco_price_max_age_days: must be in [1, 3650], got "
              << options->tco_price_max_age_days << "\n";
    return false;
  }
  const absl::Duration refresh = absl::GetFlag(FLAGS_watch_refresh);
  if (refresh < absl::ZeroDuration() || refresh > absl::Hours(1)) {
    std::cerr << "capplan-server: --watch_refresh: must be in [0, 1h], got " << refresh << "\n";
    return false;
  }
  options->watch_refresh_interval = absl::ToChronoMilliseconds(refresh);
  return true;
}

// Abseil's --help lists the flags of files named after the binary; capplan-server's are in
// server/main.cc, so name that file (otherwise --help prints "No flags matched").
void ConfigureHelp() {
  absl::FlagsUsageConfig usage;
  const auto ours = [](absl::string_view file) { return absl::EndsWith(file, "server/main.cc"); };
  usage.contains_help_flags = ours;
  usage.contains_helpshort_flags = ours;
  absl::SetFlagsUsageConfig(usage);
  absl::SetProgramUsageMessage(
      "capplan-server: GPU capacity planning for LLMs over gRPC\n\nUsage: capplan-server [--flag=value ...]");
}

}  // namespace

#ifndef CAPPLAN_VERSION
#define CAPPLAN_VERSION "dev"
#endif

namespace {

std::vector<std::string> g_args;

// Whether --name or -name appeared on the command line. (Abseil 20220623 keeps
// CommandLineFlag::IsSpecifiedOnCommandLine private.)
bool OnCommandLine(const std::string& name) {
  for (const std::string& a : g_args) {
    if (a == "--") break;
    for (const std::string& prefix : {"--" + name, "-" + name}) {
      if (a == prefix || absl::StartsWith(a, prefix + "=")) return true;
    }
  }
  return false;
}

// A flag given on the command line wins; otherwise a set environment variable; otherwise
// the default.
std::string FlagOrEnv(const absl::Flag<std::string>& flag, const char* name, const char* env) {
  const char* value = std::getenv(env);
  if (!OnCommandLine(name) && value != nullptr && *value != '\0') return value;
  return absl::GetFlag(flag);
}

// The same for a duration flag; false (after one line on stderr) when the variable does not
// parse.
bool DurationFlagOrEnv(const absl::Flag<absl::Duration>& flag, const char* name, const char* env, absl::Duration* out) {
  *out = absl::GetFlag(flag);
  const char* value = std::getenv(env);
  if (value == nullptr || OnCommandLine(name)) return true;
  if (absl::ParseDuration(value, out)) return true;
  std::cerr << "capplan-server: " << env << ": not a duration: " << value << "\n";
  return false;
}

// The HTTP listener's flags into `options`; false (with a line) when one is out of range.
bool HttpFlags(capplan::server::ServerOptions* options) {
  options->http_threads = absl::GetFlag(FLAGS_http_threads);
  options->http_max_connections_per_client = absl::GetFlag(FLAGS_http_max_connections_per_client);
  const absl::Duration header = absl::GetFlag(FLAGS_http_header_timeout);
  const absl::Duration body = absl::GetFlag(FLAGS_http_body_timeout);
  std::string error;
  if (options->http_threads < 1 || options->http_threads > 1024) {
    error = absl::StrCat("--http_threads: must be in [1, 1024], got ", options->http_threads);
  } else if (options->http_max_connections_per_client < 0 || options->http_max_connections_per_client > 100000) {
    error = absl::StrCat("--http_max_connections_per_client: must be in [0, 100000], got ",
                         options->http_max_connections_per_client);
  } else if (header < absl::Milliseconds(100) || header > absl::Seconds(60)) {
    error = absl::StrCat("--http_header_timeout: must be in [100ms, 60s], got ", absl::FormatDuration(header));
  } else if (body < absl::Milliseconds(100) || body > absl::Seconds(300)) {
    error = absl::StrCat("--http_body_timeout: must be in [100ms, 300s], got ", absl::FormatDuration(body));
  }
  if (!error.empty()) {
    std::cerr << "capplan-server: " << error << "\n";
    return false;
  }
  options->http_header_timeout_ms = static_cast<int>(absl::ToInt64Milliseconds(header));
  options->http_body_timeout_ms = static_cast<int>(absl::ToInt64Milliseconds(body));
  absl::StatusOr<std::vector<std::string>> origins = capplan::server::http::ParseCorsOrigins(
      FlagOrEnv(FLAGS_http_cors_origins, "http_cors_origins", "CAPPLAN_HTTP_CORS_ORIGINS"));
  if (!origins.ok()) {
    std::cerr << "capplan-server: " << origins.status().message() << "\n";
    return false;
  }
  options->http_cors_origins = std::move(*origins);
  absl::StatusOr<std::string> ancestors = capplan::server::web::ParseFrameAncestors(
      FlagOrEnv(FLAGS_http_frame_ancestors, "http_frame_ancestors", "CAPPLAN_HTTP_FRAME_ANCESTORS"));
  if (!ancestors.ok()) {
    std::cerr << "capplan-server: " << ancestors.status().message() << "\n";
    return false;
  }
  options->http_frame_ancestors = std::move(*ancestors);
  options->http_allow_plaintext = absl::GetFlag(FLAGS_http_allow_plaintext);
  if (const char* env = std::getenv("CAPPLAN_HTTP_ALLOW_PLAINTEXT");
      env != nullptr && !OnCommandLine("http_allow_plaintext")) {
    options->http_allow_plaintext = std::string(env) == "1" || std::string(env) == "true";
  }
  return true;
}

// ", http/json on http://host:port/v1/", or nothing when HTTP is disabled.
std::string HttpNote(const std::string& address, int port) {
  if (address.empty()) return "";
  return absl::StrCat(", http/json on http://", address.substr(0, address.rfind(':')), ":", port, "/v1/");
}

}  // namespace

int main(int argc, char** argv) {
  capplan::server::TuneAllocator();
  ConfigureHelp();
  g_args.assign(argv + 1, argv + argc);
  absl::ParseCommandLine(argc, argv);

  // Block the shutdown signals before any thread starts, so every gRPC thread inherits the
  // mask and only sigwait below sees them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  capplan::server::ServerOptions options;
  options.listen_address = FlagOrEnv(FLAGS_listen, "listen", "CAPPLAN_LISTEN");
  options.metrics_address = FlagOrEnv(FLAGS_metrics_listen, "metrics_listen", "CAPPLAN_METRICS_LISTEN");
  options.http_address = FlagOrEnv(FLAGS_http_listen, "http_listen", "CAPPLAN_HTTP_LISTEN");
  // Unlike the other variables, a set but empty CAPPLAN_HTTP_LISTEN means something: no HTTP.
  if (const char* env = std::getenv("CAPPLAN_HTTP_LISTEN");
      env != nullptr && *env == '\0' && !OnCommandLine("http_listen")) {
    options.http_address.clear();
  }
  options.db_path = FlagOrEnv(FLAGS_db, "db", "CAPPLAN_DB");
  options.admin_token_file = FlagOrEnv(FLAGS_admin_token_file, "admin_token_file", "CAPPLAN_ADMIN_TOKEN_FILE");
  options.tco_scenarios_file = FlagOrEnv(FLAGS_tco_scenarios_file, "tco_scenarios_file", "CAPPLAN_TCO_SCENARIOS_FILE");
  options.tls_cert_file = FlagOrEnv(FLAGS_tls_cert_file, "tls_cert_file", "CAPPLAN_TLS_CERT_FILE");
  options.tls_key_file = FlagOrEnv(FLAGS_tls_key_file, "tls_key_file", "CAPPLAN_TLS_KEY_FILE");
  options.tls_client_ca_file = FlagOrEnv(FLAGS_tls_client_ca_file, "tls_client_ca_file", "CAPPLAN_TLS_CLIENT_CA_FILE");
  options.version = CAPPLAN_VERSION;
  options.max_connections = absl::GetFlag(FLAGS_max_connections);
  if (const char* env = std::getenv("CAPPLAN_MAX_CONNECTIONS");
      env != nullptr && *env != '\0' && !OnCommandLine("max_connections")) {
    if (!absl::SimpleAtoi(env, &options.max_connections)) {
      std::cerr << "capplan-server: CAPPLAN_MAX_CONNECTIONS: not a whole number: " << env << "\n";
      return 1;
    }
  }
  if (options.max_connections < 0 || options.max_connections > 1000000) {
    std::cerr << "capplan-server: --max_connections: must be in [0, 1000000], got " << options.max_connections << "\n";
    return 1;
  }
  if (!WatchBounds(&options) || !HttpFlags(&options)) return 1;
  absl::Duration poll;
  absl::Duration grace;
  if (!DurationFlagOrEnv(FLAGS_db_poll_interval, "db_poll_interval", "CAPPLAN_DB_POLL_INTERVAL", &poll) ||
      !DurationFlagOrEnv(FLAGS_shutdown_grace, "shutdown_grace", "CAPPLAN_SHUTDOWN_GRACE", &grace)) {
    return 1;
  }
  if (poll < absl::ZeroDuration() || poll > absl::Hours(1)) {
    std::cerr << "capplan-server: --db_poll_interval: must be in [0s, 1h], got " << absl::FormatDuration(poll) << "\n";
    return 1;
  }
  options.db_poll_interval_ms = static_cast<int>(absl::ToInt64Milliseconds(poll));

  absl::StatusOr<std::unique_ptr<capplan::server::Server>> server = capplan::server::Server::Start(options);
  if (!server.ok()) {
    std::cerr << "capplan-server: " << server.status().message() << "\n";
    return 1;
  }
  const size_t colon = options.listen_address.rfind(':');
  const std::string host = options.listen_address.substr(0, colon);
  const size_t mcolon = options.metrics_address.rfind(':');
  std::cout << "capplan-server " << CAPPLAN_VERSION << ": serving grpc on " << host << ":" << (*server)->grpc_port()
            << ", metrics on http://" << options.metrics_address.substr(0, mcolon) << ":" << (*server)->metrics_port()
            << "/metrics" << HttpNote(options.http_address, (*server)->http_port()) << ", catalog version "
            << (*server)->catalog_version() << " from " << (*server)->catalog_location() << std::endl;

  int sig = 0;
  sigwait(&signals, &sig);
  std::cout << "capplan-server: " << (sig == SIGTERM ? "SIGTERM" : "SIGINT") << ", draining for up to "
            << absl::FormatDuration(grace) << std::endl;
  (*server)->Shutdown(absl::ToChronoMilliseconds(grace));
  std::cout << "capplan-server: stopped" << std::endl;
  return 0;
}
