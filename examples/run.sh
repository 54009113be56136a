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
