// What limits an estimate (training step or serving iteration): the resource whose time
// dominates. Shared by the training and serving estimators and the planner.
#pragma once

namespace capplan::core {

enum class Bottleneck { kCompute = 0, kMemoryBandwidth, kInterconnect, kNetwork, kPipelineBubble, kMemoryCapacity };

// A lower-case name for people ("memory bandwidth").
const char* BottleneckName(Bottleneck b);

}  // namespace capplan::core
