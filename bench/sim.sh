#!/usr/bin/env bash
# sim: events against Cachegrind on the same work, in one run:
#   bench/sim.sh [BUILD_DIR] [MIB] [MILLIONS] [RUNS]
# memwalk (random reads and writes over MIB MiB) under
#   valgrind --tool=cachegrind --cache-sim=yes   (the peer: same simulation)
#   dataprof stat -e sim:l1d-miss,sim:llc-miss   (counting only)
#   dataprof record -e sim:l1d-miss              (sampling, default period)
#   dataprof record -e sim:mem -c 1              (every access a sample)
# with the same geometry; the best wall time of RUNS runs each, and its
# ratio to Cachegrind's. sim:mem -c 1 writes a sample per access (about 250
# bytes each): it runs on a work 16 times smaller, against its own
# Cachegrind time.
set -euo pipefail
build=${1:-build}
mib=${2:-64}
millions=${3:-4}
runs=${4:-3}
. "$(dirname "$0")/lib.sh"
bench_tmp
work=("$build/bench/memwalk" "$mib" "$millions")
geom="l1d=32K:8:64,l2=none,llc=2M:16:64"

best() { # command...: the best wall time of RUNS runs
	bench_best "$runs" /dev/null "$@" | cut -d' ' -f1
}

cg=$(best valgrind --tool=cachegrind --cache-sim=yes --D1=32768,8,64 --LL=2097152,16,64 \
	--cachegrind-out-file=/dev/null "${work[@]}")
row() { # label seconds
	awk -v l="$1" -v t="$2" -v b="$cg" 'BEGIN { printf "%-58s %8.2f s  %5.2fx Cachegrind\n", l, t, t / b }'
}
echo "workload: ${work[*]} (geometry $geom; best of $runs)"
row "valgrind --tool=cachegrind --cache-sim=yes" "$cg"
row "dataprof stat -e sim:l1d-miss,sim:llc-miss" \
	"$(best "$build/dataprof" stat -e sim:l1d-miss,sim:llc-miss --sim-cache "$geom" -- "${work[@]}")"
row "dataprof record -e sim:l1d-miss (period 1000)" \
	"$(best "$build/dataprof" record -q -e sim:l1d-miss --sim-cache "$geom" -o "$tmp/a.dprof" -- "${work[@]}")"
row "dataprof record --heap -e sim:l1d-miss" \
	"$(best "$build/dataprof" record -q --heap -e sim:l1d-miss --sim-cache "$geom" -o "$tmp/h.dprof" -- "${work[@]}")"
rm -f "$tmp"/*.dprof
small=("$build/bench/memwalk" "$((mib / 4 > 0 ? mib / 4 : 1))" "$((millions / 4 > 0 ? millions / 4 : 1))")
cg=$(best valgrind --tool=cachegrind --cache-sim=yes --D1=32768,8,64 --LL=2097152,16,64 \
	--cachegrind-out-file=/dev/null "${small[@]}")
echo "workload: ${small[*]}"
row "valgrind --tool=cachegrind --cache-sim=yes" "$cg"
row "dataprof record -e sim:mem -c 1 (every access a sample)" \
	"$(best "$build/dataprof" record -q -e sim:mem -c 1 --sim-cache "$geom" -o "$tmp/m.dprof" -- "${small[@]}")"
echo "sim:mem -c 1 profile: $(du -h "$tmp/m.dprof" | cut -f1)"
