// Test support: a throwaway PostgreSQL cluster on a unix socket (see pg_cluster.h).
#include "tests/pg/pg_cluster.h"

#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace capplan::testing {

namespace {

// Debian installs the server binaries outside PATH, per major version.
std::string FindBinDir() {
  if (const char* env = std::getenv("CAPPLAN_PG_BIN"); env != nullptr && *env != '\0') return env;
  for (const char* dir : {"/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin"}) {
    if (::access(absl::StrCat(dir, "/initdb").c_str(), X_OK) == 0) return dir;
  }
  return "";
}

struct Child {
  int exit_code = -1;
  std::string output;
  bool timed_out = false;
};

// fork/exec `argv` with stdout and stderr captured; SIGKILL after `timeout_ms`.
Child Spawn(const std::vector<std::string>& argv, int timeout_ms) {
  Child result;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return result;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    // The tests' working directory may be unreadable to `postgres` (a clone under /root):
    // psql would complain about it on stderr, which is captured with the output.
    if (::chdir("/") != 0) ::_exit(126);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  char buf[4096];
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    result.output.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

bool PlainIdentifier(const std::string& s) {
  if (s.empty() || s.size() > 63) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::unique_ptr<PgCluster>> PgCluster::Start() {
  std::unique_ptr<PgCluster> c(new PgCluster());
  c->bin_dir_ = FindBinDir();
  if (c->bin_dir_.empty()) {
    return absl::UnavailableError(
        "PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin (install postgresql-15: "
        "scripts/install-deps.sh)");
  }
  // Short: a unix socket path must fit in 108 bytes.
  char tmpl[] = "/tmp/capplan-pg-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) return absl::InternalError("mkdtemp failed");
  c->dir_ = tmpl;
  if (::geteuid() == 0) {
    const passwd* pw = ::getpwnam("postgres");
    if (pw == nullptr)
      return absl::UnavailableError("running as root and there is no `postgres` user to run the server");
    if (::chown(c->dir_.c_str(), pw->pw_uid, pw->pw_gid) != 0) return absl::InternalError("chown of the cluster dir");
  }
  absl::StatusOr<std::string> init =
      c->Run("initdb", {"-D", c->dir_ + "/data", "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"}, 120000);
  if (!init.ok()) return init.status();
  absl::Status started = c->StartServer();
  if (!started.ok()) return started;
  return c;
}

PgCluster::~PgCluster() {
  if (running_) (void)Stop("immediate");
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

absl::StatusOr<std::string> PgCluster::Run(const std::string& program, const std::vector<std::string>& args,
                                           int timeout_ms) const {
  std::vector<std::string> argv;
  if (::geteuid() == 0) argv = {"runuser", "-u", "postgres", "--"};
  // psql (postgresql-client) and the file tools live in PATH; the server tools in bin_dir_.
  const bool in_path = program == "psql" || program == "cp" || program == "rm" || program == "touch";
  argv.push_back(in_path ? program : absl::StrCat(bin_dir_, "/", program));
  argv.insert(argv.end(), args.begin(), args.end());
  Child child = Spawn(argv, timeout_ms);
  if (child.exit_code != 0) {
    return absl::InternalError(absl::StrCat(absl::StrJoin(argv, " "), child.timed_out ? " timed out" : " failed",
                                            " (exit ", child.exit_code, "): ", child.output));
  }
  return child.output;
}

absl::Status PgCluster::StartServer() {
  const std::string opts =
      absl::StrCat("-k ", dir_, " -p ", port_, " -c listen_addresses='' -c fsync=off -c max_connections=200");
  absl::StatusOr<std::string> out =
      Run("pg_ctl", {"-D", dir_ + "/data", "-l", dir_ + "/server.log", "-w", "-t", "60", "-o", opts, "start"}, 90000);
  if (!out.ok()) return absl::UnavailableError(absl::StrCat(out.status().message(), "\nserver log:\n", Log()));
  running_ = true;
  return absl::OkStatus();
}

absl::Status PgCluster::Stop(const std::string& mode) {
  absl::StatusOr<std::string> out = Run("pg_ctl", {"-D", dir_ + "/data", "-m", mode, "-w", "-t", "60", "stop"}, 90000);
  if (!out.ok()) return out.status();
  running_ = false;
  return absl::OkStatus();
}

absl::Status PgCluster::Restart(int port) {
  if (running_) return absl::FailedPreconditionError("the PostgreSQL test cluster is already running");
  if (port != 0) port_ = port;
  return StartServer();
}

absl::Status PgCluster::SaveCopy(const std::string& name) {
  if (running_) return absl::FailedPreconditionError("stop the PostgreSQL test cluster before copying it");
  if (!PlainIdentifier(name)) return absl::InvalidArgumentError(absl::StrCat("name: not a plain identifier: ", name));
  return Run("cp", {"-a", dir_ + "/data", dir_ + "/" + name}, 120000).status();
}

absl::Status PgCluster::RestoreCopy(const std::string& name, bool as_standby) {
  if (running_) return absl::FailedPreconditionError("stop the PostgreSQL test cluster before restoring a copy");
  if (!PlainIdentifier(name)) return absl::InvalidArgumentError(absl::StrCat("name: not a plain identifier: ", name));
  absl::Status removed = Run("rm", {"-rf", dir_ + "/data"}, 60000).status();
  if (!removed.ok()) return removed;
  absl::Status copied = Run("cp", {"-a", dir_ + "/" + name, dir_ + "/data"}, 120000).status();
  if (!copied.ok() || !as_standby) return copied;
  return Run("touch", {dir_ + "/data/standby.signal"}, 10000).status();
}

absl::Status PgCluster::Promote() {
  return Run("pg_ctl", {"-D", dir_ + "/data", "-w", "-t", "60", "promote"}, 90000).status();
}

std::string PgCluster::Dsn(const std::string& dbname) const {
  return absl::StrCat("postgresql://postgres@/", dbname, "?host=", dir_, "&port=", port_);
}

absl::StatusOr<std::string> PgCluster::Psql(const std::string& dbname, const std::string& sql) {
  return Run("psql",
             {"-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", dir_, "-p", std::to_string(port_), "-U", "postgres",
              "-d", dbname, "-c", sql},
             60000);
}

absl::Status PgCluster::CreateDatabase(const std::string& dbname) {
  if (!PlainIdentifier(dbname))
    return absl::InvalidArgumentError(absl::StrCat("dbname: not a plain identifier: ", dbname));
  return Psql("postgres", absl::StrCat("CREATE DATABASE ", dbname)).status();
}

std::string PgCluster::Log() const {
  std::ifstream in(dir_ + "/server.log");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace capplan::testing
