// See unparsed_request.h.
#include "server/rpc/unparsed_request.h"

#include <google/protobuf/descriptor.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace capplan::server {

namespace {

using grpc::experimental::InterceptionHookPoints;

class UnparsedRequestInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit UnparsedRequestInterceptor(const google::protobuf::MethodDescriptor* method) : method_(method) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    // A request that parsed is handed to the interceptors; one that did not is handed as null
    // (or not at all). Only then is an empty UNIMPLEMENTED gRPC's answer to the bytes, not a
    // handler's (every capplan handler's error says what is wrong).
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_MESSAGE) &&
        methods->GetRecvMessage() != nullptr) {
      parsed_ = true;
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS) && !parsed_) {
      const grpc::Status sent = methods->GetSendStatus();
      if (sent.error_code() == grpc::StatusCode::UNIMPLEMENTED && sent.error_message().empty()) {
        methods->ModifySendStatus(grpc::Status(
            grpc::StatusCode::INVALID_ARGUMENT,
            absl::StrCat("request: the body is not a ", method_->input_type()->full_name(),
                         " in protobuf binary form (truncated or corrupt bytes, a wrong wire type, or a string "
                         "field that is not UTF-8)")));
      }
    }
    methods->Proceed();
  }

 private:
  const google::protobuf::MethodDescriptor* method_;
  bool parsed_ = false;
};

class Factory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override {
    // "/capplan.v1.PlannerService/Plan" -> "capplan.v1.PlannerService.Plan"
    const char* path = info->method();
    if (path == nullptr || path[0] != '/') return nullptr;
    const google::protobuf::MethodDescriptor* m = google::protobuf::DescriptorPool::generated_pool()->FindMethodByName(
        absl::StrReplaceAll(path + 1, {{"/", "."}}));
    if (m == nullptr || m->client_streaming()) return nullptr;  // streamed requests are read by the handler
    return new UnparsedRequestInterceptor(m);
  }
};

}  // namespace

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> UnparsedRequestInterceptorFactory() {
  return std::make_unique<Factory>();
}

}  // namespace capplan::server
