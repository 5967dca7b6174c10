#include "server/http/gateway.h"

#include <google/protobuf/message.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/type_resolver_util.h>
#include <grpcpp/client_context.h>
#include <grpcpp/support/byte_buffer.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "server/http/json_error.h"
#include "server/http/query.h"

namespace capplan::server::http {

namespace {

using google::protobuf::Message;

std::unique_ptr<Message> NewMessage(const google::protobuf::Descriptor* d) {
  const Message* prototype = google::protobuf::MessageFactory::generated_factory()->GetPrototype(d);
  return std::unique_ptr<Message>(prototype == nullptr ? nullptr : prototype->New());
}

absl::StatusOr<std::chrono::milliseconds> Timeout(const std::string& text, int default_ms) {
  if (text.empty()) return std::chrono::milliseconds(default_ms);
  int ms = 0;
  if (!absl::SimpleAtoi(text, &ms) || ms < 1 || ms > kMaxTimeoutMs) {
    return absl::InvalidArgumentError(
        absl::StrCat(kTimeoutHeader, ": want whole milliseconds in [1, ", kMaxTimeoutMs, "]"));
  }
  return std::chrono::milliseconds(ms);
}

bool PrintableAscii(const std::string& s) {
  for (const char c : s) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

// Runs one unary call on the generic stub and waits for it.
grpc::Status UnaryCall(grpc::GenericStub* stub, grpc::ClientContext* ctx, const std::string& method,
                       const grpc::ByteBuffer& request, grpc::ByteBuffer* response) {
  absl::Mutex mu;
  bool done = false;  // both under mu
  grpc::Status result;
  stub->UnaryCall(ctx, method, grpc::StubOptions(), &request, response, [&](grpc::Status s) {
    absl::MutexLock lock(&mu);
    result = std::move(s);
    done = true;
  });
  // The unlock in the callback wakes this wait; the callback touches nothing after it.
  absl::MutexLock lock(&mu);
  mu.Await(absl::Condition(&done));
  return result;
}

constexpr char kTypeUrlPrefix[] = "type.googleapis.com";

std::string TypeUrl(const google::protobuf::Descriptor* d) { return absl::StrCat(kTypeUrlPrefix, "/", d->full_name()); }

}  // namespace

HttpResponse ErrorResponse(const absl::Status& status, int http_status) {
  HttpResponse r;
  r.status = http_status != 0 ? http_status : HttpStatusFor(status.code());
  r.body = ErrorJson(r.status, status);
  return r;
}

Gateway::Gateway(std::vector<Route> routes, std::shared_ptr<grpc::Channel> channel, std::string openapi_json,
                 int default_timeout_ms)
    : resolver_(google::protobuf::util::NewTypeResolverForDescriptorPool(
          kTypeUrlPrefix, google::protobuf::DescriptorPool::generated_pool())),
      routes_(std::move(routes)),
      channel_(std::move(channel)),
      stub_(channel_),
      openapi_json_(std::move(openapi_json)),
      default_timeout_ms_(default_timeout_ms) {
  for (size_t i = 0; i < routes_.size(); ++i) by_path_.emplace(routes_[i].path, i);
}

const Route* Gateway::Find(const std::string& path) const {
  auto it = by_path_.find(path);
  return it == by_path_.end() ? nullptr : &routes_[it->second];
}

std::unique_ptr<HttpResponse> Gateway::Refuse(const HttpRequest& request) const {
  const Route* route = Find(request.path);
  const bool docs = request.path == kOpenApiPath;
  if (route == nullptr && !docs) {
    return std::make_unique<HttpResponse>(
        ErrorResponse(absl::NotFoundError(absl::StrCat("no route ", request.path, "; see ", kOpenApiPath))));
  }
  const char* want = docs ? "GET" : VerbName(route->verb);
  if (request.method == want || (request.method == "HEAD" && docs)) return nullptr;
  auto r = std::make_unique<HttpResponse>(ErrorResponse(
      absl::UnimplementedError(absl::StrCat(request.path, " takes ", want, ", not ", request.method)), 405));
  r->allow = want;
  r->route = docs ? kOpenApiPath : route->path;
  return r;
}

absl::StatusOr<std::string> Gateway::ToRequestBytes(const Route& route, const HttpRequest& request) const {
  if (route.verb == Verb::kPost && !request.body.empty()) {
    // JSON text is UTF-8 (RFC 8259 section 8.1); the converter below copies other bytes of a
    // string through, and the server would then refuse the message it makes.
    if (!IsUtf8(request.body)) {
      return absl::InvalidArgumentError(
          absl::StrCat("body: not a JSON ", route.method->input_type()->full_name(), ": the text is not UTF-8"));
    }
    // Straight from JSON to the wire format (what JsonStringToMessage does before parsing).
    google::protobuf::util::JsonParseOptions options;
    options.ignore_unknown_fields = false;
    std::string bytes;
    const auto parsed = google::protobuf::util::JsonToBinaryString(resolver_.get(), TypeUrl(route.method->input_type()),
                                                                   request.body, &bytes, options);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("body: not a JSON ", route.method->input_type()->full_name(), ": ",
                                                     parsed.message().as_string()));
    }
    return bytes;
  }
  // GET: the query's fields; POST without a body: all defaults.
  std::unique_ptr<Message> message = NewMessage(route.method->input_type());
  if (message == nullptr) return absl::InternalError(absl::StrCat(route.path, ": no request prototype"));
  if (route.verb == Verb::kGet) {
    if (absl::Status s = ApplyQuery(request.query, message.get()); !s.ok()) return s;
  }
  std::string bytes;
  if (!message->SerializeToString(&bytes)) return absl::InternalError("request: cannot serialize");
  return bytes;
}

