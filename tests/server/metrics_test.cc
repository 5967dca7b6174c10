#include "server/rpc/metrics.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "prometheus/text_serializer.h"

namespace capplan::server {
namespace {

TEST(ServedMethodsTest, CoversPlannerAdminAndHealth) {
  std::vector<MethodDescription> methods = ServedMethods();
  auto has = [&](const std::string& name, const std::string& type) {
    return std::any_of(methods.begin(), methods.end(),
                       [&](const MethodDescription& m) { return m.full_name == name && m.type == type; });
  };
  EXPECT_TRUE(has("/capplan.v1.PlannerService/Plan", "unary"));
  EXPECT_TRUE(has("/capplan.v1.PlannerService/Tco", "unary"));
  EXPECT_TRUE(has("/capplan.v1.AdminService/SetPrice", "unary"));
  EXPECT_TRUE(has("/grpc.health.v1.Health/Watch", "server_stream"));
}

TEST(ServerMetricsTest, PreinitialisesEveryMethodAndCodeToZero) {
  auto registry = std::make_shared<prometheus::Registry>();
  ServerMetrics metrics(registry, ServedMethods(), "1.2.3");
  const std::string text = prometheus::TextSerializer().Serialize(registry->Collect());
  EXPECT_NE(text.find("grpc_server_handled_total{grpc_code=\"InvalidArgument\",grpc_method=\"Plan\","
                      "grpc_service=\"capplan.v1.PlannerService\",grpc_type=\"unary\"} 0"),
            std::string::npos);
  EXPECT_NE(text.find("grpc_server_started_total{grpc_method=\"Compare\","
                      "grpc_service=\"capplan.v1.PlannerService\",grpc_type=\"unary\"} 0"),
            std::string::npos);
  EXPECT_NE(text.find("capplan_build_info{version=\"1.2.3\"} 1"), std::string::npos);
  EXPECT_EQ(metrics.Find("/no.such.Service/Method"), nullptr);
  EXPECT_NE(metrics.Find("/capplan.v1.PlannerService/Plan"), nullptr);
}

}  // namespace
}  // namespace capplan::server
