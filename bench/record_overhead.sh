#!/usr/bin/env bash
# Overhead of dataprof record against perf record, on the same memory-bound
# workload, same event, frequency and register capture, in one run.
#   bench/record_overhead.sh [BUILD_DIR] [RUNS]
# Prints, per frequency, the median slowdown of each recorder over the
# workload alone, and their ratio.
set -euo pipefail
build=${1:-build}
runs=${2:-5}
dataprof=$build/dataprof
work=$build/bench/memwalk
args=(256 40)
. "$(dirname "$0")/lib.sh"
bench_tmp

# the workload's own time (it prints it), median of $runs
measure() {
	local i ts=()
	for ((i = 0; i < runs; i++)); do
		ts+=("$("$@" | awk '/seconds/ {print $1}')")
	done
	printf '%s\n' "${ts[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

echo "workload: $work ${args[*]} (random read+write over 256 MiB), $runs runs each, median"
base=$(measure "$work" "${args[@]}")
printf '%-10s %-28s %10s %9s\n' freq recorder seconds slowdown
printf '%-10s %-28s %10.4f %9s\n' - "none" "$base" -
for f in 1000 10000; do
	dp=$(measure "$dataprof" record -q -e cpu-clock -F $f -o "$tmp/d.dprof" -- "$work" "${args[@]}")
	pf=$(measure perf record -q -N -e cpu-clock -F $f --user-regs="$bench_regs" -o "$tmp/p.data" -- \
		"$work" "${args[@]}")
	awk -v f=$f -v b="$base" -v d="$dp" -v p="$pf" 'BEGIN {
		sd = (d / b - 1) * 100; sp = (p / b - 1) * 100
		printf "%-10s %-28s %10.4f %8.2f%%\n", f "Hz", "dataprof record", d, sd
		printf "%-10s %-28s %10.4f %8.2f%%\n", f "Hz", "perf record --user-regs", p, sp
		printf "%-10s dataprof/perf time ratio: %.3f\n", f "Hz", d / p
	}'
done