HttpResponse Gateway::Call(const Route& route, const HttpRequest& request, const std::string& bytes) {
  absl::StatusOr<std::chrono::milliseconds> timeout = Timeout(request.timeout_ms, default_timeout_ms_);
  if (!timeout.ok()) return ErrorResponse(timeout.status());
  if (!PrintableAscii(request.authorization)) {
    return ErrorResponse(absl::UnauthenticatedError("Authorization: want \"Bearer <token>\" in printable ASCII"));
  }
  grpc::ClientContext ctx;
  // The deadline counts from the request's arrival, so time spent sending the body counts.
  const auto left = request.received + *timeout - std::chrono::steady_clock::now();
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::duration_cast<std::chrono::milliseconds>(left));
  if (!request.authorization.empty()) ctx.AddMetadata("authorization", request.authorization);
  grpc::Slice slice(bytes);
  const grpc::ByteBuffer req(&slice, 1);
  grpc::ByteBuffer resp;
  const grpc::Status status = UnaryCall(&stub_, &ctx, route.grpc_method, req, &resp);
  if (!status.ok()) {
    return ErrorResponse(absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message()));
  }
  std::vector<grpc::Slice> slices;
  std::string wire;
  if (!resp.Dump(&slices).ok()) return ErrorResponse(absl::InternalError("response: unreadable"));
  for (const grpc::Slice& s : slices) wire.append(reinterpret_cast<const char*>(s.begin()), s.size());
  HttpResponse r;
  const std::string type_url = TypeUrl(route.method->output_type());
  if (json_memo_.Find(type_url, wire, &r.body)) return r;
  // Straight from the wire format to JSON (what MessageToJsonString does after serializing).
  google::protobuf::util::JsonPrintOptions print;
  print.always_print_primitive_fields = false;
  if (!google::protobuf::util::BinaryToJsonString(resolver_.get(), type_url, wire, &r.body, print).ok()) {
    return ErrorResponse(absl::InternalError("response: not printable as JSON"));
  }
  json_memo_.Insert(type_url, wire, r.body);
  return r;
}

HttpResponse Gateway::Handle(const HttpRequest& request) {
  if (std::unique_ptr<HttpResponse> refused = Refuse(request)) return *refused;
  if (request.path == kOpenApiPath) {
    HttpResponse r;
    r.body = openapi_json_;
    r.route = kOpenApiPath;
    return r;
  }
  const Route& route = *Find(request.path);
  absl::StatusOr<std::string> bytes = ToRequestBytes(route, request);
  HttpResponse r = bytes.ok() ? Call(route, request, *bytes) : ErrorResponse(bytes.status());
  r.route = route.path;
  return r;
}

}  // namespace capplan::server::http
