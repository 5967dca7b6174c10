#include "server/allocator.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace capplan::server {

void TuneAllocator() {
#if defined(__GLIBC__)
  // Setting either also turns off glibc's adaptive thresholds, which would raise the trim
  // threshold only after a large block happened to be freed.
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(kMmapThresholdBytes));
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(kTrimThresholdBytes));
  mallopt(M_TOP_PAD, static_cast<int>(kTopPadBytes));
#endif
}

}  // namespace capplan::server
