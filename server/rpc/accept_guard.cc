#include "server/rpc/accept_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>

#include "absl/strings/str_cat.h"

namespace capplan::server {
namespace {

std::atomic<int> g_ceiling{0};   // 0: not installed
std::atomic<int> g_reserve{-1};  // the descriptor given up to shed one connection
std::atomic<int64_t> g_shed{0};
std::mutex g_reserve_mu;  // one shedding at a time: there is one reserve descriptor

int RawAccept4(int fd, sockaddr* addr, socklen_t* len, int flags) {
  return static_cast<int>(syscall(SYS_accept4, fd, addr, len, flags));
}

// Out of descriptors: give up the reserve, take one pending connection off the queue and
// close it, take the reserve back. False when there was nothing to shed.
bool ShedWithReserve(int listen_fd) {
  std::lock_guard<std::mutex> lock(g_reserve_mu);
  const int reserve = g_reserve.exchange(-1);
  if (reserve >= 0) close(reserve);
  const int c = RawAccept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
  const int saved = errno;
  if (c >= 0) close(c);
  g_reserve.store(open("/dev/null", O_RDONLY | O_CLOEXEC));
  errno = saved;
  return c >= 0;
}

}  // namespace

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
