#!/usr/bin/env bash
# The suite on a machine whose kernel accepts hardware breakpoints and never
# fires them (Firecracker guests), on any machine: support/nofire.c makes
# every breakpoint a software event that never counts. The breakpoint tests
# must skip with that reason and everything else still pass; dataprof doctor
# must say so, and record must warn rather than write an empty profile
# silently.
#
#   nofire.sh BUILD_DIR SHIM TEST_BINARY...
set -euo pipefail
build=$1 shim=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LD_PRELOAD=$shim
# the test programs carry ASan, the shim comes first: allowed here
export ASAN_OPTIONS=verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}
export DATAPROF_TEST_PROBES=$work/probes.txt DATAPROF_TEST_SKIPS=$work/skipped.txt
dataprof=$build/dataprof
fail() { echo "nofire: $*" >&2; exit 1; }

"$build/tests/tu_probe_machine" >/dev/null || fail "the probes did not run"
grep -q '^breakpoint	no	' "$work/probes.txt" || fail "the probe saw breakpoints fire: $(cat "$work/probes.txt")"

"$dataprof" doctor >"$work/doctor.txt"
grep -q '^no   breakpoint' "$work/doctor.txt" || fail "doctor says: $(cat "$work/doctor.txt")"
grep -q '^yes  page-faults' "$work/doctor.txt" || fail "doctor says: $(cat "$work/doctor.txt")"

watch=$build/tests/fixtures/watch_O2
addr=$(nm "$watch" | awk '$3 == "watched" { print $1 }')
"$dataprof" record -q -o "$work/bp.dprof" -e "mem:0x$addr/8:rw" -- "$watch" 10 5 \
	>/dev/null 2>"$work/record.err" || fail "record failed: $(cat "$work/record.err")"
[ "$(grep -c 'warning' "$work/record.err")" = 1 ] || fail "record said: $(cat "$work/record.err")"
grep -q "gave no sample: hardware breakpoints do not fire on this machine" "$work/record.err" ||
	fail "record said: $(cat "$work/record.err")"
"$dataprof" dump "$work/bp.dprof" | grep -q 'WARNING.*do not fire' ||
	fail "the profile keeps no warning"

for t in "$@"; do
	(cd "$build/tests/e2e" && "$t") >"$work/out.txt" 2>&1 ||
		{ cat "$work/out.txt"; fail "$(basename "$t") failed where breakpoints do not fire"; }
done
echo "skipped where breakpoints do not fire:"
sed 's/^/  /' "$work/skipped.txt"
n=$(grep -c 'hardware breakpoints do not fire' "$work/skipped.txt" || true)
[ "$n" -ge "${NOFIRE_MIN_SKIPS:-1}" ] || fail "$n tests skipped, expected at least ${NOFIRE_MIN_SKIPS:-1}"
grep -v 'hardware breakpoints do not fire' "$work/skipped.txt" && fail "skipped for another reason"
echo "nofire: $# test programs pass, $n tests skipped for breakpoints"
