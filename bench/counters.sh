#!/usr/bin/env bash
# Builds dataprof for release (build/) and prints what collecting system
# counters costs at a 10 ms interval: each source's collect, and the CPU time
# of the collector thread over 10 s, for the default set and for every
# counter there is.
#   bench/counters.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
s=${1:-10}
. bench/lib.sh
bench_build build bench_counters
echo "== $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) CPUs," \
	"kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
build/bench/bench_counters --interval 10 --seconds "$s" --counters default
build/bench/bench_counters --interval 10 --seconds "$s" --counters '*' 2>/dev/null
