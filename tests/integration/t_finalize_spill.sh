#!/usr/bin/env bash
# Finalize's external sort: a finalize forced to spill many sorted runs (recover --run-rows)
# writes the same file as the in-memory sort (and one that scans the spool for its side
# items the same as one that reads them from the spool's index); the runs never outlive the process (success,
# SIGKILL mid-merge, disk full), and an interrupted finalize leaves the spool recoverable.
source "$(dirname "$0")/lib.sh"
MNT="$TMP/small"
trap 'for j in $(jobs -p); do kill -9 "$j" 2>/dev/null; done; wait; umount "$MNT" 2>/dev/null; rm -rf "$TMP"' EXIT

# Stacks on every event, so the merge also carries stack ids; a real program's mix of rows.
PROBEX_TEST_KEEP_SPOOL=1 "$PROBEX_TEST" -q --no-viewer --stacks=all -o "$TMP/small.parquet" -- \
	sh -c 'dd if=/dev/zero of=/dev/null bs=1 count=20000 2>/dev/null; python3 -c "sum(range(300000))"'
assert_eq "record" 0 $?
PROBEX_TEST_KEEP_SPOOL=1 "$PROBEX_TEST" -q --no-viewer --stacks=none -o "$TMP/big.parquet" -- \
	dd if=/dev/zero of=/dev/null bs=1 count=400000 2>/dev/null
assert_eq "record big" 0 $?
# Recover as nobody: without kernel symbols, whose labels change whenever any BPF program is
# loaded on the machine, two finalizes of one spool must give the same bytes.
W="$TMP/w"; mkdir "$W"; chmod 777 "$W"; chmod 755 "$TMP"
cp "$TMP/small.parquet.probex-spool" "$TMP/big.parquet.probex-spool" "$W/"; chmod 644 "$W"/*
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

spilled() { sed -n 's/.*sorted .* (\([0-9]*\) runs spilled).*/\1/p' "$1"; }
compare() { # what a b
	local a=$1 b=$2
	assert_eq "$3: rows" "$(q "$W/$a" "SELECT count(*) FROM events")" "$(q "$W/$b" "SELECT count(*) FROM events")"
	assert_eq "$3: rows only in the in-memory file" 0 "$(q "$W/$a" "SELECT count(*) FROM (
		SELECT * FROM read_parquet('$W/$a') EXCEPT ALL SELECT * FROM read_parquet('$W/$b'))")"
	assert_eq "$3: rows only in the spilled file" 0 "$(q "$W/$a" "SELECT count(*) FROM (
		SELECT * FROM read_parquet('$W/$b') EXCEPT ALL SELECT * FROM read_parquet('$W/$a'))")"
	cmp -s "$W/$a" "$W/$b" || fail "$3: files differ (same rows, different order or encoding)"
	echo "ok: $3: byte-identical"
}

nobody "$PROBEX" recover -v "$W/small.parquet.probex-spool" -o "$W/mem.parquet" 2>"$W/mem.log"
st=$?; [ $st = 0 ] || cat "$W/mem.log"
assert_eq "in-memory finalize" 0 $st
assert_eq "in-memory runs spilled" 0 "$(spilled "$W/mem.log")"
# 1000 rows a run: more runs than one merge takes (64), so also a multi-pass merge.
nobody "$PROBEX" recover -v --run-rows 1000 "$W/small.parquet.probex-spool" -o "$W/spill.parquet" 2>"$W/spill.log"
assert_eq "spilled finalize" 0 $?
assert_ge "runs spilled" 65 "$(spilled "$W/spill.log")"
compare mem.parquet spill.parquet "--run-rows 1000"
nobody "$PROBEX" recover -v --run-rows 16 "$W/small.parquet.probex-spool" -o "$W/spill16.parquet" 2>"$W/spill16.log"
assert_eq "finalize with 16-row runs" 0 $?
compare mem.parquet spill16.parquet "--run-rows 16"
assert_eq "backsteps in ts_ns" 0 "$(q "$W/spill16.parquet" "SELECT count(*) FILTER (WHERE ts_ns < prev) FROM (
	SELECT ts_ns, lag(ts_ns) OVER (ORDER BY file_row_number) AS prev
	FROM read_parquet('$W/spill16.parquet', file_row_number = true))")"
