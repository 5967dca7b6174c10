// What every HTTP answer carries and which requests the listener takes: no CORS unless
// origins are configured (and never on admin routes), JSON bodies only (415 otherwise), and
// X-Content-Type-Options: nosniff on every answer.
#include <gtest/gtest.h>

#include "http_server.h"

namespace capplan::testing {
namespace {

using HttpPolicyTest = HttpServerTest;

constexpr char kPlanServing[] =
    R"({"serving":{"modelName":"Llama-2-7B","promptTokens":512,"outputTokens":128,"requestsPerSecond":35}})";

HttpCallOptions Headers(std::vector<std::string> headers) {
  HttpCallOptions o;
  o.headers = std::move(headers);
  return o;
}

// A CORS preflight for `method` on `path` from `origin`.
HttpReply Preflight(int port, const std::string& path, const std::string& origin, const std::string& method) {
  return HttpCall(port, "OPTIONS", path, "",
                  Headers({"Origin: " + origin, "Access-Control-Request-Method: " + method,
                           "Access-Control-Request-Headers: content-type"}));
}

bool HasHeader(const HttpReply& r, const std::string& line) { return r.headers.find(line) != std::string::npos; }

TEST_F(HttpPolicyTest, CorsIsOffByDefault) {
  const int port = server_->http_port();
  for (const std::string path : {"/v1/plan", "/v1/gpus", "/v1/admin/set-price", "/", "/v1/no-such-route"}) {
    const HttpReply r = Preflight(port, path, "https://evil.example", "POST");
    EXPECT_NE(r.status, 0) << path;
    // A preflight is approved by Access-Control-Allow-Origin (civetweb's default approved it
    // for any origin on every path).
    EXPECT_FALSE(HasHeader(r, "Access-Control-Allow")) << path << "\n" << r.headers;
  }
  const HttpReply get = HttpCall(port, "GET", "/v1/gpus", "", Headers({"Origin: https://evil.example"}));
  EXPECT_EQ(get.status, 200);
  EXPECT_FALSE(HasHeader(get, "Access-Control-Allow")) << get.headers;
}

TEST_F(HttpPolicyTest, PostBodiesMustBeJson) {
  const int port = server_->http_port();
  for (const std::string type : {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                                 "application/json; charset=latin1", "application/jsonx"}) {
    const HttpReply r = HttpCall(port, "POST", "/v1/plan", kPlanServing, Headers({"Content-Type: " + type}));
    EXPECT_EQ(r.status, 415) << type;
    EXPECT_EQ(ErrorOf(r).code, 415) << r.body;
    EXPECT_EQ(ErrorOf(r).status, "INVALID_ARGUMENT") << r.body;
    EXPECT_NE(ErrorOf(r).message.find("Content-Type"), std::string::npos) << r.body;
  }
  for (const std::string type :
       {"application/json", "application/json; charset=utf-8", "Application/JSON;charset=\"UTF-8\""}) {
    EXPECT_EQ(HttpCall(port, "POST", "/v1/plan", kPlanServing, Headers({"Content-Type: " + type})).status, 200) << type;
  }
  // No body, no type needed: a request of all defaults.
  EXPECT_NE(HttpCall(port, "POST", "/v1/plan").status, 415);
}

TEST_F(HttpPolicyTest, EveryAnswerSaysNosniff) {
  const int port = server_->http_port();
  const std::vector<HttpReply> replies = {
      Get("/v1/gpus"),
      Get("/v1/health"),
      Get("/v1/openapi.json"),
      Get("/v1/no-such-route"),
      Get("/v1/plan"),
      Post("/v1/plan", "{bad"),
      HttpCall(port, "POST", "/v1/plan", kPlanServing, Headers({"Content-Type: text/plain"})),
      Get("/"),
      Get("/no-such-page"),
  };
  for (const HttpReply& r : replies) {
    EXPECT_NE(r.status, 0);
    EXPECT_TRUE(HasHeader(r, "X-Content-Type-Options: nosniff")) << r.status << "\n" << r.headers;
  }
}

class HttpCorsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    server_ = new ServerProcess({"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--http_listen=127.0.0.1:0",
                                 "--db=" + dir_->path() + "/c.db",
                                 "--http_cors_origins=https://planner.example, http://localhost:3000"});
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dir_;
  }
  void SetUp() override { ASSERT_TRUE(server_->started()) << server_->Wait(0).stderr_text; }
  static inline TempDir* dir_ = nullptr;
  static inline ServerProcess* server_ = nullptr;
};

