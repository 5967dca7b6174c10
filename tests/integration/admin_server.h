// A test suite over a real server with an admin token and a read-only token, one server per
// test on its own database.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "client/client.h"
#include "server_process.h"

namespace capplan::testing {

inline constexpr char kAdminToken[] = "admin-token-0123456789abcdef";
inline constexpr char kReadToken[] = "read-token-0123456789abcdef";

class AdminServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteTokenFile(dir_.path() + "/tokens",
                   std::string(kAdminToken) + " alice admin\n" + kReadToken + " dashboard read\n");
    server_ = std::make_unique<ServerProcess>(
        std::vector<std::string>{"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0",
                                 "--db=" + dir_.path() + "/c.db", "--admin_token_file=" + dir_.path() + "/tokens"});
    ASSERT_TRUE(server_->started()) << server_->Wait(0).stderr_text;
  }

  // timeout: the call's deadline; a 50,000-row import under a sanitizer takes far longer
  // than the client's 5 s default.
  client::Client MakeClient(const std::string& token,
                            std::chrono::milliseconds timeout = client::ClientOptions().timeout) {
    client::ClientOptions o;
    o.server = server_->grpc_address();
    o.admin_token = token;
    o.timeout = timeout;
    return client::Client(o);
  }

  TempDir dir_;
  std::unique_ptr<ServerProcess> server_;
};

}  // namespace capplan::testing
