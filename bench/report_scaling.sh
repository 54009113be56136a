#!/usr/bin/env bash
# How `dataprof report` scales with --jobs: the same profile attributed with
# 1, 2, 4, ... up to every CPU, best wall time of RUNS each, the speedup over
# --jobs 1 and the efficiency (speedup / jobs), and each run's peak RSS.
#   bench/report_scaling.sh [-c report|diff|history|view|annotate] PROFILE [RUNS] [JOBS...]
# PROFILE: any profile report reads (dataprof's own or perf.data; inflate it
# first: bench/inflate). JOBS default: 1 2 4 8 ... and $(nproc). The output
# of every --jobs is compared with --jobs 1's: a difference fails the run.
# -c diff: `diff PROFILE PROFILE` (the profile read twice, one side each);
# -c history: `history add` of PROFILE into a new database, then what
# `history show` prints of it (the output compared); -c view: the page
# (written to stdout); -c annotate: the 5 hottest functions' listing.
# Needs no perf: it is what runs on a larger machine lent for an hour.
set -euo pipefail
cmd=report
if [ "${1:-}" = -c ]; then
	cmd=$2
	shift 2
fi
case $cmd in report | diff | history | view | annotate) ;; *)
	echo "report_scaling.sh: -c report, diff, history, view or annotate" >&2
	exit 2
	;;
esac
profile=$1
runs=${2:-3}
shift $(($# > 2 ? 2 : $#))
dataprof=${DATAPROF:-build/dataprof}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ncpu=$(nproc)
jobs=("$@")
if ((${#jobs[@]} == 0)); then
	for ((j = 1; j < ncpu; j *= 2)); do jobs+=("$j"); done
	jobs+=("$ncpu")
fi

# "WALL PEAK_KIB" of the best of $runs runs (peak RSS through /usr/bin/time
# where the machine has it, else through Python's resource module)
measure() {
	local best="" w m
	for _ in $(seq "$runs"); do
		if [ -x /usr/bin/time ]; then
			/usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" ||
				{ cat "$tmp/err" >&2; exit 1; }
		else
			python3 - "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" <<-'EOF' ||
				import resource, subprocess, sys, time
				t = time.monotonic()
				rc = subprocess.call(sys.argv[2:])
				w = time.monotonic() - t
				m = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
				open(sys.argv[1], "w").write("%.3f %d\n" % (w, m))
				sys.exit(rc)
			EOF
				{ cat "$tmp/err" >&2; exit 1; }
		fi
		read -r w m <"$tmp/time"
		if [ -z "$best" ] || awk -v a="$w" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
			best="$w $m"
		fi
	done
	echo "$best"
}

# the command at --jobs $1, its output on stdout
run_at() {
	case $cmd in
	report) "$dataprof" report -i "$profile" --jobs "$1" ;;
	view) "$dataprof" view -i "$profile" --jobs "$1" -o - ;;
	annotate) "$dataprof" annotate -i "$profile" --jobs "$1" ;;
	diff) "$dataprof" diff --jobs "$1" -n 100 "$profile" "$profile" ;;
	history)
		rm -f "$tmp/h.db"
		"$dataprof" history --db "$tmp/h.db" add --jobs "$1" --commit c \
			--commit-time 2026-01-01T00:00:00Z "$profile" >/dev/null
		"$dataprof" history --db "$tmp/h.db" show --csv -n 100
		;;
	esac
}
export -f run_at
export cmd dataprof profile tmp

samples=$("$dataprof" report -i "$profile" --json --jobs 1 |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["samples_read"])')
echo "$cmd: profile $profile, $samples samples; $ncpu CPUs; best of $runs by wall time"
printf '%6s %9s %12s %8s %10s %9s\n' jobs wall "samples/s" speedup efficiency "peak MiB"
base=""
for j in "${jobs[@]}"; do
	read -r w m < <(measure bash -c 'run_at "$1"' run_at "$j")
	if [ -z "$base" ]; then
		base=$w
		cp "$tmp/out" "$tmp/out1"
	elif ! cmp -s "$tmp/out" "$tmp/out1"; then
		echo "$cmd --jobs $j differs from --jobs 1" >&2
		exit 1
	fi
	awk -v j="$j" -v w="$w" -v m="$m" -v s="$samples" -v b="$base" 'BEGIN {
		w = w > 0 ? w : 0.001
		printf "%6d %9.3f %12.0f %7.2fx %9.0f%% %9.1f\n", j, w, s / w, b / w,
			100 * b / w / j, m / 1024 }'
done
