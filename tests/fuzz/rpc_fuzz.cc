// rpc_fuzz: every request the API takes, through the same path the handlers use: the generic
// request limits, then the conversion and validation of the RPC (and for Plan, Compare and
// Tco the whole estimate over the shipped catalog). Invariants beyond "no crash, no UB":
// an answer that comes back OK holds no NaN or infinity.
//
// Inputs are one selector character ('0'..'8', the RPC) followed by the request in protobuf
// text format (or binary, if it is not text). A custom mutator keeps most mutations
// structured: it parses the request, changes one field through reflection to a value from a
// list of troublemakers (NaN, infinities, 0, -1, 2^31-1, 65536, long and empty strings,
// catalog names, unknown enum numbers), and writes it back as text. (libprotobuf-mutator is
// not packaged for Debian 12; this is the part of it capplan needs.)
#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/message.h>
#include <google/protobuf/reflection.h>
#include <google/protobuf/text_format.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>

#include "capplan/v1/admin.pb.h"
#include "capplan/v1/planner.pb.h"
#include "server/api/catalog_proto.h"
#include "server/planning/planning.h"
#include "server/rpc/request_limits.h"
#include "server/store/catalog_store.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

namespace pb = google::protobuf;
namespace v1 = capplan::v1;
using capplan::server::CheckRequest;
using capplan::server::CheckResponseFinite;

constexpr int kNumRpcs = 9;

std::unique_ptr<pb::Message> NewRequest(int rpc) {
  switch (rpc) {
    case 0:
      return std::make_unique<v1::PlanRequest>();
    case 1:
      return std::make_unique<v1::CompareRequest>();
    case 2:
      return std::make_unique<v1::TcoRequest>();
    case 3:
      return std::make_unique<v1::UpsertGpuRequest>();
    case 4:
      return std::make_unique<v1::UpsertModelRequest>();
    case 5:
      return std::make_unique<v1::UpsertInstanceTypeRequest>();
    case 6:
      return std::make_unique<v1::SetPriceRequest>();
    case 7:
      return std::make_unique<v1::RecordBenchmarkRequest>();
    default:
      return std::make_unique<v1::UpsertFabricRequest>();
  }
}

// The shipped catalog, opened once in a private temporary directory.
const capplan::store::CatalogSnapshot& Catalog() {
  static std::shared_ptr<const capplan::store::CatalogSnapshot> snap = [] {
    char tmpl[] = "/tmp/capplan-rpc-fuzz-XXXXXX";
    const std::string dir = mkdtemp(tmpl);
    auto store = capplan::store::CatalogStore::Open({dir + "/c.db"});
    if (!store.ok()) std::abort();
    std::shared_ptr<const capplan::store::CatalogSnapshot> s = (*store)->Snapshot();
    store->reset();
    unlink((dir + "/c.db").c_str());
    unlink((dir + "/c.db-wal").c_str());
    unlink((dir + "/c.db-shm").c_str());
    rmdir(dir.c_str());
    return s;
  }();
  return *snap;
}

template <typename Resp, typename Fn>
void Estimate(Fn&& fn) {
  Resp resp;
  absl::Status s = fn(&resp);
  if (s.ok() && !CheckResponseFinite(resp).ok()) {
    std::fprintf(stderr, "non-finite answer: %s\n", std::string(CheckResponseFinite(resp).message()).c_str());
    std::abort();
  }
}

