#!/usr/bin/env bash
# The whole test suite under Valgrind's memcheck (docs/reliability.md): a
# build without sanitizers in build-valgrind/ (-DDATAPROF_VALGRIND=ON) in
# which every test, and every dataprof a test starts, runs under valgrind
# with the suppressions of tests/valgrind.supp; then ctest -L valgrind.
# A memcheck error or a definite leak fails the test (exit 99).
#   tests/valgrind.sh [CTEST OPTIONS...]      e.g. -R test_report, -j2
# Exit status: ctest's; 77 without valgrind.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$src/build-valgrind}
command -v valgrind >/dev/null || { echo "valgrind.sh: no valgrind: skipped" >&2; exit 77; }
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DDATAPROF_VALGRIND=ON >/dev/null
cmake --build "$build" -j"${JOBS:-2}"
exec ctest --test-dir "$build" -L valgrind --output-on-failure --timeout 3600 "$@"
