#!/usr/bin/env bash
# dataprof's two entry points (README, Quick start). Each installs what it
# needs from Debian's archive, builds, and runs:
#   ./build.sh example   build dataprof, profile the bundled example, print its report
#   ./build.sh test      build with ASan+UBSan and run the whole test suite (ctest)
# and for developers:
#   ./build.sh build     release build into build/
#   ./build.sh deps      install the packages only (and build SQLite for
#                        test_corpus once, into /var/cache/dataprof)
set -euo pipefail
cd "$(dirname "$0")"

# to build and run dataprof
DEPS=(build-essential cmake pkg-config git
      python3                                 # man pages (cmake/md2man.py)
      libpfm4-dev libelf-dev libdw-dev libcapstone-dev libzstd-dev
      libsqlite3-dev zlib1g-dev
      libpq-dev libssl-dev                    # history: PostgreSQL, run identity (SHA-256)
      libprotobuf-c-dev protobuf-c-compiler   # export --pprof
      valgrind)   # sim: events (dataprof's Valgrind tool); brings libc6-dbg: malloc's names
# and to test it
TEST_DEPS=(libcmocka-dev
      linux-perf elfutils binutils dwz pahole time python3 python3-jsonschema
      clang libclang-rt-14-dev   # tests/fuzz/run.sh: libFuzzer
      chromium nodejs            # tests/browser: the view page in a real browser
      postgresql postgresql-common   # tests/pg: a throwaway PostgreSQL server
      lua5.4 liblua5.4-0-dbg python3.11-dbg heaptrack  # tests/e2e/test_corpus.c, bench/heap.sh
      man-db)                    # tests/install: man opens the installed pages

# installs the packages named (DEPS by default) that are missing
deps() {
	local missing=() p
	(($#)) || set -- "${DEPS[@]}"
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing+=("$p")
	done
	# Debian's nodejs leaves npm to a package of its own; NodeSource's has it
	# built in and conflicts with that package
	[[ " $* " != *" nodejs "* ]] || command -v npm >/dev/null || missing+=(npm)
	((${#missing[@]})) || return 0
	echo "build.sh: installing ${missing[*]}" >&2
	local sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -q >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >&2
}

# SQLite for tests/e2e/test_corpus.c, with its debug info: Debian ships
# none for libsqlite3, so the amalgamation (sqlite3.c) that the npm package
# better-sqlite3 carries is built -O2 -g, once, into a cache outside the
# clone (a fresh clone or build directory does not pay its half minute).
# tests/CMakeLists.txt looks for it there (its DATAPROF_SQLITE_DIR: keep
# the two in step; DATAPROF_SQLITE_DIR=DIR in the environment builds it in
# DIR instead) and the test skips, saying so, without it.
SQLITE_NPM=better-sqlite3@12.4.1 # SQLite 3.50.4
SQLITE_SHA256=14398acbf00d1e8fe0a2753df7d4f15c13138e4b874f4e6e96791f65b4536d0d
SQLITE_DIR=${DATAPROF_SQLITE_DIR:-/var/cache/dataprof/sqlite-3.50.4}

# builds SQLITE_DIR's libsqlite3.a and sqlite3.h unless they are there
sqlite_corpus() {
	[ -s "$SQLITE_DIR/libsqlite3.a" ] && [ -s "$SQLITE_DIR/sqlite3.h" ] && return 0
	local skip="build.sh: SQLite for test_corpus not built (its test will skip)"
	command -v npm >/dev/null || { echo "$skip: npm missing" >&2; return 0; }
	local tmp src sudo="" start=$SECONDS
	tmp=$(mktemp -d)
	src=$tmp/package/deps/sqlite3
	if ! (cd "$tmp" && timeout 300 npm pack --silent --fetch-retries=1 "$SQLITE_NPM" >/dev/null); then
		echo "$skip: npm pack $SQLITE_NPM failed (no network?)" >&2
		rm -rf "$tmp"
		return 0
	fi
	if ! echo "$SQLITE_SHA256  $(echo "$tmp"/*.tgz)" | sha256sum -c --quiet; then
		echo "build.sh: $SQLITE_NPM is not the tarball pinned (SQLITE_SHA256)" >&2
		rm -rf "$tmp"
		return 1
	fi
	echo "build.sh: building SQLite ($SQLITE_NPM) -O2 -g into $SQLITE_DIR" >&2
	tar -xzf "$tmp"/*.tgz -C "$tmp" package/deps/sqlite3/sqlite3.c package/deps/sqlite3/sqlite3.h
	# the debug info names sqlite3.c where it is kept, beside the library
	(cd "$src" && cc -O2 -g -fdebug-prefix-map="$src=$SQLITE_DIR" -c sqlite3.c -o "$tmp/sqlite3.o")
	ar rcs "$src/libsqlite3.a" "$tmp/sqlite3.o"
	echo "$SQLITE_NPM (sha256 $SQLITE_SHA256), cc -O2 -g: $(cc --version | head -1)" >"$src/SOURCE"
	mkdir -p "$(dirname "$SQLITE_DIR")" 2>/dev/null && [ -w "$(dirname "$SQLITE_DIR")" ] ||
		sudo=sudo
	$sudo mkdir -p "$(dirname "$SQLITE_DIR")"
	$sudo rm -rf "$SQLITE_DIR.tmp"
	$sudo cp -r "$src" "$SQLITE_DIR.tmp"
	$sudo rm -rf "$SQLITE_DIR"
	$sudo mv -T "$SQLITE_DIR.tmp" "$SQLITE_DIR"
	rm -rf "$tmp"
	echo "build.sh: SQLite built in $((SECONDS - start)) s" >&2
}

jobs() { nproc 2>/dev/null || echo 2; }

# The tests this machine could not run and why (tests/support/tu_feature.h
# logs them): "7 skipped: hardware breakpoints do not fire on this kernel".
skipped_summary() {
	[ -s "$1" ] || { echo "tests skipped for what this machine lacks: none"; return 0; }
	echo "tests skipped for what this machine lacks (a kernel feature: dataprof doctor says what it delivers; a PostgreSQL server):"
	cut -f2 "$1" | sort | uniq -c | while read -r n why; do
		echo "  $n skipped: $why ($(awk -F'\t' -v w="$why" '$2 == w { print $1 }' "$1" |
			paste -sd, | sed 's/,/, /g'))"
	done
}

build() {
	cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDATAPROF_TESTS=OFF >/dev/null
	cmake --build build -j"$(jobs)" >&2
}

case "${1:-}" in
deps)
	deps "${DEPS[@]}" "${TEST_DEPS[@]}"
	sqlite_corpus
	;;
build)
	deps
	build
	;;
example)
	deps
	build
	exec examples/run.sh build/dataprof build/examples
	;;
test)
	deps "${DEPS[@]}" "${TEST_DEPS[@]}"
	sqlite_corpus
	cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Debug -DDATAPROF_SANITIZE=ON -DDATAPROF_WERROR=ON >/dev/null
	cmake --build build-test -j"$(jobs)"
	rc=0
	ctest --test-dir build-test --output-on-failure --timeout 600 "${@:2}" || rc=$?
	skipped_summary build-test/skipped-tests.txt
	exit $rc
	;;
*)
	echo "usage: ./build.sh example|test|build|deps" >&2
	exit 2
	;;
esac
