// Times on the API: the older *_unix_seconds fields and the google.protobuf.Timestamp fields
// added beside them (RFC 3339 in JSON) name the same instant; a request may set either. Every
// instant a caller can write or read prices at is bounded here, and every Timestamp the server
// builds comes from TimestampOf, which cannot fail.
#pragma once

#include <google/protobuf/timestamp.pb.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/store/catalog.h"

namespace capplan::server {

// The latest instant a write may date a row at or a read may read prices at:
// 2100-01-01T00:00:00Z, the bound price rows have always had (store::ValidatePriceRow). A
// date written in milliseconds by mistake (1733000000000) is refused, not stored.
inline constexpr int64_t kLatestUnixSeconds = store::kLatestPriceUnixSeconds;
// google.protobuf.Timestamp's own range (timestamp.proto): 0001-01-01T00:00:00Z to
// 9999-12-31T23:59:59Z.
inline constexpr int64_t kTimestampMinSeconds = -62135596800;
inline constexpr int64_t kTimestampMaxSeconds = 253402300799;

// The instants a field may name, in Unix seconds, both inclusive; 0 always means unset.
struct TimeBounds {
  int64_t earliest_unix_seconds = 0;
  int64_t latest_unix_seconds = kLatestUnixSeconds;
};
// As-of reads.
inline constexpr TimeBounds kRequestTimes{0, kLatestUnixSeconds};
// Prices' effective times.
inline constexpr TimeBounds kPriceTimes{store::kEarliestPriceUnixSeconds, kLatestUnixSeconds};
// Filters (the audit log's since/until): Timestamp's range.
inline constexpr TimeBounds kAnyTimestamp{0, kTimestampMaxSeconds};

// The instant a request names with `unix_seconds` (0: unset) and/or `time` (null or
// has_* false: unset), in Unix seconds; 0 when neither is set. InvalidArgument naming both
// fields when both are set and differ (a Timestamp with a fraction of a second differs), and
// naming the one at fault, with the allowed range, when it is outside `bounds`.
absl::StatusOr<int64_t> UnixSecondsFrom(int64_t unix_seconds, const google::protobuf::Timestamp* time,
                                        const std::string& unix_field, const std::string& time_field,
                                        TimeBounds bounds = kRequestTimes);

// As UnixSecondsFrom for a prices_as_of pair (at most kLatestUnixSeconds), then 0 -> now
// (PricesAsOf).
absl::StatusOr<int64_t> PricesAsOfFrom(int64_t unix_seconds, const google::protobuf::Timestamp* time,
                                       const std::string& prefix = "");

// One line per price row whose effective time is outside kPriceTimes (written before writes
// were bounded, or by hand): the server serves such rows (a time past 2100 never takes
// effect) and says so at start-up, so that an operator can correct or delete them. At most
// `max_lines` lines, the last one counting the rest.
std::vector<std::string> PriceTimesOutOfRange(const store::CatalogSnapshot& snapshot, size_t max_lines = 10);

// The Timestamp of a Unix-seconds instant. A stored value outside Timestamp's range (a row
// written before writes were bounded) comes out clamped to that range instead of failing
// protobuf's check, which aborts the process.
google::protobuf::Timestamp TimestampOf(int64_t unix_seconds);
google::protobuf::Timestamp TimestampOfMicros(int64_t unix_micros);

}  // namespace capplan::server
