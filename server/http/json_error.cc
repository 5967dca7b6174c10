#include "server/http/json_error.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include "server/rpc/status.h"

namespace capplan::server::http {

int HttpStatusFor(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk:
      return 200;
    case absl::StatusCode::kCancelled:
      return 499;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
      return 400;
    case absl::StatusCode::kDeadlineExceeded:
      return 504;
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kAborted:
      return 409;
    case absl::StatusCode::kPermissionDenied:
      return 403;
    case absl::StatusCode::kUnauthenticated:
      return 401;
    case absl::StatusCode::kResourceExhausted:
      return 429;
    case absl::StatusCode::kUnimplemented:
      return 501;
    case absl::StatusCode::kUnavailable:
      return 503;
    default:  // UNKNOWN, INTERNAL, DATA_LOSS
      return 500;
  }
}

std::string ErrorJson(int http_status, const absl::Status& status) {
  google::protobuf::Struct body;
  google::protobuf::Struct* error = (*body.mutable_fields())["error"].mutable_struct_value();
  auto& fields = *error->mutable_fields();
  fields["code"].set_number_value(http_status);
  fields["status"].set_string_value(absl::StatusCodeToString(status.code()));
  fields["message"].set_string_value(BoundedMessage(status.message()));
  std::string out;
  // A Struct of a number and two strings always prints; the message is valid UTF-8 because
  // BoundedMessage cuts at a character boundary (protobuf refuses invalid UTF-8 elsewhere).
  if (!google::protobuf::util::MessageToJsonString(body, &out).ok()) {
    fields["message"].set_string_value("(message not printable as JSON)");
    out.clear();
    (void)google::protobuf::util::MessageToJsonString(body, &out);
  }
  return out;
}

}  // namespace capplan::server::http
