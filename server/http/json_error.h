// gRPC status codes as HTTP statuses (the google.rpc.Code mapping) and the error body
// {"error":{"code":<http>,"status":"<CODE_NAME>","message":"..."}}, printed by protobuf.
#pragma once

#include <string>

#include "absl/status/status.h"

namespace capplan::server::http {

// INVALID_ARGUMENT 400, UNAUTHENTICATED 401, PERMISSION_DENIED 403, NOT_FOUND 404,
// ALREADY_EXISTS and ABORTED 409, RESOURCE_EXHAUSTED 429, CANCELLED 499, UNIMPLEMENTED 501,
// UNAVAILABLE 503, DEADLINE_EXCEEDED 504, ... as google/rpc/code.proto documents them.
int HttpStatusFor(absl::StatusCode code);

// The JSON error body for `status` (not OK) answered with `http_status`; the message is
// bounded like a gRPC status message.
std::string ErrorJson(int http_status, const absl::Status& status);

}  // namespace capplan::server::http
