#!/usr/bin/env bash
# --lossless under faults (t_lossless.sh has SIGKILL, Ctrl-C and a process killed while
# frozen): a fork storm keeps every row; a full disk while frozen lets the command run to
# its end, keeps the spool and says so; a crash of the recorder while frozen (SIGSEGV,
# SIGABRT) leaves the guardian to thaw, end the tree and remove the cgroup.
source "$(dirname "$0")/lib.sh"
cg=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
[ -n "$cg" ] || fail "no cgroup2 mounted"
MNT="$TMP/full"
mkdir "$MNT"
trap 'for j in $(jobs -p); do kill -INT "$j" 2>/dev/null; done; wait; umount "$MNT" 2>/dev/null; rm -rf "$TMP"' EXIT

# probex-PP's cgroup: gone, and so not frozen (nothing of the tree can be left frozen).
assert_cgroup_gone() { # what
	for _ in $(seq 200); do [ -e "$cg/probex-$pp" ] || break; sleep 0.05; done
	if [ -e "$cg/probex-$pp" ]; then
		fail "$1: cgroup probex-$pp left behind (cgroup.freeze $(cat "$cg/probex-$pp/cgroup.freeze"),
			procs: $(cat "$cg/probex-$pp/cgroup.procs" | tr '\n' ' '))"
	fi
	echo "ok: $1: cgroup probex-$pp removed"
}
wait_frozen() { # what
	for _ in $(seq 200); do
		grep -qs "^frozen 1" "$cg/probex-$pp/cgroup.events" && { echo "ok: $1: frozen"; return 0; }
		sleep 0.05
	done
	fail "$1: the tree was never frozen: $(cat "$TMP/$1.log")"
}
drops() { # trace: ring-buffer drops
	q "$1" "SELECT coalesce(sum(value::BIGINT), 0) FROM json_each((SELECT decode(value)
		FROM parquet_kv_metadata('$1') WHERE decode(key) = 'probex.drops')) WHERE key LIKE 'ringbuf\_%' ESCAPE '\'"
}

# A fork storm, paused again and again by a consumer 20 ms late: every exec and fork kept.
storm="for i in \$(seq 300); do /bin/true; done; echo storm-done"
PROBEX_TEST_CONSUMER_DELAY_MS=20 "$PROBEX_TEST" --no-viewer --lossless --ringbuf-size 64 \
	-o "$TMP/f.parquet" -- sh -c "$storm" >"$TMP/f.out" 2>"$TMP/f.log" &
pp=$!
wait_exit $pp 120
st=$?
cat "$TMP/f.log"
assert_eq "fork storm: probex's status (the command's)" 0 $st
assert_eq "fork storm: the command's output" storm-done "$(cat "$TMP/f.out")"
assert_cgroup_gone "fork storm"
assert_eq "fork storm: /bin/true execs" 300 \
	"$(q "$TMP/f.parquet" "SELECT count(*) FROM events WHERE event_type = 'process_exec' AND filename = '/bin/true'")"
assert_eq "fork storm: forks (exact count)" "$(q "$TMP/f.parquet" "SELECT sum((value->>'count')::BIGINT)
	FROM json_each((SELECT decode(value) FROM parquet_kv_metadata('$TMP/f.parquet') WHERE decode(key) = 'probex.exact'))
	WHERE value->>'event_type' = 'process_fork'")" \
	"$(q "$TMP/f.parquet" "SELECT count(*) FROM events WHERE event_type = 'process_fork'")"
assert_eq "fork storm: ring-buffer drops" 0 "$(drops "$TMP/f.parquet")"
grep -q "lossless: the traced processes were paused [1-9][0-9]* times" "$TMP/f.log" || fail "fork storm: no pause"

