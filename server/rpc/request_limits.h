// Limits every request passes before any handler looks at it, whatever the RPC: numbers are
// finite, enum values are ones the API defines, strings and lists are bounded, nesting is
// shallow. Field-specific ranges (a GPU count in [1, 65536]) are checked by the converters;
// this layer makes sure that no NaN, no unknown enum and no megabyte-long name reaches them.
//
// It walks the message with protobuf reflection, so a field added to the API is covered the
// day it is added.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "google/protobuf/message.h"

namespace capplan::server {

struct MessageLimits {
  // Any string or bytes field, unless named in `string_bytes_overrides`.
  size_t max_string_bytes = 1024;
  // Any repeated field, unless its message-level check says less.
  size_t max_repeated = 256;
  // Messages within messages.
  int max_depth = 8;
  // Full field name ("capplan.v1.ImportPricesCsvRequest.csv") -> its own byte limit.
  absl::flat_hash_map<std::string, size_t> string_bytes_overrides;
  // A whole request's serialized size, unless its message is named in
  // `message_bytes_overrides` (full name -> limit). The gRPC transport accepts the largest of
  // these (ServerOptions::max_import_message_bytes); this holds every other method to less.
  size_t max_message_bytes = SIZE_MAX;
  absl::flat_hash_map<std::string, size_t> message_bytes_overrides;
};

// The serialized size capplan accepts for a request other than a price import (gRPC's
// default), and for ImportPricesCsvRequest (a 64 MiB price list plus its other fields).
inline constexpr size_t kMaxRequestBytes = 4u << 20;
inline constexpr size_t kMaxImportRequestBytes = (64u << 20) + (64u << 10);

// The limits capplan's API applies to every request.
const MessageLimits& RequestLimits();

// InvalidArgument naming the first offending field by its path ("fleets[0].own.pue") and
// the allowed range; ResourceExhausted for a request larger than its message's byte limit;
// OK when every field is within the limits.
absl::Status CheckRequest(const google::protobuf::Message& request, const MessageLimits& limits = RequestLimits());

// A last guard on the way out: Internal naming the field if any number in the answer is NaN
// or infinite (a caller must never be handed one as if it were an estimate).
absl::Status CheckResponseFinite(const google::protobuf::Message& response);

}  // namespace capplan::server
