#!/usr/bin/env bash
# Profiles the bundled example and prints its report (./build.sh example).
set -euo pipefail
dataprof=${1:-build/dataprof}
bin=${2:-build/examples}
out=${TMPDIR:-/tmp}/dataprof-example.dprof
echo "== dataprof record --heap -e cpu-clock -F 2000 -- hashtable" >&2
"$dataprof" record --heap -e cpu-clock -F 2000 -o "$out" -- "$bin/hashtable"
echo >&2
echo "== dataprof report $out" >&2
"$dataprof" report "$out"

# The same question on simulated caches (docs/sim.md): where Valgrind and
# dataprof's tool are there, the example's last-level-cache misses by data
# object and member, weighted by their modelled latency.
if command -v valgrind >/dev/null && [ -x "$(dirname "$dataprof")/valgrind/dpsim-amd64-linux" ]; then
	sim=${TMPDIR:-/tmp}/dataprof-example-sim.dprof
	echo >&2
	echo "== dataprof record --heap -e sim:llc-miss -- hashtable 1048576 1048576" >&2
	"$dataprof" record --heap -e sim:llc-miss -o "$sim" -- "$bin/hashtable" 1048576 1048576
	echo >&2
	echo "== dataprof report --by object,member -m weight $sim" >&2
	"$dataprof" report --by object,member -m weight "$sim"
fi
