#include "server/rpc/request_limits.h"

#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/reflection.h"

namespace capplan::server {

namespace {

namespace pb = google::protobuf;

// The path to the field being checked, rendered only when something is wrong.
struct Frame {
  const pb::FieldDescriptor* field;
  int index;  // -1 for a singular field
};

std::string PathOf(const std::vector<Frame>& frames) {
  std::string out;
  for (const Frame& f : frames) {
    if (!out.empty()) out += '.';
    out += f.field->name();
    if (f.index >= 0) absl::StrAppend(&out, "[", f.index, "]");
  }
  return out;
}

class Walker {
 public:
  Walker(const MessageLimits& limits, bool response) : limits_(limits), response_(response) {}

  absl::Status Message(const pb::Message& m, int depth) {
    if (depth > limits_.max_depth) {
      return absl::InvalidArgumentError(
          absl::StrCat(PathOf(frames_), ": nested deeper than ", limits_.max_depth, " messages"));
    }
    const pb::Reflection* r = m.GetReflection();
    std::vector<const pb::FieldDescriptor*> fields;
    r->ListFields(m, &fields);
    for (const pb::FieldDescriptor* f : fields) {
      if (f->is_repeated()) {
        const int n = r->FieldSize(m, f);
        if (!response_ && static_cast<size_t>(n) > limits_.max_repeated) {
          frames_.push_back({f, -1});
          absl::Status s = absl::InvalidArgumentError(
              absl::StrCat(PathOf(frames_), ": at most ", limits_.max_repeated, " entries, got ", n));
          frames_.pop_back();
          return s;
        }
        for (int i = 0; i < n; ++i) {
          frames_.push_back({f, i});
          absl::Status s = Value(m, f, i, depth);
          frames_.pop_back();
          if (!s.ok()) return s;
        }
      } else {
        frames_.push_back({f, -1});
        absl::Status s = Value(m, f, -1, depth);
        frames_.pop_back();
        if (!s.ok()) return s;
      }
    }
    return absl::OkStatus();
  }

 private:
  absl::Status Value(const pb::Message& m, const pb::FieldDescriptor* f, int i, int depth) {
    const pb::Reflection* r = m.GetReflection();
    switch (f->cpp_type()) {
      case pb::FieldDescriptor::CPPTYPE_DOUBLE:
        return Finite(i < 0 ? r->GetDouble(m, f) : r->GetRepeatedDouble(m, f, i));
      case pb::FieldDescriptor::CPPTYPE_FLOAT:
        return Finite(i < 0 ? r->GetFloat(m, f) : r->GetRepeatedFloat(m, f, i));
      case pb::FieldDescriptor::CPPTYPE_ENUM: {
        if (response_) return absl::OkStatus();
        const int v = i < 0 ? r->GetEnumValue(m, f) : r->GetRepeatedEnumValue(m, f, i);
        if (f->enum_type()->FindValueByNumber(v) != nullptr) return absl::OkStatus();
        std::string allowed;
        for (int k = 0; k < f->enum_type()->value_count(); ++k) {
          const pb::EnumValueDescriptor* e = f->enum_type()->value(k);
          if (e->number() == 0) continue;  // *_UNSPECIFIED: the default, never named
          absl::StrAppend(&allowed, allowed.empty() ? "" : ", ", e->name());
        }
        return absl::InvalidArgumentError(absl::StrCat(PathOf(frames_), ": unknown value ", v, "; one of ", allowed));
      }
      case pb::FieldDescriptor::CPPTYPE_STRING: {
        if (response_) return absl::OkStatus();
        std::string scratch;
        const std::string& s =
            i < 0 ? r->GetStringReference(m, f, &scratch) : r->GetRepeatedStringReference(m, f, i, &scratch);
        size_t limit = limits_.max_string_bytes;
        if (!limits_.string_bytes_overrides.empty()) {
          auto it = limits_.string_bytes_overrides.find(f->full_name());
          if (it != limits_.string_bytes_overrides.end()) limit = it->second;
        }
        if (s.size() <= limit) return absl::OkStatus();
        return absl::InvalidArgumentError(absl::StrCat(PathOf(frames_), ": at most ", limit, " bytes, got ", s.size()));
      }
      case pb::FieldDescriptor::CPPTYPE_MESSAGE:
        return Message(i < 0 ? r->GetMessage(m, f) : r->GetRepeatedMessage(m, f, i), depth + 1);
      default:
        return absl::OkStatus();  // integers: each one's range is the converter's business
    }
  }

  absl::Status Finite(double v) {
    if (std::isfinite(v)) return absl::OkStatus();
    const std::string what = std::isnan(v) ? "NaN" : (v > 0 ? "+Inf" : "-Inf");
    if (response_) {
      return absl::InternalError(absl::StrCat("the answer's ", PathOf(frames_), " came out ", what,
                                              "; this is a bug in capplan, please report the request"));
    }
    return absl::InvalidArgumentError(absl::StrCat(PathOf(frames_), ": must be a finite number, got ", what));
  }

  const MessageLimits& limits_;
  const bool response_;
  std::vector<Frame> frames_;
};

// The fields of one message type that can hold a non-finite number: its float and double
// fields, and the message fields whose type has some. Built once per type, so the check on
// every answer reads only those fields instead of listing every field set.
struct FinitePlan {
  std::vector<const pb::FieldDescriptor*> numbers;
  std::vector<std::pair<const pb::FieldDescriptor*, const FinitePlan*>> messages;
  bool complete = false;  // false while its own fields are being listed (recursive types)
  bool Empty() const { return complete && numbers.empty() && messages.empty(); }
};

class FinitePlans {
 public:
  const FinitePlan& For(const pb::Descriptor* d) {
    absl::MutexLock lock(&mu_);
    return Build(d);
  }

