#!/usr/bin/env bash
# Ctrl-C (SIGINT to probex) stops the whole traced tree, drains what was recorded and
# still writes a valid trace; a tree that ignores SIGTERM is killed after the grace
# period; nothing of the tree is left running or stopped.
source "$(dirname "$0")/lib.sh"

# Wait until the traced command runs (probex's set-up takes a moment on a busy machine).
wait_for() { for _ in $(seq 100); do pgrep -f "$1" >/dev/null && return 0; sleep 0.1; done; fail "'$1' never started"; }

# A tree: a shell, a background sleeper and a foreground sleeper.
"$PROBEX" -q -o "$TMP/a.parquet" --no-viewer -- sh -c "sleep 8300 & sleep 8301" &
pp=$!
wait_for "^sleep 8301"
sleep 0.5
kill -INT $pp
wait $pp
rc=$?
assert_eq "exit status after Ctrl-C (SIGTERM to the command)" 143 "$rc"
[ -s "$TMP/a.parquet" ] || fail "no trace written"
[ ! -e "$TMP/a.parquet.probex-spool" ] || fail "spool left behind"
[ ! -e "$TMP/a.parquet.probex-tmp" ] || fail "temporary file left behind"
assert_ge "process_exit rows (sh, sleep, sleep)" 2 \
	"$(q "$TMP/a.parquet" "SELECT count(*) FROM events WHERE event_type='process_exit' AND NOT is_thread")"
assert_ge "exec rows" 2 "$(q "$TMP/a.parquet" "SELECT count(*) FROM events WHERE event_type='process_exec'")"
sleep 0.2
assert_no_leftovers "sleep 830[01]"

# A tree that ignores SIGTERM: killed after the grace period.
start=$(date +%s.%N)
"$PROBEX" -q -o "$TMP/b.parquet" --no-viewer -- sh -c "trap '' TERM INT; sleep 8302; true" &
pp=$!
wait_for "^sleep 8302"
kill -INT $pp
wait $pp
rc=$?
took=$(echo "$(date +%s.%N) - $start" | bc)
assert_eq "exit status of a SIGKILLed command" 137 "$rc"
# Behaviour, not speed: SIGKILL comes only once the 2 s grace period has passed.
echo "a TERM-ignoring tree took $took s to stop"
assert_ge "seconds to stop a TERM-ignoring tree (the grace period)" 2 "$took"
[ -s "$TMP/b.parquet" ] || fail "no trace written"
assert_no_leftovers "sleep 8302"

# Two Ctrl-Cs: the second kills at once.
"$PROBEX" -q -o "$TMP/c.parquet" --no-viewer -- sh -c "trap '' TERM INT; sleep 8303" &
pp=$!
wait_for "^sleep 8303"
kill -INT $pp; sleep 0.3; kill -INT $pp
wait $pp
assert_eq "exit status after two Ctrl-Cs" 137 $?
assert_no_leftovers "sleep 8303"

# A stopped member of the tree is not left stopped.
"$PROBEX" -q -o "$TMP/d.parquet" --no-viewer -- sh -c "sleep 8304 & kill -STOP \$!; wait" &
pp=$!
wait_for "^sh -c sleep 8304"; sleep 0.5
kill -INT $pp
wait $pp
assert_no_leftovers "sleep 8304"
