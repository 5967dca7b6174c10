// Names of the bottlenecks.
#include "core/bottleneck.h"

namespace capplan::core {

const char* BottleneckName(Bottleneck b) {
  switch (b) {
    case Bottleneck::kCompute:
      return "compute";
    case Bottleneck::kMemoryBandwidth:
      return "memory bandwidth";
    case Bottleneck::kInterconnect:
      return "interconnect";
    case Bottleneck::kNetwork:
      return "network";
    case Bottleneck::kPipelineBubble:
      return "pipeline bubble";
    case Bottleneck::kMemoryCapacity:
      return "memory capacity";
  }
  return "unknown";
}

}  // namespace capplan::core