# A full disk while frozen (a 2 s consumer delay holds the tree frozen; the spool fills a
# 96 KiB tmpfs): the tree is thawed for good and runs to its end, probex fails saying the
# disk is full and keeps the spool, which recovers elsewhere to a valid trace.
if mount -t tmpfs -o size=96k tmpfs "$MNT" 2>/dev/null; then
	PROBEX_TEST_CONSUMER_DELAY_MS=2000 "$PROBEX_TEST" --no-viewer --lossless --ringbuf-size 64 \
		-o "$MNT/d.parquet" -- sh -c "\"$FIXTURES/burst\" 20 20000 && echo burst-done" \
		>"$TMP/disk.out" 2>"$TMP/disk.log" &
	pp=$!
	wait_frozen disk
	wait_exit $pp 120
	st=$?
	cat "$TMP/disk.log"
	assert_eq "full disk while frozen: probex's status" 1 $st
	assert_eq "full disk while frozen: the command ran to its end" burst-done "$(cat "$TMP/disk.out")"
	grep -q "cannot write the spool .*No space left on device" "$TMP/disk.log" ||
		fail "full disk while frozen: the error does not say the disk is full"
	grep -q "kept in $MNT/d.parquet.probex-spool" "$TMP/disk.log" ||
		fail "full disk while frozen: the error does not say where the data is kept"
	assert_cgroup_gone "full disk while frozen"
	assert_no_leftovers "fixtures/burst 20 20000"
	[ ! -e "$MNT/d.parquet" ] || fail "full disk while frozen: a trace at the output path"
	[ -s "$MNT/d.parquet.probex-spool" ] || fail "full disk while frozen: no spool kept: $(ls -A "$MNT")"
	echo "ok: full disk while frozen: no trace, the spool kept"
	cp "$MNT/d.parquet.probex-spool" "$TMP/"
	"$PROBEX" recover "$TMP/d.parquet.probex-spool" -o "$TMP/d.parquet" 2>"$TMP/rec.log" ||
		fail "recover of the kept spool exited $?: $(cat "$TMP/rec.log")"
	assert_ge "full disk while frozen: rows recovered" 1 "$(q "$TMP/d.parquet" "SELECT count(*) FROM events")"
	umount "$MNT"
else
	echo "SKIP: full disk while frozen: cannot mount a tmpfs here"
fi

# A crash of the recorder while frozen: the guardian thaws, ends the tree (as when probex
# is SIGKILLed) and removes the cgroup.  No core file (RLIMIT_CORE 0).
for sig in SEGV ABRT; do
	(
		ulimit -c 0
		cd "$TMP" && PROBEX_TEST_CONSUMER_DELAY_MS=2000 exec "$PROBEX_TEST" -q --no-viewer --lossless \
			--ringbuf-size 64 -o "$TMP/$sig.parquet" -- "$FIXTURES/burst" 20 1000000 2>"$TMP/$sig.log"
	) &
	pp=$!
	wait_frozen $sig
	kill -$sig $pp
	wait $pp
	st=$?
	assert_eq "SIG$sig of the recorder while frozen: its status" $((128 + $(kill -l $sig))) $st
	for _ in $(seq 100); do pgrep -f "fixtures/burst 20 1000000" >/dev/null || break; sleep 0.05; done
	assert_no_leftovers "fixtures/burst 20 1000000"
	assert_cgroup_gone "SIG$sig while frozen"
	[ ! -e "$TMP/$sig.parquet" ] || fail "SIG$sig while frozen: a trace written"
	[ -s "$TMP/$sig.parquet.probex-spool" ] || fail "SIG$sig while frozen: no spool left to recover"
	"$PROBEX" recover "$TMP/$sig.parquet.probex-spool" -o "$TMP/$sig.parquet" 2>"$TMP/$sig.rec.log" ||
		fail "recover after SIG$sig exited $?: $(cat "$TMP/$sig.rec.log")"
	# (frozen before the consumer's first, delayed, drain: maybe no row yet, but a valid trace)
	assert_ge "SIG$sig while frozen: rows recovered" 0 "$(q "$TMP/$sig.parquet" "SELECT count(*) FROM events")"
done
