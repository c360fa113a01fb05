# Helpers for the reliability suite's scripts (tests/reliability/*.sh): a scratch
# directory, failure counting, and running `probex --view` until it serves or stops.
set -u
: "${PROBEX:?}" "${BUILD:?}"
REL_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$REL_ROOT/tests/reliability/ledger.sh"
TMP=$(mktemp -d /tmp/probex-rel.XXXXXX)
VIEW_PID=
rel_cleanup() {
	[ -n "$VIEW_PID" ] && kill -9 "$VIEW_PID" 2>/dev/null
	rm -rf "$TMP"
}
trap rel_cleanup EXIT

FAILS=0
bad() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }
ok() { echo "ok: $*"; }

# Strict JSON check of a file (node is a build dependency).
json_ok() { node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$1" 2>/dev/null; }

# view_start FILE [ARGS...]: start `probex --view FILE -p 0 ARGS`, wait until it prints its
# URL (VIEW_URL, without the trailing /) or exits.  VIEW_LOG holds its stderr.  Returns 1
# when it exited first.
view_start() {
	local f=$1
	shift
	VIEW_LOG=$TMP/view.$RANDOM.log
	: >"$VIEW_LOG"
	# Background jobs of scripts start with SIGINT ignored: start as a terminal would.
	env --default-signal=INT,QUIT "$PROBEX" --view "$f" -p 0 "$@" 2>"$VIEW_LOG" &
	VIEW_PID=$!
	VIEW_URL=
	for _ in $(seq 600); do
		VIEW_URL=$(sed -n 's/.*viewer at \(http:[^ ]*[0-9]\)\/.*/\1/p' "$VIEW_LOG" | head -n1)
		[ -n "$VIEW_URL" ] && return 0
		kill -0 "$VIEW_PID" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# view_wait_loaded [SECONDS]: until fully loaded ("ready in" or, before, "stacks ready")
# (0), exit or timeout (1).
view_wait_loaded() {
	for _ in $(seq $((${1:-60} * 20))); do
		grep -qE "stacks ready|: ready in " "$VIEW_LOG" && return 0
		kill -0 "$VIEW_PID" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# view_stop [SIGNAL]: stop the viewer; prints nothing, returns its exit status.
view_stop() {
	local rc
	kill "-${1:-INT}" "$VIEW_PID" 2>/dev/null
	wait "$VIEW_PID"
	rc=$?
	VIEW_PID=
	return $rc
}

# VmRSS of a process in KiB.
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
