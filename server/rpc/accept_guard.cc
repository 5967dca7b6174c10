#include "server/rpc/accept_guard.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <string>
#include <vector>

#include "absl/base/const_init.h"
#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace capplan::server {
namespace {

std::atomic<int> g_ceiling{0};   // 0: not installed
std::atomic<int> g_reserve{-1};  // the descriptor given up to shed one connection
std::atomic<int64_t> g_shed{0};
// One shedding at a time: there is one reserve descriptor. Constant-initialised: accept() may
// run before any constructor of this file.
ABSL_CONST_INIT absl::Mutex g_reserve_mu(absl::kConstInit);

#if defined(__SANITIZE_THREAD__)
#define CAPPLAN_ACCEPT_VIA_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CAPPLAN_ACCEPT_VIA_TSAN 1
#endif
#endif

#ifdef CAPPLAN_ACCEPT_VIA_TSAN
}  // namespace
}  // namespace capplan::server
// ThreadSanitizer's own accept4 (its interceptor, whose public name the definitions at the end
// of this file take over). A connection must be accepted through it: TSan records there which
// thread created the descriptor; without that record, a close racing another use of the
// descriptor makes TSan's report read the thread registry at an invalid index and abort.
extern "C" int __interceptor_accept4(int fd, sockaddr* addr, socklen_t* len, int flags);
namespace capplan::server {
namespace {
#endif

// libc's accept4 without going through the definitions below (the system call itself, or in a
// ThreadSanitizer build TSan's interceptor, which calls libc's).
int RawAccept4(int fd, sockaddr* addr, socklen_t* len, int flags) {
#ifdef CAPPLAN_ACCEPT_VIA_TSAN
  return __interceptor_accept4(fd, addr, len, flags);
#else
  return static_cast<int>(syscall(SYS_accept4, fd, addr, len, flags));
#endif
}

// Out of descriptors: give up the reserve, take one pending connection off the queue and
// close it, take the reserve back. False when there was nothing to shed.
bool ShedWithReserve(int listen_fd) {
  absl::MutexLock lock(&g_reserve_mu);
  const int reserve = g_reserve.exchange(-1);
  if (reserve >= 0) close(reserve);
  const int c = RawAccept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
  const int saved = errno;
  if (c >= 0) close(c);
  g_reserve.store(open("/dev/null", O_RDONLY | O_CLOEXEC));
  errno = saved;
  return c >= 0;
}

// A connection accepted on a tracked listener: its descriptor and the socket's inode.
// Entries go when the server that owns the connection reports it closing (ConnectionClosing,
// from civetweb's connection_close callback, on the owner's thread before its close). The guard
// never looks at a descriptor another thread may be closing: the only other way an entry goes
// is when accept hands out its descriptor number again, which proves the old one closed.
struct Held {
  int fd;
  ino_t inode;
};

ABSL_CONST_INIT absl::Mutex g_clients_mu(absl::kConstInit);
std::map<int, int> g_caps ABSL_GUARDED_BY(g_clients_mu);  // tracked local port -> connections per client (0: no cap)
// "<local port>/<client address bytes>/<client port>" -> the connection.
std::map<std::string, Held> g_held ABSL_GUARDED_BY(g_clients_mu);
std::map<int, std::string> g_held_by_fd ABSL_GUARDED_BY(g_clients_mu);  // descriptor -> its g_held key

int PortOf(const sockaddr_storage& ss) {
  if (ss.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&ss)->sin_port);
  if (ss.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_port);
  return 0;
}

int LocalPort(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return 0;
  return PortOf(ss);
}

// "<port>/<address bytes>/"; empty for a non-IP address. An IPv4-mapped IPv6 address counts
// as the IPv4 one.
std::string ClientPrefix(int port, const sockaddr_storage& ss) {
  std::string key = std::to_string(port) + "/";
  if (ss.ss_family == AF_INET) {
    const auto& a = reinterpret_cast<const sockaddr_in*>(&ss)->sin_addr;
    return key.append(reinterpret_cast<const char*>(&a), sizeof a).append("/");
  }
  if (ss.ss_family == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(&a)) return key.append(reinterpret_cast<const char*>(&a) + 12, 4).append("/");
    return key.append(reinterpret_cast<const char*>(&a), sizeof a).append("/");
  }
  return "";
}

