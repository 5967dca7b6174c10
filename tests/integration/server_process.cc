#include "server_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "absl/strings/match.h"

namespace capplan::testing {

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// fork + exec with stdout to a pipe (returned) and stderr to a file.
pid_t Spawn(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
            const std::string& stderr_path, int* stdout_fd, int nofile_limit = 0) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    const int err = open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(err, STDERR_FILENO);
    close(fds[0]);
    close(fds[1]);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    if (nofile_limit > 0) {
      const rlimit lim{static_cast<rlim_t>(nofile_limit), static_cast<rlim_t>(nofile_limit)};
      if (setrlimit(RLIMIT_NOFILE, &lim) != 0) _exit(126);
    }
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(fds[1]);
  *stdout_fd = fds[0];
  return pid;
}

// Reads what is available on fd within timeout_ms; false on EOF.
bool ReadSome(int fd, int timeout_ms, std::string* out) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) <= 0) return true;
  char buf[4096];
  const ssize_t n = read(fd, buf, sizeof buf);
  if (n <= 0) return false;
  out->append(buf, static_cast<size_t>(n));
  return true;
}

bool WaitPid(pid_t pid, int timeout_ms, ExitResult* r) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    int status = 0;
    const pid_t got = waitpid(pid, &status, WNOHANG);
    if (got == pid) {
      if (WIFEXITED(status)) {
        r->exit_code = WEXITSTATUS(status);
      } else if (WIFSIGNALED(status)) {
        r->exit_code = -1;
        r->signal = WTERMSIG(status);
      }
      return true;
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace

TempDir::TempDir() {
  char tmpl[] = "/tmp/capplan-it-XXXXXX";
  path_ = mkdtemp(tmpl);
}

TempDir::~TempDir() { std::filesystem::remove_all(path_); }

ServerProcess::ServerProcess(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
                             int nofile_limit) {
  char tmpl[] = "/tmp/capplan-server-stderr-XXXXXX";
  const int fd = mkstemp(tmpl);
  close(fd);
  stderr_path_ = tmpl;
  std::vector<std::string> argv = {CAPPLAN_SERVER_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  // Tests never take the fixed default HTTP port (8080): suites run in parallel.
  bool http_given = env.count("CAPPLAN_HTTP_LISTEN") > 0;
  for (const std::string& a : args) http_given = http_given || a.rfind("--http_listen", 0) == 0;
  if (!http_given) argv.push_back("--http_listen=127.0.0.1:0");
  pid_ = Spawn(argv, env, stderr_path_, &stdout_fd_, nofile_limit);
  static const std::regex kBanner(R"(serving grpc on [^ ]+:(\d+), metrics on http://[^ ]+:(\d+)/metrics)");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    if (!ReadSome(stdout_fd_, 100, &stdout_text_)) break;  // exited before serving
    std::smatch m;
    if (std::regex_search(stdout_text_, m, kBanner)) {
      grpc_port_ = std::stoi(m[1]);
      metrics_port_ = std::stoi(m[2]);
      static const std::regex kHttp(R"(http/json on http://[^ ]+:(\d+)/v1/)");
      if (std::smatch h; std::regex_search(stdout_text_, h, kHttp)) http_port_ = std::stoi(h[1]);
      banner_ = stdout_text_;
      return;
    }
  }
  Wait(10000);
}

ServerProcess::~ServerProcess() {
  if (!reaped_ && pid_ > 0) {
    kill(pid_, SIGKILL);
    Wait(10000);
  }
  if (stdout_fd_ >= 0) close(stdout_fd_);
  std::filesystem::remove(stderr_path_);
}

std::string ServerProcess::grpc_address() const { return "127.0.0.1:" + std::to_string(grpc_port_); }

void ServerProcess::Signal(int sig) {
  if (!reaped_) kill(pid_, sig);
}

std::string ServerProcess::StderrSoFar() const { return ReadFile(stderr_path_); }

ExitResult ServerProcess::Wait(int timeout_ms) {
  if (reaped_) return exit_;
  if (!WaitPid(pid_, timeout_ms, &exit_)) {
    exit_.exit_code = -2;  // still running
    return exit_;
  }
  reaped_ = true;
  while (ReadSome(stdout_fd_, 100, &stdout_text_)) {
  }
  exit_.stdout_text = stdout_text_;
  exit_.stderr_text = ReadFile(stderr_path_);
  return exit_;
}

double TimeScale() {
  const char* env = std::getenv("CAPPLAN_TEST_TIME_SCALE");
  if (env == nullptr) return 1.0;
  char* end = nullptr;
  const double scale = std::strtod(env, &end);
  return end != env && *end == '\0' && scale >= 1.0 && scale <= 20.0 ? scale : 1.0;
}

void WriteTokenFile(const std::string& path, const std::string& content) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return;  // the server's start-up then reports the missing file
  fchmod(fd, 0600);    // O_CREAT's mode does not apply to an existing file
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = write(fd, content.data() + done, content.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  close(fd);
}

ExitResult RunProgram(const std::vector<std::string>& argv, int timeout_ms,
                      const std::map<std::string, std::string>& env) {
  char tmpl[] = "/tmp/capplan-run-stderr-XXXXXX";
  const int fd = mkstemp(tmpl);
  close(fd);
  int out_fd = -1;
  const pid_t pid = Spawn(argv, env, tmpl, &out_fd);
  ExitResult r;
  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline && ReadSome(out_fd, 100, &out)) {
  }
  if (!WaitPid(pid, 0, &r)) {
    kill(pid, SIGKILL);
    WaitPid(pid, 10000, &r);
  }
  close(out_fd);
  r.stdout_text = out;
  r.stderr_text = ReadFile(tmpl);
  std::filesystem::remove(tmpl);
  return r;
}

