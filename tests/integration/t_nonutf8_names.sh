#!/usr/bin/env bash
# A command whose file name is not UTF-8 (Latin-1 "café"): comm, exec file name and
# path labels carry those bytes.  Parquet strings must be UTF-8 — DuckDB refused the
# whole trace over one such value — so they are stored with U+FFFD, and the trace opens
# in `probex query` and in the viewer.
source "$(dirname "$0")/lib.sh"
bin="$TMP/caf"$'\xe9'
cp /bin/true "$bin"
"$PROBEX" -q -o "$TMP/n.parquet" --no-viewer -- "$bin" || fail "probex exited $?"
assert_eq "process name" "caf"$'\xef\xbf\xbd' \
	"$(q "$TMP/n.parquet" "SELECT DISTINCT process_name FROM events WHERE process_name LIKE 'caf%'")"
assert_eq "exec file name" "$TMP/caf"$'\xef\xbf\xbd' \
	"$(q "$TMP/n.parquet" "SELECT filename FROM events WHERE event_type = 'process_exec'")"
# The viewer loads it completely (both passes) and serves it.
"$PROBEX" --view "$TMP/n.parquet" -p 0 2>"$TMP/view.log" &
vp=$!
for _ in $(seq 100); do grep -qE "stacks ready|: ready in |error" "$TMP/view.log" && break; sleep 0.1; done
kill -INT $vp; wait $vp
assert_eq "viewer exit status" 0 $?
grep -q "error" "$TMP/view.log" && fail "the viewer refused the trace: $(cat "$TMP/view.log")"
grep -qE "stacks ready|: ready in " "$TMP/view.log" || fail "the viewer never finished loading: $(cat "$TMP/view.log")"
echo "ok: the viewer loaded the trace"
