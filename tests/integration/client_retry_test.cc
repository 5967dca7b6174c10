// The client library retries read-only calls on UNAVAILABLE with backoff: a Health call made
// before the server is up succeeds once it comes up within the deadline.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <thread>

#include "client/client.h"
#include "server_process.h"

namespace capplan::testing {
namespace {

TEST(ClientRetryTest, ReadsRetryUntilTheServerIsUp) {
  TempDir dir;
  const int port = UnusedLoopbackPort();
  std::unique_ptr<ServerProcess> server;
  std::thread starter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    server = std::make_unique<ServerProcess>(std::vector<std::string>{
        "--listen=127.0.0.1:" + std::to_string(port), "--metrics_listen=127.0.0.1:0", "--db=" + dir.path() + "/c.db"});
  });
  client::ClientOptions o;
  o.server = "127.0.0.1:" + std::to_string(port);
  o.timeout = std::chrono::milliseconds(15000);
  o.max_read_attempts = 30;
  client::Client c(o);
  absl::StatusOr<std::string> health = c.Health();
  starter.join();
  ASSERT_TRUE(server->started());
  ASSERT_TRUE(health.ok()) << health.status();
  EXPECT_EQ(*health, "SERVING");
}

TEST(ClientRetryTest, OneAttemptFailsFastWhenNobodyListens) {
  client::ClientOptions o;
  o.server = "127.0.0.1:" + std::to_string(UnusedLoopbackPort());
  o.timeout = std::chrono::milliseconds(3000);
  o.max_read_attempts = 1;
  const auto t0 = std::chrono::steady_clock::now();
  absl::StatusOr<std::string> health = client::Client(o).Health();
  EXPECT_EQ(health.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(2500));
}

}  // namespace
}  // namespace capplan::testing