int UnusedLoopbackPort() {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(s);
    return 0;
  }
  socklen_t len = sizeof addr;
  getsockname(s, reinterpret_cast<sockaddr*>(&addr), &len);
  close(s);
  return ntohs(addr.sin_port);
}

std::string HttpGet(int port, const std::string& path, int* http_status) {
  HttpReply r = HttpCall(port, "GET", path);
  *http_status = r.status;
  return r.body;
}

HttpReply HttpCall(int port, const std::string& method, const std::string& path, const std::string& body,
                   const HttpCallOptions& options) {
  HttpReply reply;
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(s);
    return reply;
  }
  std::string head = method + " " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n";
  bool typed = false;
  for (const std::string& h : options.headers) {
    head += h + "\r\n";
    typed = typed || absl::StartsWithIgnoreCase(h, "Content-Type:");
  }
  // A JSON body says so, as the server requires.
  if (!body.empty() && !typed) head += "Content-Type: application/json\r\n";
  const long long length = options.content_length >= 0 ? options.content_length : static_cast<long long>(body.size());
  if (!body.empty() || method == "POST" || options.content_length >= 0) {
    head += "Content-Length: " + std::to_string(length) + "\r\n";
  }
  head += "\r\n";
  (void)!send(s, head.data(), head.size(), MSG_NOSIGNAL);
  if (options.pause_before_body_ms > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(options.pause_before_body_ms));
  if (!body.empty()) (void)!send(s, body.data(), body.size(), MSG_NOSIGNAL);
  std::string resp;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  // Until the server closes or, like a browser, once the body its Content-Length announces is in.
  static const std::regex kLength(R"(\r\nContent-Length: *(\d+)\r\n)", std::regex::icase);
  while (ReadSome(s, 1000, &resp) && std::chrono::steady_clock::now() < deadline) {
    const size_t end = resp.find("\r\n\r\n");
    std::smatch m;
    const std::string head = resp.substr(0, end == std::string::npos ? 0 : end + 2);
    if (end != std::string::npos && std::regex_search(head, m, kLength) && resp.size() - end - 4 >= std::stoull(m[1])) {
      break;
    }
  }
  close(s);
  const size_t sp = resp.find(' ');
  if (sp != std::string::npos) reply.status = std::atoi(resp.c_str() + sp + 1);
  const size_t end = resp.find("\r\n\r\n");
  if (end != std::string::npos) {
    reply.headers = resp.substr(0, end);
    reply.body = resp.substr(end + 4);
  }
  return reply;
}

int64_t QueryDb(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  int64_t v = -1;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK && sqlite3_step(stmt) == SQLITE_ROW) {
      v = sqlite3_column_int64(stmt, 0);
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return v;
}

capplan::v1::SetPriceRequest P5Price(double usd) {
  capplan::v1::SetPriceRequest r;
  capplan::v1::Price* p = r.mutable_price();
  p->set_provider("aws");
  p->set_instance_type("p5.48xlarge");
  p->set_region("us-east-1");
  p->set_kind(capplan::v1::PRICE_KIND_ON_DEMAND);
  p->set_price_usd_per_hour(usd);
  p->mutable_source()->set_citation("AWS price cut announcement, ops ticket 42");
  p->mutable_source()->set_as_of_date("2025-06-05");
  return r;
}

}  // namespace capplan::testing