void Run(int rpc, const pb::Message& m) {
  if (!CheckRequest(m).ok()) return;
  const capplan::store::CatalogSnapshot& snap = Catalog();
  switch (rpc) {
    case 0:
      Estimate<v1::PlanResponse>(
          [&](v1::PlanResponse* r) { return capplan::server::Plan(snap, static_cast<const v1::PlanRequest&>(m), r); });
      break;
    case 1:
      Estimate<v1::CompareResponse>([&](v1::CompareResponse* r) {
        return capplan::server::Compare(snap, static_cast<const v1::CompareRequest&>(m), r);
      });
      break;
    case 2:
      Estimate<v1::TcoResponse>(
          [&](v1::TcoResponse* r) { return capplan::server::Tco(snap, static_cast<const v1::TcoRequest&>(m), r); });
      break;
    case 3: {
      auto row = capplan::server::GpuFromProto(static_cast<const v1::UpsertGpuRequest&>(m).gpu());
      if (row.ok()) (void)capplan::store::ValidateGpuRow(*row);
      break;
    }
    case 4: {
      auto row = capplan::server::ModelFromProto(static_cast<const v1::UpsertModelRequest&>(m).model());
      if (row.ok()) (void)capplan::store::ValidateModelRow(*row);
      break;
    }
    case 5: {
      const auto& r = static_cast<const v1::UpsertInstanceTypeRequest&>(m);
      auto row = capplan::server::InstanceFromProto(r.instance(), r.source());
      if (row.ok()) (void)capplan::store::ValidateInstanceRow(*row);
      break;
    }
    case 6: {
      auto row = capplan::server::PriceFromProto(static_cast<const v1::SetPriceRequest&>(m).price());
      if (row.ok()) (void)capplan::store::ValidatePriceRow(*row);
      break;
    }
    case 7: {
      auto row = capplan::server::BenchmarkFromProto(static_cast<const v1::RecordBenchmarkRequest&>(m).benchmark());
      if (row.ok()) (void)capplan::store::ValidateBenchmarkRow(*row);
      break;
    }
    default: {
      auto row = capplan::server::FabricFromProto(static_cast<const v1::UpsertFabricRequest&>(m).fabric());
      if (row.ok()) (void)capplan::store::ValidateFabricRow(*row);
      break;
    }
  }
}

// Parse errors are expected for most mutated inputs; keep them off stderr.
class Silent : public pb::io::ErrorCollector {
 public:
  void AddError(int, int, const std::string&) override {}
};

bool ParseInput(const uint8_t* data, size_t size, int* rpc, std::unique_ptr<pb::Message>* m) {
  if (size < 1) return false;
  *rpc = static_cast<unsigned char>(data[0] - '0') % kNumRpcs;
  *m = NewRequest(*rpc);
  const std::string body(reinterpret_cast<const char*>(data + 1), size - 1);
  pb::TextFormat::Parser parser;
  parser.AllowPartialMessage(true);
  Silent silent;
  parser.RecordErrorsTo(&silent);
  return parser.ParseFromString(body, m->get()) || (*m)->ParseFromString(body);
}

// ---- The structured mutator ----

const char* const kStrings[] = {
    "",    "Llama-2-7B", "Llama-2-70B", "Mixtral-8x7B", "H100-SXM5-80GB", "A100-SXM4-80GB", "RTX-4090", "p5.48xlarge",
    "aws", "us-east-1",  "2024-06-01",  "abcd-ef-gh",   "training",       "serving",        "\xff\xfe"};
const double kDoubles[] = {0,
                           -1,
                           1,
                           0.5,
                           65536,
                           1e9,
                           1e15,
                           1e308,
                           -1e308,
                           5e-324,
                           std::numeric_limits<double>::quiet_NaN(),
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity()};
const int64_t kInts[] = {0,
                         -1,
                         1,
                         2,
                         3,
                         8,
                         64,
                         4096,
                         65536,
                         65537,
                         1 << 20,
                         2147483647,
                         -2147483647 - 1,
                         int64_t{1} << 40,
                         std::numeric_limits<int64_t>::max(),
                         std::numeric_limits<int64_t>::min()};

template <typename T, size_t N>
T Pick(const T (&values)[N], std::mt19937& rng) {
  return values[rng() % N];
}

void MutateField(pb::Message* m, const pb::FieldDescriptor* f, std::mt19937& rng, int depth);

