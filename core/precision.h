// Numeric precisions and their storage sizes.
#pragma once

#include <array>

namespace capplan::core {

enum class Precision { kFp32 = 0, kTf32, kFp16, kBf16, kFp8, kInt8, kInt4 };
inline constexpr int kNumPrecisions = 7;

// Bytes one element occupies in memory. INT4 packs two per byte; group-wise scales are
// accounted separately (see WeightBytesPerParameter in serving.h).
constexpr double BytesPerElement(Precision p) {
  switch (p) {
    case Precision::kFp32:
    case Precision::kTf32:
      return 4.0;
    case Precision::kFp16:
    case Precision::kBf16:
      return 2.0;
    case Precision::kFp8:
    case Precision::kInt8:
      return 1.0;
    case Precision::kInt4:
      return 0.5;
  }
  return 4.0;
}

// The stored and printed names, in enum order (core/enum_names.h). const char* rather than
// std::string_view: Abseil 20220623 does not take std::string_view.
inline constexpr std::array<const char*, kNumPrecisions> kPrecisionNames = {"fp32", "tf32", "fp16", "bf16",
                                                                            "fp8",  "int8", "int4"};
constexpr const char* PrecisionName(Precision p) { return kPrecisionNames[static_cast<int>(p)]; }

constexpr bool IsValidPrecision(int value) { return value >= 0 && value < kNumPrecisions; }

}  // namespace capplan::core
