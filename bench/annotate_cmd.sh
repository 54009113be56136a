#!/usr/bin/env bash
# dataprof annotate (the command): the hottest 20 functions of a 1M-sample
# profile, which must take under a second; then dataprof annotate against
# perf annotate --stdio on the same perf.data file (every sampled function,
# both), and the ratio:
#   bench/annotate_cmd.sh [BUILD_DIR] [SAMPLES]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
build=${1:-build}
samples=${2:-1000000}
dataprof=$build/dataprof
bench_tmp
work=("$build/examples/hashtable" 1048576 30000000)

# the wall and CPU (user + system) seconds of one command, best of 3 by
# wall time: the machine is shared, and on a loaded one the CPU time is
# what the command itself cost
best() { bench_best 3 "$tmp/out" "$@"; }

"$dataprof" record -q -e cpu-clock -F 20000 -o "$tmp/d.dprof" -- "${work[@]}" >/dev/null
"$build/bench/inflate" "$tmp/d.dprof" "$tmp/big.dprof" -s "$samples" 2>/dev/null
n=$("$dataprof" dump -s "$tmp/big.dprof" 2>/dev/null | sed -n 's/.* records, \([0-9]*\) samples.*/\1/p')
read -r t tc < <(best "$dataprof" annotate -i "$tmp/big.dprof" -n 20)
shown=$(grep -c '^== ' "$tmp/out" || true)
rows=$(wc -l <"$tmp/out")
echo "workload: ${work[*]}, cpu-clock at 20 kHz, inflated to $n samples"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
awk -v t="$t" -v c="$tc" -v n="$n" -v s="$shown" -v r="$rows" 'BEGIN {
	printf "dataprof annotate -n 20: %d functions shown (%d lines) from %d samples in %.3f s wall, %.3f s CPU (%s)\n",
		s, r, n, t, c, t < 1 ? "under a second" : c < 1 ? "CPU under a second; wall over, on a loaded machine" : "OVER A SECOND" }'

if ! perf record -q -N -e cpu-clock -F 20000 --user-regs="$bench_regs" -o "$tmp/p.data" -- \
	"${work[@]}" >/dev/null 2>&1; then
	echo "perf record failed here: no comparison with perf annotate"
	exit 0
fi
pn=$(perf script -i "$tmp/p.data" -F ip 2>/dev/null | wc -l)
nf=$("$dataprof" annotate -i "$tmp/p.data" --json -n 100000 |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["functions_sampled"])')
read -r dt dc < <(best "$dataprof" annotate -i "$tmp/p.data" -n 100000)
read -r pt pc < <(best perf annotate -i "$tmp/p.data" --stdio)
awk -v dt="$dt" -v pt="$pt" -v dc="$dc" -v pc="$pc" -v n="$pn" -v f="$nf" 'BEGIN {
	printf "same perf.data (%d samples, %d functions, all annotated): dataprof %.3f s (CPU %.3f), perf annotate --stdio %.3f s (CPU %.3f): %.1fx wall, %.1fx CPU\n",
		n, f, dt, dc, pt, pc, pt / (dt > 0 ? dt : 0.001), pc / (dc > 0 ? dc : 0.001) }'
