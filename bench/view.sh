#!/usr/bin/env bash
# dataprof view's cost with large profiles: page generation time, peak
# memory and page size at about 1M and 10M samples (a real profile's samples
# repeated by bench/inflate: same distinct values, N times the samples), and
# the page's render and pan times in Chromium (view_render.js); then a
# synthetic page at the model's cap (view_stress.py).
#   bench/view.sh [BUILD_DIR]     (a release build: ./build.sh build)
set -euo pipefail
build=${1:-build}
src=$(cd "$(dirname "$0")/.." && pwd)
dataprof=$build/dataprof
. "$(dirname "$0")/lib.sh"
bench_tmp

# playwright-core for the render time, from the tests' lock file
mkdir -p "$tmp/node"
cp "$src/tests/browser/package.json" "$src/tests/browser/package-lock.json" "$tmp/node/"
npm ci --no-audit --no-fund --prefix "$tmp/node" >/dev/null 2>&1
export NODE_PATH=$tmp/node/node_modules

"$dataprof" record -q --heap --counters default --interval 20ms -e cpu-clock -F 10000 \
	-o "$tmp/base.dprof" -- "$build/examples/hashtable" >/dev/null
n=$("$dataprof" dump -s "$tmp/base.dprof" | sed -n 's/.* records, \([0-9]*\) samples.*/\1/p')
echo "base profile: examples/hashtable, cpu-clock at 10 kHz, counters every 20 ms: $n samples"
printf '%-10s %9s %9s %10s %10s %8s %10s %10s\n' samples "gen s" "gen MiB" "page MB" "buckets" "cells" \
	"ready ms" "pan ms"
for target in 1000000 10000000; do
	k=$(((target + n - 1) / n))
	"$build/bench/inflate" "$tmp/base.dprof" "$tmp/big.dprof" "$k"
	/usr/bin/time -f "%e %M" -o "$tmp/time" "$dataprof" view "$tmp/big.dprof" -o "$tmp/big.html"
	read -r secs kib <"$tmp/time"
	size=$(stat -c %s "$tmp/big.html")
	read -r bw nb nc < <(python3 -c "
import json,re,sys
s=open('$tmp/big.html').read()
d=json.loads(re.search(r'id=\"dp-data\">(.*?)</script>',s,re.S).group(1))
print(d['time']['bucket_ns'],d['time']['nbuckets'],d['ncells'])")
	r=$(node "$src/bench/view_render.js" "$tmp/big.html" 3)
	ready=$(echo "$r" | sed -n 's/.*ready_ms_median \([0-9.]*\).*/\1/p')
	pan=$(echo "$r" | sed -n 's/.*pan_redraw_ms_median \([0-9.]*\) pan_redraw_ms_worst \([0-9.]*\).*/\1 (worst \2)/p')
	awk -v s=$((n * k)) -v t="$secs" -v m="$kib" -v z="$size" -v nb="$nb" -v nc="$nc" -v r="$ready" -v p="$pan" \
		'BEGIN { printf "%-10d %9.2f %9.1f %10.2f %10d %8d %10s %s\n", s, t, m / 1024, z / 1e6, nb, nc, r, p }'
	[ "$target" = 1000000 ] && cp "$tmp/big.html" "$tmp/small.html"
	rm -f "$tmp/big.dprof" "$tmp/big.html"
done
# the worst a page can be: the model's cap of 1M cells, 32 threads, 400
# combinations (synthetic data in the 1M page's frame)
python3 "$src/bench/view_stress.py" "$tmp/small.html" "$tmp/stress.html" >/dev/null
r=$(node "$src/bench/view_render.js" "$tmp/stress.html" 3)
printf 'synthetic page at the cell cap (1M cells, 32 threads): %.2f MB, %s\n' \
	"$(awk -v s="$(stat -c %s "$tmp/stress.html")" 'BEGIN { print s / 1e6 }')" "$r"
