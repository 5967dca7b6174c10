#include "server/http/openapi.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/http/proto_comments.h"

namespace capplan::server::http {

namespace {

using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Struct;
using google::protobuf::Value;

constexpr char kErrorSchema[] = "Error";

// The fields (by JSON name) and oneofs (by name) without which the server answers
// INVALID_ARGUMENT, by message: server/planning/planning.cc (workload, horizon_months,
// fleets), server/api/request_proto.cc (model), server/api/tco_request.cc (gpu_count) and
// TcoFleetFrom's catalog lookup (gpu_name, else NOT_FOUND). tests/integration/openapi_test.cc
// sends requests without each and expects the refusal.
const std::map<std::string, std::vector<std::string>>& RequiredFields() {
  static const auto* const kRequired = new std::map<std::string, std::vector<std::string>>{
      {"capplan.v1.PlanRequest", {"workload"}},
      {"capplan.v1.CompareRequest", {"workload"}},
      {"capplan.v1.TrainingWorkload", {"model"}},
      {"capplan.v1.ServingWorkload", {"model"}},
      {"capplan.v1.TcoRequest", {"fleets", "horizonMonths"}},
      {"capplan.v1.TcoFleet", {"gpuName", "gpuCount"}},
  };
  return *kRequired;
}

bool IsRequired(const Descriptor* d, const std::string& name) {
  const auto it = RequiredFields().find(d->full_name());
  if (it == RequiredFields().end()) return false;
  for (const std::string& n : it->second) {
    if (n == name) return true;
  }
  return false;
}

Value Str(const std::string& s) {
  Value v;
  v.set_string_value(s);
  return v;
}

// The object inside `v` (made one if it is not).
Struct& Obj(Value& v) { return *v.mutable_struct_value(); }
Value& At(Struct& s, const std::string& key) { return (*s.mutable_fields())[key]; }
Value& At(Value& v, const std::string& key) { return At(Obj(v), key); }
void Append(Value& list, Value item) { *list.mutable_list_value()->add_values() = std::move(item); }

Value Ref(const std::string& name, const char* kind = "schemas") {
  Value v;
  At(v, "$ref") = Str(absl::StrCat("#/components/", kind, "/", name));
  return v;
}

Value Typed(const char* type, const char* format = nullptr) {
  Value v;
  At(v, "type") = Str(type);
  if (format != nullptr) At(v, "format") = Str(format);
  return v;
}

// protobuf's JSON parser takes a 64-bit integer as a number or a decimal string; its printer
// writes a string (JavaScript numbers lose precision past 2^53).
Value Int64Schema(bool is_signed) {
  Value v;
  Append(At(v, "type"), Str("integer"));
  Append(At(v, "type"), Str("string"));
  At(v, "format") = Str(is_signed ? "int64" : "uint64");
  At(v, "pattern") = Str(is_signed ? "^-?[0-9]+$" : "^[0-9]+$");
  return v;
}

constexpr char kInt64Note[] =
    "64-bit integer: answers carry it as a decimal string; requests may send a JSON number or a string.";

// Everything a schema collects while it is built: messages and enums still to describe.
struct Pending {
  std::vector<const Descriptor*> messages;
  std::vector<const EnumDescriptor*> enums;
};

// The schema of one value of `f` (an element, for a repeated field).
Value ScalarSchema(const FieldDescriptor* f, Pending* pending) {
  switch (f->type()) {
    case FieldDescriptor::TYPE_INT32:
    case FieldDescriptor::TYPE_SINT32:
    case FieldDescriptor::TYPE_SFIXED32:
      return Typed("integer", "int32");
    case FieldDescriptor::TYPE_UINT32:
    case FieldDescriptor::TYPE_FIXED32:
      return Typed("integer", "uint32");
    case FieldDescriptor::TYPE_INT64:
    case FieldDescriptor::TYPE_SINT64:
    case FieldDescriptor::TYPE_SFIXED64:
      return Int64Schema(true);
    case FieldDescriptor::TYPE_UINT64:
    case FieldDescriptor::TYPE_FIXED64:
      return Int64Schema(false);
    case FieldDescriptor::TYPE_DOUBLE:
      return Typed("number", "double");
    case FieldDescriptor::TYPE_FLOAT:
      return Typed("number", "float");
    case FieldDescriptor::TYPE_BOOL:
      return Typed("boolean");
    case FieldDescriptor::TYPE_STRING:
      return Typed("string");
    case FieldDescriptor::TYPE_BYTES:
      return Typed("string", "byte");
    case FieldDescriptor::TYPE_ENUM:
      pending->enums.push_back(f->enum_type());
      return Ref(f->enum_type()->full_name());
    case FieldDescriptor::TYPE_MESSAGE:
    case FieldDescriptor::TYPE_GROUP:
      break;
  }
  const std::string& name = f->message_type()->full_name();
  if (name == "google.protobuf.Timestamp") return Typed("string", "date-time");
  if (name == "google.protobuf.Duration") return Typed("string", "duration");
  pending->messages.push_back(f->message_type());
  return Ref(name);
}

bool Is64Bit(const FieldDescriptor* f) {
  return f->cpp_type() == FieldDescriptor::CPPTYPE_INT64 || f->cpp_type() == FieldDescriptor::CPPTYPE_UINT64;
}

// The field's schema with its description: the .proto comments, and how 64-bit integers travel.
Value FieldSchema(const FieldDescriptor* f, Pending* pending) {
  Value v;
  if (f->is_map()) {
    v = Typed("object");
    At(v, "additionalProperties") = ScalarSchema(f->message_type()->map_value(), pending);
  } else if (f->is_repeated()) {
    v = Typed("array");
    At(v, "items") = ScalarSchema(f, pending);
  } else {
    v = ScalarSchema(f, pending);
  }
  std::string description = ProtoComments::Embedded().Of(f);
  if (Is64Bit(f)) description = description.empty() ? kInt64Note : absl::StrCat(description, "\n\n", kInt64Note);
  if (!description.empty()) At(v, "description") = Str(description);
  return v;
}

// Enums travel by name; the description lists each name with its number and comment.
Value EnumSchema(const EnumDescriptor* e) {
  Value v = Typed("string");
  std::vector<std::string> lines;
  for (int i = 0; i < e->value_count(); ++i) {
    Append(At(v, "enum"), Str(e->value(i)->name()));
    const std::string note = ProtoComments::Embedded().Of(e->value(i));
    lines.push_back(
        absl::StrCat("- `", e->value(i)->name(), "` (", e->value(i)->number(), ")", note.empty() ? "" : ": ", note));
  }
  const std::string about = ProtoComments::Embedded().Of(e);
  At(v, "description") = Str(absl::StrCat(about, about.empty() ? "" : "\n\n",
                                          "Sent and answered by name; the numbers are the protobuf wire values:\n",
                                          absl::StrJoin(lines, "\n")));
  return v;
}

Value RequiredOne(const std::string& name) {
  Value v;
  Append(At(v, "required"), Str(name));
  return v;
}

// The message's oneofs: exactly one member when the oneof is required, else at most one,
// which the description says (JSON Schema has no short form of "at most one").
void AddOneofs(const Descriptor* d, Value* schema, std::string* description) {
  std::vector<Value> exactly_one;
  for (int i = 0; i < d->oneof_decl_count(); ++i) {
    const google::protobuf::OneofDescriptor* o = d->oneof_decl(i);
    if (o->is_synthetic()) continue;  // a proto3 `optional` field
    std::vector<std::string> names;
    Value choice;
    for (int k = 0; k < o->field_count(); ++k) {
      names.push_back(absl::StrCat("`", o->field(k)->json_name(), "`"));
      Append(At(choice, "oneOf"), RequiredOne(o->field(k)->json_name()));
    }
    const bool required = IsRequired(d, o->name());
    absl::StrAppend(description, description->empty() ? "" : "\n\n", required ? "Exactly" : "At most", " one of ",
                    absl::StrJoin(names, ", "), " (oneof `", o->name(), "`).");
    if (required) exactly_one.push_back(std::move(choice));
  }
  if (exactly_one.size() == 1) {
    At(*schema, "oneOf") = std::move(At(exactly_one[0], "oneOf"));
  } else {
    for (Value& c : exactly_one) Append(At(*schema, "allOf"), std::move(c));
  }
}

Value MessageSchema(const Descriptor* d, Pending* pending) {
  Value schema = Typed("object");
  Value& props = At(schema, "properties");
  Obj(props);  // an empty message still has a properties object
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    At(props, f->json_name()) = FieldSchema(f, pending);
    if (f->real_containing_oneof() == nullptr && IsRequired(d, f->json_name())) {
      Append(At(schema, "required"), Str(f->json_name()));
    }
  }
  std::string description = ProtoComments::Embedded().Of(d);
  AddOneofs(d, &schema, &description);
  if (description.empty()) description = absl::StrCat("The protobuf message ", d->full_name(), ".");
  At(schema, "description") = Str(description);
  return schema;
}

// Every message and enum reachable from `pending`, each once.
void AddSchemas(Pending pending, Struct* schemas) {
  std::set<std::string> done;
  while (!pending.messages.empty() || !pending.enums.empty()) {
    if (!pending.enums.empty()) {
      const EnumDescriptor* e = pending.enums.back();
      pending.enums.pop_back();
      if (done.insert(e->full_name()).second) At(*schemas, e->full_name()) = EnumSchema(e);
      continue;
    }
    const Descriptor* d = pending.messages.back();
    pending.messages.pop_back();
    if (done.insert(d->full_name()).second) At(*schemas, d->full_name()) = MessageSchema(d, &pending);
  }
}

Value JsonContent(Value schema) {
  Value content;
  At(At(content, "application/json"), "schema") = std::move(schema);
  return content;
}

// The error answers, by HTTP status, as server/http/json_error.cc maps gRPC codes and as the
// gateway refuses requests itself (server/http/api_handler.cc, gateway.cc).
struct ErrorAnswer {
  const char* status;
  const char* name;
  const char* description;
};
constexpr ErrorAnswer kErrors[] = {
    {"400", "BadRequest",
     "INVALID_ARGUMENT, FAILED_PRECONDITION or OUT_OF_RANGE: a body that is not the request's JSON, a query "
     "parameter whose value does not parse, or a field out of its range (the message names it)."},
    {"401", "Unauthorized", "UNAUTHENTICATED: no or an unknown `Authorization: Bearer <token>`."},
    {"403", "Forbidden", "PERMISSION_DENIED: the token may read but not write."},
    {"404", "NotFound", "NOT_FOUND: a GPU, model, instance or other catalog entry the request names is not there."},
    {"408", "RequestTimeout", "DEADLINE_EXCEEDED: the body did not arrive within the server's body timeout."},
    {"409", "Conflict", "ALREADY_EXISTS or ABORTED: the write conflicts with the catalog's current state."},
    {"413", "PayloadTooLarge", "RESOURCE_EXHAUSTED: the body is over the server's limit."},
    {"415", "UnsupportedMediaType", "INVALID_ARGUMENT: a body that is not `Content-Type: application/json`."},
    {"429", "TooManyRequests", "RESOURCE_EXHAUSTED: the server is at a limit on concurrent work; retry later."},
    {"500", "InternalError", "INTERNAL, UNKNOWN or DATA_LOSS."},
    {"503", "Unavailable", "UNAVAILABLE: the server is shutting down or its store is unreachable; retry."},
    {"504", "GatewayTimeout", "DEADLINE_EXCEEDED: the call ran past `X-Capplan-Timeout-Ms` (default 30 s)."},
};

// The statuses an operation answers besides 200.
std::vector<std::string> ErrorStatuses(const Route* r) {
  std::vector<std::string> out = {"400", "413", "429", "500", "503"};
  if (r == nullptr) return out;  // the document itself
  out.push_back("504");
  if (r->verb == Verb::kPost) {
    out.insert(out.end(), {"404", "408", "415"});
  } else if (r->method->service()->name() == "Health") {
    out.push_back("404");  // an unknown service name
  }
  if (r->admin) out.insert(out.end(), {"401", "403", "409"});
  return out;
}

void AddErrorResponses(const std::vector<std::string>& statuses, Value* responses, std::set<std::string>* used) {
  for (const ErrorAnswer& e : kErrors) {
    if (std::find(statuses.begin(), statuses.end(), e.status) == statuses.end()) continue;
    At(*responses, e.status) = Ref(e.name, "responses");
    used->insert(e.status);
  }
}

void AddQueryParameters(const Descriptor* in, Value* op, Pending* pending) {
  Value& params = At(*op, "parameters");
  params.mutable_list_value();
  for (int i = 0; i < in->field_count(); ++i) {
    const FieldDescriptor* f = in->field(i);
    const bool timestamp =
        f->message_type() != nullptr && f->message_type()->full_name() == "google.protobuf.Timestamp";
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE && !timestamp) continue;  // not settable from a query
    Value p;
    At(p, "name") = Str(f->json_name());
    At(p, "in") = Str("query");
    At(p, "required").set_bool_value(false);
    Value schema = FieldSchema(f, pending);
    if (schema.struct_value().fields().count("description") > 0) {
      At(p, "description") = At(schema, "description");
      Obj(schema).mutable_fields()->erase("description");
    }
    At(p, "schema") = std::move(schema);
    if (f->is_repeated()) At(p, "explode").set_bool_value(true);
    Append(params, std::move(p));
  }
}

