#include "server/http/openapi.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace capplan::server::http {

namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Struct;
using google::protobuf::Value;

constexpr char kErrorSchema[] = "Error";

Value Str(const std::string& s) {
  Value v;
  v.set_string_value(s);
  return v;
}

// The object inside `v` (made one if it is not).
Struct& Obj(Value& v) { return *v.mutable_struct_value(); }
Value& At(Struct& s, const std::string& key) { return (*s.mutable_fields())[key]; }
Value& At(Value& v, const std::string& key) { return At(Obj(v), key); }

Value Ref(const std::string& name) {
  Value v;
  At(v, "$ref") = Str("#/components/schemas/" + name);
  return v;
}

Value Typed(const char* type, const char* format = nullptr) {
  Value v;
  At(v, "type") = Str(type);
  if (format != nullptr) At(v, "format") = Str(format);
  return v;
}

// The schema of one value of `f` (an element, for a repeated field); records message types
// still to describe in `pending`.
Value ScalarSchema(const FieldDescriptor* f, std::vector<const Descriptor*>* pending) {
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
      return Typed("string", "int64");
    case FieldDescriptor::TYPE_UINT64:
    case FieldDescriptor::TYPE_FIXED64:
      return Typed("string", "uint64");
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
    case FieldDescriptor::TYPE_ENUM: {
      Value v = Typed("string");
      Value& values = At(v, "enum");
      for (int i = 0; i < f->enum_type()->value_count(); ++i) {
        *values.mutable_list_value()->add_values() = Str(f->enum_type()->value(i)->name());
      }
      return v;
    }
    case FieldDescriptor::TYPE_MESSAGE:
    case FieldDescriptor::TYPE_GROUP:
      break;
  }
  const std::string& name = f->message_type()->full_name();
  if (name == "google.protobuf.Timestamp") return Typed("string", "date-time");
  if (name == "google.protobuf.Duration") return Typed("string", "duration");
  pending->push_back(f->message_type());
  return Ref(name);
}

Value FieldSchema(const FieldDescriptor* f, std::vector<const Descriptor*>* pending) {
  if (f->is_map()) {
    Value v = Typed("object");
    At(v, "additionalProperties") = ScalarSchema(f->message_type()->map_value(), pending);
    return v;
  }
  if (!f->is_repeated()) return ScalarSchema(f, pending);
  Value v = Typed("array");
  At(v, "items") = ScalarSchema(f, pending);
  return v;
}

// Every message reachable from `roots`, each once.
void AddSchemas(std::vector<const Descriptor*> pending, Struct* schemas) {
  std::set<std::string> done;
  while (!pending.empty()) {
    const Descriptor* d = pending.back();
    pending.pop_back();
    if (!done.insert(d->full_name()).second) continue;
    Value schema = Typed("object");
    Value& props = At(schema, "properties");
    Obj(props);  // an empty message still has a properties object
    for (int i = 0; i < d->field_count(); ++i) {
      At(props, d->field(i)->json_name()) = FieldSchema(d->field(i), &pending);
    }
    At(*schemas, d->full_name()) = std::move(schema);
  }
}

Value JsonContent(Value schema) {
  Value content;
  At(At(content, "application/json"), "schema") = std::move(schema);
  return content;
}

Value Operation(const Route& r, std::vector<const Descriptor*>* pending) {
  const Descriptor* in = r.method->input_type();
  const Descriptor* out = r.method->output_type();
  pending->push_back(in);
  pending->push_back(out);
  Value op;
  At(op, "operationId") = Str(r.method->service()->name() + "_" + r.method->name());
  At(op, "summary") = Str("gRPC " + r.grpc_method);
  *At(op, "tags").mutable_list_value()->add_values() = Str(r.method->service()->name());
  if (r.verb == Verb::kGet) {
    Value& params = At(op, "parameters");
    params.mutable_list_value();
    for (int i = 0; i < in->field_count(); ++i) {
      const FieldDescriptor* f = in->field(i);
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) continue;  // not settable from a query
      Value p;
      At(p, "name") = Str(f->json_name());
      At(p, "in") = Str("query");
      At(p, "required").set_bool_value(false);
      At(p, "schema") = FieldSchema(f, pending);
      *params.mutable_list_value()->add_values() = std::move(p);
    }
  } else {
    Value& body = At(op, "requestBody");
    At(body, "required").set_bool_value(false);
    At(body, "content") = JsonContent(Ref(in->full_name()));
  }
  if (r.admin) {
    Value scheme;
    At(scheme, "bearerAuth").mutable_list_value();
    *At(op, "security").mutable_list_value()->add_values() = std::move(scheme);
  }
  Value& responses = At(op, "responses");
  Value& ok = At(responses, "200");
  At(ok, "description") = Str(out->full_name());
  At(ok, "content") = JsonContent(Ref(out->full_name()));
  Value& error = At(responses, "default");
  At(error, "description") = Str("an error: the gRPC status as HTTP status and JSON body");
  At(error, "content") = JsonContent(Ref(kErrorSchema));
  return op;
}

Value ErrorSchema() {
  Value inner = Typed("object");
  At(At(inner, "properties"), "code") = Typed("integer", "int32");
  At(At(inner, "properties"), "status") = Typed("string");
  At(At(inner, "properties"), "message") = Typed("string");
  Value v = Typed("object");
  At(At(v, "properties"), "error") = std::move(inner);
  return v;
}

}  // namespace

absl::StatusOr<std::string> OpenApiJson(const std::vector<Route>& routes, const std::string& version) {
  Struct doc;
  At(doc, "openapi") = Str("3.0.3");
  Value& info = At(doc, "info");
  At(info, "title") = Str("capplan HTTP/JSON API");
  At(info, "version") = Str(version.empty() ? "dev" : version);
  At(info, "description") =
      Str("Every gRPC method of capplan.v1.PlannerService and capplan.v1.AdminService, plus "
          "grpc.health.v1.Health/Check, with canonical protobuf JSON bodies.");
  Value& paths = At(doc, "paths");
  std::vector<const Descriptor*> pending;
  for (const Route& r : routes) {
    At(At(paths, r.path), absl::AsciiStrToLower(VerbName(r.verb))) = Operation(r, &pending);
  }
  Value& docs = At(At(paths, kOpenApiPath), "get");
  At(docs, "operationId") = Str("OpenApi");
  At(At(At(docs, "responses"), "200"), "description") = Str("this document");

  Value& components = At(doc, "components");
  Struct* schemas = At(components, "schemas").mutable_struct_value();
  AddSchemas(std::move(pending), schemas);
  At(*schemas, kErrorSchema) = ErrorSchema();
  Value& bearer = At(At(components, "securitySchemes"), "bearerAuth");
  At(bearer, "type") = Str("http");
  At(bearer, "scheme") = Str("bearer");

  std::string out;
  google::protobuf::util::JsonPrintOptions print;
  print.add_whitespace = true;
  const auto printed = google::protobuf::util::MessageToJsonString(doc, &out, print);
  if (!printed.ok()) return absl::InternalError(absl::StrCat("openapi: ", printed.message().as_string()));
  return out;
}

}  // namespace capplan::server::http
