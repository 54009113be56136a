#!/usr/bin/env bash
# The seed corpora of the fuzz targets, made once in BUILD/seeds/TARGET
# (run.sh calls it after building):
#   seeds.sh SRC BUILD
# fuzz_elf: the test fixtures built as binaries (-O0, -O2, a stripped one, a
# shared library); fuzz_profile and fuzz_report: tests/data/perf-data and raw
# profiles recorded from those fixtures (page faults with heap tracking and
# counters, cpu-clock, code marks), and the crafted hostile files of
# hostile.py; fuzz_perf_record: the records of those profiles; fuzz_agent:
# the agent records of those profiles as a stream; fuzz_where: expressions.
set -euo pipefail
src=$1
build=$2
seeds=$build/seeds
fx=$src/tests/fixtures
dp=$build/dataprof
export ASAN_OPTIONS=detect_leaks=0
[ -f "$seeds/.done" ] && exit 0
for t in fuzz_profile fuzz_perf_record fuzz_elf fuzz_where fuzz_agent fuzz_report; do
	mkdir -p "$seeds/$t"
done
mkdir -p "$build/artifacts" "$seeds/bin"
warn() { echo "seeds.sh: $*; going on without it" >&2; }

# binaries
cc=${CC:-cc}
for f in objects chase pagetouch split threads addrmodes; do
	for o in O0 O2; do
		"$cc" -"$o" -g -fno-omit-frame-pointer -I"$fx" "$fx/$f.c" -o "$seeds/bin/${f}_$o" \
			-lpthread 2>/dev/null || warn "cannot build $f"
	done
done
c++ -O2 -g -I"$fx" "$fx/objects_cxx.cc" -o "$seeds/bin/objects_cxx_O2" 2>/dev/null ||
	warn "cannot build objects_cxx"
cat >"$seeds/bin/marks.c" <<'C'
#include <pthread.h>
#include <dataprof/markers.h>
static void *work(void *a)
{
	for (int i = 0; i < 20; i++) {
		dp_mark(1);
		dp_mark_name(a ? "thread step" : "main step");
		dp_mark(2);
	}
	return 0;
}
int main(void)
{
	pthread_t t;
	dp_markers_init("seed");
	dp_marker_define(1, "begin");
	dp_marker_define(2, "end");
	pthread_create(&t, 0, work, (void *)1);
	work(0);
	pthread_join(t, 0);
	dp_markers_uninit();
	return 0;
}
C
"$cc" -O2 -g -I"$src/include" "$seeds/bin/marks.c" -o "$seeds/bin/marks" \
	"$build/libdataprof_markers.a" -ldl -lpthread 2>/dev/null || warn "cannot build marks"
for b in "$seeds"/bin/*_O0 "$seeds"/bin/*_O2; do
	[ -f "$b" ] && cp "$b" "$seeds/fuzz_elf/"
done
if [ -f "$seeds/bin/chase_O2" ]; then
	strip -o "$seeds/fuzz_elf/chase_O2.stripped" "$seeds/bin/chase_O2" || true
fi
cp "$build/libdataprof_collector.so" "$seeds/fuzz_elf/" 2>/dev/null || true

# profiles
rec() {
	local out=$1
	shift
	"$dp" record -q -o "$seeds/fuzz_profile/$out" "$@" >/dev/null 2>&1 || warn "cannot record $out"
}
rec true.dprof -e page-faults -- /bin/true
rec objects.dprof -e page-faults --heap --counters default --interval 5ms -- "$seeds/bin/objects_O2"
rec objects_cxx.dprof -e page-faults --heap -- "$seeds/bin/objects_cxx_O2"
rec threads.dprof -e page-faults -- "$seeds/bin/threads_O2" 2 4
rec chase.dprof -e cpu-clock -F 2000 -g -- "$seeds/bin/chase_O0" 30 4096
rec marks.dprof -e page-faults --markers -- "$seeds/bin/marks"
if [ -d "$src/tests/data/perf-data" ]; then
	cp -f "$src"/tests/data/perf-data/*.data "$seeds/fuzz_profile/" 2>/dev/null || true
fi
python3 "$src/tests/fuzz/hostile.py" "$seeds/fuzz_profile" || warn "no hostile files"
python3 "$src/tests/fuzz/split_records.py" "$seeds" || warn "no record seeds"
cp "$seeds"/fuzz_profile/* "$seeds/fuzz_report/"

# --where expressions: the documented forms, and each attribute once
while IFS= read -r e; do
	printf '%s' "$e" >"$seeds/fuzz_where/$(printf '%s' "$e" | cksum | cut -d' ' -f1)"
done <<'W'
object=nodes and member~"struct node.*"
(level="L3 miss" or level="RAM hit") and not function=main
time=1s..2.5s  cpu!=0  weight>=100  addr=0x601000..0x602000
kind=heap && site~'*objects.c*' || !(verdict=exact)
region="begin..end" and caller!=main and insn~"*mov*"
time:100ms=3 and page>=0x1000 and cacheline<0x7fffffffffff
event=page-faults and process~fuzz* and thread!=x and tid=1..
inline=- or file=objects.c or line~*:12 or type="struct node" or op=load
reason="[no-address]" or tlb=hit or pid<=0 or ip>0 or count=1
W
touch "$seeds/.done"
