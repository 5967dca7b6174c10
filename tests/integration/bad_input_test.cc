// Hostile and careless requests against the real server: each one a finding of the
// reliability review that crashed the server, or was answered OK with a wrong
// answer. Every one must now get the documented code, name its field, and leave the server
// serving.
#include <google/protobuf/text_format.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "client/client.h"
#include "server_process.h"
#include "shared_server.h"

namespace capplan::testing {
namespace {

namespace v1 = capplan::v1;

enum class Rpc { kPlan, kCompare, kTco };

struct BadInput {
  const char* name;
  Rpc rpc;
  std::string request;  // text format
  absl::StatusCode code;
  const char* message_has;  // the field the message must name
};

// A working request for each RPC, which each case then spoils in one field.
constexpr char kTraining[] = R"(training { model_name: "Llama-2-7B" tokens: 2e9 method: TRAINING_METHOD_LORA })";
constexpr char kServing[] =
    R"(serving { model_name: "Llama-2-7B" prompt_tokens: 512 output_tokens: 128 requests_per_second: 35 })";
// The README's TCO template: 8 x A100 for 36 months, $250k capex, $15k/month rent.
constexpr char kTcoFleet[] =
    R"(gpu_name: "A100-SXM4-80GB" gpu_count: 8 own { capex_usd: 250000 ops_usd_per_month: 5000 })";

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

std::vector<BadInput> Cases() {
  const std::string gpu8 = R"(targets { gpu_name: "H100-SXM5-80GB" count: 8 )";
  const std::string tco = absl::StrCat("horizon_months: 36 fleets { ", kTcoFleet);
  using C = absl::StatusCode;
  return {
      // 1. Overflow and division by zero in a pinned layout: SIGFPE before the fix.
      {"pinned 65536 x 65536", Rpc::kCompare,
       absl::StrCat(kTraining, gpu8, "pinned_parallelism { tensor_parallel: 65536 pipeline_parallel: 65536 } }"),
       C::kInvalidArgument, "targets[0].pinned_parallelism"},
      {"pinned tp negative", Rpc::kCompare,
       absl::StrCat(kTraining, gpu8, "pinned_parallelism { tensor_parallel: -1 } }"), C::kInvalidArgument,
       "tensor_parallel: must be in [0, 65536]"},
      {"pinned tp 2^31-1", Rpc::kCompare,
       absl::StrCat(kTraining, gpu8, "pinned_parallelism { tensor_parallel: 2147483647 data_parallel: 2 } }"),
       C::kInvalidArgument, "tensor_parallel"},
      {"zero_stage 99", Rpc::kCompare,
       absl::StrCat(kTraining, gpu8, "pinned_parallelism { data_parallel: 8 zero_stage: 99 } }"), C::kInvalidArgument,
       "zero_stage: must be in [0, 3]"},
      {"micro batch 1e12", Rpc::kCompare,
       absl::StrCat(kTraining, gpu8, "pinned_parallelism { data_parallel: 8 micro_batch_sequences: 1000000000000 } }"),
       C::kInvalidArgument, "micro_batch_sequences"},
      {"serving batch 1e12", Rpc::kCompare,
       absl::StrCat(kServing, gpu8,
                    "pinned_parallelism { tensor_parallel: 1 serving_batch_sequences: 1000000000000 } }"),
       C::kInvalidArgument, "serving_batch_sequences"},
      {"recompute 7", Rpc::kCompare,
       absl::StrCat(kTraining, gpu8, "pinned_parallelism { data_parallel: 8 recompute: 7 } }"), C::kInvalidArgument,
       "recompute: unknown value 7"},
      {"65536 instances of 8 GPUs", Rpc::kCompare,
       absl::StrCat(kTraining, R"(targets { instance_type: "p5.48xlarge" count: 65536 })"), C::kInvalidArgument,
       "targets[0].count"},
      // 10. NaN, infinity and unknown enum values that were answered OK.
      {"deadline NaN", Rpc::kPlan,
       absl::StrCat(kTraining, " objective: OBJECTIVE_CHEAPEST_WITHIN_DEADLINE deadline_seconds: nan"),
       C::kInvalidArgument, "deadline_seconds: must be a finite number, got NaN"},
      // Found by rpc_fuzz: a subnormal budget made a rejection's distance infinite.
      {"budget 5e-324", Rpc::kPlan,
       absl::StrCat(kTraining, " objective: OBJECTIVE_FASTEST_WITHIN_BUDGET budget_usd: 5e-324"), C::kInvalidArgument,
       "budget_usd: must be 0 or in [0.01, 1e12]"},
      {"deadline 1e-9 s", Rpc::kPlan,
       absl::StrCat(kTraining, " objective: OBJECTIVE_CHEAPEST_WITHIN_DEADLINE deadline_seconds: 1e-9"),
       C::kInvalidArgument, "deadline_seconds: must be 0 or in [1, 1e10]"},
      {"budget NaN", Rpc::kPlan, absl::StrCat(kTraining, " objective: OBJECTIVE_FASTEST_WITHIN_BUDGET budget_usd: nan"),
       C::kInvalidArgument, "budget_usd: must be a finite number"},
      {"objective 99", Rpc::kPlan, absl::StrCat(kTraining, " objective: 99"), C::kInvalidArgument,
       "objective: unknown value 99"},
      {"method 42", Rpc::kPlan, R"(training { model_name: "Llama-2-7B" tokens: 2e9 method: 42 })", C::kInvalidArgument,
       "training.method: unknown value 42"},
      {"tokens NaN", Rpc::kPlan, R"(training { model_name: "Llama-2-7B" tokens: nan })", C::kInvalidArgument,
       "training.tokens"},
      {"tokens -Inf", Rpc::kPlan, R"(training { model_name: "Llama-2-7B" tokens: -inf })", C::kInvalidArgument,
       "training.tokens"},
      {"goodput NaN", Rpc::kPlan, R"(training { model_name: "Llama-2-7B" tokens: 2e9 goodput_fraction: nan })",
       C::kInvalidArgument, "goodput_fraction"},
      {"requests per second Inf", Rpc::kPlan,
       R"(serving { model_name: "Llama-2-7B" prompt_tokens: 512 output_tokens: 128 requests_per_second: inf })",
       C::kInvalidArgument, "serving.requests_per_second"},
      // Found by rpc_fuzz: a subnormal load made the cost per 1M requests +Inf.
      {"requests per second 5e-324", Rpc::kCompare,
       R"(serving { model_name: "Llama-2-7B" prompt_tokens: 512 output_tokens: 128 requests_per_second: 5e-324 }
          targets { instance_type: "p5.48xlarge" count: 1 pinned_parallelism { tensor_parallel: 1 } })",
       C::kInvalidArgument, "serving.requests_per_second: must be 0 or in [1e-06, 1e7]"},
      {"experts_per_token on a dense model", Rpc::kPlan,
       R"(training { architecture { name: "dense-7b" num_layers: 32 hidden_size: 4096 num_attention_heads: 32
          ffn_hidden_size: 11008 vocab_size: 32000 experts_per_token: 2 } tokens: 2e9 })",
       C::kInvalidArgument, "experts_per_token: must be 0 for a dense model"},
      // The model's context window (catalog max_context_tokens: Llama 2 4096,
      // Touvron et al. 2023, Table 1; BLOOM 2048, BigScience 2022).
      {"training sequence beyond Llama 2's 4k", Rpc::kPlan,
       R"(training { model_name: "Llama-2-7B" tokens: 2e9 sequence_tokens: 8192 })", C::kInvalidArgument,
       "training.sequence_tokens: 8192 tokens is beyond Llama-2-7B's context window of 4096"},
      {"4096-token training on BLOOM's 2k", Rpc::kCompare,
       R"(training { model_name: "BLOOM-7B1" tokens: 2e9 sequence_tokens: 4096 method: TRAINING_METHOD_LORA }
          targets { gpu_name: "H100-SXM5-80GB" count: 8 })",
       C::kInvalidArgument, "BLOOM-7B1's context window of 2048"},
      {"prompt + output beyond Llama 2's 4k", Rpc::kPlan,
       R"(serving { model_name: "Llama-2-7B" prompt_tokens: 4000 output_tokens: 200 requests_per_second: 1 })",
       C::kInvalidArgument, "serving.prompt_tokens + serving.output_tokens: 4000 + 200 = 4200 tokens is beyond"},
      {"prompt + output beyond, in Compare", Rpc::kCompare,
       absl::StrCat(R"(serving { model_name: "Llama-2-7B" prompt_tokens: 4096 output_tokens: 1 } )", gpu8, "}"),
       C::kInvalidArgument, "serving.prompt_tokens + serving.output_tokens"},
      // Fabric overrides: numbers within a catalog fabric's ranges, names from the catalog.
      {"pool network -1 B/s", Rpc::kPlan,
       absl::StrCat(kTraining, R"( constraints { owned_pools { name: "lab" gpu_name: "H100-SXM5-80GB" gpu_count: 8
          fabric { network_bytes_per_second_per_gpu: -1 } } })"),
       C::kInvalidArgument, "constraints.owned_pools[0].fabric.network_bytes_per_second_per_gpu: must be in [1e+07"},
      {"target 100000 GPUs per node", Rpc::kCompare,
       absl::StrCat(kTraining, gpu8, "fabric { gpus_per_node: 100000 } }"), C::kInvalidArgument,
       "targets[0].fabric.gpus_per_node: must be in [1, 576]"},
      {"target latency 1e300 s", Rpc::kCompare,
       absl::StrCat(kTraining, gpu8, "fabric { network_latency_seconds: 1e300 } }"), C::kInvalidArgument,
       "targets[0].fabric.network_latency_seconds"},
      {"target network kind 9", Rpc::kCompare, absl::StrCat(kTraining, gpu8, "fabric { network: 9 } }"),
       C::kInvalidArgument, "targets[0].fabric.network: unknown value 9"},
      {"an unknown fabric", Rpc::kCompare, absl::StrCat(kTraining, gpu8, R"(fabric { name: "no-such-fabric" } })"),
       C::kInvalidArgument, "targets[0].fabric.name: no fabric named \"no-such-fabric\""},
      {"an unknown pool fabric", Rpc::kPlan,
       absl::StrCat(kServing, R"( constraints { owned_pools { name: "lab" gpu_name: "H100-SXM5-80GB" gpu_count: 8
          fabric { name: "no-such-fabric" } } })"),
       C::kInvalidArgument, "constraints.owned_pools[0].fabric.name"},
      {"pinned context parallel -1", Rpc::kCompare,
       absl::StrCat(kTraining, gpu8, "pinned_parallelism { context_parallel: -1 } }"), C::kInvalidArgument,
       "targets[0].pinned_parallelism.context_parallel: must be in [0, 65536]"},
      {"pinned expert parallel 2^31-1", Rpc::kCompare,
       absl::StrCat(kTraining, gpu8, "pinned_parallelism { expert_parallel: 2147483647 } }"), C::kInvalidArgument,
       "targets[0].pinned_parallelism.expert_parallel"},
      // 8. Requests that asked for unbounded work or an unbounded answer.
      {"1000 providers", Rpc::kPlan,
       absl::StrCat(kTraining, " constraints { ", Repeat(R"(providers: "aws" )", 1000), "}"), C::kInvalidArgument,
       "constraints.providers: at most"},
      {"65 owned pools", Rpc::kPlan,
       absl::StrCat(kTraining, " constraints { ",
                    Repeat(R"(owned_pools { name: "p" gpu_name: "A100-SXM4-80GB" gpu_count: 8 } )", 65), "}"),
       C::kInvalidArgument, "constraints.owned_pools: at most 64"},
      {"a 100 KB pool name", Rpc::kPlan,
       absl::StrCat(kTraining, R"( constraints { owned_pools { name: ")", std::string(100000, 'x'),
                    R"(" gpu_name: "A100-SXM4-80GB" gpu_count: 8 } })"),
       C::kInvalidArgument, "constraints.owned_pools[0].name: at most 1024 bytes"},
      {"an empty pool name", Rpc::kPlan,
       absl::StrCat(kTraining, R"( constraints { owned_pools { gpu_name: "A100-SXM4-80GB" gpu_count: 8 } })"),
       C::kInvalidArgument, "constraints.owned_pools[0].name: must be 1-128 bytes"},
      {"a 1 MB model name", Rpc::kPlan,
       absl::StrCat(R"(training { tokens: 2e9 model_name: ")", std::string(1 << 20, 'm'), R"(" })"),
       C::kInvalidArgument, "training.model_name: at most 1024 bytes"},
      {"top_k 1e9", Rpc::kPlan, absl::StrCat(kTraining, " top_k: 1000000000"), C::kInvalidArgument, "top_k"},
      {"max_gpus 2^31-1", Rpc::kPlan, absl::StrCat(kTraining, " constraints { max_gpus: 2147483647 }"),
       C::kInvalidArgument, "constraints.max_gpus"},
      {"prices as of -1", Rpc::kPlan, absl::StrCat(kServing, " prices_as_of_unix_seconds: -1"), C::kInvalidArgument,
       "prices_as_of_unix_seconds"},
      // Range errors name the API's fields (sequence_tokens, goodput_fraction), not the
      // estimator's (sequence_length, goodput).
      {"training sequence 8 tokens", Rpc::kPlan,
       R"(training { model_name: "Llama-2-7B" tokens: 2e9 sequence_tokens: 8 })", C::kInvalidArgument,
       "training.sequence_tokens: must be in [16, "},
      {"goodput 2", Rpc::kPlan, R"(training { model_name: "Llama-2-7B" tokens: 2e9 goodput_fraction: 2 })",
       C::kInvalidArgument, "training.goodput_fraction: must be in [0.05, 1]"},
      // Times past 2100 (a date in milliseconds, the largest int64) are refused, not read at.
      {"prices as of 2^63-1", Rpc::kPlan, absl::StrCat(kServing, " prices_as_of_unix_seconds: 9223372036854775807"),
       C::kInvalidArgument, "prices_as_of_unix_seconds: must be a time from 1970-01-01T00:00:00Z to 2100-01-01"},
      {"prices as of year 9999", Rpc::kCompare,
       absl::StrCat(kTraining, gpu8, "} prices_as_of_time { seconds: 253402300799 }"), C::kInvalidArgument,
       "prices_as_of_time: must be a time from"},
      {"tco prices as of a date in ms", Rpc::kTco,
       absl::StrCat(tco, " rent { price_usd_per_month: 15000 } } prices_as_of_unix_seconds: 1733000000000"),
       C::kInvalidArgument, "prices_as_of_unix_seconds"},
      // Tco: NaN and infinity reached the series as NaN or Inf.
      {"pue NaN", Rpc::kTco, absl::StrCat(tco, " own { pue: nan } rent { price_usd_per_month: 15000 } }"),
       C::kInvalidArgument, "fleets[0].own.pue: must be a finite number"},
      {"discount NaN", Rpc::kTco, absl::StrCat(tco, " rent { price_usd_per_month: 15000 discount_fraction: nan } }"),
       C::kInvalidArgument, "fleets[0].rent.discount_fraction"},
      {"flat rent Inf", Rpc::kTco, absl::StrCat(tco, " rent { price_usd_per_month: inf } }"), C::kInvalidArgument,
       "fleets[0].rent.price_usd_per_month: must be a finite number"},
      {"flat rent 1e308", Rpc::kTco, absl::StrCat(tco, " rent { price_usd_per_month: 1e308 } }"), C::kInvalidArgument,
       "fleets[0].rent.price_usd_per_month: must be in [0, 1e+11]"},
      {"usage NaN", Rpc::kTco,
       absl::StrCat(tco, " usage_gpu_hours_per_month: nan rent { price_usd_per_month: 15000 } }"), C::kInvalidArgument,
       "fleets[0].usage_gpu_hours_per_month"},
      {"usage -1 GPU-hours", Rpc::kTco,
       absl::StrCat(tco, " usage_gpu_hours_per_month: -1 rent { price_usd_per_month: 15000 } }"), C::kInvalidArgument,
       "fleets[0].usage_gpu_hours_per_month: must be in [0, 5840]"},
      {"capex Inf", Rpc::kTco,
       R"(horizon_months: 36 fleets { gpu_name: "A100-SXM4-80GB" gpu_count: 8 own { capex_usd: inf } rent { price_usd_per_month: 15000 } })",
       C::kInvalidArgument, "fleets[0].own.capex_usd"},
      {"electricity Inf", Rpc::kTco,
       absl::StrCat(tco, " own { electricity_usd_per_kwh: inf } rent { price_usd_per_month: 15000 } }"),
       C::kInvalidArgument, "fleets[0].own.electricity_usd_per_kwh"},
      {"price kind 12", Rpc::kTco, absl::StrCat(tco, R"( rent { instance_type: "p4de.24xlarge" price_kind: 12 } })"),
       C::kInvalidArgument, "fleets[0].rent.price_kind: unknown value 12"},
      {"horizon 100000", Rpc::kTco, absl::StrCat("horizon_months: 100000 fleets { ", kTcoFleet, " }"),
       C::kInvalidArgument, "horizon_months"},
      {"17 fleets", Rpc::kTco,
       absl::StrCat("horizon_months: 12 ", Repeat(absl::StrCat("fleets { ", kTcoFleet, " } "), 17)),
       C::kInvalidArgument, "fleets"},
  };
}

