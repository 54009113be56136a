#!/usr/bin/env bash
# Annotate throughput and DWARF scaling on a program with thousands of
# functions (bench/gen_wide.py: UNITS compilation units of FUNCS functions):
#   bench/annotate.sh [BUILD_DIR] [UNITS] [FUNCS] [SAMPLES]
# 1. all units touched, the profile inflated to SAMPLES: samples/s warm;
# 2. the same binary, 4 units touched: the first pass (the DWARF reading)
#    must cost a fraction, as it grows with the units touched, not the binary.
set -euo pipefail
build=${1:-build}
units=${2:-200}
funcs=${3:-20}
samples=${4:-1000000}
. "$(dirname "$0")/lib.sh"
bench_tmp

python3 "$(dirname "$0")/gen_wide.py" "$tmp/src" "$units" "$funcs"
echo "building a program of $units units x $funcs functions..." >&2
(cd "$tmp/src" && for f in *.c; do echo "$f"; done |
	xargs -P "$(nproc)" -I{} gcc -O2 -g -c {} -o {}.o && gcc -o ../wide ./*.o)
size=$(stat -c %s "$tmp/wide")

run() { # touched-units rounds label
	"$build/dataprof" record -q -e cpu-clock -F 10000 -o "$tmp/$3.dprof" -- \
		"$tmp/wide" "$1" "$2" >/dev/null
	"$build/bench/inflate" "$tmp/$3.dprof" "$tmp/$3.big.dprof" -s "$samples" 2>/dev/null
	echo "== $3: $1 of $units units touched ($((units * funcs)) functions, binary $((size / 1024)) KiB)"
	"$build/bench/annotate_bench" "$tmp/$3.big.dprof"
}
run "$units" 1500 all
run 4 $((1500 * units / 4)) few
