// A figure with its uncertainty: a point estimate and the band around it, in one unit.
#pragma once

namespace capplan::core {

struct Range {
  double point = 0;
  double low = 0;
  double high = 0;

  // The same band in another unit, or after a factor that applies to every end.
  constexpr Range Scaled(double factor) const { return {point * factor, low * factor, high * factor}; }
};

}  // namespace capplan::core
