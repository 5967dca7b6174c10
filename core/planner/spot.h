// What spot capacity costs a training run beyond its lower price: interruptions, the work
// lost since the last checkpoint, the restart, and the checkpoints themselves. The optimal
// checkpoint interval is Young's (Young 1974, "A first order approximation to the optimum
// checkpoint interval") with Daly's first-order correction (Daly 2006, "A higher order
// estimate of the optimum checkpoint interval for restart dumps", Eq. 37).
#pragma once

#include <string>

#include "core/training/training.h"

namespace capplan::core::planner {

// Interruptions per instance per month when the caller gives none: the upper edge of the
// AWS Spot Instance Advisor's "10-15%" band (aws.amazon.com/ec2/spot/instance-advisor; the
// advisor bands each instance type and region by the share of its spot capacity reclaimed
// over the past month). An assumption for every provider and GPU: look the type and region
// up there and set constraints.spot_interruption_fraction_per_month.
inline constexpr double kDefaultSpotInterruptionsPerMonth = 0.15;
// Assumptions, stated in every note: each GPU writes its shard of the weights and optimizer
// state to shared storage at 1 GB/s, and a restart (new capacity, reload, warm-up) takes
// 10 minutes.
inline constexpr double kCheckpointBytesPerSecondPerGpu = 1e9;
inline constexpr double kSpotRestartSeconds = 600;

struct SpotOverhead {
  double mtbi_seconds = 0;        // mean time between interruptions of the whole run
  double checkpoint_seconds = 0;  // one checkpoint
  double interval_seconds = 0;    // between checkpoints
  double fraction = 0;            // extra wall time over the run's on-demand duration
  std::string note;
};

// For `instances` spot instances, each interrupted `interruptions_per_month` times a month
// (0: kDefaultSpotInterruptionsPerMonth).
SpotOverhead SpotTrainingOverhead(const TrainingEstimate& e, int instances, double interruptions_per_month);

}  // namespace capplan::core::planner
