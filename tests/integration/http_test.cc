// The HTTP/JSON gateway over the real server: every route answers, errors map to the HTTP
// statuses google.rpc.Code documents with a JSON error body, admin auth, limits, deadlines,
// metrics, and writes over HTTP seen by the next gRPC read.
#include <gtest/gtest.h>

#include <cmath>

#include "http_server.h"

namespace capplan::testing {
namespace {

namespace v1 = capplan::v1;
using HttpTest = HttpServerTest;

// The README's serving example: Llama-2-7B at 35 req/s (as in planner_rpc_test.cc), as a user would type it.
constexpr char kPlanServing[] =
    R"({"serving":{"modelName":"Llama-2-7B","promptTokens":512,"outputTokens":128,"requestsPerSecond":35}})";

TEST_F(HttpTest, EveryReadRouteAnswersWithTheCatalog) {
  v1::ListGpusResponse gpus;
  ASSERT_TRUE(Parse(Get("/v1/gpus"), &gpus));
  EXPECT_GE(gpus.gpus_size(), 17);  // the shipped catalog, as admin_test.cc reads it over gRPC
  v1::ListModelsResponse models;
  ASSERT_TRUE(Parse(Get("/v1/models"), &models));
  EXPECT_GE(models.models_size(), 12);
  v1::ListInstancesResponse inst;
  ASSERT_TRUE(Parse(Get("/v1/instances?provider=aws&gpuName=H100-SXM5-80GB"), &inst));
  // p5.48xlarge in us-east-1 and us-west-2 (migration 0002) and 12 more regions (0008), as
  // admin_test.cc reads it over gRPC.
  ASSERT_EQ(inst.offers_size(), 14);
  for (const v1::InstanceOffer& o : inst.offers()) EXPECT_EQ(o.instance().provider(), "aws");
  // Proto field names work too; page_size pages.
  v1::ListInstancesResponse page;
  ASSERT_TRUE(Parse(Get("/v1/instances?provider=aws&page_size=1"), &page));
  EXPECT_EQ(page.offers_size(), 1);
  EXPECT_FALSE(page.next_page_token().empty());
  v1::ListPriceHistoryResponse history;
  ASSERT_TRUE(Parse(Get("/v1/price-history?provider=aws&instanceType=p5.48xlarge&region=us-east-1"), &history));
  EXPECT_GE(history.prices_size(), 1);
  v1::ListBenchmarksResponse benchmarks;
  ASSERT_TRUE(Parse(Get("/v1/benchmarks"), &benchmarks));
  EXPECT_GT(benchmarks.benchmarks_size(), 0);
  v1::ListFabricsResponse fabrics;
  ASSERT_TRUE(Parse(Get("/v1/fabrics"), &fabrics));
  EXPECT_GT(fabrics.fabrics_size(), 0);
  v1::ListElectricityPricesResponse power;
  ASSERT_TRUE(Parse(Get("/v1/electricity-prices"), &power));
  EXPECT_GT(power.prices_size(), 0);
  v1::GetCatalogVersionResponse version;
  ASSERT_TRUE(Parse(Get("/v1/catalog-version"), &version));
  EXPECT_GE(version.catalog_version(), 1);
  grpc::health::v1::HealthCheckResponse health;
  ASSERT_TRUE(Parse(Get("/v1/health"), &health));
  EXPECT_EQ(health.status(), grpc::health::v1::HealthCheckResponse::SERVING);
}

TEST_F(HttpTest, PlanOverHttpIsTheGrpcAnswer) {
  v1::PlanRequest req;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(kPlanServing, &req).ok());
  req.set_view(v1::VIEW_BASIC);
  v1::PlanResponse http;
  ASSERT_TRUE(Parse(Post("/v1/plan", Json(req)), &http));
  absl::StatusOr<v1::PlanResponse> grpc = Grpc().Plan(req);
  ASSERT_TRUE(grpc.ok()) << grpc.status();
  ASSERT_GT(http.options_size(), 0);
  http.clear_from_memo();
  grpc->clear_from_memo();
  EXPECT_EQ(http.SerializeAsString(), grpc->SerializeAsString());
  // Canonical JSON: lowerCamelCase names, 64-bit integers as strings.
  const HttpReply raw = Post("/v1/plan", kPlanServing);
  EXPECT_NE(raw.body.find("\"catalogVersion\":\""), std::string::npos) << raw.body.substr(0, 300);
  EXPECT_NE(raw.headers.find("Content-Type: application/json"), std::string::npos) << raw.headers;
}

TEST_F(HttpTest, CompareAndTcoAnswer) {
  v1::CompareResponse compare;
  ASSERT_TRUE(Parse(
      Post("/v1/compare", R"({"training":{"modelName":"Llama-2-7B","tokens":1e9,"method":"TRAINING_METHOD_LORA"},)"
                          R"("targets":[{"instanceType":"p4d.24xlarge"},{"gpuName":"RTX-4090","count":2}]})"),
      &compare));
  ASSERT_EQ(compare.rows_size(), 2);
  EXPECT_DOUBLE_EQ(compare.rows(0).speed_ratio_vs_first(), 1.0);
  // 8 A100s owned for 36 months: the planner_rpc_test.cc fleet (illustrative capex/ops).
  v1::TcoResponse tco;
  ASSERT_TRUE(Parse(Post("/v1/tco", R"({"horizonMonths":36,"fleets":[{"gpuName":"A100-SXM4-80GB","gpuCount":8,)"
                                    R"("own":{"capexUsd":250000,"opsUsdPerMonth":5000}}]})"),
                    &tco));
  EXPECT_EQ(tco.series_size(), 36);
}

TEST_F(HttpTest, ErrorsMapToHttpStatusesWithAJsonBody) {
  const HttpReply bad_json = Post("/v1/plan", "{bad");
  EXPECT_EQ(bad_json.status, 400);
  EXPECT_EQ(ErrorOf(bad_json).status, "INVALID_ARGUMENT");
  EXPECT_EQ(ErrorOf(bad_json).code, 400);
  EXPECT_EQ(Post("/v1/plan", R"({"noSuchField":1})").status, 400);

  const HttpReply negative = Post("/v1/plan", R"({"training":{"modelName":"Llama-2-7B","tokens":-5}})");
  EXPECT_EQ(negative.status, 400);
  EXPECT_NE(ErrorOf(negative).message.find("training.tokens"), std::string::npos) << negative.body;

  const HttpReply missing = Post("/v1/plan", R"({"training":{"modelName":"no-such-model","tokens":1e9}})");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(ErrorOf(missing).status, "NOT_FOUND");
  // Llama-3.1-405B does not fit on 8 GPUs: FAILED_PRECONDITION is 400 too.
  const HttpReply unfit =
      Post("/v1/plan", R"({"training":{"modelName":"Llama-3.1-405B","tokens":1e9},"constraints":{"maxGpus":8}})");
  EXPECT_EQ(unfit.status, 400);
  EXPECT_EQ(ErrorOf(unfit).status, "FAILED_PRECONDITION");

  const HttpReply no_route = Get("/v1/no-such-route");
  EXPECT_EQ(no_route.status, 404);
  EXPECT_EQ(ErrorOf(no_route).status, "NOT_FOUND");
  const HttpReply wrong_method = Get("/v1/plan");
  EXPECT_EQ(wrong_method.status, 405);
  EXPECT_NE(wrong_method.headers.find("Allow: POST"), std::string::npos) << wrong_method.headers;
  EXPECT_EQ(HttpCall(server_->http_port(), "DELETE", "/v1/gpus").status, 405);

  const HttpReply bad_query = Get("/v1/instances?pageSize=lots");
  EXPECT_EQ(bad_query.status, 400);
  EXPECT_NE(ErrorOf(bad_query).message.find("pageSize"), std::string::npos) << bad_query.body;
  // A known parameter with a bad value is refused; an unknown one is ignored (a page that
  // embeds a route may carry its own parameters).
  EXPECT_EQ(Get("/v1/instances?provider=aws&pageSize=0x10").status, 400);
  const HttpReply plain = Get("/v1/instances?provider=aws&pageSize=3");
  const HttpReply extra = Get("/v1/instances?provider=aws&color=blue&pageSize=3&theme=dark&%ff=1");
  EXPECT_EQ(extra.status, 200) << extra.body;
  EXPECT_EQ(extra.body, plain.body);
  EXPECT_EQ(Get("/v1/instances?pageSize=3&pageSize=4").status, 400);  // a known key given twice
  const HttpReply too_big_page = Get("/v1/instances?pageSize=5000");  // the API allows 1..1000
  EXPECT_EQ(too_big_page.status, 400);
  EXPECT_NE(ErrorOf(too_big_page).message.find("page_size"), std::string::npos) << too_big_page.body;
}

TEST_F(HttpTest, OversizedBodyIs413) {
  // The gRPC receive limit is 4 MiB; the body is refused on its Content-Length, unread.
  HttpCallOptions o;
  o.content_length = 4 * 1024 * 1024 + 1;
  const HttpReply r = HttpCall(server_->http_port(), "POST", "/v1/plan", "", o);
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(ErrorOf(r).status, "RESOURCE_EXHAUSTED");
  // A body at the limit is read and parsed (and refused for what it says, not its size).
  const std::string name(3 * 1024 * 1024, 'x');
  const HttpReply big = Post("/v1/plan", R"({"training":{"modelName":")" + name + R"(","tokens":1e9}})");
  EXPECT_NE(big.status, 413);
  EXPECT_NE(big.status, 0);
}

TEST_F(HttpTest, DeadlineCountsFromTheRequestAndIs504) {
  // 50 ms allowed, the body sent after 300 ms: the call starts past its deadline.
  HttpCallOptions slow;
  slow.headers.push_back("X-Capplan-Timeout-Ms: 50");
  slow.pause_before_body_ms = 300;
  const HttpReply late = HttpCall(server_->http_port(), "POST", "/v1/plan", kPlanServing, slow);
  EXPECT_EQ(late.status, 504) << late.body;
  EXPECT_EQ(ErrorOf(late).status, "DEADLINE_EXCEEDED");
  HttpCallOptions ample;
  ample.headers.push_back("X-Capplan-Timeout-Ms: 10000");
  EXPECT_EQ(HttpCall(server_->http_port(), "POST", "/v1/plan", kPlanServing, ample).status, 200);
  HttpCallOptions bad;
  bad.headers.push_back("X-Capplan-Timeout-Ms: soon");
  const HttpReply refused = HttpCall(server_->http_port(), "POST", "/v1/plan", kPlanServing, bad);
  EXPECT_EQ(refused.status, 400);
  EXPECT_NE(ErrorOf(refused).message.find("X-Capplan-Timeout-Ms"), std::string::npos);
}

TEST_F(HttpTest, AdminRoutesNeedAnAdminToken) {
  const std::string price = Json(P5Price(55.04));  // illustrative price, as admin_test.cc
  const HttpReply none = Post("/v1/admin/set-price", price);
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(ErrorOf(none).status, "UNAUTHENTICATED");
  EXPECT_EQ(Post("/v1/admin/set-price", price, "not-a-real-token-at-all").status, 401);
  const HttpReply read = Post("/v1/admin/set-price", price, kReadToken);
  EXPECT_EQ(read.status, 403);
  EXPECT_EQ(ErrorOf(read).status, "PERMISSION_DENIED");
}

TEST_F(HttpTest, APriceSetOverHttpIsInTheNextGrpcPlan) {
  // A p5.48xlarge at $0.01/hour (an illustrative, not a real, price) becomes the cheapest.
  v1::WriteResponse w;
  ASSERT_TRUE(Parse(Post("/v1/admin/set-price", Json(P5Price(0.01)), kAdminToken), &w));
  v1::PlanRequest req;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(kPlanServing, &req).ok());
  absl::StatusOr<v1::PlanResponse> plan = Grpc().Plan(req);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->catalog_version(), w.catalog_version());
  bool seen = false;
  for (const v1::PlanOption& o : plan->options()) {
    if (o.instance_type() != "p5.48xlarge") continue;
    seen = true;
    EXPECT_NEAR(o.cost_usd_per_hour(), 0.01 * o.instance_count(), 1e-9);
  }
  EXPECT_TRUE(seen);
}

