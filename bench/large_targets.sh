#!/usr/bin/env bash
# Large targets, recorded at 1 kHz and reported (release build):
#   1. bigwork: 64 threads over a 1 GiB working set, for SECONDS;
#   2. manyfuncs: a binary of 50,000 functions (its source generated at
#      build time, bench/genfuncs.c), calling them all at random.
# For each: samples, lost samples, the recorder's peak RSS (VmHWM of the
# dataprof process alone), the profile's size; then dataprof report (the
# overview, and --by function) with its time and peak RSS.
#   bench/large_targets.sh [SECONDS] [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
s=${1:-10}
build=${2:-build}
. bench/lib.sh
bench_build "$build" dataprof bigwork manyfuncs
bench_tmp

# record OUT CMD...: records CMD at 1 kHz, prints samples, lost, peak RSS
record() {
	local out=$1 hwm=0 h rec
	shift
	"$build/dataprof" record -e cpu-clock -F 1000 -o "$out" -- "$@" >"$tmp/out" 2>&1 &
	rec=$!
	while kill -0 "$rec" 2>/dev/null; do
		h=$(awk '/^VmHWM/ {print $2}' "/proc/$rec/status" 2>/dev/null || true)
		[ -n "$h" ] && hwm=$h
		sleep 0.2
	done
	wait "$rec" || { cat "$tmp/out" >&2; exit 1; }
	grep -v '^\[ dataprof' "$tmp/out" | grep -v TRUTH || true
	sed -n 's/^\[ dataprof record: \([0-9]*\) samples.*, \([0-9]*\) lost, \([0-9.]*\) KiB.*/\1 \2 \3/p' \
		"$tmp/out" | awk -v hwm="$hwm" '{
		printf "  record: %d samples, %d lost, peak RSS %.1f MiB, profile %.1f MiB\n",
			$1, $2, hwm / 1024, $3 / 1024 }'
}

# report LABEL ARGS...: time and peak RSS of one dataprof report
report() {
	local label=$1
	shift
	/usr/bin/time -f "%e %M" -o "$tmp/time" "$build/dataprof" report "$@" >"$tmp/report" \
		2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	read -r t m <"$tmp/time"
	printf '  report %-22s %6.2f s, peak RSS %6.1f MiB, %d lines\n' "$label:" "$t" \
		"$(echo "$m / 1024" | bc -l)" "$(wc -l <"$tmp/report")"
}

echo "== $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) CPUs," \
	"kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bigwork: 64 threads, 1 GiB working set, ${s} s, cpu-clock at 1 kHz"
record "$tmp/big.dprof" "$build/bench/bigwork" 64 1024 "$s"
report "(overview)" "$tmp/big.dprof"
report "--by function" --by function "$tmp/big.dprof"
report "--by thread" --by thread -n 100 "$tmp/big.dprof"
echo "manyfuncs: $(nm "$build/bench/manyfuncs" | grep -c ' T f[0-9]') functions" \
	"($(du -k "$build/bench/manyfuncs" | cut -f1) KiB binary), ${s} s, cpu-clock at 1 kHz"
record "$tmp/many.dprof" "$build/bench/manyfuncs" "$s"
report "(overview)" "$tmp/many.dprof"
report "--by function" --by function -n 100000 "$tmp/many.dprof"
echo "  distinct functions with samples: $(grep -c '  f[0-9]' "$tmp/report")"
