# Shared by the benchmark scripts (sourced, not run).

# The user registers dataprof records with a sample (DP_X86_REGS_MASK in
# sampler/recorder.h, but CS and SS), for perf record --user-regs=$bench_regs
# in the comparisons with perf.
# shellcheck disable=SC2034 # the scripts read it
bench_regs=ax,bx,cx,dx,si,di,bp,sp,ip,flags,r8,r9,r10,r11,r12,r13,r14,r15

# bench_best RUNS OUT COMMAND...: prints "WALL CPU", the seconds of the run
# with the best wall time of RUNS runs and its CPU time (user + system).
# The command's stdout goes to OUT (the last run's stays there). A run that
# fails prints its stderr and makes bench_best fail: a failing command's
# time is no figure.
bench_best() {
	local runs=$1 out=$2 best="" cpu="" t w u s
	shift 2
	t=$(mktemp)
	for _ in $(seq "$runs"); do
		if ! /usr/bin/time -f "%e %U %S" -o "$t" "$@" >"$out" 2>"$t.err"; then
			cat "$t.err" >&2
			rm -f "$t" "$t.err"
			return 1
		fi
		read -r w u s <"$t"
		if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$w
			cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
		fi
	done
	rm -f "$t" "$t.err"
	echo "$best $cpu"
}

# bench_tmp: tmp=a fresh directory, removed when the script exits.
bench_tmp() {
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
}

# bench_build BUILD_DIR TARGET...: configures BUILD_DIR as a release build
# without the tests and builds the targets named (from the source root).
bench_build() {
	local build=$1
	shift
	cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDATAPROF_TESTS=OFF >/dev/null
	cmake --build "$build" -j2 --target "$@" >/dev/null
}
