#!/usr/bin/env bash
# The recorder's memory over a long run: dataprof record at 20 kHz with heap
# tracking (every malloc and free of the target a record) on churn, 8
# threads allocating as fast as they can, its resident size read from /proc
# every second. It must stay flat: ring buffers plus a fixed amount, however
# long the run. The profile goes to /dev/null (gigabytes a minute).
#   bench/record_memory.sh [SECONDS] [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
s=${1:-60}
build=${2:-build}
. bench/lib.sh
bench_build "$build" dataprof dataprof_heap churn
bench_tmp

"$build/dataprof" record --heap -e cpu-clock -F 20000 -o /dev/null -- \
	"$build/bench/churn" 8 "$s" >"$tmp/out" 2>&1 &
rec=$!
t=0
while kill -0 "$rec" 2>/dev/null; do
	rss=$(awk '/^VmRSS/ {print $2}' "/proc/$rec/status" 2>/dev/null || true)
	[ -n "$rss" ] && echo "$t $rss" >>"$tmp/rss"
	sleep 1
	t=$((t + 1))
done
wait "$rec" || true
echo "dataprof record --heap -e cpu-clock -F 20000 -- churn 8 $s (8 threads, malloc/free nonstop)"
grep -E 'churn:|dataprof record:|warning' "$tmp/out" || true
awk -v s="$s" '{ r[NR] = $2; if ($2 > max) max = $2; if (NR == 1 || $2 < min) min = $2 }
	END {
		q = int(NR / 4); if (q < 1) q = 1
		printf "recorder RSS (KiB) at %ds: %d, at 1/4: %d, 1/2: %d, 3/4: %d, end: %d; min %d, max %d\n",
			1, r[1], r[q], r[int(NR / 2)], r[3 * q], r[NR], min, max
		printf "growth from the first quarter to the end: %+d KiB\n", r[NR] - r[q] }' "$tmp/rss"
