// The OpenAPI 3 document of the HTTP/JSON API, generated from the route table and the
// message descriptors at start-up and printed by protobuf's JSON printer.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/http/routes.h"

namespace capplan::server::http {

// Schemas are named by the message's full name ("capplan.v1.PlanRequest") and list its
// fields by their canonical JSON names: 64-bit integers as strings, enums as string enums,
// google.protobuf.Timestamp as a date-time string, repeated fields as arrays, maps as
// objects. GET routes list their request fields as query parameters.
absl::StatusOr<std::string> OpenApiJson(const std::vector<Route>& routes, const std::string& version);

}  // namespace capplan::server::http