TEST_F(HttpTest, PrometheusCountsHttpCalls) {
  ASSERT_EQ(Get("/v1/fabrics").status, 200);
  ASSERT_EQ(Get("/v1/nowhere").status, 404);
  int status = 0;
  const std::string metrics = HttpGet(server_->metrics_port(), "/metrics", &status);
  ASSERT_EQ(status, 200);
  EXPECT_NE(metrics.find(R"(capplan_http_requests_total{code="200",route="/v1/fabrics"})"), std::string::npos);
  EXPECT_NE(metrics.find(R"(capplan_http_requests_total{code="404",route="other"})"), std::string::npos);
  EXPECT_NE(metrics.find(R"(capplan_http_request_seconds_count{route="/v1/fabrics"})"), std::string::npos);
  // The in-process call went through the gRPC interceptor too.
  EXPECT_NE(metrics.find(R"(grpc_server_handled_total{grpc_code="OK",grpc_method="ListFabrics")"), std::string::npos);
}

TEST(HttpDisabledTest, EmptyAddressServesNoHttp) {
  TempDir dir;
  ServerProcess server(
      {"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--http_listen=", "--db=" + dir.path() + "/c.db"});
  ASSERT_TRUE(server.started()) << server.Wait(0).stderr_text;
  EXPECT_EQ(server.http_port(), 0);
  EXPECT_EQ(server.banner().find("http/json"), std::string::npos) << server.banner();
}

