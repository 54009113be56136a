#!/usr/bin/env bash
# Makes the history page the browser test reads, into DIR:
#   history_page.sh DATAPROF FIXTURE_DIR DIR
# four commits of the layout fixture, two runs each: two of layout B, then
# two of layout A, where struct item.b sits on a colder cache line than .a
# (a regression at the third commit): history.sqlite and history.html.
# The runs count simulated cache misses (sim:, deterministic: the runs of one
# layout are alike, so the page has exactly one step to mark); with cpu-clock
# layout B's few samples on .b vary beyond Poisson from run to run (2 and 12
# in two commits), and a step between two commits of B was marked now and
# then. Without the simulator (no Valgrind), cpu-clock.
set -euo pipefail
dataprof=$1 fixtures=$2 dir=$3
mkdir -p "$dir"
cd "$dir"
rm -f history.sqlite history.html ./*.dprof
events=(-e cpu-clock -F 4000) args=()
if "$dataprof" stat -q -e sim:loads -o /dev/null -- true >/dev/null 2>&1; then
	events=(-e sim:l1d-miss -c 100) args=(200000 16)
else
	echo "history_page.sh: no simulator here (sim:): cpu-clock runs, whose marks may vary" >&2
fi
for c in 1 2 3 4; do
	fx=$fixtures/b/layout_O2
	[ "$c" -lt 3 ] || fx=$fixtures/layout_O2
	for r in 1 2; do
		"$dataprof" record -q --heap "${events[@]}" -o "c$c-$r.dprof" -- "$fx" "${args[@]}" \
			>/dev/null
	done
	"$dataprof" history --db history.sqlite add --commit "c$c" \
		--commit-time "2024-05-0${c}T10:00:00Z" --branch main "c$c-1.dprof" "c$c-2.dprof"
done
"$dataprof" history --db history.sqlite show --per run --html history.html
echo "history.html: $(stat -c %s history.html) bytes"
