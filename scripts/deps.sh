#!/usr/bin/env bash
# Install everything probex needs to build, test and benchmark, on Debian 12.
# Idempotent: packages already present are skipped; DuckDB is fetched once into build/deps.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
deps_dir=${DEPS_DIR:-$here/build/deps}
duckdb_ver=1.4.4
duckdb_bindings=@duckdb/node-bindings-linux-x64@1.4.4-r.4

apt_pkgs=(
	build-essential pkg-config clang llvm lld
	libbpf-dev bpftool libelf-dev zlib1g-dev libzstd-dev
	libdw-dev libiberty-dev
	# the static archives probex links (Makefile: STATIC_LIBS) beside libdw's and libedit's
	liblzma-dev libbz2-dev libncurses-dev libbsd-dev libmd-dev
	# names for frames in libc and ld.so (Debian strips them; libdw finds the debug
	# files under /usr/lib/debug/.build-id): most frames of a short-lived process are there
	libc6-dbg
	libmicrohttpd-dev libcmocka-dev
	# probex sql's prompt (line editing, history); probex export --format pprof (the
	# encoder, its code generator, and protoc to decode exports in the tests)
	libedit-dev libprotobuf-c-dev protobuf-c-compiler protobuf-compiler
	# xz: the symbol fixture with Fedora-style mini-debuginfo (.gnu_debugdata)
	xz-utils
	# sys/sdt.h: the USDT probes of the --probe fixture
	systemtap-sdt-dev
	fio wrk chromium
	# integration tests compare per-syscall counts with strace -f -c; make bench runs
	# the same workloads under strace, perf and bpftrace (bench/peers.sh)
	strace linux-perf bpftrace
	# reliability suite: libFuzzer runtime, network namespaces, an HTTP client
	libclang-rt-14-dev iproute2 curl
	# stacks and Python frames of real programs: Debian's python3.11 (t_python) and a Rust
	# program built in the test (t_deepstacks)
	python3 rustc
)

want_browser=${PROBEX_DEPS_BROWSER:-1}

missing=()
for p in "${apt_pkgs[@]}"; do
	if [ "$p" = chromium ] && [ "$want_browser" = 0 ]; then continue; fi
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

# Node.js may come from NodeSource (which conflicts with Debian's npm): accept any working npm.
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)

if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps.sh: missing Debian packages: ${missing[*]}" >&2
		echo "deps.sh: run as root (or: sudo $0)" >&2
		exit 1
	fi
	echo "deps.sh: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# DuckDB is not in Debian: take the pinned LTS from the npm registry (library from the
# node bindings package, header from the duckdb package).
if [ -z "${DUCKDB_DIR:-}" ] && { [ ! -f "$deps_dir/duckdb/libduckdb.so" ] || [ ! -f "$deps_dir/duckdb/duckdb.h" ]; }; then
	echo "deps.sh: fetching DuckDB $duckdb_ver from npm"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && npm pack --silent "$duckdb_bindings" "duckdb@$duckdb_ver" >/dev/null)
	mkdir -p "$tmp/b" "$tmp/h"
	tar -xzf "$tmp"/duckdb-node-bindings-linux-x64-*.tgz -C "$tmp/b"
	tar -xzf "$tmp"/duckdb-"$duckdb_ver".tgz -C "$tmp/h" package/src/duckdb/src/include/duckdb.h
	mkdir -p "$deps_dir/duckdb"
	lib=$(find "$tmp/b" -name libduckdb.so | head -n1)
	[ -n "$lib" ] || { echo "deps.sh: libduckdb.so not found in $duckdb_bindings" >&2; exit 1; }
	cp "$lib" "$deps_dir/duckdb/libduckdb.so"
	cp "$tmp/h/package/src/duckdb/src/include/duckdb.h" "$deps_dir/duckdb/duckdb.h"
fi

# Web UI toolchain and browser-test driver (versions pinned in web/package.json).
if [ -f "$here/web/package.json" ] && [ ! -d "$here/web/node_modules/.bin" -o "$here/web/package.json" -nt "$here/web/node_modules/.stamp" ]; then
	echo "deps.sh: installing web packages"
	(cd "$here/web" && npm install --no-audit --no-fund --silent && touch node_modules/.stamp)
fi
# Arrow-based readers for the cross-reader tests (versions pinned in tests/xread/package.json).
xread=$here/tests/xread
if [ -f "$xread/package.json" ] && [ ! -d "$xread/node_modules" -o "$xread/package.json" -nt "$xread/node_modules/.stamp" ]; then
	echo "deps.sh: installing cross-reader test packages"
	(cd "$xread" && npm install --no-audit --no-fund --silent && touch node_modules/.stamp)
fi
echo "deps.sh: ok"
