#!/usr/bin/env bash
# dataprof's two entry points (README, Quick start). Each installs what it
# needs from Debian's archive, builds, and runs:
#   ./build.sh example   build dataprof, profile the bundled example, print its report
#   ./build.sh test      build with ASan+UBSan and run the whole test suite (ctest)
# and for developers:
#   ./build.sh build     release build into build/
#   ./build.sh deps      install the packages only
set -euo pipefail
cd "$(dirname "$0")"

DEPS=(build-essential cmake pkg-config git
      libpfm4-dev libelf-dev libdw-dev libcapstone-dev libzstd-dev
      libcmocka-dev libsqlite3-dev zlib1g-dev
      linux-perf elfutils binutils pahole python3 python3-jsonschema)

deps() {
	local missing=() p
	for p in "${DEPS[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing+=("$p")
	done
	((${#missing[@]})) || return 0
	echo "build.sh: installing ${missing[*]}" >&2
	local sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -q >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >&2
}

jobs() { nproc 2>/dev/null || echo 2; }

build() {
	cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDATAPROF_TESTS=OFF >/dev/null
	cmake --build build -j"$(jobs)"
}

case "${1:-}" in
deps)
	deps
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
	deps
	cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Debug -DDATAPROF_SANITIZE=ON >/dev/null
	cmake --build build-test -j"$(jobs)"
	ctest --test-dir build-test --output-on-failure --timeout 600 "${@:2}"
	;;
*)
	echo "usage: ./build.sh example|test|build|deps" >&2
	exit 2
	;;
esac
