// The process's malloc settings for a request server.
#pragma once

#include <cstddef>

namespace capplan::server {

// glibc gives memory back to the kernel whenever the free space at the top of the heap passes
// M_TRIM_THRESHOLD (128 KiB by default, or an adaptive threshold once a large block was
// mmap'd and freed), and serves blocks over M_MMAP_THRESHOLD (128 KiB, adaptive) with mmap.
// A Plan allocates and frees a few hundred KiB (its supplies, layouts, candidates and
// answer; ~1 MiB with 5,000 offers), so calls ended in brk() or munmap() and a TLB
// shootdown across the cores: a fifth of a distinct serving Plan's CPU, measured with perf
// on the 2-core development machine. Blocks under kMmapThresholdBytes come from the heap,
// and up to kTrimThresholdBytes stay at its top (it grows kTopPadBytes at a time): at most
// that much per malloc arena stays resident after a burst. See mallopt(3).
inline constexpr size_t kMmapThresholdBytes = size_t{2} << 20;
inline constexpr size_t kTrimThresholdBytes = size_t{4} << 20;
inline constexpr size_t kTopPadBytes = size_t{512} << 10;

// Applies the settings above; call once at start-up, before threads start. A no-op under a
// sanitizer's allocator or another libc.
void TuneAllocator();

}  // namespace capplan::server
