#!/usr/bin/env bash
# The heap tracker's cost (record --heap) on an allocation-heavy workload,
# against perf's way of seeing allocations (a uprobe on malloc), in one run:
#   bench/heap.sh [BUILD_DIR] [ROUNDS] [RUNS]
# Each configuration runs RUNS times; the best time is printed with its
# slowdown over the bare workload. HEAP_BEFORE=OTHER_BUILD_DIR adds the
# Lua run's record --heap under that build (a change's before and after in
# one run); HEAP_LUA_ONLY=1 skips the allocation loop.
set -euo pipefail
build=${1:-build}
rounds=${2:-4000000}
runs=${3:-3}
tmp=$(mktemp -d)
libc=$(ldd "$build/bench/mallocs" | awk '/libc.so/ { print $3 }')
probe=
cleanup() {
	[ -n "$probe" ] && perf probe -q -d "$probe" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
work=("$build/bench/mallocs" "$rounds")

. "$(dirname "$0")/lib.sh"
best() { # command...: the best wall time of RUNS runs
	bench_best "$runs" /dev/null "$@" | cut -d' ' -f1
}

row() { # label seconds
	awk -v l="$1" -v t="$2" -v b="$base" 'BEGIN { printf "%-52s %8.3f s  %6.2fx\n", l, t, t / b }'
}
if [ -z "${HEAP_LUA_ONLY:-}" ]; then
	base=$(best "${work[@]}")
	echo "workload: ${work[*]} (malloc + free each round)"
	row "bare" "$base"
	row "dataprof record -e cpu-clock (no heap)" \
		"$(best "$build/dataprof" record -q -e cpu-clock -o "$tmp/a.dprof" -- "${work[@]}")"
	row "dataprof record --heap -e cpu-clock (every block)" \
		"$(best "$build/dataprof" record -q --heap -e cpu-clock -o "$tmp/b.dprof" -- "${work[@]}")"
	row "dataprof record --heap=4096 -e cpu-clock" \
		"$(best "$build/dataprof" record -q --heap=4096 -e cpu-clock -o "$tmp/c.dprof" -- "${work[@]}")"
	row "dataprof record --heap --heap-depth 4 -e cpu-clock" \
		"$(best "$build/dataprof" record -q --heap --heap-depth 4 -e cpu-clock -o "$tmp/d.dprof" -- "${work[@]}")"
	echo "records of the --heap profile (allocations and frees, mostly): $("$build/dataprof" dump -s \
		"$tmp/b.dprof" | sed -n 's/^# \([0-9]*\) records.*/\1/p'), $(stat -c %s "$tmp/b.dprof") bytes"
	if perf probe -q -x "$libc" malloc 2>/dev/null; then
		probe=probe_libc:malloc
		row "perf record -e cpu-clock -e probe_libc:malloc (uprobe)" \
			"$(best perf record -q -N -e cpu-clock -e "$probe" -o "$tmp/p.data" -- "${work[@]}")"
	else
		echo "perf probe on malloc unavailable here: no uprobe comparison"
	fi
fi

# A real program: Lua (Debian's lua5.4) on a table, string and closure heavy
# script, fixed work; record --heap against the same record without it, and
# heaptrack (a heap profiler) on the same run. Times are CPU seconds (user +
# system of the program and the profiler together, the best of RUNS): on a
# shared machine the wall clock mostly measures the neighbours.
lua_script=$(dirname "$0")/../tests/data/corpus/tables.lua
lua_rounds=${LUA_ROUNDS:-60}
cpu_of() { # command...: the CPU time (user + system, children included) of one run
	/usr/bin/time -o "$tmp/cpu" -f "%U %S %e" "$@" >/dev/null 2>&1
	awk '{ print $1 + $2 }' "$tmp/cpu"
}
least() { # a b: the smaller, either may be empty
	awk -v t="$1" -v b="$2" 'BEGIN { print (b == "" || t < b) ? t : b }'
}
best_cpu() { # command...: the least CPU time of RUNS runs
	local b=
	for _ in $(seq "$runs"); do
		b=$(least "$(cpu_of "$@")" "$b")
	done
	echo "$b"
}
if command -v lua5.4 >/dev/null && [ -x /usr/bin/time ]; then
	work=(lua5.4 "$lua_script" 0 "$lua_rounds")
	echo
	echo "workload: lua5.4 tables.lua, $lua_rounds rounds (tables, strings, closures); CPU seconds"
	# each round runs every configuration once, so that the neighbours'
	# load, which comes and goes, weighs on all of them alike
	# and the wall-clock time, what a user waits for (the recorder works
	# on another CPU where there is one), the best of the same runs
	wall_of_last() { awk '{ print $3 }' "$tmp/cpu"; }
	base= nohp= heap= before= nohp_w= heap_w=
	for _ in $(seq "$runs"); do
		base=$(least "$(cpu_of "${work[@]}")" "$base")
		nohp=$(least "$(cpu_of "$build/dataprof" record -q -e cpu-clock -F 2000 \
			-o "$tmp/l0.dprof" -- "${work[@]}")" "$nohp")
		nohp_w=$(least "$(wall_of_last)" "$nohp_w")
		heap=$(least "$(cpu_of "$build/dataprof" record -q --heap -e cpu-clock -F 2000 \
			-o "$tmp/l1.dprof" -- "${work[@]}")" "$heap")
		heap_w=$(least "$(wall_of_last)" "$heap_w")
		if [ -n "${HEAP_BEFORE:-}" ]; then
			before=$(least "$(cpu_of "$HEAP_BEFORE/dataprof" record -q --heap -e cpu-clock \
				-F 2000 -o "$tmp/l2.dprof" -- "${work[@]}")" "$before")
		fi
	done
	row "bare" "$base"
	row "dataprof record -e cpu-clock -F 2000 (no heap)" "$nohp"
	row "dataprof record --heap -e cpu-clock -F 2000" "$heap"
	awk -v a="$heap" -v b="$nohp" -v aw="$heap_w" -v bw="$nohp_w" 'BEGIN {
		printf "record --heap over record without it: %.2fx in CPU, %.2fx in wall-clock time (%.2f s against %.2f s) (target 1.3x)\n",
			a / b, aw / bw, aw, bw }'
	if [ -n "${HEAP_BEFORE:-}" ]; then
		row "dataprof record --heap -e cpu-clock -F 2000 ($HEAP_BEFORE)" "$before"
		awk -v a="$heap" -v b="$before" -v n="$nohp" -v new="$build" -v old="$HEAP_BEFORE" \
			'BEGIN { printf "record --heap under %s over %s: %.2fx (%s: %.2fx over record without it)\n", new, old, a / b, old, b / n }'
		echo "--heap profile under $HEAP_BEFORE: $(stat -c %s "$tmp/l2.dprof") bytes"
	fi
	echo "--heap profile: $(stat -c %s "$tmp/l1.dprof") bytes; without: $(stat -c %s "$tmp/l0.dprof") bytes"
	if command -v heaptrack >/dev/null; then
		ht=$(best_cpu heaptrack -o "$tmp/ht" "${work[@]}")
		row "heaptrack" "$ht"
		awk -v a="$heap" -v b="$ht" 'BEGIN { printf "record --heap over heaptrack: %.2fx\n", a / b }'
		echo "heaptrack file: $(stat -c %s "$(ls "$tmp"/ht* | head -1)") bytes"
	else
		echo "heaptrack not installed: no comparison (./build.sh test installs it)"
	fi
else
	echo "lua5.4 not installed: no Lua comparison (./build.sh test installs it)"
fi
