// The HTTP/JSON route table, derived at start-up from the service descriptors by one naming
// rule (see BuildRoutes), so that every RPC has exactly one route and the OpenAPI document
// lists the same table.
#pragma once

#include <google/protobuf/descriptor.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace capplan::server::http {

enum class Verb { kGet, kPost };

struct Route {
  Verb verb = Verb::kPost;
  std::string path;         // "/v1/plan"
  std::string grpc_method;  // "/capplan.v1.PlannerService/Plan"
  const google::protobuf::MethodDescriptor* method = nullptr;
  bool admin = false;  // needs "Authorization: Bearer <token>"
};

// "ListPriceHistory" -> "list-price-history".
std::string KebabCase(absl::string_view camel);

const char* VerbName(Verb verb);

// The rule: capplan.v1.PlannerService's Get<X> and List<X> -> GET /v1/<kebab X>, its other
// methods -> POST /v1/<kebab name>; capplan.v1.AdminService's methods -> POST
// /v1/admin/<kebab name>; grpc.health.v1.Health/Check -> GET /v1/health. Streaming methods
// (Health/Watch) get no route. Fails if two methods map to one path.
absl::StatusOr<std::vector<Route>> BuildRoutes();

// The documentation route, served by the gateway itself.
inline constexpr char kOpenApiPath[] = "/v1/openapi.json";

}  // namespace capplan::server::http
