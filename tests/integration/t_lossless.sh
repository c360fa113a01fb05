#!/usr/bin/env bash
# --lossless: the traced tree is paused (cgroup v2 freezer) while the ring buffer fills,
# and every row is kept; --pid and -a refuse it.  Faults while the tree is frozen (a slow
# consumer, the test build's hook, holds it frozen): SIGKILL of the recorder, Ctrl-C, a
# traced process killed: the tree never stays frozen, nothing is left behind.
source "$(dirname "$0")/lib.sh"
cg=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
[ -n "$cg" ] || fail "no cgroup2 mounted"

"$PROBEX" --lossless --pid 1 2>"$TMP/e.log"
assert_eq "--lossless --pid: usage error" 2 $?
grep -q "not with --pid" "$TMP/e.log" || fail "--lossless --pid: $(cat "$TMP/e.log")"
"$PROBEX" --lossless -a -- true 2>"$TMP/e.log"
assert_eq "--lossless -a: usage error" 2 $?

# A consumer 20 ms late every cycle: without --lossless most of the burst is dropped.
PROBEX_TEST_CONSUMER_DELAY_MS=20 "$PROBEX_TEST" --no-viewer --lossless -o "$TMP/l.parquet" -- \
	"$FIXTURES/burst" 100 3000 2>"$TMP/l.log" || fail "probex --lossless exited $?: $(tail -3 "$TMP/l.log")"
cat "$TMP/l.log"
assert_eq "--lossless: uname rows" 300000 \
	"$(q "$TMP/l.parquet" "SELECT count(*) FROM events WHERE event_type = 'syscall_uname_exit'")"
assert_eq "--lossless: ring-buffer drops" 0 "$(q "$TMP/l.parquet" "SELECT sum(value::BIGINT) FROM
	json_each((SELECT decode(value) FROM parquet_kv_metadata('$TMP/l.parquet') WHERE decode(key) = 'probex.drops'))
	WHERE key LIKE 'ringbuf\_%' ESCAPE '\'")"
grep -q "lossless: the traced processes were paused [1-9][0-9]* times" "$TMP/l.log" || fail "no pause in the summary"
assert_ge "probex.lossless pauses" 1 "$(q "$TMP/l.parquet" "SELECT (decode(value)::JSON->>'pauses')::BIGINT
	FROM parquet_kv_metadata('$TMP/l.parquet') WHERE decode(key) = 'probex.lossless'")"

# Start a burst that a 2 s consumer delay holds frozen; wait until it is.
frozen_run() { # tag, then extra probex options
	local tag=$1
	shift
	PROBEX_TEST_CONSUMER_DELAY_MS=2000 "$PROBEX_TEST" -q --no-viewer --lossless --ringbuf-size 64 \
		-o "$TMP/$tag.parquet" "$@" -- "$FIXTURES/burst" 20 1000000 2>"$TMP/$tag.log" &
	pp=$!
	for _ in $(seq 100); do
		grep -qs "^frozen 1" "$cg"/probex-$pp/cgroup.events && return 0
		sleep 0.05
	done
	fail "$tag: the tree was never frozen"
}
assert_gone() { # tag
	assert_no_leftovers "fixtures/burst 20 1000000"
	[ ! -e "$cg/probex-$pp" ] || fail "$1: cgroup probex-$pp left behind"
}

frozen_run kill
kill -KILL $pp
wait $pp
assert_eq "SIGKILL of the recorder while frozen: its status" 137 $?
for _ in $(seq 100); do pgrep -f "fixtures/burst 20 1000000" >/dev/null || break; sleep 0.05; done
assert_gone "SIGKILL while frozen"

frozen_run int
kill -INT $pp
wait_exit $pp 30
st=$?
[ "$st" = 130 ] || [ "$st" = 143 ] || fail "Ctrl-C while frozen: status $st: $(tail -3 "$TMP/int.log")"
echo "ok: Ctrl-C while frozen: status $st"
assert_gone "Ctrl-C while frozen"
assert_ge "Ctrl-C while frozen: rows kept" 1 "$(q "$TMP/int.parquet" "SELECT count(*) FROM events")"

frozen_run exit
pkill -KILL -x burst
wait_exit $pp 30
assert_eq "a traced process killed while frozen: probex's status" 137 $?
assert_gone "process killed while frozen"

# 10 000 threads, each making 20 calls: every one kept.
"$PROBEX" --no-viewer --lossless -o "$TMP/t.parquet" -- "$FIXTURES/burst" 10000 20 2>"$TMP/t.log" ||
	fail "probex --lossless (10 000 threads) exited $?: $(tail -3 "$TMP/t.log")"
assert_eq "--lossless, 10 000 threads: uname rows" 200000 \
	"$(q "$TMP/t.parquet" "SELECT count(*) FROM events WHERE event_type = 'syscall_uname_exit'")"
