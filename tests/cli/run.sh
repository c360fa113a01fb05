#!/usr/bin/env bash
# probex sql / export / report on fixture traces: a synthetic one (always) and, as root,
# one recorded from real programs.  Every figure the commands print is checked against
# an independent SQL query over the same file; every export is parsed by a real reader
# (python3's json, protoc --decode with the vendored profile.proto).
# run.sh NAME... runs only those parts; started by hand (not by make, no PROBEX given), it
# builds probex first.
set -u
here=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$here/../.." && pwd)
source "$ROOT/tests/pick.sh"
[ $# -eq 0 ] && set -- sql export report states errors diff docs
list=$(pick "$here" "" "$@") || exit 2
mapfile -t parts <<<"$list"
BUILD=${BUILD:-build}
if [ -z "${PROBEX:-}" ] && [ -z "${MAKELEVEL:-}" ]; then
	make -s -C "$ROOT" -j"$(nproc)" BUILD="$BUILD" "$BUILD/probex" >&2 || { echo "cli: building probex failed" >&2; exit 1; }
fi
PROBEX=${PROBEX:-$ROOT/$BUILD/probex}
PY=${PYTHON:-python3}
TMP=$(mktemp -d /tmp/probex-cli.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { # what expected actual
	if [ "$2" = "$3" ]; then ok "$1 = $3"; else bad "$1: expected '$2', got '$3'"; fi
}
q() { "$PROBEX" sql --tsv --no-header "$1" "$2"; }

# exit_is WHAT CODE LINES CMD...: CMD exits CODE printing LINES lines on stderr.
exit_is() {
	local what=$1 code=$2 lines=$3 rc n
	shift 3
	"$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	n=$(wc -l <"$TMP/err")
	if [ "$rc" = "$code" ] && { [ "$lines" = any ] || [ "$n" = "$lines" ]; }; then
		ok "$what: exit $rc, $n stderr line(s)"
	else
		bad "$what: exit $rc (want $code), $n stderr line(s) (want $lines): $(head -c 300 "$TMP/err")"
	fi
}

traces=("$TMP/synth.parquet")
"$PROBEX" synth -o "$TMP/synth.parquet" --events 30000 --seed 7 2>/dev/null || { echo "FAIL: synth" >&2; exit 1; }
if [ "$(id -u)" -eq 0 ]; then
	if "$PROBEX" -q --no-viewer -o "$TMP/rec.parquet" -- sh -c \
		'head -c 8000000 /dev/urandom | gzip -1 >/dev/null; ls -R /usr/include >/dev/null; cat /nonexistent/x 2>/dev/null; exit 3'; [ $? -eq 3 ]; then
		traces+=("$TMP/rec.parquet")
	else
		bad "recording the fixture trace"
	fi
else
	echo "note: not root: the synthetic trace only"
fi

for part in "${parts[@]}"; do
	. "$part"
done

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