// The g_held key of the connection on local `port` from `client_address` (numeric, as civetweb
// reports it) and `client_port`; empty when the address is not numeric.
std::string ConnectionKey(int port, const std::string& client_address, int client_port) {
  sockaddr_storage ss{};
  if (inet_pton(AF_INET, client_address.c_str(), &reinterpret_cast<sockaddr_in*>(&ss)->sin_addr) == 1) {
    ss.ss_family = AF_INET;
  } else if (inet_pton(AF_INET6, client_address.c_str(), &reinterpret_cast<sockaddr_in6*>(&ss)->sin6_addr) == 1) {
    ss.ss_family = AF_INET6;
  } else {
    return "";
  }
  const std::string prefix = ClientPrefix(port, ss);
  return prefix.empty() ? prefix : prefix + std::to_string(client_port);
}

void EraseLocked(std::map<std::string, Held>::iterator it) ABSL_EXCLUSIVE_LOCKS_REQUIRED(g_clients_mu) {
  const auto by_fd = g_held_by_fd.find(it->second.fd);
  if (by_fd != g_held_by_fd.end() && by_fd->second == it->first) g_held_by_fd.erase(by_fd);
  g_held.erase(it);
}

// `fd` was just handed out by accept: an entry still naming it is a connection closed without
// the close reported (one civetweb closed before a worker took it).
void ForgetDescriptorLocked(int fd) ABSL_EXCLUSIVE_LOCKS_REQUIRED(g_clients_mu) {
  const auto by_fd = g_held_by_fd.find(fd);
  if (by_fd == g_held_by_fd.end()) return;
  g_held.erase(by_fd->second);
  g_held_by_fd.erase(by_fd);
}

// False when the client of `c`, just accepted on `listen_fd`, already holds its listener's
// per-client cap; otherwise records `c`. Looks at `c` only, which no other thread has yet.
bool AdmitClient(int listen_fd, int c) {
  absl::MutexLock lock(&g_clients_mu);
  ForgetDescriptorLocked(c);
  if (g_caps.empty()) return true;
  const int port = LocalPort(listen_fd);
  const auto cap = g_caps.find(port);
  if (cap == g_caps.end()) return true;
  sockaddr_storage peer{};
  socklen_t len = sizeof peer;
  struct stat st {};
  if (getpeername(c, reinterpret_cast<sockaddr*>(&peer), &len) != 0 || fstat(c, &st) != 0) return true;
  const std::string prefix = ClientPrefix(port, peer);
  if (prefix.empty()) return true;
  int held = 0;
  for (auto it = g_held.lower_bound(prefix); it != g_held.end() && it->first.compare(0, prefix.size(), prefix) == 0;
       ++it) {
    ++held;
  }
  if (cap->second > 0 && held >= cap->second) return false;
  const std::string key = prefix + std::to_string(PortOf(peer));
  if (const auto old = g_held.find(key); old != g_held.end()) EraseLocked(old);
  g_held[key] = Held{c, st.st_ino};
  g_held_by_fd[c] = key;
  return true;
}

}  // namespace

void TrackConnections(int port, int max_per_client) {
  absl::MutexLock lock(&g_clients_mu);
  g_caps[port] = std::max(0, max_per_client);
}

void UntrackConnections(int port) {
  absl::MutexLock lock(&g_clients_mu);
  g_caps.erase(port);
  const std::string prefix = std::to_string(port) + "/";
  for (auto it = g_held.lower_bound(prefix); it != g_held.end() && it->first.compare(0, prefix.size(), prefix) == 0;) {
    EraseLocked(it++);
  }
}

void ConnectionClosing(int port, const std::string& client_address, int client_port) {
  const std::string key = ConnectionKey(port, client_address, client_port);
  if (key.empty()) return;
  absl::MutexLock lock(&g_clients_mu);
  if (const auto it = g_held.find(key); it != g_held.end()) EraseLocked(it);
}

