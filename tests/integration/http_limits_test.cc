// The HTTP/JSON listener under slow and idle clients: bodies trickled a byte at a time,
// connections that never send a byte, headers trickled, each from more connections than the
// listener has worker threads, while an ordinary client's health call must still answer.
// Attackers use other loopback addresses (127.0.0.2, ...) than the ordinary client, as they
// would from other hosts.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "server_process.h"

namespace capplan::testing {
namespace {

using Clock = std::chrono::steady_clock;

// A TCP connection to 127.0.0.1:`port` from `source` (a loopback address); -1 on failure.
int ConnectFrom(const char* source, int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in from{};
  from.sin_family = AF_INET;
  inet_pton(AF_INET, source, &from.sin_addr);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0 ||
      connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Whatever the server has sent on `fd` by now; false once it has closed the connection.
bool Drain(int fd, std::string* got) {
  char buf[4096];
  while (true) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 0) <= 0) return true;
    const ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n <= 0) return false;
    got->append(buf, static_cast<size_t>(n));
  }
}

// `connections` attackers from `source`, each sending `head` and then one byte of `trickle`
// every `interval`, and reconnecting whenever the server closes on them, until destroyed.
class Trickle {
 public:
  Trickle(int port, const char* source, int connections, std::string head, std::string trickle,
          std::chrono::milliseconds interval)
      : port_(port), source_(source), head_(std::move(head)), trickle_(std::move(trickle)), interval_(interval) {
    for (int i = 0; i < connections; ++i) threads_.emplace_back([this] { Run(); });
  }
  ~Trickle() {
    stop_ = true;
    for (std::thread& t : threads_) t.join();
  }
  // Answers the server sent an attacker (e.g. 408 for a body too slow), and connections the
  // server closed.
  int answered_408() const { return answered_408_.load(); }
  int closed() const { return closed_.load(); }

 private:
  void Run() {
    while (!stop_) {
      const int fd = ConnectFrom(source_, port_);
      if (fd < 0) {
        std::this_thread::sleep_for(interval_);
        continue;
      }
      std::string got;
      bool open = send(fd, head_.data(), head_.size(), MSG_NOSIGNAL) >= 0;
      for (size_t i = 0; open && !stop_; i = (i + 1) % std::max<size_t>(trickle_.size(), 1)) {
        std::this_thread::sleep_for(interval_);
        open = Drain(fd, &got) && (trickle_.empty() || send(fd, &trickle_[i], 1, MSG_NOSIGNAL) == 1);
      }
      if (!open) ++closed_;
      if (got.rfind("HTTP/1.1 408", 0) == 0) ++answered_408_;
      close(fd);
    }
  }

  int port_;
  const char* source_;
  std::string head_;
  std::string trickle_;
  std::chrono::milliseconds interval_;
  std::atomic<bool> stop_{false};
  std::atomic<int> answered_408_{0};
  std::atomic<int> closed_{0};
  std::vector<std::thread> threads_;
};

// GET /v1/health from 127.0.0.1; the HTTP status, or 0 when no answer came within `limit`.
int HealthWithin(int port, std::chrono::seconds limit) {
  const int fd = ConnectFrom("127.0.0.1", port);
  if (fd < 0) return 0;
  const std::string req = "GET /v1/health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
  (void)!send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  std::string got;
  const auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline && got.find("SERVING") == std::string::npos) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    char buf[4096];
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  if (got.find("SERVING") == std::string::npos || got.size() < 12) return 0;
  return std::atoi(got.c_str() + 9);
}

// Of `fds`, those the server has closed by now.
int ClosedByServer(const std::vector<int>& fds) {
  int closed = 0;
  for (const int fd : fds) {
    std::string ignored;
    if (!Drain(fd, &ignored)) ++closed;
  }
  return closed;
}

