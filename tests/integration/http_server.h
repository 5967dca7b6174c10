// A suite over one real server with admin and read tokens, spoken to over HTTP/JSON (and gRPC
// where a test checks that both see the same catalog).
#pragma once

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <string>

#include "admin_server.h"
#include "client/client.h"
#include "server_process.h"

namespace capplan::testing {

class HttpServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    WriteTokenFile(dir_->path() + "/tokens",
                   std::string(kAdminToken) + " alice admin\n" + kReadToken + " dashboard read\n");
    server_ = new ServerProcess({"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--http_listen=127.0.0.1:0",
                                 "--db=" + dir_->path() + "/c.db", "--admin_token_file=" + dir_->path() + "/tokens"});
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dir_;
  }
  void SetUp() override {
    ASSERT_TRUE(server_->started()) << server_->Wait(0).stderr_text;
    ASSERT_GT(server_->http_port(), 0) << server_->banner();
  }

  static client::Client Grpc() {
    client::ClientOptions o;
    o.server = server_->grpc_address();
    return client::Client(o);
  }
  static HttpReply Get(const std::string& path) { return HttpCall(server_->http_port(), "GET", path); }
  static HttpReply Post(const std::string& path, const std::string& body, const std::string& token = "") {
    HttpCallOptions o;
    if (!token.empty()) o.headers.push_back("Authorization: Bearer " + token);
    return HttpCall(server_->http_port(), "POST", path, body, o);
  }
  // `m` as canonical JSON, printed by protobuf.
  static std::string Json(const google::protobuf::Message& m) {
    std::string out;
    EXPECT_TRUE(google::protobuf::util::MessageToJsonString(m, &out).ok());
    return out;
  }
  // Parses a 200 reply's body into `m`; false (with a test failure) otherwise.
  static bool Parse(const HttpReply& r, google::protobuf::Message* m) {
    EXPECT_EQ(r.status, 200) << r.body;
    const auto s = google::protobuf::util::JsonStringToMessage(r.body, m);
    EXPECT_TRUE(s.ok()) << s.ToString() << "\n" << r.body;
    return r.status == 200 && s.ok();
  }
  struct Error {
    double code = 0;
    std::string status;
    std::string message;
  };
  // The {"error":{...}} body of a failed reply.
  static Error ErrorOf(const HttpReply& r) {
    google::protobuf::Struct body;
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(r.body, &body).ok()) << r.body;
    google::protobuf::Value error;
    if (body.fields().count("error") > 0) error = body.fields().at("error");
    const auto& e = error.struct_value().fields();
    auto field = [&](const char* k) { return e.count(k) ? e.at(k) : google::protobuf::Value(); };
    return {field("code").number_value(), field("status").string_value(), field("message").string_value()};
  }

  static inline TempDir* dir_ = nullptr;
  static inline ServerProcess* server_ = nullptr;
};

}  // namespace capplan::testing