 private:
  const FinitePlan& Build(const pb::Descriptor* d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    std::unique_ptr<FinitePlan>& slot = plans_[d];
    if (slot != nullptr) return *slot;
    slot = std::make_unique<FinitePlan>();
    FinitePlan* plan = slot.get();  // stable: the map holds pointers
    for (int i = 0; i < d->field_count(); ++i) {
      const pb::FieldDescriptor* f = d->field(i);
      const pb::FieldDescriptor::CppType t = f->cpp_type();
      if (t == pb::FieldDescriptor::CPPTYPE_DOUBLE || t == pb::FieldDescriptor::CPPTYPE_FLOAT) {
        plan->numbers.push_back(f);
      } else if (t == pb::FieldDescriptor::CPPTYPE_MESSAGE) {
        const FinitePlan& sub = Build(f->message_type());
        if (!sub.Empty()) plan->messages.emplace_back(f, &sub);
      }
    }
    plan->complete = true;
    return *plan;
  }

  absl::Mutex mu_;
  absl::flat_hash_map<const pb::Descriptor*, std::unique_ptr<FinitePlan>> plans_ ABSL_GUARDED_BY(mu_);
};

double NumberAt(const pb::Reflection* r, const pb::Message& m, const pb::FieldDescriptor* f, int i) {
  if (f->cpp_type() == pb::FieldDescriptor::CPPTYPE_DOUBLE) {
    return i < 0 ? r->GetDouble(m, f) : r->GetRepeatedDouble(m, f, i);
  }
  return i < 0 ? r->GetFloat(m, f) : r->GetRepeatedFloat(m, f, i);
}

// True when every float and double in `m` is finite (false also past `depth` 64, where the
// full walk reports the nesting).
bool AllFinite(const pb::Message& m, const FinitePlan& plan, int depth) {
  if (depth > 64) return false;
  const pb::Reflection* r = m.GetReflection();
  for (const pb::FieldDescriptor* f : plan.numbers) {
    if (!f->is_repeated()) {
      if (!std::isfinite(NumberAt(r, m, f, -1))) return false;
      continue;
    }
    for (int i = 0, n = r->FieldSize(m, f); i < n; ++i) {
      if (!std::isfinite(NumberAt(r, m, f, i))) return false;
    }
  }
  for (const auto& [f, sub] : plan.messages) {
    if (!f->is_repeated()) {
      if (r->HasField(m, f) && !AllFinite(r->GetMessage(m, f), *sub, depth + 1)) return false;
      continue;
    }
    for (int i = 0, n = r->FieldSize(m, f); i < n; ++i) {
      if (!AllFinite(r->GetRepeatedMessage(m, f, i), *sub, depth + 1)) return false;
    }
  }
  return true;
}

}  // namespace

const MessageLimits& RequestLimits() {
  static const MessageLimits* limits = [] {
    auto* l = new MessageLimits;
    // A price list is the one large text the API takes; its reader bounds rows and fields.
    l->string_bytes_overrides["capplan.v1.ImportPricesCsvRequest.csv"] = 64u << 20;
    l->max_message_bytes = kMaxRequestBytes;
    l->message_bytes_overrides["capplan.v1.ImportPricesCsvRequest"] = kMaxImportRequestBytes;
    // A benchmark tool's output file (server/api/bench_import_proto.h), within the 4 MiB request.
    l->string_bytes_overrides["capplan.v1.ImportBenchmarkRequest.content"] = 3u << 20;
    // A model's config.json: published ones are 1-5 KB; 64 KiB leaves room for long lists.
    l->string_bytes_overrides["capplan.v1.TrainingWorkload.hf_config_json"] = 64u << 10;
    l->string_bytes_overrides["capplan.v1.ServingWorkload.hf_config_json"] = 64u << 10;
    return l;
  }();
  return *limits;
}

absl::Status CheckRequest(const google::protobuf::Message& request, const MessageLimits& limits) {
  auto own = limits.message_bytes_overrides.find(request.GetDescriptor()->full_name());
  const size_t max_bytes = own == limits.message_bytes_overrides.end() ? limits.max_message_bytes : own->second;
  if (max_bytes != SIZE_MAX) {
    const size_t bytes = request.ByteSizeLong();
    if (bytes > max_bytes) {
      return absl::ResourceExhaustedError(
          absl::StrCat("request: ", bytes, " bytes, more than the ", max_bytes, " this method accepts"));
    }
  }
  return Walker(limits, /*response=*/false).Message(request, 0);
}

absl::Status CheckResponseFinite(const google::protobuf::Message& response) {
  static FinitePlans* plans = new FinitePlans;
  if (AllFinite(response, plans->For(response.GetDescriptor()), 0)) return absl::OkStatus();
  // Something is wrong: the full walk names the field.
  static const MessageLimits unbounded = [] {
    MessageLimits l;
    l.max_string_bytes = SIZE_MAX;
    l.max_repeated = SIZE_MAX;
    l.max_depth = 64;
    return l;
  }();
  return Walker(unbounded, /*response=*/true).Message(response, 0);
}

}  // namespace capplan::server
