#!/usr/bin/env bash
# Code habits CI enforces (docs/contributing.md): the repository's .clang-format on every C++ file,
# and clang-tidy (.clang-tidy: bugprone, performance, functions of at most 80 lines) on every
# source of core/, server/ and client/, using the release build's compile_commands.json.
# Usage: scripts/lint.sh [BUILD_DIR]   (make lint)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
files=$(git ls-files '*.cc' '*.h')
echo "lint: clang-format on $(echo "$files" | wc -w) files"
clang-format-14 --dry-run -Werror $files
sources=$(git ls-files 'core/*.cc' 'server/*.cc' 'client/*.cc')
echo "lint: clang-tidy on $(echo "$sources" | wc -w) sources"
echo "$sources" | xargs -P "${JOBS:-2}" -n 4 clang-tidy-14 -p "$build" --quiet 2>/dev/null >"$build/clang-tidy.log" || {
  grep -E "(error|warning):" "$build/clang-tidy.log" | sort -u
  echo "lint: clang-tidy found problems (full log: $build/clang-tidy.log)"
  exit 1
}
echo "lint: clean"