TEST_F(HttpTest, GetRoutesTakePricesAsOfTime) {
  // 2025-01-01T00:00:00Z is 1735689600 (date -u -d 2025-01-01 +%s), after the shipped
  // prices take effect (2024-06-01): the RFC 3339 instant and the Unix seconds are the same
  // request.
  v1::ListInstancesResponse by_time, by_seconds;
  ASSERT_TRUE(
      Parse(Get("/v1/instances?provider=aws&gpuName=H100-SXM5-80GB&pricesAsOfTime=2025-01-01T00:00:00Z"), &by_time));
  ASSERT_TRUE(
      Parse(Get("/v1/instances?provider=aws&gpuName=H100-SXM5-80GB&pricesAsOfUnixSeconds=1735689600"), &by_seconds));
  EXPECT_EQ(by_time.SerializeAsString(), by_seconds.SerializeAsString());
  int priced = 0;
  for (const v1::InstanceOffer& o : by_time.offers()) priced += o.current_prices_size();
  EXPECT_GT(priced, 0);
  // The instant is read, not ignored: before the shipped prices take effect there are none.
  v1::ListInstancesResponse before;
  ASSERT_TRUE(Parse(
      Get("/v1/instances?provider=aws&gpuName=H100-SXM5-80GB&prices_as_of_time=2024-01-01T01:00:00%2B01:00"), &before));
  for (const v1::InstanceOffer& o : before.offers()) EXPECT_EQ(o.current_prices_size(), 0);
  const HttpReply bad = Get("/v1/instances?pricesAsOfTime=yesterday");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(ErrorOf(bad).message.find("pricesAsOfTime"), std::string::npos) << bad.body;
  // Both given and different: INVALID_ARGUMENT, as over gRPC.
  EXPECT_EQ(Get("/v1/instances?pricesAsOfTime=2025-01-01T00:00:00Z&pricesAsOfUnixSeconds=1").status, 400);
}

TEST_F(HttpTest, Int64FieldsTakeANumberOrAString) {
  // protobuf's JSON parser (https://protobuf.dev/programming-guides/json/: "int64 ... JSON
  // value will be a decimal string. Either numbers or strings are accepted.").
  const std::string body = R"({"serving":{"modelName":"Llama-2-7B","promptTokens":512,"outputTokens":128,)"
                           R"("requestsPerSecond":35},"view":"VIEW_BASIC","pricesAsOfUnixSeconds":)";
  v1::PlanResponse as_number, as_string;
  ASSERT_TRUE(Parse(Post("/v1/plan", body + "1735689600}"), &as_number));
  ASSERT_TRUE(Parse(Post("/v1/plan", body + "\"1735689600\"}"), &as_string));
  as_number.clear_from_memo();
  as_string.clear_from_memo();
  EXPECT_EQ(as_number.SerializeAsString(), as_string.SerializeAsString());
  EXPECT_EQ(Post("/v1/plan", body + "\"17e8x\"}").status, 400);
}

}  // namespace
}  // namespace capplan::testing
