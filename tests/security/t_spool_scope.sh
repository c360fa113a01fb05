#!/usr/bin/env bash
# The mmap side-band event is system-wide; only the traced processes' mappings may reach
# the spool (which the user can read) and the trace.  `recover` still works.
source "$(dirname "$0")/lib.sh"
cp /bin/true "$TMP/foreign-marker-true"
cp /bin/true "$TMP/traced-marker-true"
chmod 755 "$TMP"/*-marker-true
# An untraced process mapping a recognisable file the whole time.
( while :; do "$TMP/foreign-marker-true"; done ) &
loop=$!
PROBEX_TEST_KEEP_SPOOL=1 as_sudo "$PROBEX_TEST" -q -o "$UDIR/t.parquet" --no-viewer -- \
	sh -c "for i in 1 2 3 4 5; do '$TMP/traced-marker-true'; sleep 0.1; done; sh -c true" ||
	fail "recording failed"
kill "$loop"; wait "$loop" 2>/dev/null
spool=$UDIR/t.parquet.probex-spool
[ -s "$spool" ] || fail "the test build did not keep the spool"
# The control: libc's path reaches the spool only through the traced processes' mmaps.
assert_ge "traced mappings (libc) in the spool" 1 "$(grep -c -a 'libc\.so' "$spool")"
assert_eq "foreign mappings in the spool" 0 "$(grep -c -a foreign-marker-true "$spool")"
# A grandchild's mappings (forked by a traced process) are kept: sh -c true maps libc.
assert_ge "traced processes that exec'd" 7 \
	"$(q "$UDIR/t.parquet" "SELECT count(DISTINCT pid) FROM events WHERE event_type = 'process_exec'")"
mv "$spool" "$UDIR/k.parquet.probex-spool"
as_sudo "$PROBEX" recover "$UDIR/k.parquet.probex-spool" 2>"$TMP/err" || { cat "$TMP/err"; fail "recover failed"; }
assert_eq "recovered rows = recorded rows" "$(q "$UDIR/t.parquet" "SELECT count(*) FROM events")" \
	"$(q "$UDIR/k.parquet" "SELECT count(*) FROM events")"
assert_none_root_owned "$UDIR"
