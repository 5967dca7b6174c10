// Cheap number formatting for messages built on hot paths. Abseil 20220623's StrFormat and
// glibc's "%f" both cost over a thousand instructions per number; this costs tens.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace capplan::core {

// `value` with `digits` decimals (0-9), e.g. Fixed(3.14159, 2) == "3.14". Rounds half away
// from zero; falls back to snprintf outside +/-1e15.
inline std::string Fixed(double value, int digits) {
  static constexpr int64_t kPow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};
  if (digits < 0) digits = 0;
  if (!std::isfinite(value) || std::fabs(value) >= 1e15 || digits > 9) {
    char buf[64];
    const int n = std::snprintf(buf, sizeof buf, "%.*f", digits, value);
    return std::string(buf, n > 0 ? static_cast<size_t>(n) : 0);
  }
  const int64_t scaled = std::llround(std::fabs(value) * static_cast<double>(kPow10[digits]));
  int64_t whole = scaled / kPow10[digits];
  int64_t frac = scaled % kPow10[digits];
  char buf[40];
  char* end = buf + sizeof buf;
  char* p = end;
  for (int i = 0; i < digits; ++i) {
    *--p = static_cast<char>('0' + frac % 10);
    frac /= 10;
  }
  if (digits > 0) *--p = '.';
  do {
    *--p = static_cast<char>('0' + whole % 10);
    whole /= 10;
  } while (whole > 0);
  if (value < 0 && scaled != 0) *--p = '-';
  return std::string(p, end);
}

// A latency at its precision: under a second in milliseconds with three significant
// figures ("0.100 ms", "25.0 ms", "250 ms"), else seconds with three decimals ("1.500 s"),
// so that a 0.1 ms SLO does not print as "0.000 s".
inline std::string Latency(double seconds) {
  if (seconds > 0 && seconds < 1) {
    const double ms = seconds * 1000;
    return Fixed(ms, ms >= 100 ? 0 : ms >= 10 ? 1 : ms >= 1 ? 2 : 3) + " ms";
  }
  return Fixed(seconds, 3) + " s";
}

}  // namespace capplan::core
