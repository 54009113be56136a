#!/usr/bin/env bash
# dataprof history in its two stores on the same work, in one run:
#   bench/history.sh [BUILD_DIR] [WRITERS] [PER_WRITER]
# 8 writers at once (default) each add 50 runs (default), ten adds of five of
# their own and two of their neighbour's (added again: stored once), to an
# SQLite file and to a PostgreSQL database on a throwaway server
# (tests/e2e/pg_cluster.sh; left out where none can start). The runs are
# copies of three recordings of the example, each with a META record of its
# own (docs/history.md: a run's identity). Prints the wall time of the adds,
# runs stored per second, then show and check on each store, and the ratio.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
writers=${2:-8}
per=${3:-50}
dataprof=$(cd "$build" && pwd)/dataprof
tmp=$(mktemp -d /tmp/dp-bench-history.XXXXXX)
chmod 755 "$tmp"
pgdir=$tmp/pg
trap '"$here/../tests/e2e/pg_cluster.sh" stop "$pgdir" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT

for i in 0 1 2; do
	"$dataprof" record -q -e cpu-clock -F 2000 -o "$tmp/rec$i.dprof" -- \
		"$build/examples/hashtable" 262144 3000000 >/dev/null
done
# copies with one more META record right after the header (docs/format.md)
python3 - "$tmp" "$writers" "$per" <<'PY'
import struct, sys
tmp, writers, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
recs = [open(f"{tmp}/rec{i}.dprof", "rb").read() for i in range(3)]
for w in range(writers):
    for j in range(per):
        data = recs[(w + j) % 3]
        hdr = struct.unpack_from("<I", data, 12)[0]
        payload = b"bench_copy\0" + f"{w}/{j}".encode() + b"\0"
        size = (8 + len(payload) + 7) // 8 * 8
        rec = struct.pack("<IHH", 0x44500001, 0, size) + payload.ljust(size - 8, b"\0")
        open(f"{tmp}/w{w}-{j}.dprof", "wb").write(data[:hdr] + rec + data[hdr:])
PY

adds=$((per / 5))
# writer w's adds: five of its own runs and two of its neighbour's, per commit;
# with a db, each add stores them; without, each profile is only read (report)
run_writers() {
	local db=$1 pids=() w c j
	for ((w = 0; w < writers; w++)); do
		(
			for ((c = 0; c < adds; c++)); do
				files=()
				for ((j = c * 5; j < c * 5 + 5; j++)); do files+=("$tmp/w$w-$j.dprof"); done
				n=$(((w + 1) % writers))
				files+=("$tmp/w$n-$((c * 5)).dprof" "$tmp/w$n-$((c * 5 + 1)).dprof")
				if [ -z "$db" ]; then
					for f in "${files[@]}"; do "$dataprof" report "$f" >/dev/null; done
					continue
				fi
				"$dataprof" history --db "$db" add --commit "c$c" \
					--commit-time "2024-06-$(printf %02d $((c + 1)))T08:00:00Z" --branch main \
					"${files[@]}" 2>>"$tmp/add.err" || { cat "$tmp/add.err" >&2; exit 1; }
			done
		) &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p"; done
}

now() { date +%s.%N; }
measure() { # name db
	local t0 t1 t2 t3
	t0=$(now)
	run_writers "$2"
	t1=$(now)
	"$dataprof" history --db "$2" show --per run >/dev/null
	t2=$(now)
	"$dataprof" history --db "$2" check --commit "c$((adds - 1))" --per run >/dev/null
	t3=$(now)
	awk -v n="$1" -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v runs=$((writers * per)) \
		'BEGIN { printf "%-12s %9.2f %9.0f %9.3f %9.3f\n", n, b - a, runs / (b - a), c - b, d - c }'
	awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >"$tmp/$1.t"
}

echo "$writers writers x $per runs at once ($((writers * adds * 7)) profile reads, $((writers * per)) runs stored), 3 recordings of examples/hashtable"
t0=$(now)
run_writers ""
t1=$(now)
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "the same profile reads, no store (report): %.2f s\n", b - a }'
printf '%-12s %9s %9s %9s %9s\n' store "adds s" "runs/s" "show s" "check s"
measure SQLite "$tmp/history.sqlite"
# a server that waits for the disk on commit, as SQLite does
if conn=$(PG_CLUSTER_DURABLE=1 "$here/../tests/e2e/pg_cluster.sh" start "$pgdir" $$ 2>"$tmp/pg.err"); then
	psql -X -q "$conn" -c "CREATE DATABASE bench" >/dev/null
	measure PostgreSQL "host=$pgdir port=5432 user=dataprof dbname=bench"
	awk -v s="$(cat "$tmp/SQLite.t")" -v p="$(cat "$tmp/PostgreSQL.t")" \
		'BEGIN { printf "adds: PostgreSQL takes %.2fx SQLite'"'"'s time\n", p / s }'
	n=$(psql -X -qtA "host=$pgdir port=5432 user=dataprof dbname=bench" -c "SELECT count(*) FROM runs")
	echo "runs stored in PostgreSQL: $n"
else
	echo "PostgreSQL: left out ($(cat "$tmp/pg.err"))"
fi
