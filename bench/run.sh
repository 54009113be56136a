#!/usr/bin/env bash
# Runs every benchmark on the release build: ./build.sh build && bench/run.sh
# (each prints dataprof's figures beside its peer's; bench/README.md has the
# latest ones and says what each measures)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
. bench/lib.sh
bench_tmp

echo "== record overhead (dataprof vs perf)"
bench/record_overhead.sh "$build" "${RUNS:-5}"
echo
echo "== decode throughput"
"$build/dataprof" record -q -e cpu-clock -F 4000 -e page-faults -o "$tmp/p.dprof" -- \
	"$build/examples/hashtable" 1048576 4000000 >/dev/null
"$build/bench/inflate" "$tmp/p.dprof" "$tmp/big.dprof" -s 2000000
"$build/bench/decode_bench" "$tmp/big.dprof"
echo
echo "== annotate throughput and DWARF scaling (4000 functions)"
bench/annotate.sh "$build"
echo
echo "== report throughput (dataprof vs perf)"
bench/report_bench.sh "$build"
echo
echo "== report --jobs 1 and all CPUs against perf report --sort sym, same perf.data"
bench/report_jobs.sh "$build" 3 1000000 10000000
echo
echo "== heap tracker (record --heap vs a perf uprobe on malloc)"
bench/heap.sh "$build"
echo
echo "== system counters"
bench/counters.sh "$build"
echo
echo "== code markers"
bench/markers.sh "$build"
echo
echo "== sim: events (record -e sim:... vs Cachegrind)"
bench/sim.sh "$build"