std::vector<std::string> Args(const TempDir& dir, std::vector<std::string> extra) {
  std::vector<std::string> a = {"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--http_listen=127.0.0.1:0",
                                "--db=" + dir.path() + "/c.db"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

constexpr char kSlowPlan[] =
    "POST /v1/plan HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{";

TEST(HttpLimitsTest, SlowBodiesAreCutAtTheBodyTimeoutAndHealthStillAnswers) {
  TempDir dir;
  // 4 worker threads and no per-client cap: only the body deadline frees them. 12 attackers
  // (3 per thread) each send a byte every 300 ms, well inside the 1 s allowed between two
  // reads, so before the body deadline they held every thread for as long as they liked.
  ServerProcess server(Args(dir, {"--http_threads=4", "--http_max_connections_per_client=0", "--http_header_timeout=1s",
                                  "--http_body_timeout=2s"}));
  ASSERT_TRUE(server.started()) << server.Wait(0).stderr_text;
  Trickle attack(server.http_port(), "127.0.0.2", 12, kSlowPlan, " ", std::chrono::milliseconds(300));
  std::this_thread::sleep_for(std::chrono::seconds(1));
  // Each attacker holds a thread at most 2 s (+1 s for the read under way), so a request
  // waits for at most 3 rounds of them.
  EXPECT_EQ(HealthWithin(server.http_port(), std::chrono::seconds(15)), 200);
  EXPECT_EQ(HealthWithin(server.http_port(), std::chrono::seconds(15)), 200);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_GT(attack.answered_408(), 0) << "closed " << attack.closed();
}

TEST(HttpLimitsTest, AnIdleConnectionFloodFromOneAddressIsShed) {
  TempDir dir;
  // The defaults: 64 threads, 16 connections per client address. 230 connections that never
  // send a byte used to queue for every thread in turn (minutes, at 10 s each).
  ServerProcess server(Args(dir, {}));
  ASSERT_TRUE(server.started()) << server.Wait(0).stderr_text;
  std::vector<int> idle;
  for (int i = 0; i < 230; ++i) {
    const int fd = ConnectFrom("127.0.0.2", server.http_port());
    if (fd >= 0) idle.push_back(fd);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  int closed = 0;
  for (const int fd : idle) {
    std::string ignored;
    if (!Drain(fd, &ignored)) ++closed;
  }
  // All but the 16 the cap admits (a few may not have been accepted yet).
  EXPECT_GE(closed, 180) << "of " << idle.size();
  EXPECT_EQ(HealthWithin(server.http_port(), std::chrono::seconds(5)), 200);
  // The page too.
  int status = 0;
  HttpGet(server.http_port(), "/", &status);
  EXPECT_EQ(status, 200);
  for (const int fd : idle) close(fd);
}

TEST(HttpLimitsTest, ConnectionsAClientClosedNoLongerCountAgainstItsCap) {
  TempDir dir;
  ServerProcess server(Args(dir, {"--http_max_connections_per_client=4"}));
  ASSERT_TRUE(server.started()) << server.Wait(0).stderr_text;
  const auto settle = std::chrono::milliseconds(static_cast<int>(300 * TimeScale()));
  std::vector<int> first;
  for (int i = 0; i < 4; ++i) first.push_back(ConnectFrom("127.0.0.4", server.http_port()));
  std::this_thread::sleep_for(settle);
  ASSERT_EQ(ClosedByServer(first), 0) << "the cap admits 4";
  for (const int fd : first) close(fd);
  std::this_thread::sleep_for(settle);  // the server's workers see the ends and close theirs
  // gRPC connections take the descriptor numbers those 4 had, so that the next connections
  // from 127.0.0.4 get other numbers: the cap must know the 4 closed, not find out when their
  // numbers come back to the HTTP listener.
  std::vector<int> grpc;
  for (int i = 0; i < 4; ++i) grpc.push_back(ConnectFrom("127.0.0.1", server.grpc_port()));
  std::this_thread::sleep_for(settle);
  std::vector<int> again;
  for (int i = 0; i < 4; ++i) again.push_back(ConnectFrom("127.0.0.4", server.http_port()));
  std::this_thread::sleep_for(settle);
  EXPECT_EQ(ClosedByServer(again), 0) << "shed as if the closed ones still counted";
  // The cap still holds: a 5th connection is shed.
  const int fifth = ConnectFrom("127.0.0.4", server.http_port());
  std::this_thread::sleep_for(settle);
  EXPECT_EQ(ClosedByServer({fifth}), 1);
  for (const int fd : again) close(fd);
  for (const int fd : grpc) close(fd);
  close(fifth);
}

TEST(HttpLimitsTest, TrickledHeadersAreCutAtTheHeaderTimeout) {
  TempDir dir;
  // 4 threads, no per-client cap, 1 s for the headers: 16 attackers sending a header byte
  // every 200 ms (within the time allowed between two reads) hold a thread 1 s at most.
  ServerProcess server(
      Args(dir, {"--http_threads=4", "--http_max_connections_per_client=0", "--http_header_timeout=1s"}));
  ASSERT_TRUE(server.started()) << server.Wait(0).stderr_text;
  Trickle attack(server.http_port(), "127.0.0.3", 16, "GET /v1/health HTTP/1.1\r\n", "X-Slow: aaaaaaaaaaaaaaaa\r\n",
                 std::chrono::milliseconds(200));
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_EQ(HealthWithin(server.http_port(), std::chrono::seconds(10)), 200);
  EXPECT_GT(attack.closed(), 0);
}

TEST(HttpLimitsTest, MetricsScrapesAnswerThroughAnIdleFlood) {
  TempDir dir;
  ServerProcess server(Args(dir, {}));
  ASSERT_TRUE(server.started()) << server.Wait(0).stderr_text;
  // /metrics has 8 threads; one address may hold 7 of them, whatever it opens.
  std::vector<int> idle;
  for (int i = 0; i < 40; ++i) {
    const int fd = ConnectFrom("127.0.0.2", server.metrics_port());
    if (fd >= 0) idle.push_back(fd);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int status = 0;
  const std::string body = HttpGet(server.metrics_port(), "/metrics", &status);
  EXPECT_EQ(status, 200);
  EXPECT_NE(body.find("capplan_connections_shed_total"), std::string::npos);
  for (const int fd : idle) close(fd);
}

}  // namespace
}  // namespace capplan::testing
