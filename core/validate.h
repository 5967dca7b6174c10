// Input checks that produce InvalidArgument statuses naming the field and allowed range.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "absl/base/optimization.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace capplan::core {

// Field names are string views so that the success path, taken on every estimate, never
// allocates; the message is built only on failure.
inline absl::Status FieldError(absl::string_view field, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", what));
}

// The messages for a value out of range, kept out of line so that a check that passes is a
// compare and a branch the compiler can inline into every estimate.
[[gnu::cold, gnu::noinline]] inline absl::Status RangeError(absl::string_view field, double value, double lo,
                                                            double hi) {
  return FieldError(field, absl::StrCat("must be in [", lo, ", ", hi, "], got ", value));
}
[[gnu::cold, gnu::noinline]] inline absl::Status RangeError(absl::string_view field, int64_t value, int64_t lo,
                                                            int64_t hi) {
  return FieldError(field, absl::StrCat("must be in [", lo, ", ", hi, "], got ", value));
}

inline absl::Status CheckRange(absl::string_view field, double value, double lo, double hi) {
  if (ABSL_PREDICT_FALSE(!std::isfinite(value) || value < lo || value > hi)) return RangeError(field, value, lo, hi);
  return absl::OkStatus();
}

inline absl::Status CheckRange(absl::string_view field, int64_t value, int64_t lo, int64_t hi) {
  if (ABSL_PREDICT_FALSE(value < lo || value > hi)) return RangeError(field, value, lo, hi);
  return absl::OkStatus();
}

// Evaluates a Status expression and returns it from the enclosing function if not OK.
// (Abseil 20220623 has no ABSL_RETURN_IF_ERROR.)
#define CAPPLAN_RETURN_IF_ERROR(expr)                  \
  do {                                                 \
    absl::Status capplan_status_ = (expr);             \
    if (!capplan_status_.ok()) return capplan_status_; \
  } while (0)

}  // namespace capplan::core
