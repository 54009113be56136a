#!/usr/bin/env bash
# dataprof report with --jobs 1 and with every CPU, against perf report
# --sort sym, on the same perf.data file (dataprof reads it with -i), in one
# run: samples/s (wall, best of RUNS; and per CPU second, which a shared
# machine disturbs less) and peak RSS of each, and the ratios of wall times;
# then dataprof view and annotate the same way (they have no peer here:
# perf annotate disassembles with objdump per symbol, another job).
#   bench/report_jobs.sh [BUILD_DIR] [RUNS] [SAMPLES...]
# SAMPLES: the sizes to inflate the recording to (bench/inflate_perf.py);
# default 1000000. dataprof does full attribution (the default view:
# data object, member and line of every sample); perf only symbols.
set -euo pipefail
build=${1:-build}
runs=${2:-3}
shift $(($# > 2 ? 2 : $#))
sizes=("$@")
((${#sizes[@]})) || sizes=(1000000)
dataprof=$build/dataprof
here=$(cd "$(dirname "$0")" && pwd)
. "$(dirname "$0")/lib.sh"
bench_tmp
work=("$build/examples/hashtable" 1048576 10000000)
ncpu=$("$dataprof" report --help >/dev/null && nproc)

perf record -q -N -e cpu-clock -F 20000 --user-regs="$bench_regs" -o "$tmp/rec.data" -- "${work[@]}" \
	>/dev/null 2>&1

# best of $runs by wall time: "WALL CPU PEAK_KIB" of that run
measure() {
	local best="" line w u s m
	for _ in $(seq "$runs"); do
		/usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" ||
			{ cat "$tmp/err" >&2; exit 1; }
		read -r w u s m <"$tmp/time"
		line="$w $(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }') $m"
		if [ -z "$best" ] || awk -v a="$w" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
			best=$line
		fi
	done
	echo "$best"
}

echo "workload: ${work[*]}, perf record cpu-clock at 20 kHz with user registers;"
echo "samples repeated to each size (bench/inflate_perf.py); $ncpu CPUs; best of $runs by wall time"
printf '%-34s %10s %8s %8s %12s %12s %9s\n' "" samples wall cpu "samples/s" "per CPU-s" "peak MiB"
for n in "${sizes[@]}"; do
	f=$tmp/p$n.data
	got=$(python3 "$here/inflate_perf.py" "$tmp/rec.data" "$f" "$n")
	read -r w1 c1 m1 < <(measure "$dataprof" report -i "$f" --jobs 1)
	read -r wn cn mn < <(measure "$dataprof" report -i "$f" --jobs "$ncpu")
	read -r wp cp mp < <(measure perf report -i "$f" --sort sym --stdio)
	row() {
		awk -v l="$1" -v s="$got" -v w="$2" -v c="$3" -v m="$4" 'BEGIN {
			printf "%-34s %10d %8.3f %8.3f %12.0f %12.0f %9.1f\n", l, s, w, c,
				s / (w > 0 ? w : 0.001), s / (c > 0 ? c : 0.001), m / 1024 }'
	}
	row "dataprof report --jobs 1" "$w1" "$c1" "$m1"
	row "dataprof report --jobs $ncpu" "$wn" "$cn" "$mn"
	row "perf report --sort sym" "$wp" "$cp" "$mp"
	awk -v w1="$w1" -v wn="$wn" -v wp="$wp" -v n="$ncpu" 'BEGIN {
		printf "  --jobs %d / --jobs 1: %.2fx; dataprof --jobs 1 / perf: %.2fx; --jobs %d / perf: %.2fx\n",
			n, w1 / wn, wp / w1, n, wp / wn }'
	for cmd in "view -o /dev/null" annotate; do
		read -r w1 c1 m1 < <(measure "$dataprof" $cmd -i "$f" --jobs 1)
		read -r wn cn mn < <(measure "$dataprof" $cmd -i "$f" --jobs "$ncpu")
		row "dataprof ${cmd%% *} --jobs 1" "$w1" "$c1" "$m1"
		row "dataprof ${cmd%% *} --jobs $ncpu" "$wn" "$cn" "$mn"
		awk -v w1="$w1" -v wn="$wn" -v n="$ncpu" 'BEGIN {
			printf "  --jobs %d / --jobs 1: %.2fx\n", n, w1 / wn }'
	done
	rm -f "$f"
done
