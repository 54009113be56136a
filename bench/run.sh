#!/usr/bin/env bash
# Runs every benchmark on the release build: ./build.sh build && bench/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== record overhead (dataprof vs perf)"
bench/record_overhead.sh "$build" "${RUNS:-5}"
echo
echo "== decode throughput"
"$build/dataprof" record -q -e cpu-clock -F 4000 -e page-faults -o "$tmp/p.dprof" -- \
	"$build/examples/hashtable" 1048576 4000000 >/dev/null
"$build/bench/decode_bench" "$tmp/p.dprof" 2000000
echo
echo "== report throughput (dataprof vs perf)"
bench/report_bench.sh "$build"
