// Times on the API: the older *_unix_seconds fields and the google.protobuf.Timestamp fields
// added beside them (RFC 3339 in JSON) name the same instant; a request may set either.
#pragma once

#include <google/protobuf/timestamp.pb.h>

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace capplan::server {

// The instant a request names with `unix_seconds` (0: unset) and/or `time` (null or
// has_* false: unset), in Unix seconds; 0 when neither is set. InvalidArgument naming both
// fields when both are set and differ (a Timestamp with a fraction of a second differs), and
// naming the one at fault when it is negative or out of Timestamp's range.
absl::StatusOr<int64_t> UnixSecondsFrom(int64_t unix_seconds, const google::protobuf::Timestamp* time,
                                        const std::string& unix_field, const std::string& time_field);

// As UnixSecondsFrom for a prices_as_of pair, then 0 -> now (PricesAsOf).
absl::StatusOr<int64_t> PricesAsOfFrom(int64_t unix_seconds, const google::protobuf::Timestamp* time,
                                       const std::string& prefix = "");

// The Timestamp of a Unix-seconds instant.
google::protobuf::Timestamp TimestampOf(int64_t unix_seconds);
google::protobuf::Timestamp TimestampOfMicros(int64_t unix_micros);

}  // namespace capplan::server
