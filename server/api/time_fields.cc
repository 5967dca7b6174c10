// Unix-seconds fields and their Timestamp twins, resolved to one instant.
#include "server/api/time_fields.h"

#include <google/protobuf/util/time_util.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "server/api/request_proto.h"

namespace capplan::server {

using google::protobuf::Timestamp;
using google::protobuf::util::TimeUtil;

static_assert(kTimestampMinSeconds == TimeUtil::kTimestampMinSeconds, "timestamp.proto's range");
static_assert(kTimestampMaxSeconds == TimeUtil::kTimestampMaxSeconds, "timestamp.proto's range");

namespace {

std::string Rfc3339(int64_t unix_seconds) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::FromUnixSeconds(unix_seconds), absl::UTCTimeZone());
}

absl::Status OutOfRange(const std::string& field, const TimeBounds& b, const std::string& got) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": must be a time from ", Rfc3339(b.earliest_unix_seconds),
                                                 " to ", Rfc3339(b.latest_unix_seconds), " (", b.earliest_unix_seconds,
                                                 " to ", b.latest_unix_seconds, " Unix seconds; 0: unset), got ", got));
}

}  // namespace

absl::StatusOr<int64_t> UnixSecondsFrom(int64_t unix_seconds, const Timestamp* time, const std::string& unix_field,
                                        const std::string& time_field, TimeBounds bounds) {
  bounds.earliest_unix_seconds = std::max<int64_t>(bounds.earliest_unix_seconds, 0);
  bounds.latest_unix_seconds = std::min(bounds.latest_unix_seconds, kTimestampMaxSeconds);
  auto outside = [&](int64_t t) { return t < bounds.earliest_unix_seconds || t > bounds.latest_unix_seconds; };
  if (unix_seconds < 0 || (unix_seconds != 0 && outside(unix_seconds))) {
    return OutOfRange(unix_field, bounds, absl::StrCat(unix_seconds));
  }
  if (time == nullptr) return unix_seconds;
  if (outside(time->seconds()) || time->nanos() < 0 || time->nanos() > 999999999) {
    return OutOfRange(time_field, bounds, absl::StrCat(time->seconds(), " s ", time->nanos(), " ns"));
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

std::vector<std::string> PriceTimesOutOfRange(const store::CatalogSnapshot& snapshot, size_t max_lines) {
  std::vector<std::string> out;
  size_t found = 0;
  for (const std::shared_ptr<const store::PriceList>& list : *snapshot.tables().prices) {
    if (list == nullptr) continue;
    for (const store::PriceRow& p : *list) {
      const int64_t t = p.effective_unix_seconds;
      if (t >= kPriceTimes.earliest_unix_seconds && t <= kPriceTimes.latest_unix_seconds) continue;
      if (++found > max_lines) continue;
      out.push_back(absl::StrCat(
          "price row ", p.id, " (", p.provider, " ", p.instance_type, " ", p.region, "): effective_unix_seconds ", t,
          " is outside ", Rfc3339(kPriceTimes.earliest_unix_seconds), " to ", Rfc3339(kPriceTimes.latest_unix_seconds),
          "; it is kept as it is (a time past the range never takes effect) and shown clamped "
          "to Timestamp's range; correct or delete the row in the database"));
    }
  }
  if (found > max_lines) out.push_back(absl::StrCat("... and ", found - max_lines, " more price rows like these"));
  return out;
}

Timestamp TimestampOf(int64_t unix_seconds) {
  Timestamp t;
  t.set_seconds(std::clamp(unix_seconds, kTimestampMinSeconds, kTimestampMaxSeconds));
  return t;
}

Timestamp TimestampOfMicros(int64_t unix_micros) {
  // Floor division, so that a negative instant keeps nanos in [0, 1e9) as Timestamp requires.
  int64_t seconds = unix_micros / 1000000;
  int64_t micros = unix_micros % 1000000;
  if (micros < 0) {
    seconds -= 1;
    micros += 1000000;
  }
  Timestamp t;
  if (seconds < kTimestampMinSeconds || seconds > kTimestampMaxSeconds) return TimestampOf(seconds);
  t.set_seconds(seconds);
  t.set_nanos(static_cast<int32_t>(micros * 1000));
  return t;
}

}  // namespace capplan::server
