// Staying reachable (docs/operations.md, server flags): a burst of idle connections up to the
// descriptor limit must not lock the gRPC listener out for good (gRPC 1.51 stops accepting
// after one EMFILE), connections beyond --max_connections are shed on accept, and slow HTTP
// clients cannot stop Prometheus scrapes.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "client/client.h"
#include "server_process.h"

namespace capplan::testing {
namespace {

// Opens `n` plain TCP connections to a loopback port and holds them without a byte sent;
// closes them on destruction.
class IdleConnections {
 public:
  IdleConnections(int port, int n) {
    for (int i = 0; i < n; ++i) {
      const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd < 0) break;
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_port = htons(static_cast<uint16_t>(port));
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        close(fd);
        continue;  // the backlog was full: that is the server shedding too
      }
      fds_.push_back(fd);
    }
  }
  ~IdleConnections() {
    for (int fd : fds_) close(fd);
  }
  int opened() const { return static_cast<int>(fds_.size()); }
  // Connections the server has closed (read returns end of file or a reset).
  int closed_by_server() const {
    int closed = 0;
    for (int fd : fds_) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 0) <= 0) continue;
      char c;
      if (recv(fd, &c, 1, MSG_DONTWAIT) <= 0) ++closed;
    }
    return closed;
  }

 private:
  std::vector<int> fds_;
};

std::string Health(int port) {
  client::ClientOptions o;
  o.server = "127.0.0.1:" + std::to_string(port);
  o.timeout = std::chrono::seconds(5);
  absl::StatusOr<std::string> h = client::Client(o).Health();
  return h.ok() ? *h : std::string(h.status().message());
}

TEST(ConnectionLimitsTest, DescriptorExhaustionDoesNotLockTheListenerOut) {
  TempDir dir;
  // 256 descriptors in all and no connection cap: 600 idle connections run the process out
  // of descriptors, which before the guard stopped gRPC accepting for good.
  ServerProcess server(
      {"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--db=" + dir.path() + "/c.db", "--max_connections=0"},
      {}, 256);
  ASSERT_TRUE(server.started()) << server.Wait(0).stderr_text;
  {
    IdleConnections burst(server.grpc_port(), 600);
    ASSERT_GT(burst.opened(), 256);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    EXPECT_GT(burst.closed_by_server(), 0);
    // /metrics still answers while the burst is held, and counts what was shed.
    int status = 0;
    const std::string metrics = HttpGet(server.metrics_port(), "/metrics", &status);
    EXPECT_EQ(status, 200);
    EXPECT_NE(metrics.find("capplan_connections_shed_total"), std::string::npos);
    EXPECT_NE(metrics.find("process_max_fds 256"), std::string::npos);
  }
  // Once the burst is gone, new callers get through.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(Health(server.grpc_port()), "SERVING");
}

TEST(ConnectionLimitsTest, ConnectionsOverTheCapAreShedAndTheRestServed) {
  TempDir dir;
  ServerProcess server(
      {"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--db=" + dir.path() + "/c.db", "--max_connections=20"});
  ASSERT_TRUE(server.started()) << server.Wait(0).stderr_text;
  {
    IdleConnections held(server.grpc_port(), 100);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const int closed = held.closed_by_server();
    // About 80 of the 100 are over the cap (a few descriptors of slack: the cap counts
    // descriptor numbers, and the server opens a few of its own).
    EXPECT_GE(closed, 60) << "opened " << held.opened();
    EXPECT_LE(closed, 90) << "opened " << held.opened();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(Health(server.grpc_port()), "SERVING");
}

TEST(ConnectionLimitsTest, SlowHttpClientsDoNotStopScrapes) {
  TempDir dir;
  ServerProcess server({"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--db=" + dir.path() + "/c.db"});
  ASSERT_TRUE(server.started()) << server.Wait(0).stderr_text;
  // Four clients that connect and never send a request: twice the threads /metrics had.
  IdleConnections slow(server.metrics_port(), 4);
  ASSERT_EQ(slow.opened(), 4);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto t0 = std::chrono::steady_clock::now();
  int status = 0;
  const std::string body = HttpGet(server.metrics_port(), "/metrics", &status);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(status, 200);
  EXPECT_NE(body.find("capplan_build_info"), std::string::npos);
  // Served at once, not after the slow clients time out (the scrape used to hang for 65 s).
  EXPECT_LT(seconds, 2.0);
}

}  // namespace
}  // namespace capplan::testing