Value Operation(const Route& r, Pending* pending, std::set<std::string>* used) {
  const Descriptor* in = r.method->input_type();
  const Descriptor* out = r.method->output_type();
  pending->messages.push_back(out);
  Value op;
  At(op, "operationId") = Str(r.method->service()->name() + "_" + r.method->name());
  At(op, "summary") = Str(absl::StrCat(VerbName(r.verb), " ", r.path, ": gRPC ", r.grpc_method));
  const std::string about = ProtoComments::Embedded().Of(r.method);
  if (!about.empty()) At(op, "description") = Str(about);
  Append(At(op, "tags"), Str(r.method->service()->name()));
  if (r.verb == Verb::kGet) {
    AddQueryParameters(in, &op, pending);
  } else {
    pending->messages.push_back(in);
    Value& body = At(op, "requestBody");
    At(body, "required").set_bool_value(false);
    At(body, "description") = Str(absl::StrCat("A JSON ", in->full_name(), "; none: all fields at their defaults."));
    At(body, "content") = JsonContent(Ref(in->full_name()));
  }
  Value& security = At(op, "security");
  security.mutable_list_value();  // public: no credentials
  if (r.admin) {
    Value scheme;
    At(scheme, "bearerAuth").mutable_list_value();
    Append(security, std::move(scheme));
  }
  Value& responses = At(op, "responses");
  Value& ok = At(responses, "200");
  At(ok, "description") = Str(absl::StrCat("A JSON ", out->full_name(), "."));
  At(ok, "content") = JsonContent(Ref(out->full_name()));
  AddErrorResponses(ErrorStatuses(&r), &responses, used);
  return op;
}

