#include "server/http/query.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>
#include <google/protobuf/timestamp.pb.h>
#include <google/protobuf/util/time_util.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "civetweb.h"

namespace capplan::server::http {

namespace {

using google::protobuf::FieldDescriptor;

absl::Status Bad(const std::string& key, absl::string_view why) {
  // A key that is not UTF-8 is shown escaped, so that the error itself stays printable.
  return absl::InvalidArgumentError(
      absl::StrCat("query parameter ", IsUtf8(key) ? key : absl::CHexEscape(key), ": ", why));
}

std::string Decode(absl::string_view s) {
  std::string out(s.size() + 1, '\0');
  const int n = mg_url_decode(s.data(), static_cast<int>(s.size()), out.data(), static_cast<int>(out.size()), 1);
  out.resize(n < 0 ? 0 : static_cast<size_t>(n));
  return out;
}

template <typename T>
absl::Status ParseInt(const std::string& key, const std::string& v, T* out) {
  int64_t wide = 0;
  uint64_t uwide = 0;
  if constexpr (std::numeric_limits<T>::is_signed) {
    if (!absl::SimpleAtoi(v, &wide) || wide < std::numeric_limits<T>::min() || wide > std::numeric_limits<T>::max()) {
      return Bad(key, absl::StrCat("want a whole number in [", std::numeric_limits<T>::min(), ", ",
                                   std::numeric_limits<T>::max(), "]"));
    }
    *out = static_cast<T>(wide);
  } else {
    if (!absl::SimpleAtoi(v, &uwide) || uwide > std::numeric_limits<T>::max()) {
      return Bad(key, absl::StrCat("want a whole number in [0, ", std::numeric_limits<T>::max(), "]"));
    }
    *out = static_cast<T>(uwide);
  }
  return absl::OkStatus();
}

// Sets (or, for a repeated field, adds) one value.
absl::Status SetOne(const std::string& key, const std::string& v, const FieldDescriptor* f,
                    google::protobuf::Message* m) {
  const google::protobuf::Reflection* r = m->GetReflection();
  const bool rep = f->is_repeated();
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_STRING:
      if (f->type() == FieldDescriptor::TYPE_BYTES) return Bad(key, "bytes fields are not taken from a query");
      if (!IsUtf8(v)) return Bad(key, "the value, percent-decoded, is not UTF-8 text");
      rep ? r->AddString(m, f, v) : r->SetString(m, f, v);
      return absl::OkStatus();
    case FieldDescriptor::CPPTYPE_INT32: {
      int32_t x = 0;
      if (absl::Status s = ParseInt(key, v, &x); !s.ok()) return s;
      rep ? r->AddInt32(m, f, x) : r->SetInt32(m, f, x);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_INT64: {
      int64_t x = 0;
      if (absl::Status s = ParseInt(key, v, &x); !s.ok()) return s;
      rep ? r->AddInt64(m, f, x) : r->SetInt64(m, f, x);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_UINT32: {
      uint32_t x = 0;
      if (absl::Status s = ParseInt(key, v, &x); !s.ok()) return s;
      rep ? r->AddUInt32(m, f, x) : r->SetUInt32(m, f, x);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_UINT64: {
      uint64_t x = 0;
      if (absl::Status s = ParseInt(key, v, &x); !s.ok()) return s;
      rep ? r->AddUInt64(m, f, x) : r->SetUInt64(m, f, x);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_FLOAT: {
      double x = 0;
      if (!absl::SimpleAtod(v, &x)) return Bad(key, "want a number");
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_FLOAT) {
        rep ? r->AddFloat(m, f, static_cast<float>(x)) : r->SetFloat(m, f, static_cast<float>(x));
      } else {
        rep ? r->AddDouble(m, f, x) : r->SetDouble(m, f, x);
      }
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_BOOL: {
      if (v != "true" && v != "false") return Bad(key, "want true or false");
      rep ? r->AddBool(m, f, v == "true") : r->SetBool(m, f, v == "true");
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_ENUM: {
      const google::protobuf::EnumValueDescriptor* e = f->enum_type()->FindValueByName(v);
      if (e == nullptr) return Bad(key, absl::StrCat("not a value of ", f->enum_type()->full_name()));
      rep ? r->AddEnum(m, f, e) : r->SetEnum(m, f, e);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      break;
  }
  if (IsTimestamp(f) && !rep) {
    google::protobuf::Timestamp t;
    // RFC 3339 with a 'Z' or numeric offset, years 0001-9999 (protobuf's own JSON form).
    if (!google::protobuf::util::TimeUtil::FromString(v, &t)) {
      return Bad(key, "want an RFC 3339 time, e.g. 2025-06-05T00:00:00Z");
    }
    r->MutableMessage(m, f)->CopyFrom(t);
    return absl::OkStatus();
  }
  return Bad(key, "a message field; send it as JSON with POST");
}

}  // namespace

bool IsTimestamp(const FieldDescriptor* f) {
  return f->message_type() != nullptr && f->message_type()->full_name() == "google.protobuf.Timestamp";
}

bool IsUtf8(absl::string_view text) {
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    // The sequence's length and the range its second byte must fall in (RFC 3629 section 4).
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;  // no overlong forms
      if (c == 0xED) hi = 0x9F;  // no surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;  // no overlong forms
      if (c == 0xF4) hi = 0x8F;  // nothing past U+10FFFF
    } else {
      return false;
    }
    if (n - i < len) return false;
    const auto second = static_cast<unsigned char>(text[i + 1]);
    if (second < lo || second > hi) return false;
    for (size_t k = 2; k < len; ++k) {
      const auto b = static_cast<unsigned char>(text[i + k]);
      if (b < 0x80 || b > 0xBF) return false;
    }
    i += len;
  }
  return true;
}

absl::Status ApplyQuery(absl::string_view query, google::protobuf::Message* message) {
  if (query.empty()) return absl::OkStatus();
  const std::vector<absl::string_view> pairs = absl::StrSplit(query, '&', absl::SkipEmpty());
  if (pairs.size() > static_cast<size_t>(kMaxQueryParameters)) {
    return absl::InvalidArgumentError(absl::StrCat("query: at most ", kMaxQueryParameters, " parameters"));
  }
  const google::protobuf::Descriptor* d = message->GetDescriptor();
  for (absl::string_view pair : pairs) {
    const size_t eq = pair.find('=');
    const std::string key = Decode(pair.substr(0, eq));
    const std::string value = eq == absl::string_view::npos ? "" : Decode(pair.substr(eq + 1));
    const FieldDescriptor* f = d->FindFieldByName(key);
    for (int i = 0; f == nullptr && i < d->field_count(); ++i) {
      if (d->field(i)->json_name() == key) f = d->field(i);
    }
    // Unknown keys are ignored, so that a page can carry its own parameters (a dashboard's,
    // an embedder's) on the same URL; known keys with bad values are still refused.
    if (f == nullptr) continue;
    if (!f->is_repeated() && message->GetReflection()->HasField(*message, f)) return Bad(key, "given twice");
    if (absl::Status s = SetOne(key, value, f, message); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace capplan::server::http
