#!/usr/bin/env bash
# --ring SIZE: a flight recorder.  The spool holds only the most recent ~SIZE of events on
# disk (older segments are punched out), and at the end they become the trace: the last
# events, not the first; symbolized as usual; the spool recovers the same way.
source "$(dirname "$0")/lib.sh"
# CPU samples keep their stacks even with --stacks=none: fewer of them here leave the 8 MiB
# to dd's rows, but enough (~20 in the window's ~20 ms; 199 Hz left 0-4) to find libc's read.
PROBEX_TEST_KEEP_SPOOL=1 "$PROBEX_TEST" --no-viewer --stacks=none --sample-freq 999 --ring 8M --duration 3 -o "$TMP/r.parquet" -- \
	dd if=/dev/zero of=/dev/null bs=1 count=1000000000 2>"$TMP/r.log"
assert_eq "--ring: the command's status (stopped by --duration)" 143 $?
spool="$TMP/r.parquet.probex-spool"
# dd makes ~1M rows a second here, far more than 8 MiB: the file is mostly holes.
assert_ge "spool apparent bytes" $((64 << 20)) "$(stat -c %s "$spool")"
assert_le "spool bytes on disk (KiB)" $(((8 + 2) * 1024)) "$(du -k "$spool" | cut -f1)"
rows=$(q "$TMP/r.parquet" "SELECT count(*) FROM events WHERE process_name = 'dd' AND event_type LIKE 'syscall_%'")
# Two 120-byte records make 4 rows: 8 MiB hold ~140000 rows; the newest segment may be part-filled.
assert_ge "--ring: dd syscall rows kept" 100000 "$rows"
assert_le "--ring: dd syscall rows kept" 145000 "$rows"
assert_eq "--ring: dd's exit kept (the last events)" 1 \
	"$(q "$TMP/r.parquet" "SELECT count(*) FROM events WHERE event_type = 'process_exit' AND process_name = 'dd'")"
assert_eq "--ring: dd's exec dropped (the first events)" 0 \
	"$(q "$TMP/r.parquet" "SELECT count(*) FROM events WHERE event_type = 'process_exec'")"
assert_ge "--ring: first kept row, seconds after the start" 1 "$(q "$TMP/r.parquet" "SELECT (min(ts_ns) -
	(SELECT decode(value)::UBIGINT FROM parquet_kv_metadata('$TMP/r.parquet') WHERE decode(key) = 'probex.start_ts_ns')) / 1e9 FROM events")"
# No hole inside the window: dd never waits.
assert_le "--ring: longest gap between dd's syscalls (ms)" 500 "$(q "$TMP/r.parquet" "SELECT max(ts_ns - prev) / 1e6 FROM (
	SELECT ts_ns, lag(ts_ns) OVER (ORDER BY ts_ns) AS prev FROM events
	WHERE process_name = 'dd' AND event_type LIKE 'syscall_%')")"
# The mappings of the past were kept: libc's read is named in dd's user stacks.
assert_ge "--ring: named user frames in CPU samples" 1 \
	"$(q "$TMP/r.parquet" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND list_contains(stack_trace, 'read')")"
"$PROBEX" recover "$spool" -o "$TMP/again.parquet" 2>/dev/null
assert_eq "recover a ring spool" 0 $?
assert_eq "recovered rows" "$(q "$TMP/r.parquet" "SELECT count(*) FROM events")" \
	"$(q "$TMP/again.parquet" "SELECT count(*) FROM events")"

"$PROBEX" --no-viewer --ring 4M -- true 2>"$TMP/bad.log"
assert_eq "--ring 4M exit status" 2 $?
grep -q "8M" "$TMP/bad.log" || fail "--ring 4M: the smallest allowed size is not named: $(cat "$TMP/bad.log")"
"$PROBEX" --no-viewer --ring 8M --max-size 8M -- true 2>/dev/null
assert_eq "--ring with --max-size exit status" 2 $?
