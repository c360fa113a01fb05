#!/usr/bin/env bash
# Exact counts (probex.exact): a syscall burst with a ring buffer far too small and a slow
# consumer (the test build's hook) drops most rows, yet `probex report` gives the burst's exact call count, marks what rests on the
# rows kept, and says what was dropped; on a smaller run the counts equal strace -f -c's.
source "$(dirname "$0")/lib.sh"

threads=100 calls=2000
PROBEX_TEST_CONSUMER_DELAY_MS=20 "$PROBEX_TEST" --no-viewer --ringbuf-size 64 -o "$TMP/b.parquet" -- "$FIXTURES/burst" $threads $calls 2>"$TMP/b.log" ||
	fail "probex exited $?: $(tail -3 "$TMP/b.log")"
cat "$TMP/b.log"
rows=$(q "$TMP/b.parquet" "SELECT count(*) FROM events WHERE event_type = 'syscall_uname_exit'")
assert_le "uname rows kept with a 64 KiB ring" $((threads * calls - 1)) "$rows"
grep -q "warning: dropped [0-9]* of [0-9]* records (.*syscalls.*--lossless or a larger --ringbuf-size" "$TMP/b.log" ||
	fail "the summary does not say what was dropped"
assert_eq "probex.exact: uname calls" $((threads * calls)) "$(q "$TMP/b.parquet" "SELECT sum((value->>'count')::BIGINT)
	FROM json_each((SELECT decode(value) FROM parquet_kv_metadata('$TMP/b.parquet') WHERE decode(key) = 'probex.exact'))
	WHERE value->>'event_type' = 'syscall_uname_exit'")"
assert_eq "probex.exact: uname histogram total" $((threads * calls)) "$(q "$TMP/b.parquet" "SELECT sum(list_sum(from_json(value->'hist', '[\"UBIGINT\"]')))
	FROM json_each((SELECT decode(value) FROM parquet_kv_metadata('$TMP/b.parquet') WHERE decode(key) = 'probex.exact'))
	WHERE value->>'event_type' = 'syscall_uname_exit'")"
assert_eq "probex.exact: process_fork (threads)" $threads "$(q "$TMP/b.parquet" "SELECT sum((value->>'count')::BIGINT)
	FROM json_each((SELECT decode(value) FROM parquet_kv_metadata('$TMP/b.parquet') WHERE decode(key) = 'probex.exact'))
	WHERE value->>'event_type' = 'process_fork'")"
"$PROBEX" report --json "$TMP/b.parquet" >"$TMP/r.json" || fail "report failed"
py() { python3 -c "import json,sys; d=json.load(open('$TMP/r.json')); $1"; }
assert_eq "report: uname calls" $((threads * calls)) "$(py "print([s['calls'] for s in d['syscalls'] if s['name'] == 'uname'][0])")"
assert_eq "report: uname marked incomplete" True "$(py "print([s.get('incomplete', False) for s in d['syscalls'] if s['name'] == 'uname'][0])")"
py "print(d['dropped'])" | grep -q "^dropped [0-9]* records of [0-9]* (.*syscalls.*--lossless" ||
	fail "report: no drop line: $(py "print(d.get('dropped'))")"
"$PROBEX" report "$TMP/b.parquet" >"$TMP/r.txt" || fail "report failed"
grep -E "^  uname +$((threads * calls)) " "$TMP/r.txt" | grep -q '\*' || fail "report text: uname not marked: $(grep uname "$TMP/r.txt")"

# Nothing dropped: no mark, no drop line, and every syscall as strace -f -c counts it.
threads=10 calls=300
"$PROBEX" --no-viewer -o "$TMP/s.parquet" -- "$FIXTURES/burst" $threads $calls 2>"$TMP/s.log" || fail "probex exited $?"
"$PROBEX" report --json "$TMP/s.parquet" >"$TMP/r.json" || fail "report failed"
assert_eq "report without drops: no drop line" None "$(py "print(d.get('dropped'))")"
assert_eq "report without drops: nothing marked" 0 "$(py "print(sum(1 for s in d['syscalls'] if 'incomplete' in s))")"
strace -f -c -o "$TMP/strace.txt" "$FIXTURES/burst" $threads $calls || fail "strace failed"
# The burst's own syscalls and one per thread; futex and the allocator's depend on timing.
for sc in uname clone3 set_robust_list rseq; do
	want=$(awk -v s="$sc" '$NF == s { print $4 }' "$TMP/strace.txt")
	assert_eq "$sc calls as strace -f -c" "$want" "$(py "print(sum(s['calls'] for s in d['syscalls'] if s['name'] == '$sc'))")"
done

# Default options keep >= 99% of a 300 x 3000 burst's rows on 2 CPUs (the consumer
# drains before the burst's threads run; wake-ups come once per 1/16 of the buffer).
"$PROBEX" --no-viewer -o "$TMP/d.parquet" -- "$FIXTURES/burst" 300 3000 2>"$TMP/d.log" || fail "probex exited $?"
assert_ge "default options: uname rows kept of 900000" 891000 \
	"$(q "$TMP/d.parquet" "SELECT count(*) FROM events WHERE event_type = 'syscall_uname_exit'")"

# A fork storm: every syscall as strace -f -c counts it, but the command's own execve
# (probex traces from its return) and exits (they never return: unfinished).
storm="for i in \$(seq 100); do /bin/true; done"
"$PROBEX" --no-viewer -o "$TMP/f.parquet" -- sh -c "$storm" 2>"$TMP/f.log" || fail "probex exited $?"
"$PROBEX" report --json "$TMP/f.parquet" >"$TMP/r.json" || fail "report failed"
strace -f -c -o "$TMP/fstrace.txt" sh -c "$storm" || fail "strace failed"
for sc in $(awk '$1 ~ /^[0-9]/ && $NF !~ /^(total|execve|exit|exit_group)$/ { print $NF }' "$TMP/fstrace.txt"); do
	want=$(awk -v s="$sc" '$NF == s { print $4 }' "$TMP/fstrace.txt")
	assert_eq "fork storm: $sc calls as strace -f -c" "$want" "$(py "print(sum(s['calls'] for s in d['syscalls'] if s['name'] == '$sc'))")"
done
