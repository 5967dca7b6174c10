// The one conversion from absl::Status to grpc::Status (the canonical codes match 1:1).
#pragma once

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace capplan::server {

grpc::Status ToGrpcStatus(const absl::Status& status);

// Prometheus label value for a code, as the de-facto gRPC metrics name them ("OK",
// "InvalidArgument", ...).
const char* GrpcCodeName(grpc::StatusCode code);

}  // namespace capplan::server
