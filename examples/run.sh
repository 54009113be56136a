#!/usr/bin/env bash
# Profiles the bundled example and prints its report (./build.sh example).
set -euo pipefail
dataprof=${1:-build/dataprof}
bin=${2:-build/examples}
out=${TMPDIR:-/tmp}/dataprof-example.dprof
echo "== dataprof record -e cpu-clock -e page-faults -- hashtable" >&2
"$dataprof" record -e cpu-clock -F 2000 -e page-faults -o "$out" -- "$bin/hashtable"
echo >&2
echo "== dataprof dump --summary $out" >&2
"$dataprof" dump --summary "$out"