class BadInputTest : public SharedServerTest {};

template <typename Req>
Req Parse(const std::string& text) {
  Req r;
  EXPECT_TRUE(google::protobuf::TextFormat::MergeFromString(text, &r)) << text.substr(0, 200);
  return r;
}

absl::Status Call(client::Client& c, const BadInput& b) {
  switch (b.rpc) {
    case Rpc::kPlan:
      return c.Plan(Parse<v1::PlanRequest>(b.request)).status();
    case Rpc::kCompare:
      return c.Compare(Parse<v1::CompareRequest>(b.request)).status();
    case Rpc::kTco:
      return c.Tco(Parse<v1::TcoRequest>(b.request)).status();
  }
  return absl::InternalError("unreachable");
}

const google::protobuf::Descriptor* RequestType(Rpc rpc) {
  switch (rpc) {
    case Rpc::kPlan:
      return v1::PlanRequest::descriptor();
    case Rpc::kCompare:
      return v1::CompareRequest::descriptor();
    case Rpc::kTco:
      return v1::TcoRequest::descriptor();
  }
  return nullptr;
}

// Whether `path` ("fleets[0].own.pue", "serving.prompt_tokens + serving.output_tokens")
// names fields of `type`, message by message, as the .proto spells them.
bool IsFieldPath(const google::protobuf::Descriptor* type, absl::string_view path) {
  for (absl::string_view term : absl::StrSplit(path, " + ")) {
    const google::protobuf::Descriptor* d = type;
    for (absl::string_view part : absl::StrSplit(term, '.')) {
      const google::protobuf::FieldDescriptor* f =
          d == nullptr ? nullptr : d->FindFieldByName(std::string(part.substr(0, part.find('['))));
      if (f == nullptr) return false;
      d = f->message_type();
    }
  }
  return true;
}

