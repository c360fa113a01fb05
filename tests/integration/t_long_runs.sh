#!/usr/bin/env bash
# Long runs: --duration stops recording like a Ctrl-C at that time; --max-size stops it when
# the spool reaches the size, says so and keeps the first events; bad sizes are usage errors.
source "$(dirname "$0")/lib.sh"

start=$(date +%s.%N)
"$PROBEX" --no-viewer --duration 1 -o "$TMP/dur.parquet" -- sleep 30 2>"$TMP/dur.log"
st=$?
took=$(echo "$(date +%s.%N) - $start" | bc)
assert_eq "--duration: the command's status (SIGTERM)" 143 $st
assert_le "--duration 1: seconds taken" 8 "$took"
grep -q -- "--duration 1 s reached" "$TMP/dur.log" || fail "no --duration message: $(cat "$TMP/dur.log")"
assert_eq "--duration: sleep's exec recorded" 1 \
	"$(q "$TMP/dur.parquet" "SELECT count(*) FROM events WHERE event_type = 'process_exec' AND filename LIKE '%sleep'")"
assert_eq "--duration: sleep's exit recorded" 1 \
	"$(q "$TMP/dur.parquet" "SELECT count(*) FROM events WHERE event_type = 'process_exit' AND process_name = 'sleep'")"

# dd makes 4 rows a byte (two 128-byte spool records): 4 MiB hold about 64000 rows.  The trace must be
# the first events: dd's exec, then an unbroken run of its reads and writes.  CPU samples
# keep their ~8.5 KiB user stack copy even with --stacks=none: at 1999 Hz a slow machine
# spends a quarter of the 4 MiB on them, so they are few here.
PROBEX_TEST_KEEP_SPOOL=1 "$PROBEX_TEST" --no-viewer --stacks=none --sample-freq 10 --max-size 4M -o "$TMP/ms.parquet" -- \
	dd if=/dev/zero of=/dev/null bs=1 count=100000000 2>"$TMP/ms.log"
assert_eq "--max-size: the command's status (stopped)" 143 $?
grep -q -- "--max-size reached (4 MiB recorded)" "$TMP/ms.log" || fail "no --max-size message: $(cat "$TMP/ms.log")"
assert_le "spool bytes" $((4 << 20)) "$(stat -c %s "$TMP/ms.parquet.probex-spool")"
rows=$(q "$TMP/ms.parquet" "SELECT count(*) FROM events WHERE event_type IN ('syscall_read_enter', 'syscall_read_exit', 'syscall_write_enter', 'syscall_write_exit') AND process_name = 'dd'")
assert_ge "--max-size: dd syscall rows kept" 55000 "$rows"
assert_le "--max-size: dd syscall rows kept" 75000 "$rows"
assert_eq "--max-size: dd's exec kept" 1 \
	"$(q "$TMP/ms.parquet" "SELECT count(*) FROM events WHERE event_type = 'process_exec' AND filename LIKE '%dd'")"
# Kept from the start: one byte copied per read, so the reads of /dev/zero number about
# rows / 4 and none is missing in between (read_exit rows = write_enter rows +- 1).
assert_le "--max-size: reads without their write" 1 "$(q "$TMP/ms.parquet" "SELECT abs(
	count(*) FILTER (WHERE event_type = 'syscall_read_exit' AND ret = 1) -
	count(*) FILTER (WHERE event_type = 'syscall_write_enter' AND count = 1)) FROM events WHERE process_name = 'dd'")"

for bad in 100K 1048575 12X -1M ''; do
	"$PROBEX" --no-viewer --max-size "$bad" -- true 2>"$TMP/bad.log"
	assert_eq "--max-size '$bad' exit status" 2 $?
	grep -q "1M" "$TMP/bad.log" || fail "--max-size '$bad': the smallest allowed size is not named: $(cat "$TMP/bad.log")"
done
"$PROBEX" --no-viewer --duration 0 -- true 2>/dev/null
assert_eq "--duration 0 exit status" 2 $?
# ... and no hole in the middle: dd never waits, so no two of its syscall rows are far apart.
assert_le "--max-size: longest gap between dd's syscalls (ms)" 500 "$(q "$TMP/ms.parquet" "SELECT max(ts_ns - prev) / 1e6 FROM (
	SELECT ts_ns, lag(ts_ns) OVER (ORDER BY ts_ns) AS prev FROM events
	WHERE process_name = 'dd' AND event_type LIKE 'syscall_%')")"

# Attached (--pid): --duration detaches and never signals the process.
sleep 30 & sp=$!
"$PROBEX" --no-viewer --pid "$sp" --duration 1 -o "$TMP/att.parquet" 2>"$TMP/att.log"
assert_eq "--pid --duration: probex's status" 0 $?
grep -q -- "--duration 1 s reached: detaching" "$TMP/att.log" || fail "no --duration message: $(cat "$TMP/att.log")"
kill -0 "$sp" 2>/dev/null || fail "--pid --duration: the attached process was signalled"
kill "$sp"; wait "$sp" 2>/dev/null
assert_eq "--pid --duration: a trace was written (its command metadata)" 1 \
	"$(q "$TMP/att.parquet" "SELECT count(*) FROM parquet_kv_metadata('$TMP/att.parquet') WHERE key = 'probex.command'")"
