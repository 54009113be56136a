#!/usr/bin/env bash
# Builds dataprof's libFuzzer targets with clang (ASan + UBSan, everything
# instrumented) in their own build directory, replays the regression inputs,
# then runs each target for a while on a seed corpus (seeds.sh: the
# fixtures built as binaries, profiles recorded from them, tests/data/perf-data,
# --where expressions, agent records). docs/fuzzing.md has the longer run.
#
#   tests/fuzz/run.sh [--time SECONDS] [--build-dir DIR] [--jobs N] [--save] [TARGET...]
#
# --jobs N runs N targets at once (one core each). --save merges what the
# run found into tests/fuzz/corpus/TARGET (libFuzzer's -merge: the smallest
# set of inputs with the same coverage), which every ctest replays.
# Exit status: 0 clean, 1 a target crashed (the input is in DIR/artifacts),
# 77 no clang or libFuzzer here (Debian: clang, libclang-rt-14-dev).
set -euo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
time=10
build=$src/build-fuzz
jobs=1
save=0
targets=()
while (($#)); do
	case "$1" in
	--time) time=$2; shift 2 ;;
	--build-dir) build=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--save) save=1; shift ;;
	-h | --help) sed -n '2,16p' "$0"; exit 0 ;;
	*) targets+=("$1"); shift ;;
	esac
done
all=(fuzz_profile fuzz_perf_record fuzz_elf fuzz_where fuzz_agent fuzz_report)
((${#targets[@]})) || targets=("${all[@]}")

command -v clang >/dev/null || { echo "run.sh: no clang: skipped" >&2; exit 77; }
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' >"$probe/p.c"
if ! clang -fsanitize=fuzzer "$probe/p.c" -o "$probe/p" 2>/dev/null; then
	echo "run.sh: clang has no libFuzzer (Debian: libclang-rt-14-dev): skipped" >&2
	exit 77
fi

echo "run.sh: building in $build" >&2
cmake -S "$src" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo -DDATAPROF_FUZZ=ON -DDATAPROF_TESTS=OFF \
	-DDATAPROF_WERROR=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}" dataprof dataprof_heap \
	dataprof_markers >/dev/null

"$src/tests/fuzz/seeds.sh" "$src" "$build"

dir_of() {
	case "$1" in
	fuzz_profile) echo profile ;;
	fuzz_perf_record) echo perf_record ;;
	*) echo "${1#fuzz_}" ;;
	esac
}

# inputs up to 128 KiB (the compressed seed files fit whole), binaries 256 KiB
maxlen_of() {
	case "$1" in
	fuzz_elf) echo 262144 ;;
	fuzz_where) echo 512 ;;
	*) echo 131072 ;;
	esac
}

# one target: replay its regression inputs and committed corpus, fuzz, and
# with --save merge the new corpus into the committed one
fuzz_one() {
	local t=$1 bin=$build/tests/fuzz/$1 dir
	dir=$(dir_of "$t")
	local reg=$src/tests/fuzz/regressions/$dir kept=$src/tests/fuzz/corpus/$dir
	local corpus=$build/corpus/$t
	mkdir -p "$corpus"
	local inputs=("$reg"/* "$kept"/*) i=()
	for f in "${inputs[@]}"; do [ -f "$f" ] && [ "${f##*/}" != README.md ] && i+=("$f"); done
	if ((${#i[@]})); then
		echo "run.sh: $t: replaying ${#i[@]} regression and corpus inputs" >&2
		"$bin" -rss_limit_mb=3072 "${i[@]}" >"$build/$t.replay.log" 2>&1 || {
			echo "run.sh: $t: a committed input fails again; see $build/$t.replay.log" >&2
			return 1
		}
	fi
	echo "run.sh: $t: fuzzing for ${time}s" >&2
	local dict=()
	[ -f "$src/tests/fuzz/$t.dict" ] && dict=(-dict="$src/tests/fuzz/$t.dict")
	if ! "$bin" -max_total_time="$time" -max_len="$(maxlen_of "$t")" -rss_limit_mb=3072 \
		-timeout=20 -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" \
		"${dict[@]}" "$corpus" "$build/seeds/$t" >"$build/$t.log" 2>&1; then
		echo "run.sh: $t: CRASH; input saved in $build/artifacts, log in $build/$t.log" >&2
		grep -E 'ERROR|SUMMARY' "$build/$t.log" | head -5 >&2 || true
		echo "run.sh: fix it, then add the input to $reg" >&2
		return 1
	fi
	grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$build/$t.log" |
		sed "s/^/run.sh: $t: /" >&2 || true
	((save)) || return 0
	# the committed corpus: merged to the fewest inputs with the same coverage
	local merged=$build/merged/$t
	rm -rf "$merged" && mkdir -p "$merged" "$kept"
	"$bin" -merge=1 -max_len="$(maxlen_of "$t")" -rss_limit_mb=3072 -timeout=20 "$merged" "$kept" \
		"$corpus" "$build/seeds/$t" >"$build/$t.merge.log" 2>&1 || {
		echo "run.sh: $t: merge failed; see $build/$t.merge.log" >&2
		return 1
	}
	find "$kept" -type f ! -name README.md -delete
	cp "$merged"/* "$kept"/ 2>/dev/null || true
	# inputs over 32 KiB are the seeds and their near copies (seeds.sh
	# makes them again from the repository): not worth the repository's size
	find "$kept" -type f -size +32k -delete
	echo "run.sh: $t: $(find "$kept" -type f | wc -l) inputs in tests/fuzz/corpus/$dir" >&2
}

status=0
running=0
for t in "${targets[@]}"; do
	if ((running >= jobs)); then
		wait -n || status=1
		running=$((running - 1))
	fi
	fuzz_one "$t" &
	running=$((running + 1))
done
while ((running)); do
	wait -n || status=1
	running=$((running - 1))
done
exit $status
