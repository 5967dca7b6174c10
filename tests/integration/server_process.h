// Test support: run the real capplan-server (and CLI) as child processes, scrape HTTP.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "capplan/v1/admin.pb.h"
#include "capplan/v1/planner.pb.h"
#include "tests/own_or_rent_tco_request.h"

namespace capplan::testing {

// A temporary directory removed on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct ExitResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  std::string stdout_text;
  std::string stderr_text;
};

class ServerProcess {
 public:
  // Starts capplan-server with `args` (and extra environment), waits for its "serving" line.
  // On failure (the process exited first) started() is false and exit() says why.
  // `nofile_limit` > 0 sets the child's soft and hard descriptor limits.
  ServerProcess(const std::vector<std::string>& args, const std::map<std::string, std::string>& env = {},
                int nofile_limit = 0);
  ~ServerProcess();

  bool started() const { return grpc_port_ > 0; }
  int grpc_port() const { return grpc_port_; }
  int metrics_port() const { return metrics_port_; }
  // 0 when the server serves no HTTP/JSON (--http_listen= empty). The harness passes
  // --http_listen=127.0.0.1:0 unless the arguments or environment name an address.
  int http_port() const { return http_port_; }
  std::string grpc_address() const;
  pid_t pid() const { return pid_; }
  const std::string& banner() const { return banner_; }

  // What the server wrote to stderr so far (it keeps running).
  std::string StderrSoFar() const;

  void Signal(int sig);
  // Waits up to `timeout_ms` for the process to exit; collects its output.
  ExitResult Wait(int timeout_ms);

 private:
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  std::string stderr_path_;
  std::string stdout_text_;
  std::string banner_;
  int grpc_port_ = 0;
  int metrics_port_ = 0;
  int http_port_ = 0;
  bool reaped_ = false;
  ExitResult exit_;
};

// How many times longer than in a plain build the server may take for what a test bounds by
// time as slack (start-up, teardown): CAPPLAN_TEST_TIME_SCALE, a number from 1 to 20 that the
// ThreadSanitizer run sets (`make test-tsan`: instrumented code runs several times slower);
// 1 when unset or out of range. A test scales its allowance for that overhead only, never the
// duration it tells a bug by, unless that duration slows down as much.
double TimeScale();

// Writes a token file as operators are told to: mode 0600 (the server refuses wider ones).
void WriteTokenFile(const std::string& path, const std::string& content);

// Runs a program to completion (bounded by timeout_ms, then SIGKILL).
ExitResult RunProgram(const std::vector<std::string>& argv, int timeout_ms,
                      const std::map<std::string, std::string>& env = {});

// A loopback TCP port that was free a moment ago (bound to port 0, then released); 0 when
// none could be bound.
int UnusedLoopbackPort();

// Plain HTTP/1.0 GET on loopback; returns the body, or "" with `status` set to the failure.
std::string HttpGet(int port, const std::string& path, int* http_status);

struct HttpCallOptions {
  std::vector<std::string> headers;  // "Name: value"; with a body and no Content-Type, application/json
  long long content_length = -1;     // -1: the body's size (sent only with a body or POST)
  int pause_before_body_ms = 0;      // sends the headers, waits, then the body
};
struct HttpReply {
  int status = 0;  // 0: no answer
  std::string headers;
  std::string body;
};
// One HTTP/1.0 request on loopback (the server closes the connection after answering).
HttpReply HttpCall(int port, const std::string& method, const std::string& path, const std::string& body = "",
                   const HttpCallOptions& options = {});

// The first column of the first row of `sql` on the database at `db_path` (opened
// read-only, so it may run while the server serves); -1 when there is none.
int64_t QueryDb(const std::string& db_path, const std::string& sql);

// An on-demand price for aws p5.48xlarge in us-east-1 (a shipped offer), with a source.
capplan::v1::SetPriceRequest P5Price(double usd);

// The README's `capplan tco` example:
// cumulative own 250,000 + 5,000 m <= rent 15,000 m first at m = 25.
using capplan::testdata::ReadmeOwnOrRentRequest;

}  // namespace capplan::testing
