#!/usr/bin/env bash
# report --jobs under ThreadSanitizer, by hand (not in ctest: a build of its
# own, and ASan, which the test build uses, excludes TSan):
#   tests/tsan_report.sh [PROFILE...]
# Builds dataprof with -fsanitize=thread into build-tsan/, records the
# bundled example with --heap when no profile is given, and runs report
# with --jobs 4 in several views on each profile; any data race fails it.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-tsan
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDATAPROF_TESTS=OFF \
	-DDATAPROF_TSAN=ON -DDATAPROF_SIM=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target dataprof hashtable >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
profiles=("$@")
if ((${#profiles[@]} == 0)); then
	# (recorded by the release build's recorder when there is one: TSan
	# slows the recorder, not what report reads)
	rec=build/dataprof
	[ -x "$rec" ] || rec=$build/dataprof
	"$rec" record -q --heap -e cpu-clock -F 4000 -o "$tmp/p.dprof" -- \
		"$build/examples/hashtable" 65536 2000000 >/dev/null
	profiles=("$tmp/p.dprof")
fi
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}"
for p in "${profiles[@]}"; do
	for view in "" "--json" "--by function --then line" "--by thread,object --then member"; do
		# shellcheck disable=SC2086
		"$build/dataprof" report --jobs 4 $view "$p" >/dev/null
	done
	echo "tsan: report --jobs 4 of $p: no data race"
done
