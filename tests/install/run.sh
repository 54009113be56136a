#!/usr/bin/env bash
# dataprof as a user gets it from 'cmake --install' (docs/install.md):
# installed under a temporary prefix, a program that marks builds against it
# with pkg-config and with find_package(dataprof), the installed dataprof
# records it with --heap --markers (its agent libraries found from its own
# place, also once the whole tree has moved), man opens its pages.
#
#   run.sh CMAKE BUILD_DIR SOURCE_DIR CC
# 77: this machine cannot sample cpu-clock (dataprof doctor says why).
set -euo pipefail
cmake=$1 build=$2 src=$3 cc=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "install: $*" >&2; exit 1; }
# only what the installed tree holds: no build-tree collector, no preloads
unset DATAPROF_COLLECTOR LD_PRELOAD LD_LIBRARY_PATH PKG_CONFIG_PATH

"$build/dataprof" record -q -e cpu-clock -o "$work/probe.dprof" -- true 2>"$work/probe.err" || {
	echo "install: skipped: cpu-clock cannot be recorded here: $(head -1 "$work/probe.err")" >&2
	exit 77
}

prefix=$work/first/prefix
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" || fail "cmake --install failed"

# what the tree must hold (docs/install.md); the lib dir as GNUInstallDirs chose it
libdir=$(dirname "$(find "$prefix" -name libdataprof_markers.a -print -quit)")
[ -n "$libdir" ] && [ "$libdir" != . ] || fail "no libdataprof_markers.a under $prefix"
for f in bin/dataprof include/dataprof/markers.h share/man/man1/dataprof.1 \
	share/man/man1/dataprof-record.1 share/bash-completion/completions/dataprof \
	"${libdir#"$prefix"/}"/dataprof/libdataprof_heap.so \
	"${libdir#"$prefix"/}"/dataprof/libdataprof_collector.so \
	"${libdir#"$prefix"/}"/libdataprof_markers.so \
	"${libdir#"$prefix"/}"/pkgconfig/dataprof-markers.pc \
	"${libdir#"$prefix"/}"/cmake/dataprof/dataprofConfig.cmake; do
	[ -e "$prefix/$f" ] || fail "cmake --install put no $f"
