#!/usr/bin/env bash
# Complete blocking stacks and runnable time, on a relay of waits (tests/fixtures/relay.c):
# main waits on a pipe for the worker, the worker on a mutex the holder keeps while it
# sleeps, and each blocks briefly just before its long wait (which takes the sampled
# stack).  Every off-CPU interval of 1 ms or more still has its user and kernel stacks
# and, when a traced task woke it, the waker's; runnable_ns splits off the wait for a CPU.
source "$(dirname "$0")/lib.sh"
rounds=20 delay=20
out="$TMP/r.parquet"
"$PROBEX" -q -o "$out" --no-viewer -- "$FIXTURES/relay" $rounds $delay >"$TMP/stdout" || fail "probex exited $?"
get() { sed -n "s/^$1=//p" "$TMP/stdout"; }
main=$(get main) worker=$(get worker) holder=$(get holder)
[ -n "$main" ] && [ -n "$worker" ] && [ -n "$holder" ] || fail "relay printed no tids"
long="event_type='off_cpu' AND latency_ns >= 1000000"
pct=$(q "$out" "SELECT round(100.0 * sum(latency_ns) FILTER (WHERE stack_id IS NOT NULL AND kernel_stack_id IS NOT NULL) / sum(latency_ns), 2) FROM events WHERE $long")
assert_ge "off-CPU time in intervals >= 1 ms with user and kernel stacks (%)" 99 "$pct"
pct=$(q "$out" "SELECT round(100.0 * sum(latency_ns) FILTER (WHERE waker_stack_trace IS NOT NULL) / sum(latency_ns), 2) FROM events WHERE $long AND waker_pid IN ($main, $worker, $holder)")
assert_ge "... woken by a traced thread, with the waker's stack (%)" 99 "$pct"

# none WHAT WHERE: no row matches WHERE (shown when some do).
none() {
	local n
	n=$(q "$out" "SELECT count(*) FROM events WHERE $2")
	[ "$n" = 0 ] || "$PROBEX" query "$out" "SELECT pid, latency_ns, runnable_ns, waker_pid, stack_trace, waker_stack_trace FROM events WHERE $2" >&2
	assert_eq "$1" 0 "$n"
}
has() { echo "list_contains(${2:-stack_trace}, '$1')"; }
like() { echo "len(list_filter(${2:-stack_trace}, x -> x LIKE '$1')) > 0"; }
# Blocked (not waiting for a CPU) for half the delay: under load a 50 us usleep can take
# longer, waiting for a CPU.
half="latency_ns - coalesce(runnable_ns, 0) > ${delay}000000 / 2"
# Each long wait's user stack and waker agree with what its kernel stack says it waited
# on (main's pipe reads, the worker's futex waits, the holder's sleeps).
reads="$long AND pid=$main AND $half AND $(like '%pipe_read')"
assert_ge "main's long pipe reads" $((rounds / 2)) "$(q "$out" "SELECT count(*) FROM events WHERE $reads")"
none "... each in wait_for_worker > read, woken by the worker's write" "$reads AND NOT (
	$(has wait_for_worker) AND $(has read) AND waker_pid=$worker AND
	$(has worker_reply waker_stack_trace) AND $(like '%pipe_write' waker_stack_trace))"
locks="$long AND pid=$worker AND $half AND $(like 'futex_wait%')"
assert_ge "the worker's long futex waits" $((rounds / 2)) "$(q "$out" "SELECT count(*) FROM events WHERE $locks")"
none "... each in take_lock, woken by the holder's unlock" "$locks AND NOT (
	$(has take_lock) AND waker_pid=$holder AND
	$(has hold_lock_and_sleep waker_stack_trace) AND $(like 'futex_wake%' waker_stack_trace))"
sleeps="$long AND pid=$holder AND $half AND $(like '%nanosleep%')"
assert_ge "the holder's sleeps" $((rounds / 2)) "$(q "$out" "SELECT count(*) FROM events WHERE $sleeps")"
none "... each in hold_lock_and_sleep, ended by a timer" "$sleeps AND NOT ($(has hold_lock_and_sleep) AND waker_pid=0)"
late=$(q "$out" "SELECT json_extract(decode(value), '\$.off_cpu_stacks_at_end') FROM parquet_kv_metadata('$out') WHERE key='probex.drops'")
assert_ge "intervals whose stacks were taken at their end (the sampled ones were taken)" $((rounds / 2)) "$late"
# Blocked in syscalls that are not recorded (futex, nanosleep), the same.
"$PROBEX" -q -o "$TMP/ref.parquet" --no-viewer --syscalls=reference -- "$FIXTURES/relay" 10 10 >/dev/null || fail "probex exited $?"
pct=$(q "$TMP/ref.parquet" "SELECT round(100.0 * sum(latency_ns) FILTER (WHERE stack_id IS NOT NULL AND kernel_stack_id IS NOT NULL) / sum(latency_ns), 2) FROM events WHERE $long")
assert_ge "--syscalls=reference: off-CPU time in intervals >= 1 ms with both stacks (%)" 99 "$pct"

# runnable_ns: every woken interval has it, within its latency.
none "off_cpu rows with runnable_ns > latency_ns" "event_type='off_cpu' AND runnable_ns > latency_ns"
assert_eq "long waits without runnable_ns" 0 "$(q "$out" "SELECT count(*) FROM events WHERE $long AND pid IN ($main, $worker, $holder) AND runnable_ns IS NULL")"
assert_eq "no runnable_ns on other rows" 0 "$(q "$out" "SELECT count(*) FROM events WHERE event_type<>'off_cpu' AND runnable_ns IS NOT NULL")"

# Sharing CPU 0 with a real-time loop that spins 50 ms and sleeps 10 ms, a thread woken by
# a timer waits for the CPU: the holder's runnable time grows.  (A loop of normal priority
# does not always delay a wakeup: the woken thread's lag credit lets it preempt at once.)
runnable() { q "$1" "SELECT sum(runnable_ns) FROM events WHERE $long AND pid=$(get holder)"; }
relay0() { "$PROBEX" -q -o "$1" --no-viewer -- taskset -c 0 "$FIXTURES/relay" 20 10 >"$TMP/stdout" || fail "probex exited $?"; }
relay0 "$TMP/alone.parquet"
alone=$(runnable "$TMP/alone.parquet")
chrt -f 1 taskset -c 0 python3 -c '
import time
while True:
    t = time.monotonic()
    while time.monotonic() - t < 0.05:
        pass
    time.sleep(0.01)' &
hog=$!
sleep 0.2
relay0 "$TMP/hog.parquet"
kill "$hog"
busy=$(runnable "$TMP/hog.parquet")
echo "the holder's runnable ns: alone $alone, beside a real-time loop $busy"
assert_ge "runnable time beside a real-time loop (ns)" $((alone * 5 + 20000000)) "$busy"
