#include "server/rpc/status.h"

#include <gtest/gtest.h>

namespace capplan::server {
namespace {

TEST(ToGrpcStatusTest, KeepsCodeAndMessage) {
  grpc::Status s = ToGrpcStatus(absl::InvalidArgumentError("tokens: must be in [1, 1e15]"));
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.error_message(), "tokens: must be in [1, 1e15]");
  EXPECT_TRUE(ToGrpcStatus(absl::OkStatus()).ok());
  EXPECT_EQ(ToGrpcStatus(absl::NotFoundError("x")).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(ToGrpcStatus(absl::UnauthenticatedError("x")).error_code(), grpc::StatusCode::UNAUTHENTICATED);
}

TEST(GrpcCodeNameTest, UsesDashboardLabelNames) {
  EXPECT_STREQ(GrpcCodeName(grpc::StatusCode::OK), "OK");
  EXPECT_STREQ(GrpcCodeName(grpc::StatusCode::INVALID_ARGUMENT), "InvalidArgument");
  EXPECT_STREQ(GrpcCodeName(grpc::StatusCode::CANCELLED), "Canceled");
  EXPECT_STREQ(GrpcCodeName(grpc::StatusCode::UNAUTHENTICATED), "Unauthenticated");
}

}  // namespace
}  // namespace capplan::server