Value ErrorSchema() {
  Value inner = Typed("object");
  At(At(inner, "properties"), "code") = Typed("integer", "int32");
  At(At(At(inner, "properties"), "code"), "description") = Str("The HTTP status.");
  At(At(inner, "properties"), "status") = Typed("string");
  At(At(At(inner, "properties"), "status"), "description") = Str("The gRPC status code's name, e.g. INVALID_ARGUMENT.");
  At(At(inner, "properties"), "message") = Typed("string");
  At(At(At(inner, "properties"), "message"), "description") =
      Str("What was wrong, naming the field and its allowed range.");
  for (const char* name : {"code", "status", "message"}) Append(At(inner, "required"), Str(name));
  Value v = Typed("object");
  At(v, "description") = Str("Every error answer's body.");
  At(At(v, "properties"), "error") = std::move(inner);
  Append(At(v, "required"), Str("error"));
  return v;
}

// The document's own route.
Value DocumentOperation(std::set<std::string>* used) {
  Value op;
  At(op, "operationId") = Str("OpenApi");
  At(op, "summary") = Str(absl::StrCat("GET ", kOpenApiPath, ": this document"));
  Append(At(op, "tags"), Str("Documentation"));
  At(op, "security").mutable_list_value();
  Value& ok = At(At(op, "responses"), "200");
  At(ok, "description") = Str("This OpenAPI document.");
  At(ok, "content") = JsonContent(Typed("object"));
  AddErrorResponses(ErrorStatuses(nullptr), &At(op, "responses"), used);
  return op;
}