# The off-CPU joins (blocking switch's stack, waker's stack) are made while indexing and
# carried through the runs: the identical files above must have them to mean anything.
assert_ge "off_cpu rows with their waker's stack (16-row runs)" 1 \
	"$(q "$W/spill16.parquet" "SELECT count(*) FROM events WHERE event_type = 'off_cpu' AND waker_stack_trace IS NOT NULL")"
assert_ge "off_cpu rows with their blocking switch's stack (16-row runs)" 1 \
	"$(q "$W/spill16.parquet" "SELECT count(*) FROM events WHERE event_type = 'off_cpu' AND stack_trace IS NOT NULL")"
# The spool's index (written at a clean close) spares finalize a first pass over all of it:
# the trace must be the one a full scan gives.
grep -q "side items from the spool's index" "$W/mem.log" || fail "finalize did not use the spool's index"
PROBEX_TEST_SPOOL_SCAN=1 nobody "$PROBEX_TEST" recover -v "$W/small.parquet.probex-spool" -o "$W/scan.parquet" 2>"$W/scan.log"
assert_eq "finalize scanning the spool" 0 $?
grep -q "scanned for its side items" "$W/scan.log" || fail "the test hook did not make finalize scan"
compare mem.parquet scan.parquet "scanned spool against its index"
assert_eq "files left next to the output" "" "$(ls "$W" | grep -v -e '\.parquet$' -e '\.probex-spool$' -e '\.log$')"

"$PROBEX" recover --run-rows 15 "$W/small.parquet.probex-spool" -o "$W/x.parquet" 2>"$W/usage.log"
assert_eq "--run-rows 15 exit status" 2 $?
grep -q "at least 16" "$W/usage.log" || fail "usage error does not name the smallest value: $(cat "$W/usage.log")"

# SIGKILL while the runs exist: they are gone with the process, the spool is untouched and
# recovers to the same file.
sum=$(md5sum <"$W/big.parquet.probex-spool")
# (setpriv execs probex: $! is probex itself)
setpriv --reuid=65534 --regid=65534 --clear-groups "$PROBEX" recover --run-rows 16 \
	"$W/big.parquet.probex-spool" -o "$W/big.parquet" 2>/dev/null &
pid=$!
for _ in $(seq 400); do
	ls -l /proc/$pid/fd 2>/dev/null | grep -q 'probex-tmp.runs (deleted)' && break
	sleep 0.01
done
ls -l /proc/$pid/fd 2>/dev/null | grep -q 'probex-tmp.runs (deleted)' || fail "never saw the spilled runs open"
kill -9 $pid; wait $pid 2>/dev/null
assert_eq "runs left after SIGKILL" "" "$(ls "$W" | grep runs)"
assert_eq "spool after SIGKILL" "$sum" "$(md5sum <"$W/big.parquet.probex-spool")"
nobody "$PROBEX" recover "$W/big.parquet.probex-spool" -o "$W/big.parquet" 2>/dev/null
assert_eq "recover after SIGKILL" 0 $?
nobody "$PROBEX" recover "$W/big.parquet.probex-spool" -o "$W/bigmem.parquet" 2>/dev/null
cmp -s "$W/big.parquet" "$W/bigmem.parquet" || fail "recovered file differs from an uninterrupted finalize"
echo "ok: recovered after SIGKILL = uninterrupted"

# A full disk while spilling: finalize fails, leaves no runs and no partial output, keeps the
# spool; with room, the same spool recovers.
size=$(stat -c %s "$W/big.parquet.probex-spool")
mkdir "$MNT" && mount -t tmpfs -o size=$((size + 20 * 1024 * 1024)) tmpfs "$MNT" || fail "cannot mount a tmpfs"
cp "$W/big.parquet.probex-spool" "$MNT/"
"$PROBEX" recover --run-rows 16 "$MNT/big.parquet.probex-spool" 2>"$W/full.log"
[ $? -ne 0 ] || fail "finalize on a full disk succeeded"
grep -q "No space left" "$W/full.log" || fail "no ENOSPC reported: $(cat "$W/full.log")"
assert_eq "files on the full disk" "big.parquet.probex-spool" "$(ls "$MNT")"
assert_eq "spool on the full disk" "$sum" "$(md5sum <"$MNT/big.parquet.probex-spool")"
"$PROBEX" recover "$MNT/big.parquet.probex-spool" -o "$W/fromfull.parquet" 2>/dev/null
assert_eq "recover elsewhere after a full disk" 0 $?