void MutateMessage(pb::Message* m, std::mt19937& rng, int depth) {
  const pb::Descriptor* d = m->GetDescriptor();
  if (d->field_count() == 0 || depth > 6) return;
  MutateField(m, d->field(static_cast<int>(rng() % d->field_count())), rng, depth);
}

void MutateField(pb::Message* m, const pb::FieldDescriptor* f, std::mt19937& rng, int depth) {
  const pb::Reflection* r = m->GetReflection();
  if (rng() % 8 == 0) {
    r->ClearField(m, f);
    return;
  }
  if (f->is_repeated()) {
    // Append (or with repeated messages, mutate an existing one half the time).
    if (f->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) {
      const int n = r->FieldSize(*m, f);
      pb::Message* child = (n > 0 && rng() % 2 == 0) ? r->MutableRepeatedMessage(m, f, static_cast<int>(rng() % n))
                                                     : r->AddMessage(m, f);
      MutateMessage(child, rng, depth + 1);
      return;
    }
    switch (f->cpp_type()) {
      case pb::FieldDescriptor::CPPTYPE_STRING:
        r->AddString(m, f, Pick(kStrings, rng));
        break;
      case pb::FieldDescriptor::CPPTYPE_INT64:
        r->AddInt64(m, f, Pick(kInts, rng));
        break;
      default:
        break;
    }
    return;
  }
  switch (f->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_DOUBLE:
      r->SetDouble(m, f, Pick(kDoubles, rng));
      break;
    case pb::FieldDescriptor::CPPTYPE_FLOAT:
      r->SetFloat(m, f, static_cast<float>(Pick(kDoubles, rng)));
      break;
    case pb::FieldDescriptor::CPPTYPE_INT32:
      r->SetInt32(m, f, static_cast<int32_t>(Pick(kInts, rng)));
      break;
    case pb::FieldDescriptor::CPPTYPE_INT64:
      r->SetInt64(m, f, Pick(kInts, rng));
      break;
    case pb::FieldDescriptor::CPPTYPE_UINT32:
      r->SetUInt32(m, f, static_cast<uint32_t>(Pick(kInts, rng)));
      break;
    case pb::FieldDescriptor::CPPTYPE_UINT64:
      r->SetUInt64(m, f, static_cast<uint64_t>(Pick(kInts, rng)));
      break;
    case pb::FieldDescriptor::CPPTYPE_BOOL:
      r->SetBool(m, f, rng() % 2 == 0);
      break;
    case pb::FieldDescriptor::CPPTYPE_ENUM:
      r->SetEnumValue(m, f, static_cast<int>(rng() % 12) - 1);
      break;
    case pb::FieldDescriptor::CPPTYPE_STRING:
      r->SetString(m, f, rng() % 10 == 0 ? std::string(1100 + rng() % 2000, 'x') : std::string(Pick(kStrings, rng)));
      break;
    case pb::FieldDescriptor::CPPTYPE_MESSAGE:
      MutateMessage(r->MutableMessage(m, f), rng, depth + 1);
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  int rpc = 0;
  std::unique_ptr<pb::Message> m;
  if (!ParseInput(data, size, &rpc, &m)) return 0;
  Run(rpc, *m);
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  std::mt19937 rng(seed);
  int rpc = 0;
  std::unique_ptr<pb::Message> m;
  if (rng() % 5 == 0 || !ParseInput(data, size, &rpc, &m)) return LLVMFuzzerMutate(data, size, max_size);
  const int mutations = 1 + static_cast<int>(rng() % 3);
  for (int i = 0; i < mutations; ++i) MutateMessage(m.get(), rng, 0);
  std::string text;
  if (!pb::TextFormat::PrintToString(*m, &text) || text.size() + 1 > max_size) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  data[0] = static_cast<uint8_t>('0' + rpc);
  std::memcpy(data + 1, text.data(), text.size());
  return text.size() + 1;
}