Value Tag(const std::string& name, const std::string& description) {
  Value t;
  At(t, "name") = Str(name);
  At(t, "description") = Str(description);
  return t;
}

// One tag per service, described by its comment (or its name), and the document's own.
Value Tags(const std::vector<Route>& routes) {
  Value tags;
  std::set<std::string> seen;
  for (const Route& r : routes) {
    const google::protobuf::ServiceDescriptor* s = r.method->service();
    if (!seen.insert(s->name()).second) continue;
    std::string about = ProtoComments::Embedded().Of(s);
    if (about.empty()) about = absl::StrCat("The gRPC service ", s->full_name(), ".");
    Append(tags, Tag(s->name(), about));
  }
  Append(tags, Tag("Documentation", "This document."));
  return tags;
}

void AddComponents(Pending pending, const std::set<std::string>& used, Value* components) {
  Struct* schemas = At(*components, "schemas").mutable_struct_value();
  AddSchemas(std::move(pending), schemas);
  At(*schemas, kErrorSchema) = ErrorSchema();
  Value& responses = At(*components, "responses");
  for (const ErrorAnswer& e : kErrors) {
    if (used.count(e.status) == 0) continue;
    Value& r = At(responses, e.name);
    At(r, "description") = Str(e.description);
    At(r, "content") = JsonContent(Ref(kErrorSchema));
  }
  Value& bearer = At(At(*components, "securitySchemes"), "bearerAuth");
  At(bearer, "type") = Str("http");
  At(bearer, "scheme") = Str("bearer");
  At(bearer, "description") = Str("An admin token of the server's --admin_token_file.");
}

}  // namespace

