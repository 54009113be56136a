#!/usr/bin/env bash
# dataprof report against perf report on the same workload, same event,
# same frequency and the same register capture, in one run:
#   bench/report_bench.sh [BUILD_DIR]
# Prints samples per second for each and their ratio; then dataprof
# report's peak memory on the same profile 1x and 8x (samples repeated),
# which must not grow with samples.
set -euo pipefail
build=${1:-build}
dataprof=$build/dataprof
. "$(dirname "$0")/lib.sh"
bench_tmp
work=("$build/examples/hashtable" 1048576 30000000)

"$dataprof" record -q -e cpu-clock -F 20000 -o "$tmp/d.dprof" -- "${work[@]}" >/dev/null
perf record -q -N -e cpu-clock -F 20000 --user-regs="$bench_regs" -o "$tmp/p.data" -- "${work[@]}" \
	>/dev/null 2>&1
ds=$("$dataprof" dump -s "$tmp/d.dprof" | sed -n 's/.* records, \([0-9]*\) samples.*/\1/p')
ps=$(perf report -i "$tmp/p.data" --stdio --sort dso 2>/dev/null |
	sed -n "s/^# Samples: \([0-9.]*[KM]*\).*/\1/p" | head -1)
ps_n=$(perf script -i "$tmp/p.data" -F ip 2>/dev/null | wc -l)

# the time of one command, in seconds, and its peak RSS in KiB
measure() {
	/usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" ||
		{ cat "$tmp/err" >&2; exit 1; }
	cat "$tmp/time"
}
read -r dt dm < <(measure "$dataprof" report "$tmp/d.dprof" --by function --then line -n 1000,1000)
read -r pt pm < <(measure perf report -i "$tmp/p.data" --sort sym,srcline --stdio)
# the same perf.data file, read by dataprof (issue: perf.data reading)
read -r qt qm < <(measure "$dataprof" report -i "$tmp/p.data" --by function --then line -n 1000,1000)
echo "workload: ${work[*]}, cpu-clock at 20 kHz with user registers"
printf '%-44s %9s %9s %12s %10s\n' "" samples seconds "samples/s" "peak MiB"
awk -v s="$ds" -v t="$dt" -v m="$dm" 'BEGIN { printf "%-44s %9d %9.3f %12.0f %10.1f\n",
	"dataprof report --by function --then line", s, t, s / (t > 0 ? t : 0.001), m / 1024 }'
awk -v s="$ps_n" -v t="$pt" -v m="$pm" 'BEGIN { printf "%-44s %9d %9.3f %12.0f %10.1f\n",
	"perf report --sort sym,srcline", s, t, s / (t > 0 ? t : 0.001), m / 1024 }'
awk -v s="$ps_n" -v t="$qt" -v m="$qm" 'BEGIN { printf "%-44s %9d %9.3f %12.0f %10.1f\n",
	"dataprof report -i perf.data (same file)", s, t, s / (t > 0 ? t : 0.001), m / 1024 }'
awk -v a="$ds" -v at="$dt" -v b="$ps_n" -v bt="$pt" 'BEGIN {
	printf "throughput ratio dataprof/perf: %.1fx\n", (a / (at > 0 ? at : 0.001)) / (b / (bt > 0 ? bt : 0.001)) }'
awk -v bt="$pt" -v qt="$qt" 'BEGIN {
	printf "on the same perf.data file, dataprof/perf: %.1fx\n", (bt > 0 ? bt : 0.001) / (qt > 0 ? qt : 0.001) }'

# memory with 8x the samples and the same distinct values
"$build/bench/inflate" "$tmp/d.dprof" "$tmp/d8.dprof" 8
read -r t1 m1 < <(measure "$dataprof" report "$tmp/d.dprof" --by object --then member)
read -r t8 m8 < <(measure "$dataprof" report "$tmp/d8.dprof" --by object --then member)
awk -v s="$ds" -v t1="$t1" -v m1="$m1" -v t8="$t8" -v m8="$m8" 'BEGIN {
	printf "aggregate-only path, 1x: %d samples %.3f s %.1f MiB; 8x: %d samples %.3f s %.1f MiB\n",
		s, t1, m1 / 1024, 8 * s, t8, m8 / 1024 }'
