#include "server/http/routes.h"

#include <cctype>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "capplan/v1/admin.pb.h"
#include "capplan/v1/planner.pb.h"
#include "grpc/health/v1/health.pb.h"

namespace capplan::server::http {

namespace {

bool StartsWithWord(absl::string_view name, absl::string_view word) {
  return name.size() > word.size() && absl::StartsWith(name, word) &&
         std::isupper(static_cast<unsigned char>(name[word.size()]));
}

Route MakeRoute(const google::protobuf::MethodDescriptor* m, Verb verb, std::string path, bool admin) {
  Route r;
  r.verb = verb;
  r.path = std::move(path);
  r.grpc_method = absl::StrCat("/", m->service()->full_name(), "/", m->name());
  r.method = m;
  r.admin = admin;
  return r;
}

}  // namespace

std::string KebabCase(absl::string_view camel) {
  std::string out;
  for (size_t i = 0; i < camel.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(camel[i]);
    if (std::isupper(c)) {
      if (i > 0) out.push_back('-');
      out.push_back(static_cast<char>(std::tolower(c)));
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

const char* VerbName(Verb verb) { return verb == Verb::kGet ? "GET" : "POST"; }

absl::StatusOr<std::vector<Route>> BuildRoutes() {
  std::vector<Route> routes;
  // Reached through a message of each file, which links the generated code and registers its
  // descriptors in the generated pool.
  const google::protobuf::ServiceDescriptor* planner =
      capplan::v1::PlanRequest::descriptor()->file()->FindServiceByName("PlannerService");
  const google::protobuf::ServiceDescriptor* admin =
      capplan::v1::WriteResponse::descriptor()->file()->FindServiceByName("AdminService");
  const google::protobuf::ServiceDescriptor* health =
      grpc::health::v1::HealthCheckRequest::descriptor()->file()->FindServiceByName("Health");
  if (planner == nullptr || admin == nullptr || health == nullptr) {
    return absl::InternalError("http routes: a service descriptor is missing");
  }
  for (int i = 0; i < planner->method_count(); ++i) {
    const google::protobuf::MethodDescriptor* m = planner->method(i);
    if (m->client_streaming() || m->server_streaming()) continue;
    for (absl::string_view word : {"Get", "List", ""}) {
      if (word.empty()) {
        routes.push_back(MakeRoute(m, Verb::kPost, "/v1/" + KebabCase(m->name()), false));
      } else if (StartsWithWord(m->name(), word)) {
        routes.push_back(MakeRoute(m, Verb::kGet, "/v1/" + KebabCase(m->name().substr(word.size())), false));
        break;
      }
    }
  }
  for (int i = 0; i < admin->method_count(); ++i) {
    const google::protobuf::MethodDescriptor* m = admin->method(i);
    if (m->client_streaming() || m->server_streaming()) continue;
    routes.push_back(MakeRoute(m, Verb::kPost, "/v1/admin/" + KebabCase(m->name()), true));
  }
  const google::protobuf::MethodDescriptor* check = health->FindMethodByName("Check");
  if (check == nullptr) return absl::InternalError("http routes: grpc.health.v1.Health/Check is missing");
  routes.push_back(MakeRoute(check, Verb::kGet, "/v1/health", false));

  std::set<std::string> seen = {kOpenApiPath};
  for (const Route& r : routes) {
    if (!seen.insert(r.path).second) {
      return absl::InternalError(absl::StrCat("http routes: two methods map to ", r.path));
    }
  }
  return routes;
}

}  // namespace capplan::server::http