int AcceptedConnection(int port, const std::string& client_address, int client_port) {
  const std::string key = ConnectionKey(port, client_address, client_port);
  if (key.empty()) return -1;
  absl::MutexLock lock(&g_clients_mu);
  const auto it = g_held.find(key);
  if (it == g_held.end()) return -1;
  // The caller's own connection (its thread owns the descriptor), checked all the same: the
  // same socket, still connected to that client port.
  struct stat st {};
  sockaddr_storage peer{};
  socklen_t len = sizeof peer;
  if (fstat(it->second.fd, &st) != 0 || !S_ISSOCK(st.st_mode) || st.st_ino != it->second.inode ||
      getpeername(it->second.fd, reinterpret_cast<sockaddr*>(&peer), &len) != 0 || PortOf(peer) != client_port) {
    return -1;
  }
  return it->second.fd;
}

absl::Status InstallAcceptGuard(const AcceptGuardOptions& options) {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);  // best effort: a failure leaves the old limit
    getrlimit(RLIMIT_NOFILE, &lim);
  }
  if (g_reserve.load() < 0) {
    const int reserve = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (reserve < 0) {
      return absl::ResourceExhaustedError(absl::StrCat("cannot open a reserve descriptor (limit ", lim.rlim_cur, ")"));
    }
    g_reserve.store(reserve);
  }
  // Everything open now is the server's own; a few more come and go (the database's
  // journal, /metrics clients), hence the slack.
  const int open_now = g_reserve.load() + 1;
  constexpr int kSlack = 8;
  const int64_t by_limit = static_cast<int64_t>(std::min<rlim_t>(lim.rlim_cur, 1 << 30)) - options.headroom;
  int64_t ceiling = by_limit;
  if (options.max_connections > 0) {
    ceiling = std::min<int64_t>(ceiling, int64_t{open_now} + kSlack + options.max_connections);
  }
  g_ceiling.store(static_cast<int>(std::max<int64_t>(ceiling, open_now + 1)));
  return absl::OkStatus();
}

int64_t AcceptGuardShedConnections() { return g_shed.load(); }

}  // namespace capplan::server

// The interposed accept4 (see the header). Loops so that connections it sheds are all taken
// off the queue before it answers: an edge-triggered poller is told about a listener once.
extern "C" int accept4(int fd, sockaddr* addr, socklen_t* len, int flags) {
  using capplan::server::g_ceiling;
  using capplan::server::g_shed;
  for (;;) {
    const int ceiling = g_ceiling.load(std::memory_order_relaxed);
    const int c = capplan::server::RawAccept4(fd, addr, len, flags);
    if (ceiling == 0) return c;
    if (c >= 0) {
      if (c < ceiling) return c;
      close(c);
      g_shed.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    if (errno != EMFILE && errno != ENFILE) return c;
    if (!capplan::server::ShedWithReserve(fd)) {
      errno = EAGAIN;
      return -1;
    }
    g_shed.fetch_add(1, std::memory_order_relaxed);
  }
}

// The interposed accept (civetweb's). One connection per call: civetweb polls its listeners
// level-triggered and ignores a failed accept, so a shed connection is reported as EAGAIN and
// the next pending one comes with the next poll. The ceiling does not apply: civetweb bounds
// its own connections (threads plus queue), and /metrics must be reachable in the headroom
// above the ceiling while gRPC clients fill everything below it.
extern "C" int accept(int fd, sockaddr* addr, socklen_t* len) {
  using capplan::server::g_ceiling;
  using capplan::server::g_shed;
  const int c = capplan::server::RawAccept4(fd, addr, len, 0);
  if (c >= 0) {
    if (capplan::server::AdmitClient(fd, c)) return c;
    close(c);
  } else if (g_ceiling.load(std::memory_order_relaxed) == 0 || (errno != EMFILE && errno != ENFILE) ||
             !capplan::server::ShedWithReserve(fd)) {
    return c;
  }
  g_shed.fetch_add(1, std::memory_order_relaxed);
  errno = EAGAIN;
  return -1;
}
