#include "core/planner/spot.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "core/format.h"
#include "core/units.h"

namespace capplan::core::planner {

SpotOverhead SpotTrainingOverhead(const TrainingEstimate& e, int instances, double interruptions_per_month) {
  SpotOverhead o;
  const double rate = interruptions_per_month > 0 ? interruptions_per_month : kDefaultSpotInterruptionsPerMonth;
  const double month_seconds = units::kHoursPerMonth * units::kSecondsPerHour;
  o.mtbi_seconds = month_seconds / (rate * std::max(1, instances));
  const MemoryBreakdown& m = e.memory_per_gpu;
  o.checkpoint_seconds = std::max(1.0, (m.weights_bytes + m.optimizer_bytes) / kCheckpointBytesPerSecondPerGpu);
  const double d = o.checkpoint_seconds, big_m = o.mtbi_seconds;
  // Young: sqrt(2 d M); Daly's first-order correction subtracts d while d < M / 2.
  o.interval_seconds = d < big_m / 2 ? std::sqrt(2 * d * big_m) - d : big_m;
  o.interval_seconds = std::max(o.interval_seconds, d);
  // Per interval of work: a checkpoint; per interruption: half an interval of lost work
  // (and its checkpoint) plus the restart.
  o.fraction = d / o.interval_seconds + (0.5 * (o.interval_seconds + d) + kSpotRestartSeconds) / big_m;
  o.note = absl::StrCat("spot: ", Fixed(rate * 100, 1), "% of instances interrupted per month",
                        interruptions_per_month > 0 ? " (the request's)"
                                                    : " (assumed: AWS Spot Instance Advisor's 10-15% band, upper edge)",
                        ", one interruption every ", Fixed(big_m / 3600, 1), " h over ", instances,
                        " instances; checkpoints of ", Fixed(d, 0), " s (1 GB/s per GPU, assumed) every ",
                        Fixed(o.interval_seconds / 3600, 2), " h (Young 1974 / Daly 2006), ",
                        Fixed(kSpotRestartSeconds / 60, 0), " min per restart (assumed): +", Fixed(o.fraction * 100, 1),
                        "% wall time, priced in");
  return o;
}

}  // namespace capplan::core::planner
