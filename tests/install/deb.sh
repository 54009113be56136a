#!/usr/bin/env bash
# The .deb as a Debian 12 user gets it (docs/install.md#debian-package):
# built with Debian's flags and cpack, installed with apt (which installs
# its Depends), then the installed dataprof records a command and a program
# that marks, its man page opens; the package is removed at the end.
# Needs root and changes this machine's packages: CI does not run it.
#
#   sudo tests/install/deb.sh [BUILD_DIR]     (default build-deb/, removed after)
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build-deb}
work=$(mktemp -d)
fail() { echo "deb: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "run as root: it installs the package with apt"
if dpkg-query -W -f='${Status}' dataprof 2>/dev/null | grep -q "install ok installed"; then
	fail "a dataprof package is installed already: remove it first (apt remove dataprof)"
fi
cleanup() {
	apt-get remove -y -q dataprof >/dev/null 2>&1 || true
	rm -rf "$work"
	[ "$build" != "$src/build-deb" ] || rm -rf "$build"
}
trap cleanup EXIT

flags() { dpkg-buildflags --get "$1"; }
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=None -DCMAKE_INSTALL_PREFIX=/usr \
	-DDATAPROF_TESTS=OFF -DDATAPROF_WERROR=ON \
	-DCMAKE_C_FLAGS="$(flags CFLAGS) $(flags CPPFLAGS)" \
	-DCMAKE_CXX_FLAGS="$(flags CXXFLAGS) $(flags CPPFLAGS)" \
	-DCMAKE_EXE_LINKER_FLAGS="$(flags LDFLAGS)" \
	-DCMAKE_SHARED_LINKER_FLAGS="$(flags LDFLAGS)" >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
(cd "$build" && cpack -G DEB >/dev/null)
deb=$(ls "$build"/dataprof_*.deb)
echo "deb: $deb" >&2
dpkg-deb -f "$deb" Depends | tee "$work/depends" >&2
for lib in libpfm4 libdw1 libelf1 libcapstone4 libzstd1 libsqlite3-0 libpq5 libprotobuf-c1; do
	grep -q "\b$lib\b" "$work/depends" || fail "Depends lacks $lib"
done

DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$deb" >"$work/apt.log" 2>&1 ||
	fail "apt install: $(tail -20 "$work/apt.log")"
[ "$(command -v dataprof)" = /usr/bin/dataprof ] || fail "dataprof is $(command -v dataprof)"
dataprof --version
dataprof record -q -e cpu-clock -o "$work/true.dprof" -- true || fail "record -- true failed"
dataprof dump -s "$work/true.dprof" >/dev/null || fail "dump of its profile failed"
cc -O2 -g -o "$work/marked" "$src/tests/install/consumer/marked.c" \
	$(pkg-config --cflags --libs dataprof-markers) || fail "pkg-config build failed"
dataprof record -q --heap --markers -e cpu-clock -o "$work/m.dprof" -- "$work/marked" |
	grep -q 'TRUTH marks=10 enabled=1' || fail "markers were off in the packaged dataprof"
dataprof markers "$work/m.dprof" >/dev/null || fail "no marks in the profile"
MANWIDTH=80 man dataprof-record | grep -q SYNOPSIS || fail "man dataprof-record"
echo "deb: ok" >&2