TEST_F(BadInputTest, EveryBadRequestGetsItsCodeAndNamesItsField) {
  client::Client c = MakeClient();
  int checked = 0;
  for (const BadInput& b : Cases()) {
    absl::Status s = Call(c, b);
    EXPECT_EQ(s.code(), b.code) << b.name << ": " << s;
    EXPECT_NE(s.message().find(b.message_has), absl::string_view::npos)
        << b.name << ": message \"" << s.message().substr(0, 300) << "\" should name " << b.message_has;
    // What comes before the first ": " is a field path of the request, in the .proto's names.
    const absl::string_view path = s.message().substr(0, s.message().find(": "));
    EXPECT_TRUE(IsFieldPath(RequestType(b.rpc), path)) << b.name << ": \"" << path << "\" is not a field path";
    // Messages stay small enough for any client's metadata limit, whatever was sent.
    EXPECT_LE(s.message().size(), 1200u) << b.name;
    ++checked;
  }
  EXPECT_GE(checked, 30);
  // Nothing above crashed or wedged the server.
  absl::StatusOr<std::string> health = c.Health();
  ASSERT_TRUE(health.ok()) << health.status();
  EXPECT_EQ(*health, "SERVING");
}

// Sends `bytes` as the request of `method` and waits for the status.
grpc::Status RawCall(const std::string& address, const std::string& method, const std::string& bytes) {
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  grpc::GenericStub stub(channel);
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  grpc::Slice slice(bytes);
  const grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  grpc::Status status;
  stub.UnaryCall(&ctx, method, grpc::StubOptions(), &request, &response, [&](grpc::Status s) {
    std::lock_guard<std::mutex> lock(mu);
    status = std::move(s);
    done = true;
    cv.notify_one();
  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
  return status;
}

TEST_F(BadInputTest, BytesThatDoNotParseAreInvalidArgumentNamingTheMessage) {
  // A length-delimited field 1 whose length runs past the end; then a PlanRequest whose
  // training.model_name (field 1 in field 1) is the byte 0xff, which is not UTF-8.
  const std::string truncated("\x0a\x7f\x01", 3);
  const std::string not_utf8("\x0a\x03\x0a\x01\xff", 5);
  for (const std::string& bytes : {truncated, not_utf8}) {
    const grpc::Status s = RawCall(server_->grpc_address(), "/capplan.v1.PlannerService/Plan", bytes);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
    EXPECT_NE(s.error_message().find("request: the body is not a capplan.v1.PlanRequest"), std::string::npos)
        << s.error_message();
  }
  // The same for a streaming method's request and an admin method's.
  const grpc::Status watch = RawCall(server_->grpc_address(), "/capplan.v1.PlannerService/WatchPlan", truncated);
  EXPECT_EQ(watch.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << watch.error_message();
  EXPECT_NE(watch.error_message().find("capplan.v1.WatchPlanRequest"), std::string::npos) << watch.error_message();
  const grpc::Status admin = RawCall(server_->grpc_address(), "/capplan.v1.AdminService/SetPrice", truncated);
  EXPECT_NE(admin.error_code(), grpc::StatusCode::UNIMPLEMENTED) << admin.error_message();

  // Over HTTP: a query value and a JSON body that are not UTF-8 are 400s naming them.
  HttpReply query = HttpCall(server_->http_port(), "GET", "/v1/instances?provider=%ff");
  EXPECT_EQ(query.status, 400) << query.body;
  EXPECT_NE(query.body.find("query parameter provider: the value, percent-decoded, is not UTF-8"), std::string::npos)
      << query.body;
  HttpReply body =
      HttpCall(server_->http_port(), "POST", "/v1/plan", "{\"training\": {\"modelName\": \"\xff\", \"tokens\": 2e9}}",
               HttpCallOptions{{"Content-Type: application/json"}});
  EXPECT_EQ(body.status, 400) << body.body;
  EXPECT_NE(body.body.find("body: not a JSON capplan.v1.PlanRequest: the text is not UTF-8"), std::string::npos)
      << body.body;
  HttpReply broken = HttpCall(server_->http_port(), "POST", "/v1/plan",
                              "{\"training\": ", HttpCallOptions{{"Content-Type: application/json"}});
  EXPECT_EQ(broken.status, 400) << broken.body;
  EXPECT_NE(broken.body.find("body: not a JSON capplan.v1.PlanRequest"), std::string::npos) << broken.body;
}

TEST_F(BadInputTest, TheSpoiledRequestsWorkUnspoiled) {
  // The base requests are valid, so each case above fails on its one spoiled field alone.
  client::Client c = MakeClient();
  EXPECT_TRUE(c.Plan(Parse<v1::PlanRequest>(kTraining)).ok());
  EXPECT_TRUE(c.Plan(Parse<v1::PlanRequest>(kServing)).ok());
  absl::StatusOr<v1::CompareResponse> cmp = c.Compare(Parse<v1::CompareRequest>(absl::StrCat(
      kTraining, R"(targets { gpu_name: "H100-SXM5-80GB" count: 8 pinned_parallelism { data_parallel: 8 } })")));
  ASSERT_TRUE(cmp.ok()) << cmp.status();
  EXPECT_EQ(cmp->rows(0).option().parallelism().data_parallel(), 8);
  absl::StatusOr<v1::TcoResponse> tco = c.Tco(Parse<v1::TcoRequest>(absl::StrCat(
      "horizon_months: 36 fleets { ", kTcoFleet, " own { power_watts: 0 } rent { price_usd_per_month: 15000 } }")));
  ASSERT_TRUE(tco.ok()) << tco.status();
  EXPECT_EQ(tco->break_even_month(), 25);  // the README's template
}

TEST_F(BadInputTest, ALongUnknownNameIsEchoedBounded) {
  // A NotFound message names the value given; a value at the request limit still yields a
  // message a default client accepts (8 KiB of metadata).
  client::Client c = MakeClient();
  absl::Status s = c.Plan(Parse<v1::PlanRequest>(absl::StrCat(kTraining, R"( constraints { allowed_gpus: ")",
                                                              std::string(1024, 'g'), R"(" })")))
                       .status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_LE(s.message().size(), 1200u);
}

// A database edited by hand (or by another tool) behind the server's back: rows outside the
// store's limits, and a price that takes effect in the future.
class HandEditedDatabaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = dir_.path() + "/c.db";
    {
      ServerProcess first({"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--db=" + db_});
      ASSERT_TRUE(first.started());
      first.Signal(SIGTERM);
      ASSERT_EQ(first.Wait(10000).exit_code, 0);
    }
    // $0.01 an hour for 8 x A100-80GB from 2099-01-01 (4070908800); zero-GPU p5 rows (every
    // region but one) and an overflowing one (the schema's CHECK bypassed, as a careless edit would).
    const std::string sql =
        "INSERT INTO prices (provider, instance_type, region, kind, price_usd_per_hour, "
        "effective_unix_seconds, source_citation, source_as_of_date) VALUES ('aws', 'p4de.24xlarge', "
        "'us-east-1', 'on_demand', 0.01, 4070908800, 'a future list', '2098-12-01');"
        "PRAGMA ignore_check_constraints = ON;"
        "UPDATE instance_types SET gpu_count = 0 WHERE instance_type = 'p5.48xlarge' AND region <> 'us-west-2';"
        "UPDATE instance_types SET gpu_count = 2147483647 WHERE instance_type = 'p5.48xlarge' AND region = "
        "'us-west-2';";
    ExitResult r = RunProgram({"/usr/bin/sqlite3", db_, sql}, 10000);
    ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
    server_ = std::make_unique<ServerProcess>(
        std::vector<std::string>{"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--db=" + db_});
    ASSERT_TRUE(server_->started()) << server_->Wait(0).stderr_text;
  }
  client::Client MakeClient() {
    client::ClientOptions o;
    o.server = server_->grpc_address();
    return client::Client(o);
  }
  TempDir dir_;
  std::string db_;
  std::unique_ptr<ServerProcess> server_;
};

TEST_F(HandEditedDatabaseTest, AFuturePriceIsNotTodaysPrice) {
  client::Client c = MakeClient();
  v1::PlanRequest r = Parse<v1::PlanRequest>(
      absl::StrCat(kTraining, R"( constraints { allowed_gpus: "A100-SXM4-80GB" providers: "aws" })"));
  absl::StatusOr<v1::PlanResponse> now = c.Plan(r);
  ASSERT_TRUE(now.ok()) << now.status();
  for (const v1::PlanOption& o : now->options()) {
    EXPECT_GT(o.provenance().prices(0).price_usd_per_hour(), 1.0) << o.explanation();
  }
  // Asked as of 2100, the 2099 price is the current one and wins.
  r.set_prices_as_of_unix_seconds(4102444800);
  absl::StatusOr<v1::PlanResponse> later = c.Plan(r);
  ASSERT_TRUE(later.ok()) << later.status();
  EXPECT_DOUBLE_EQ(later->options(0).provenance().prices(0).price_usd_per_hour(), 0.01);

  absl::StatusOr<v1::TcoResponse> tco = c.Tco(Parse<v1::TcoRequest>(
      absl::StrCat("horizon_months: 36 fleets { ", kTcoFleet,
                   R"( rent { provider: "aws" instance_type: "p4de.24xlarge" region: "us-east-1" } })")));
  ASSERT_TRUE(tco.ok()) << tco.status();
  EXPECT_GT(tco->fleets(0).rent_usd_per_gpu_hour(), 1.0);

  v1::ListInstancesRequest list;
  list.set_provider("aws");
  list.set_region("us-east-1");
  list.set_gpu_name("A100-SXM4-80GB");
  absl::StatusOr<v1::ListInstancesResponse> offers = c.ListInstances(list);
  ASSERT_TRUE(offers.ok()) << offers.status();
  ASSERT_EQ(offers->offers_size(), 1);
  EXPECT_GT(offers->offers(0).current_prices(0).price_usd_per_hour(), 1.0);
}

TEST_F(HandEditedDatabaseTest, RowsOutsideTheLimitsNeverCrashAPlan) {
  client::Client c = MakeClient();
  for (const char* gpu : {"H100-SXM5-80GB", "A100-SXM4-80GB"}) {
    for (const char* workload : {kTraining, kServing}) {
      absl::StatusOr<v1::PlanResponse> p =
          c.Plan(Parse<v1::PlanRequest>(absl::StrCat(workload, R"( constraints { allowed_gpus: ")", gpu, R"(" })")));
      EXPECT_TRUE(p.ok() || p.status().code() == absl::StatusCode::kFailedPrecondition) << p.status();
      if (!p.ok()) continue;
      for (const v1::PlanOption& o : p->options()) EXPECT_NE(o.instance_type(), "p5.48xlarge") << o.explanation();
    }
  }
  // Compare answers per target: the hand-edited offer cannot run, and its row says why.
  absl::StatusOr<v1::CompareResponse> cmp =
      c.Compare(Parse<v1::CompareRequest>(absl::StrCat(kTraining, R"(targets { instance_type: "p5.48xlarge" })")));
  ASSERT_TRUE(cmp.ok()) << cmp.status();
  ASSERT_EQ(cmp->rows_size(), 1);
  EXPECT_FALSE(cmp->rows(0).infeasible_reason().empty());
  absl::StatusOr<std::string> health = c.Health();
  ASSERT_TRUE(health.ok()) << health.status();
  EXPECT_EQ(*health, "SERVING");
}

}  // namespace
}  // namespace capplan::testing
