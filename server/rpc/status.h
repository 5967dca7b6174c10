// The one conversion from absl::Status to grpc::Status (the canonical codes match 1:1).
#pragma once

#include <grpcpp/support/status.h>

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace capplan::server {

// Error messages name the field and, often, the value given; a value can be long. Messages
// are cut here so that a status always fits a client's metadata limit (8 KiB by default).
inline constexpr size_t kMaxStatusMessageBytes = 4096;

// `message`, cut at a character boundary to kMaxStatusMessageBytes with a note of what was
// left out.
std::string BoundedMessage(absl::string_view message);

// The code as is; the message bounded by BoundedMessage.
grpc::Status ToGrpcStatus(const absl::Status& status);

// Prometheus label value for a code, as the de-facto gRPC metrics name them ("OK",
// "InvalidArgument", ...).
const char* GrpcCodeName(grpc::StatusCode code);

}  // namespace capplan::server
