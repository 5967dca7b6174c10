// The OpenAPI document served at /v1/openapi.json, checked against the proto descriptors:
// every RPC has one operation, every request and response message a schema whose properties
// are exactly its fields under their JSON names, typed as protobuf's canonical JSON types.
#include <google/protobuf/descriptor.h>
#include <gtest/gtest.h>

#include <set>

#include "capplan/v1/admin.pb.h"
#include "capplan/v1/planner.pb.h"
#include "grpc/health/v1/health.pb.h"
#include "http_server.h"

namespace capplan::testing {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::MethodDescriptor;
using google::protobuf::Struct;
using google::protobuf::Value;

const Value& Field(const Value& v, const std::string& key) {
  static const Value kNone;
  const auto& f = v.struct_value().fields();
  return f.count(key) > 0 ? f.at(key) : kNone;
}

std::vector<const MethodDescriptor*> UnaryMethods() {
  std::vector<const MethodDescriptor*> out;
  for (const google::protobuf::FileDescriptor* file :
       {capplan::v1::PlanRequest::descriptor()->file(), capplan::v1::WriteResponse::descriptor()->file(),
        grpc::health::v1::HealthCheckRequest::descriptor()->file()}) {
    for (int s = 0; s < file->service_count(); ++s) {
      for (int m = 0; m < file->service(s)->method_count(); ++m) {
        const MethodDescriptor* md = file->service(s)->method(m);
        if (!md->client_streaming() && !md->server_streaming()) out.push_back(md);
      }
    }
  }
  return out;
}

// Checks that `schema` describes one value of field `f` (an element when `element`).
void ExpectFieldSchema(const FieldDescriptor* f, const Value& schema, const Value& schemas, bool element) {
  SCOPED_TRACE(f->full_name());
  if (f->is_repeated() && !element) {
    if (f->is_map()) {
      EXPECT_EQ(Field(schema, "type").string_value(), "object");
      return;
    }
    EXPECT_EQ(Field(schema, "type").string_value(), "array");
    ExpectFieldSchema(f, Field(schema, "items"), schemas, true);
    return;
  }
  const std::string type = Field(schema, "type").string_value();
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT64:
    case FieldDescriptor::CPPTYPE_UINT64:
      EXPECT_EQ(type, "string");  // canonical JSON prints 64-bit integers as strings
      break;
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_UINT32:
      EXPECT_EQ(type, "integer");
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_FLOAT:
      EXPECT_EQ(type, "number");
      break;
    case FieldDescriptor::CPPTYPE_BOOL:
      EXPECT_EQ(type, "boolean");
      break;
    case FieldDescriptor::CPPTYPE_STRING:
      EXPECT_EQ(type, "string");
      break;
    case FieldDescriptor::CPPTYPE_ENUM: {
      EXPECT_EQ(type, "string");
      std::set<std::string> names;
      for (const Value& v : Field(schema, "enum").list_value().values()) names.insert(v.string_value());
      EXPECT_EQ(names.size(), static_cast<size_t>(f->enum_type()->value_count()));
      for (int i = 0; i < f->enum_type()->value_count(); ++i) {
        EXPECT_EQ(names.count(f->enum_type()->value(i)->name()), 1);
      }
      break;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE: {
      const std::string& name = f->message_type()->full_name();
      if (name == "google.protobuf.Timestamp") {
        EXPECT_EQ(Field(schema, "format").string_value(), "date-time");
        break;
      }
      const std::string ref = Field(schema, "$ref").string_value();
      EXPECT_EQ(ref, "#/components/schemas/" + name);
      EXPECT_TRUE(schemas.struct_value().fields().count(name) > 0) << name;
      break;
    }
  }
}

// The schema of `d` lists exactly its fields, each typed; then the same for the messages it
// names, each once.
void ExpectMessageSchema(const Descriptor* d, const Value& schemas, std::set<std::string>* checked) {
  if (!checked->insert(d->full_name()).second) return;
  SCOPED_TRACE(d->full_name());
  ASSERT_TRUE(schemas.struct_value().fields().count(d->full_name()) > 0);
  const Value& props = Field(schemas.struct_value().fields().at(d->full_name()), "properties");
  std::set<std::string> want, got;
  for (int i = 0; i < d->field_count(); ++i) want.insert(d->field(i)->json_name());
  for (const auto& [name, unused] : props.struct_value().fields()) got.insert(name);
  EXPECT_EQ(got, want);
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    ExpectFieldSchema(f, Field(props, f->json_name()), schemas, false);
    if (f->message_type() != nullptr && !f->is_map() && f->message_type()->file()->package() != "google.protobuf") {
      ExpectMessageSchema(f->message_type(), schemas, checked);
    }
  }
}

