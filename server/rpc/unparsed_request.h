// A request body that does not parse as the method's request message never reaches a handler:
// gRPC's callback server answers it UNIMPLEMENTED with no message, which tells the caller
// nothing and reads as "the server lacks this method". This interceptor turns that answer
// into INVALID_ARGUMENT naming the message type that could not be parsed (HTTP: 400).
#pragma once

#include <grpcpp/support/server_interceptor.h>

#include <memory>

namespace capplan::server {

// For every capplan method (those of the generated descriptor pool); nullptr interceptors
// for the rest. Put it first among the server's interceptors: status hooks run in list order
// on a server, so the ones after it (metrics) count the answer as sent.
std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> UnparsedRequestInterceptorFactory();

}  // namespace capplan::server