done
# nothing installed points back into the build tree
for f in "$prefix/bin/dataprof" "$libdir"/libdataprof_markers.so "$libdir"/dataprof/*.so; do
	! readelf -d "$f" | grep -E 'RPATH|RUNPATH' | grep -qF "$build" ||
		fail "$f has a run path into the build tree: $(readelf -d "$f" | grep -E 'RPATH|RUNPATH')"
done
grep -rqF "$build" "$libdir/pkgconfig" "$libdir/cmake" && fail "pkg-config or CMake files name the build tree"

# one page per subcommand that 'dataprof --help' lists
for c in $("$prefix/bin/dataprof" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
	[ -e "$prefix/share/man/man1/dataprof-$c.1" ] || fail "no man page for dataprof $c"
done
"$prefix/bin/dataprof" --version | grep -Eq '^dataprof [0-9]+\.[0-9]+\.[0-9]+ \(git [0-9a-z.-]+\)$' ||
	fail "--version says: $("$prefix/bin/dataprof" --version)"

# man opens the page (as 'man dataprof-record' does with MANPATH)
MANWIDTH=80 man -l "$prefix/share/man/man1/dataprof-record.1" >"$work/man.txt" 2>"$work/man.err" ||
	fail "man -l dataprof-record.1: $(cat "$work/man.err")"
grep -q 'dataprof-record - sample events' "$work/man.txt" || fail "the page reads: $(head -5 "$work/man.txt")"
grep -q -- '--heap' "$work/man.txt" || fail "the page has no --heap option"
[ ! -s "$work/man.err" ] || fail "man warns: $(cat "$work/man.err")"
MANPATH=$prefix/share/man MANWIDTH=80 man dataprof-record 2>&1 | grep -q 'SYNOPSIS' ||
	fail "man dataprof-record does not find the page under MANPATH"

# bash completion: commands, and a command's options from its --help (where
# the bash-completion package is there to drive it)
if [ -r /usr/share/bash-completion/bash_completion ]; then
	comp=$(PATH=$prefix/bin:$PATH bash -c '
		source /usr/share/bash-completion/bash_completion
		source "$1/share/bash-completion/completions/dataprof"
		t() {
			COMP_WORDS=("$@") COMP_CWORD=$(($# - 1)) COMP_LINE="$*" COMP_POINT=${#COMP_LINE}
			COMPREPLY=()
			_dataprof dataprof "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"
			echo "${COMPREPLY[*]}"
		}
		t dataprof rec
		t dataprof record --he' _ "$prefix" 2>/dev/null)
	[ "$comp" = $'record\n--heap --heap-depth --help' ] || fail "bash completion gives: $comp"
fi

# a user's program: pkg-config (shared, then static) ...
export PKG_CONFIG_PATH=$libdir/pkgconfig
mkdir -p "$work/app"
# shellcheck disable=SC2046
"$cc" -O2 -g -o "$work/app/marked_pc" "$src/tests/install/consumer/marked.c" \
	$(pkg-config --cflags --libs dataprof-markers) -Wl,-rpath,"$libdir" ||
	fail "pkg-config build failed"
# shellcheck disable=SC2046
"$cc" -O2 -g -o "$work/app/marked_pc_static" "$src/tests/install/consumer/marked.c" \
	$(pkg-config --cflags dataprof-markers) "$libdir/libdataprof_markers.a" \
	$(pkg-config --static --libs-only-l dataprof-markers | sed 's/-ldataprof_markers//') ||
	fail "static build failed"
# ... and find_package(dataprof)
"$cmake" -S "$src/tests/install/consumer" -B "$work/consumer" -DCMAKE_C_COMPILER="$cc" \
	-DCMAKE_PREFIX_PATH="$prefix" >"$work/consumer.log" 2>&1 ||
	fail "find_package(dataprof): $(tail -20 "$work/consumer.log")"
"$cmake" --build "$work/consumer" >>"$work/consumer.log" 2>&1 ||
	fail "the find_package build failed: $(tail -20 "$work/consumer.log")"

# records one program with the installed dataprof: the truth it prints
# against the marks and allocations in the profile
record() {
	local dataprof=$1 prog=$2 name
	name=$(basename "$prog")
	"$dataprof" record -q --heap --markers -e cpu-clock -o "$work/$name.dprof" -- "$prog" \
		>"$work/$name.out" 2>"$work/$name.err" || fail "record $name: $(cat "$work/$name.err")"
	[ ! -s "$work/$name.err" ] || fail "record $name said: $(cat "$work/$name.err")"
	local truth marks
	truth=$(grep '^TRUTH ' "$work/$name.out") || fail "$name printed no truth"
	[[ $truth == *" enabled=1" ]] || fail "$name: markers were off under record --markers: $truth"
	marks=$("$dataprof" markers --json "$work/$name.dprof" | sed -n 's/^ *"marks": \([0-9]*\),$/\1/p')
	[[ $truth == "TRUTH marks=$marks "* ]] || fail "$name: the profile holds $marks marks; $truth"
	# five 1 MiB blocks, each freed: the heap tracker ran in the program
	local allocs
	allocs=$("$dataprof" dump "$work/$name.dprof" | awk '$3 == "ALLOC" && / size 1048576 /' | wc -l)
	[ "$allocs" -ge 5 ] || fail "$name: $allocs ALLOC records of 1 MiB, 5 made"
}
for p in "$work/app/marked_pc" "$work/app/marked_pc_static" "$work/consumer/marked" \
	"$work/consumer/marked_static"; do
	record "$prefix/bin/dataprof" "$p"
done

# the tree moved elsewhere: dataprof still finds its libraries (relative)
mv "$work/first/prefix" "$work/moved"
record "$work/moved/bin/dataprof" "$work/app/marked_pc_static"

# sim: events run dataprof's own Valgrind tool, installed beside the agents:
# the moved tree's dataprof finds it, its heap tracker too (where Valgrind is
# installed and the build made the tool)
sim=skipped
if command -v valgrind >/dev/null && [ -e "$build/valgrind/dpsim-amd64-linux" ]; then
	[ -e "$work/moved/${libdir#"$prefix"/}/dataprof/valgrind/dpsim-amd64-linux" ] ||
		fail "cmake --install put no dataprof/valgrind/dpsim-amd64-linux"
	"$work/moved/bin/dataprof" record -q --heap -e sim:l1d-miss -c 10 -o "$work/sim.dprof" -- \
		"$work/app/marked_pc_static" >/dev/null 2>"$work/sim.err" ||
		fail "record -e sim:l1d-miss from the installed tree: $(cat "$work/sim.err")"
	n=$("$work/moved/bin/dataprof" dump -s "$work/sim.dprof" | sed -n 's/.* records, \([0-9]*\) samples.*/\1/p')
	[ "${n:-0}" -gt 0 ] || fail "the installed sim: recorded no sample"
	allocs=$("$work/moved/bin/dataprof" dump "$work/sim.dprof" | awk '$3 == "ALLOC" && / size 1048576 /' | wc -l)
	[ "$allocs" -ge 5 ] || fail "installed sim --heap: $allocs ALLOC records of 1 MiB, 5 made"
	sim="$n sim:l1d-miss samples"
fi
echo "install: ok ($prefix, moved to $work/moved; $sim)"