using OpenApiTest = HttpServerTest;

TEST_F(OpenApiTest, DocumentMatchesTheDescriptors) {
  const HttpReply r = Get("/v1/openapi.json");
  ASSERT_EQ(r.status, 200);
  Value doc;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.body, doc.mutable_struct_value()).ok());
  EXPECT_EQ(Field(doc, "openapi").string_value().substr(0, 2), "3.");
  const Value& paths = Field(doc, "paths");
  const Value& schemas = Field(Field(doc, "components"), "schemas");

  // operationId -> (path, verb, operation)
  std::map<std::string, std::pair<std::string, const Value*>> ops;
  for (const auto& [path, item] : paths.struct_value().fields()) {
    for (const auto& [verb, op] : item.struct_value().fields()) {
      const std::string id = Field(op, "operationId").string_value();
      EXPECT_EQ(ops.count(id), 0) << id;
      ops[id] = {path, &op};
      EXPECT_TRUE(verb == "get" || verb == "post") << path << " " << verb;
    }
  }
  const std::vector<const MethodDescriptor*> methods = UnaryMethods();
  EXPECT_EQ(ops.size(), methods.size() + 1);  // and the document itself
  std::set<std::string> checked;
  for (const MethodDescriptor* m : methods) {
    SCOPED_TRACE(m->full_name());
    const std::string id = m->service()->name() + "_" + m->name();
    ASSERT_EQ(ops.count(id), 1);
    const Value& op = *ops[id].second;
    const Value& ok =
        Field(Field(Field(Field(Field(op, "responses"), "200"), "content"), "application/json"), "schema");
    EXPECT_EQ(Field(ok, "$ref").string_value(), "#/components/schemas/" + m->output_type()->full_name());
    if (Field(op, "parameters").has_list_value()) {
      // A GET: each scalar request field is a query parameter.
      std::set<std::string> params;
      for (const Value& p : Field(op, "parameters").list_value().values())
        params.insert(Field(p, "name").string_value());
      for (int i = 0; i < m->input_type()->field_count(); ++i) {
        const FieldDescriptor* f = m->input_type()->field(i);
        if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
          EXPECT_EQ(params.count(f->json_name()), 1);
        }
      }
    } else {
      const Value& in = Field(Field(Field(Field(op, "requestBody"), "content"), "application/json"), "schema");
      EXPECT_EQ(Field(in, "$ref").string_value(), "#/components/schemas/" + m->input_type()->full_name());
    }
    EXPECT_EQ(Field(op, "security").has_list_value(), m->service()->name() == "AdminService");
    ExpectMessageSchema(m->input_type(), schemas, &checked);
    ExpectMessageSchema(m->output_type(), schemas, &checked);
  }
  // Routes named by the rule in server/http/routes.h, spot-checked.
  EXPECT_EQ(ops["PlannerService_Plan"].first, "/v1/plan");
  EXPECT_EQ(ops["PlannerService_ListPriceHistory"].first, "/v1/price-history");
  EXPECT_EQ(ops["AdminService_ImportPricesCsv"].first, "/v1/admin/import-prices-csv");
  EXPECT_EQ(ops["Health_Check"].first, "/v1/health");
  // A server-streaming method (WatchPlan) has no HTTP route: gRPC only.
  EXPECT_EQ(ops.count("PlannerService_WatchPlan"), 0u);
  EXPECT_EQ(Post("/v1/watch-plan", "{}").status, 404);
}

}  // namespace
}  // namespace capplan::testing
