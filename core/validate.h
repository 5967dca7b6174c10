// Input checks that produce InvalidArgument statuses naming the field and allowed range.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace capplan::core {

inline absl::Status FieldError(const std::string& field, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", what));
}

inline absl::Status CheckRange(const std::string& field, double value, double lo,
                               double hi) {
  if (!std::isfinite(value) || value < lo || value > hi) {
    return FieldError(field, absl::StrCat("must be in [", lo, ", ", hi, "], got ", value));
  }
  return absl::OkStatus();
}

inline absl::Status CheckRange(const std::string& field, int64_t value, int64_t lo,
                               int64_t hi) {
  if (value < lo || value > hi) {
    return FieldError(field, absl::StrCat("must be in [", lo, ", ", hi, "], got ", value));
  }
  return absl::OkStatus();
}

// Evaluates a Status expression and returns it from the enclosing function if not OK.
// (Abseil 20220623 has no ABSL_RETURN_IF_ERROR.)
#define CAPPLAN_RETURN_IF_ERROR(expr)            \
  do {                                           \
    const absl::Status capplan_status_ = (expr); \
    if (!capplan_status_.ok()) return capplan_status_; \
  } while (0)

}  // namespace capplan::core
