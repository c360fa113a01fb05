# Helpers for integration tests: run probex, query traces, assert.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
FIXTURES="$ROOT/$BUILD/fixtures"
TMP=$(mktemp -d /tmp/probex-it.XXXXXX)
# A failing test must not leave a probex (and its traced tree) running.
trap 'for j in $(jobs -p); do kill -INT "$j" 2>/dev/null; done; wait; rm -rf "$TMP"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# q FILE SQL → single value (first column of first row), no header.  A failed query
# prints why and returns non-zero with no value, which no assertion below accepts.
q() {
	local out
	out=$("$PROBEX" query --no-header "$1" "$2") || { echo "q: query failed on $1: $2" >&2; return 1; }
	printf '%s\n' "${out%%$'\n'*}"
}
# A number, or fail: an empty value (a failed query) must not compare as 0.
is_num() { [[ $1 =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; }

assert_eq() { # what expected actual
	[ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
	echo "ok: $1 = $3"
}
assert_ge() { # what min actual
	is_num "$3" || fail "$1: expected a number >= $2, got '$3'"
	awk -v a="$3" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }' || fail "$1: expected >= $2, got $3"
	echo "ok: $1 = $3 (>= $2)"
}
assert_le() {
	is_num "$3" || fail "$1: expected a number <= $2, got '$3'"
	awk -v a="$3" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }' || fail "$1: expected <= $2, got $3"
	echo "ok: $1 = $3 (<= $2)"
}

# No process whose ancestry includes the given pid may be left behind.
assert_no_leftovers() { # pattern
	if pgrep -f "$1" >/dev/null; then
		pgrep -af "$1" >&2
		fail "processes matching '$1' left behind"
	fi
	echo "ok: nothing left matching '$1'"
}
# wait_exit PID SECONDS: its exit status, or fail (after SIGKILL) when it hangs.
wait_exit() {
	for _ in $(seq $(($2 * 20))); do
		kill -0 "$1" 2>/dev/null || { wait "$1"; return; }
		sleep 0.05
	done
	kill -9 "$1"
	fail "probex (pid $1) still running after $2 s"
}
