// A fixture whose tests share one real server on a temporary database, started once per
// suite (the server's answers do not depend on test order: these suites only read).
#pragma once

#include <gtest/gtest.h>

#include "client/client.h"
#include "server_process.h"

namespace capplan::testing {

class SharedServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    server_ =
        new ServerProcess({"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--db=" + dir_->path() + "/c.db"});
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dir_;
  }
  void SetUp() override { ASSERT_TRUE(server_->started()); }
  static client::Client MakeClient() {
    client::ClientOptions o;
    o.server = server_->grpc_address();
    return client::Client(o);
  }
  static inline TempDir* dir_ = nullptr;
  static inline ServerProcess* server_ = nullptr;
};

}  // namespace capplan::testing