TEST_F(HttpCorsTest, ListedOriginsMayCallTheNonAdminRoutes) {
  const int port = server_->http_port();
  const HttpReply pre = Preflight(port, "/v1/plan", "https://planner.example", "POST");
  EXPECT_EQ(pre.status, 204);
  EXPECT_TRUE(HasHeader(pre, "Access-Control-Allow-Origin: https://planner.example")) << pre.headers;
  EXPECT_TRUE(HasHeader(pre, "Access-Control-Allow-Methods: POST")) << pre.headers;
  EXPECT_TRUE(HasHeader(pre, "Access-Control-Allow-Headers: Content-Type")) << pre.headers;
  const HttpReply plan = HttpCall(port, "POST", "/v1/plan", kPlanServing, Headers({"Origin: http://localhost:3000"}));
  EXPECT_EQ(plan.status, 200);
  EXPECT_TRUE(HasHeader(plan, "Access-Control-Allow-Origin: http://localhost:3000")) << plan.headers;
  EXPECT_TRUE(HasHeader(plan, "Vary: Origin")) << plan.headers;
}

TEST_F(HttpCorsTest, OtherOriginsAndAdminRoutesGetNoCors) {
  const int port = server_->http_port();
  const HttpReply other = Preflight(port, "/v1/plan", "https://evil.example", "POST");
  EXPECT_NE(other.status, 204);
  EXPECT_FALSE(HasHeader(other, "Access-Control-Allow")) << other.headers;
  // Not even a listed origin may script the admin routes.
  const HttpReply admin = Preflight(port, "/v1/admin/set-price", "https://planner.example", "POST");
  EXPECT_NE(admin.status, 204);
  EXPECT_FALSE(HasHeader(admin, "Access-Control-Allow")) << admin.headers;
  const HttpReply write =
      HttpCall(port, "POST", "/v1/admin/set-price", "{}", Headers({"Origin: https://planner.example"}));
  EXPECT_EQ(write.status, 401);
  EXPECT_FALSE(HasHeader(write, "Access-Control-Allow")) << write.headers;
  const HttpReply get = HttpCall(port, "GET", "/v1/gpus", "", Headers({"Origin: https://evil.example"}));
  EXPECT_EQ(get.status, 200);
  EXPECT_FALSE(HasHeader(get, "Access-Control-Allow")) << get.headers;
}

TEST(HttpCorsFlagTest, AWildcardOrAMalformedOriginStopsStartUp) {
  TempDir dir;
  for (const std::string origins : {"*", "planner.example", "https://planner.example/path"}) {
    const ExitResult r =
        RunProgram({CAPPLAN_SERVER_BINARY, "--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0",
                    "--http_listen=127.0.0.1:0", "--db=" + dir.path() + "/c.db", "--http_cors_origins=" + origins},
                   20000);
    EXPECT_EQ(r.exit_code, 1) << origins;
    EXPECT_NE(r.stderr_text.find("http_cors_origins"), std::string::npos) << r.stderr_text;
  }
}

TEST_F(HttpPolicyTest, ThePageMayBeFramedByNoOneByDefault) {
  const HttpReply r = HttpCall(server_->http_port(), "GET", "/");
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(HasHeader(r, "Content-Security-Policy: default-src 'self'; frame-ancestors 'none'\r\n")) << r.headers;
}

TEST(HttpFrameAncestorsTest, TheConfiguredPagesMayFrameThePage) {
  TempDir dir;
  ServerProcess server({"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--http_listen=127.0.0.1:0",
                        "--db=" + dir.path() + "/c.db", "--http_frame_ancestors='self'  https://grafana.example:3000"});
  ASSERT_TRUE(server.started()) << server.Wait(0).stderr_text;
  const HttpReply r = HttpCall(server.http_port(), "GET", "/");
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(HasHeader(
      r, "Content-Security-Policy: default-src 'self'; frame-ancestors 'self' https://grafana.example:3000\r\n"))
      << r.headers;
}

TEST(HttpFrameAncestorsTest, AValueThatCouldBreakTheHeaderStopsStartUp) {
  TempDir dir;
  for (const std::string value : {"'self'; script-src *", "https://a.example/page", "'none' https://a.example"}) {
    const ExitResult r =
        RunProgram({CAPPLAN_SERVER_BINARY, "--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0",
                    "--http_listen=127.0.0.1:0", "--db=" + dir.path() + "/c.db", "--http_frame_ancestors=" + value},
                   20000);
    EXPECT_EQ(r.exit_code, 1) << value;
    EXPECT_NE(r.stderr_text.find("http_frame_ancestors"), std::string::npos) << r.stderr_text;
  }
}

}  // namespace
}  // namespace capplan::testing
