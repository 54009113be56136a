#!/usr/bin/env bash
# Builds dataprof for release (build/) and prints what code marks cost; then
# the same with the marks' clock forced to clock_gettime.
#   bench/markers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bench_build build bench_markers dataprof_collector
echo "== $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), kernel $(uname -r)," \
	"clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
c="$PWD/build/libdataprof_collector.so"
build/bench/bench_markers "$c"
echo "== the default block: full blocks handed over inside the timed loops"
DATAPROF_MARKER_BLOCK=16384 build/bench/bench_markers "$c"
echo "== the marks' clock forced to clock_gettime"
DATAPROF_MARKER_CLOCK=monotonic build/bench/bench_markers "$c"
