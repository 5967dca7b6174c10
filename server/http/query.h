// GET routes take their request fields from the query string: ?provider=aws&page_size=10.
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace capplan::server::http {

inline constexpr int kMaxQueryParameters = 64;

// Sets top-level fields of `message` from `query` (URL-encoded, without '?'). Keys are field
// names (proto or lowerCamelCase JSON name); scalars, enums (by name) and
// google.protobuf.Timestamp fields (RFC 3339); a repeated field by repeating its key. A key
// that names no field is ignored. InvalidArgument naming the key for another message-typed
// field, a value that does not parse or fit, a non-repeated field given twice, or more than
// kMaxQueryParameters.
absl::Status ApplyQuery(absl::string_view query, google::protobuf::Message* message);

// Whether `f` is a google.protobuf.Timestamp (taken from a query as RFC 3339 text).
bool IsTimestamp(const google::protobuf::FieldDescriptor* f);

// Whether `text` is well-formed UTF-8 (RFC 3629: no overlong forms, surrogates or code
// points past U+10FFFF). Protobuf refuses a string field that is not, so the gateway refuses
// such text first, naming where it came from.
bool IsUtf8(absl::string_view text);

}  // namespace capplan::server::http