absl::StatusOr<std::string> OpenApiJson(const std::vector<Route>& routes, const std::string& version) {
  Struct doc;
  At(doc, "openapi") = Str("3.1.0");
  Value& info = At(doc, "info");
  At(info, "title") = Str("capplan HTTP/JSON API");
  At(info, "version") = Str(version.empty() ? "dev" : version);
  At(info, "description") =
      Str("Every unary gRPC method of capplan.v1.PlannerService and capplan.v1.AdminService, plus "
          "grpc.health.v1.Health/Check, with canonical protobuf JSON bodies. GET routes take their request "
          "fields from the query string and ignore parameters they do not know.");
  Value server;
  At(server, "url") = Str("/");
  At(server, "description") = Str("The server that serves this document.");
  Append(At(doc, "servers"), std::move(server));
  At(doc, "tags") = Tags(routes);
  Value& paths = At(doc, "paths");
  Pending pending;
  std::set<std::string> used;
  for (const Route& r : routes) {
    At(At(paths, r.path), absl::AsciiStrToLower(VerbName(r.verb))) = Operation(r, &pending, &used);
  }
  At(At(paths, kOpenApiPath), "get") = DocumentOperation(&used);
  AddComponents(std::move(pending), used, &At(doc, "components"));

  std::string out;
  google::protobuf::util::JsonPrintOptions print;
  print.add_whitespace = true;
  const auto printed = google::protobuf::util::MessageToJsonString(doc, &out, print);
  if (!printed.ok()) return absl::InternalError(absl::StrCat("openapi: ", printed.message().as_string()));
  return out;
}

}  // namespace capplan::server::http
