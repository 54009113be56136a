#!/usr/bin/env bash
# Records the profiles the browser and export tests read, into DIR:
#   profiles.sh DATAPROF FIXTURE_DIR DIR
#   full.dprof   phases: samples, heap, code marks, counters
#   plain.dprof  split: samples and heap objects; no counters, no marks
#   empty.dprof  no samples at all
# and the pages of each (full.html, plain.html, empty.html); with perf,
# a perf.data of split and its page (perf.html).
set -euo pipefail
dataprof=$1 fixtures=$2 dir=$3
mkdir -p "$dir"
cd "$dir"
rm -f ./*.dprof ./*.html perf.data
"$dataprof" record -q --heap --markers --counters default --interval 20ms -e cpu-clock -F 2000 \
	-o full.dprof -- "$fixtures/phases_O2" >/dev/null
"$dataprof" record -q --heap -e cpu-clock -F 2000 -o plain.dprof -- "$fixtures/split_O2" 300 >/dev/null
# one sample a second: 'true' is done long before the first
"$dataprof" record -q -e cpu-clock -F 1 -o empty.dprof -- true >/dev/null
for p in full plain empty; do
	"$dataprof" view "$p.dprof" -o "$p.html"
done
if perf record -q -e cpu-clock -F 2000 -o perf.data -- "$fixtures/split_O2" 200 >/dev/null 2>&1; then
	"$dataprof" view perf.data -o perf.html
	grep -q '"samples":[1-9]' perf.html || { echo "perf.html: no samples in the page" >&2; exit 1; }
	echo "perf.data: page written ($(stat -c %s perf.html) bytes)"
else
	echo "perf cannot record here: no perf.data page"
fi
ls -l "$dir"
