#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time over a working copy of its seed corpus.
#   run_fuzz.sh BINARY SEED_DIR WORK_DIR [SECONDS]   (SECONDS defaults to $FUZZ_SECONDS, 300)
# New inputs go to WORK_DIR (in the build tree), never into the committed seeds; a crash leaves
# its input in WORK_DIR.artifacts/ and fails the run.
set -euo pipefail
bin=$1 seeds=$2 work=$3 seconds=${4:-${FUZZ_SECONDS:-300}}
mkdir -p "$work" "$work.artifacts"
cp -n "$seeds"/* "$work"/ 2>/dev/null || true
# LSan: the fuzz targets leak nothing of ours; the suppressions name only third-party frames.
here=$(cd "$(dirname "$0")/../sanitize" && pwd)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_stack_use_after_return=1:strict_string_checks=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$here/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-14/bin/llvm-symbolizer}
echo "run_fuzz: $(basename "$bin") for ${seconds}s over $work"
exec "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
  -artifact_prefix="$work.artifacts/" "$work"
