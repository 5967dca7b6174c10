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
    case FieldDescriptor::CPPTYPE_UINT64: {
      // Canonical JSON prints 64-bit integers as strings; the parser also takes numbers.
      std::set<std::string> types;
      for (const Value& t : Field(schema, "type").list_value().values()) types.insert(t.string_value());
      EXPECT_EQ(types, (std::set<std::string>{"integer", "string"}));
      EXPECT_FALSE(Field(schema, "pattern").string_value().empty());
      break;
    }
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
      // A component schema per enum: names as strings, numbers in the description.
      const std::string ref = Field(schema, "$ref").string_value();
      ASSERT_EQ(ref, "#/components/schemas/" + f->enum_type()->full_name());
      const Value& e = Field(schemas, f->enum_type()->full_name());
      EXPECT_EQ(Field(e, "type").string_value(), "string");
      const std::string& about = Field(e, "description").string_value();
      for (int i = 0; i < f->enum_type()->value_count(); ++i) {
        const auto* v = f->enum_type()->value(i);
        EXPECT_NE(about.find("`" + v->name() + "` (" + std::to_string(v->number()) + ")"), std::string::npos) << about;
      }
      std::set<std::string> names;
      for (const Value& v : Field(e, "enum").list_value().values()) names.insert(v.string_value());
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
    // Every operation says its security: a bearer token on admin routes, none elsewhere.
    ASSERT_TRUE(Field(op, "security").has_list_value());
    EXPECT_EQ(Field(op, "security").list_value().values_size() > 0, m->service()->name() == "AdminService");
    // Each error status the server answers on this route, as a shared response.
    for (const char* status : {"400", "413", "429", "500", "503"}) {
      EXPECT_FALSE(Field(Field(Field(op, "responses"), status), "$ref").string_value().empty()) << status;
    }
    // A GET's request is its query parameters (checked above), not a schema.
    if (!Field(op, "parameters").has_list_value()) ExpectMessageSchema(m->input_type(), schemas, &checked);
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

TEST_F(OpenApiTest, DescriptionsComeFromTheProtoComments) {
  const HttpReply r = Get("/v1/openapi.json");
  Value doc;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.body, doc.mutable_struct_value()).ok());
  const Value& schemas = Field(Field(doc, "components"), "schemas");
  // A leading comment (planner.proto, PlanRequest.prices_as_of_time) and a trailing one
  // (TcoRequest.horizon_months).
  const Value& plan = Field(Field(schemas, "capplan.v1.PlanRequest"), "properties");
  EXPECT_NE(Field(Field(plan, "pricesAsOfTime"), "description").string_value().find("The instant prices are read at"),
            std::string::npos);
  const Value& tco = Field(schemas, "capplan.v1.TcoRequest");
  EXPECT_EQ(Field(Field(Field(tco, "properties"), "horizonMonths"), "description").string_value(), "1..120");
  // A method's comment is its operation's description.
  EXPECT_NE(
      Field(Field(Field(Field(doc, "paths"), "/v1/tco"), "post"), "description").string_value().find("Own vs rent"),
      std::string::npos);
  // The workload is exactly one of training and serving.
  const Value& one_of = Field(Field(schemas, "capplan.v1.PlanRequest"), "oneOf");
  ASSERT_EQ(one_of.list_value().values_size(), 2);
  EXPECT_EQ(Field(one_of.list_value().values(0), "required").list_value().values(0).string_value(), "training");
  EXPECT_EQ(Field(one_of.list_value().values(1), "required").list_value().values(0).string_value(), "serving");
}

// The document's "required" claims are the server's: a valid request without any one
// required field or oneof is refused.
TEST_F(OpenApiTest, EveryRequiredFieldIsRefusedWhenMissing) {
  struct Case {
    std::string path;
    std::string body;
  };
  // Without: the workload oneof; training's model oneof; serving's model oneof.
  const std::vector<Case> cases = {
      {"/v1/plan", R"({"view":"VIEW_BASIC"})"},
      {"/v1/plan", R"({"training":{"tokens":1e9}})"},
      {"/v1/compare", R"({"targets":[{"gpuName":"RTX-4090","count":2}]})"},
      {"/v1/compare", R"({"serving":{"promptTokens":512,"outputTokens":128,"requestsPerSecond":1},)"
                      R"("targets":[{"gpuName":"RTX-4090","count":2}]})"},
      // TcoRequest without fleets, without horizonMonths; a fleet without gpuName, gpuCount.
      {"/v1/tco", R"({"horizonMonths":36})"},
      {"/v1/tco", R"({"fleets":[{"gpuName":"A100-SXM4-80GB","gpuCount":8,"own":{"capexUsd":250000}}]})"},
      {"/v1/tco", R"({"horizonMonths":36,"fleets":[{"gpuCount":8,"own":{"capexUsd":250000}}]})"},
      {"/v1/tco", R"({"horizonMonths":36,"fleets":[{"gpuName":"A100-SXM4-80GB","own":{"capexUsd":250000}}]})"},
  };
  for (const Case& c : cases) {
    const HttpReply r = Post(c.path, c.body);
    EXPECT_TRUE(r.status == 400 || r.status == 404) << c.path << " " << c.body << "\n" << r.body;
  }
  // The same requests complete are answered.
  EXPECT_EQ(Post("/v1/tco", R"({"horizonMonths":36,"fleets":[{"gpuName":"A100-SXM4-80GB","gpuCount":8,)"
                            R"("own":{"capexUsd":250000}}]})")
                .status,
            200);
  EXPECT_EQ(Post("/v1/compare", R"({"training":{"modelName":"Llama-2-7B","tokens":1e9},)"
                                R"("targets":[{"gpuName":"RTX-4090","count":2}]})")
                .status,
            200);
  // The document lists exactly those.
  Value doc;
  ASSERT_TRUE(
      google::protobuf::util::JsonStringToMessage(Get("/v1/openapi.json").body, doc.mutable_struct_value()).ok());
  const Value& schemas = Field(Field(doc, "components"), "schemas");
  std::set<std::string> required;
  for (const auto& [name, schema] : schemas.struct_value().fields()) {
    for (const Value& f : Field(schema, "required").list_value().values())
      required.insert(name + "." + f.string_value());
  }
  EXPECT_EQ(required,
            (std::set<std::string>{"capplan.v1.TcoRequest.fleets", "capplan.v1.TcoRequest.horizonMonths",
                                   "capplan.v1.TcoFleet.gpuName", "capplan.v1.TcoFleet.gpuCount", "Error.error"}));
}

}  // namespace
}  // namespace capplan::testing
