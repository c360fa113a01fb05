#!/usr/bin/env bash
# Faults: the traced program crashes or is killed; probex itself is SIGKILLed (its
# guardian stops the tree, the spool becomes a trace with `probex recover`); the output
# filesystem is full; the ring buffer is tiny (drops counted exactly).
source "$(dirname "$0")/lib.sh"
wait_for() { for _ in $(seq 100); do pgrep -f "$1" >/dev/null && return 0; sleep 0.1; done; fail "'$1' never started"; }

# A segfaulting command.
"$PROBEX" -q -o "$TMP/segv.parquet" --no-viewer -- sh -c 'kill -SEGV $$'
assert_eq "exit status of a segfault" 139 $?
assert_eq "exit row says SIGSEGV" "139 11" \
	"$(q "$TMP/segv.parquet" "SELECT exit_code || ' ' || exit_signal FROM events WHERE event_type='process_exit' AND NOT is_thread")"

# A daemon that outlives the command: probex waits for it (it is part of the tree).
start=$(date +%s.%N)
"$PROBEX" -q -o "$TMP/daemon.parquet" --no-viewer -- sh -c '(setsid sh -c "sleep 1.5; exit 7" &) ; exit 0'
assert_eq "exit status is the command's" 0 $?
took=$(echo "$(date +%s.%N) - $start" | bc)
assert_ge "waited for the daemon (s)" 1.4 "$took"
assert_eq "daemon's exit recorded" 1 \
	"$(q "$TMP/daemon.parquet" "SELECT count(*) FROM events WHERE event_type='process_exit' AND exit_code=7 AND NOT is_thread")"

# probex SIGKILLed mid-run: the tree is stopped by the guardian, the spool is recoverable.
"$PROBEX" -q -o "$TMP/k.parquet" --no-viewer -- sh -c 'sleep 8311 & dd if=/dev/zero of=/dev/null bs=1 count=50000 status=none; sleep 8312' &
pp=$!
wait_for "^sleep 8312"
kill -9 $pp
wait $pp 2>/dev/null
sleep 0.5
assert_no_leftovers "^sleep 831[12]"
[ ! -e "$TMP/k.parquet" ] || fail "an output file appeared although probex was killed"
[ -s "$TMP/k.parquet.probex-spool" ] || fail "no spool left to recover"
"$PROBEX" recover "$TMP/k.parquet.probex-spool" 2>"$TMP/err" || fail "recover failed: $(cat "$TMP/err")"
assert_ge "recovered read rows" 50000 \
	"$(q "$TMP/k.parquet" "SELECT count(*) FROM events WHERE event_type='syscall_read_exit'")"
assert_eq "recovered file says it is incomplete" "true" \
	"$(q "$TMP/k.parquet" "SELECT decode(value) FROM parquet_kv_metadata('$TMP/k.parquet') WHERE key='probex.incomplete'")"

# A full output filesystem: clear error, non-zero exit, nothing at the output path, the
# spool kept (what fitted), the command run to its end.
mkdir "$TMP/full"
trap 'umount "$TMP/full" 2>/dev/null; rm -rf "$TMP"' EXIT
if mount -t tmpfs -o size=256k tmpfs "$TMP/full" 2>/dev/null; then
	"$PROBEX" -q -o "$TMP/full/x.parquet" --no-viewer -- dd if=/dev/zero of=/dev/null bs=1 count=200000 status=none 2>"$TMP/err"
	rc=$?
	cat "$TMP/err"
	[ $rc -ne 0 ] || fail "probex succeeded on a full filesystem"
	grep -q "No space left" "$TMP/err" || fail "the error does not say the disk is full"
	assert_eq "files left on the full filesystem" x.parquet.probex-spool "$(ls -A "$TMP/full")"
	grep -q "kept in $TMP/full/x.parquet.probex-spool" "$TMP/err" || fail "the error does not say where the data is kept"
	assert_no_leftovers "^dd if=/dev/zero of=/dev/null bs=1 count=200000"
	umount "$TMP/full"
else
	echo "SKIP: full-filesystem case: cannot mount a tmpfs here"
fi

# A tiny ring buffer: records are dropped, and every drop is counted.  dd's syscalls are
# the same on every run, so rows + dropped records must equal a lossless run's rows.
cmd="dd if=/dev/zero of=/dev/null bs=1 count=20000 status=none"
"$PROBEX" -q --stacks=none -o "$TMP/big.parquet" --no-viewer -- $cmd || fail "lossless run failed"
PROBEX_TEST_CONSUMER_DELAY_MS=20 "$PROBEX_TEST" -q --stacks=none --ringbuf-size 4 -o "$TMP/tiny.parquet" --no-viewer -- $cmd ||
	fail "tiny run failed"
sys_rows() { q "$1" "SELECT count(*) FROM events WHERE event_type LIKE 'syscall_%_exit'"; }
drops() { q "$1" "SELECT decode(value) FROM parquet_kv_metadata('$1') WHERE key='probex.drops'" |
	grep -o '"ringbuf_syscall":[0-9]*' | cut -d: -f2; }
big=$(sys_rows "$TMP/big.parquet"); tiny=$(sys_rows "$TMP/tiny.parquet"); lost=$(drops "$TMP/tiny.parquet")
assert_eq "lossless run dropped nothing" 0 "$(drops "$TMP/big.parquet")"
assert_ge "tiny buffer dropped records" 1 "$lost"
assert_eq "rows + dropped = lossless rows" "$big" "$((tiny + lost))"
