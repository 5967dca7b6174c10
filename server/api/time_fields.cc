// Unix-seconds fields and their Timestamp twins, resolved to one instant.
#include "server/api/time_fields.h"

#include <google/protobuf/util/time_util.h>

#include "absl/strings/str_cat.h"
#include "server/api/request_proto.h"

namespace capplan::server {

using google::protobuf::Timestamp;
using google::protobuf::util::TimeUtil;

absl::StatusOr<int64_t> UnixSecondsFrom(int64_t unix_seconds, const Timestamp* time, const std::string& unix_field,
                                        const std::string& time_field) {
  if (unix_seconds < 0) return absl::InvalidArgumentError(absl::StrCat(unix_field, ": must be >= 0 (0: unset)"));
  if (time == nullptr) return unix_seconds;
  if (time->seconds() < 0 || time->seconds() > TimeUtil::kTimestampMaxSeconds || time->nanos() < 0 ||
      time->nanos() > 999999999) {
    return absl::InvalidArgumentError(absl::StrCat(time_field, ": must be a time from 1970-01-01T00:00:00Z to ",
                                                   "9999-12-31T23:59:59Z, got ", time->seconds(), " s ", time->nanos(),
                                                   " ns"));
  }
  if (unix_seconds != 0 && (time->seconds() != unix_seconds || time->nanos() != 0)) {
    return absl::InvalidArgumentError(absl::StrCat(unix_field, " (", unix_seconds, ") and ", time_field, " (",
                                                   TimeUtil::ToString(*time),
                                                   ") name different times; set one of them"));
  }
  return time->seconds();
}

absl::StatusOr<int64_t> PricesAsOfFrom(int64_t unix_seconds, const Timestamp* time, const std::string& prefix) {
  absl::StatusOr<int64_t> t =
      UnixSecondsFrom(unix_seconds, time, prefix + "prices_as_of_unix_seconds", prefix + "prices_as_of_time");
  if (!t.ok()) return t.status();
  return PricesAsOf(*t);
}

Timestamp TimestampOf(int64_t unix_seconds) { return TimeUtil::SecondsToTimestamp(unix_seconds); }

Timestamp TimestampOfMicros(int64_t unix_micros) { return TimeUtil::MicrosecondsToTimestamp(unix_micros); }

}  // namespace capplan::server
