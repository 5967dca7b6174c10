// How wide an efficiency range calibrated on one measured benchmark is: the registry's base
// width, widened per decade of model-size difference and when the precision differs.
#pragma once

#include <cmath>

#include "core/assumptions.h"

namespace capplan::core {

// `size_ratio`: the benchmark model's parameters over the job's (either way round).
inline double CalibrationWidth(double size_ratio, bool precision_differs) {
  return assumptions::kCalibrationWidthBase.value.point +
         assumptions::kCalibrationWidthPerDecade.value.point * std::fabs(std::log10(size_ratio)) +
         (precision_differs ? assumptions::kCalibrationWidthPrecisionMismatch.value.point : 0.0);
}

}  // namespace capplan::core
