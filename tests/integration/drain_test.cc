// SIGTERM under load: every HTTP and gRPC request sent before the signal gets a whole answer
// (its result, or UNAVAILABLE with a body), none a dropped connection or a CANCELLED call,
// within the grace period.
#include <arpa/inet.h>
#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "capplan/v1/planner.grpc.pb.h"
#include "server_process.h"

namespace capplan::testing {
namespace {

using Clock = std::chrono::steady_clock;

// One request's fate: when its last byte was sent, and how it ended.
struct Outcome {
  Clock::time_point sent;
  std::string result;  // "200", "503 UNAVAILABLE", "dropped", "grpc OK", "grpc CANCELLED", ...
};

// A serving Plan; `i` varies the load so that no answer comes from the server's memo. The
// workload is the one of tests/integration/http_test.cc.
std::string PlanJson(int i) {
  return "{\"serving\":{\"modelName\":\"Llama-2-7B\",\"promptTokens\":512,\"outputTokens\":128,"
         "\"requestsPerSecond\":" +
         std::to_string(35 + i % 1000) + "}}";
}

// Reads one HTTP answer (headers and the body its Content-Length announces) from `fd`.
// Returns "<status>[ <error status>]", or "dropped" when the connection closed before a whole
// answer; `close` is set when the server asked to close the connection.
std::string ReadAnswer(int fd, bool* close) {
  std::string got;
  static const std::regex kLength(R"(\r\nContent-Length: *(\d+)\r\n)", std::regex::icase);
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (Clock::now() < deadline) {
    const size_t end = got.find("\r\n\r\n");
    std::smatch m;
    const std::string head = got.substr(0, end == std::string::npos ? 0 : end + 2);
    if (end != std::string::npos && std::regex_search(head, m, kLength) && got.size() - end - 4 >= std::stoull(m[1])) {
      *close = head.find("Connection: close") != std::string::npos;
      const std::string status = got.substr(9, 3);
      if (status == "200") return status;
      const size_t s = got.find("\"status\":\"", end);
      return status + " " + (s == std::string::npos ? "" : got.substr(s + 10, got.find('"', s + 10) - s - 10));
    }
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    char buf[8192];
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return "dropped";
    got.append(buf, static_cast<size_t>(n));
  }
  return "no answer in 30 s";
}

int Connect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// POST /v1/plan over keep-alive connections until `stop`, reconnecting when the server
// closes; stops for good once it can no longer connect.
void HttpLoad(int port, int worker, const std::atomic<bool>& stop, std::vector<Outcome>* out) {
  int fd = -1;
  for (int i = worker * 100000; !stop; ++i) {
    if (fd < 0 && (fd = Connect(port)) < 0) return;
    const std::string body = PlanJson(i);
    const std::string req = "POST /v1/plan HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
                            std::to_string(body.size()) + "\r\n\r\n" + body;
    if (send(fd, req.data(), req.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(req.size())) {
      close(fd);
      fd = -1;
      continue;  // refused before it was sent: not a request that was sent
    }
    Outcome o{Clock::now(), ""};
    bool closing = false;
    o.result = ReadAnswer(fd, &closing);
    out->push_back(o);
    if (closing || o.result == "dropped") {
      close(fd);
      fd = -1;
    }
  }
  if (fd >= 0) close(fd);
}

void GrpcLoad(const std::string& address, int worker, const std::atomic<bool>& stop, std::vector<Outcome>* out) {
  auto stub = capplan::v1::PlannerService::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  for (int i = worker * 100000; !stop; ++i) {
    capplan::v1::PlanRequest req;
    if (!google::protobuf::util::JsonStringToMessage(PlanJson(i), &req).ok()) return;
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    capplan::v1::PlanResponse resp;
    Outcome o{Clock::now(), ""};
    const grpc::Status s = stub->Plan(&ctx, req, &resp);
    o.result = "grpc " + std::to_string(s.error_code()) + " " + s.error_message();
    if (s.ok()) o.result = "grpc OK";
    out->push_back(o);
    if (s.error_code() == grpc::StatusCode::UNAVAILABLE) return;  // the server is going
  }
}

TEST(DrainTest, SigtermAnswersEveryRequestSentBeforeIt) {
  TempDir dir;
  ServerProcess server({"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--http_listen=127.0.0.1:0",
                        "--db=" + dir.path() + "/c.db", "--shutdown_grace=10s"});
  ASSERT_TRUE(server.started()) << server.Wait(0).stderr_text;
  constexpr int kWorkers = 6;
  std::atomic<bool> stop{false};
  std::vector<std::vector<Outcome>> http(kWorkers);
  std::vector<std::vector<Outcome>> grpc_calls(kWorkers);
  std::vector<std::thread> threads;
  for (int w = 0; w < kWorkers; ++w) {
    threads.emplace_back(HttpLoad, server.http_port(), w, std::cref(stop), &http[w]);
    threads.emplace_back(GrpcLoad, server.grpc_address(), w, std::cref(stop), &grpc_calls[w]);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const Clock::time_point signal = Clock::now();
  server.Signal(SIGTERM);
  std::this_thread::sleep_for(std::chrono::seconds(2));
  stop = true;
  for (std::thread& t : threads) t.join();
  const ExitResult exit = server.Wait(15000);
  EXPECT_EQ(exit.exit_code, 0) << exit.stderr_text;

  int before = 0;
  int grpc_before = 0;
  for (const auto& outcomes : http) {
    for (const Outcome& o : outcomes) {
      if (o.sent >= signal) continue;
      ++before;
      EXPECT_TRUE(o.result == "200" || o.result == "503 UNAVAILABLE") << o.result;
    }
  }
  for (const auto& outcomes : grpc_calls) {
    for (const Outcome& o : outcomes) {
      if (o.sent >= signal) continue;
      ++grpc_before;
      EXPECT_TRUE(o.result == "grpc OK" || o.result.rfind("grpc 14 ", 0) == 0) << o.result;  // 14: UNAVAILABLE
    }
  }
  EXPECT_GT(before, 0);
  EXPECT_GT(grpc_before, 0);
}

}  // namespace
}  // namespace capplan::testing
