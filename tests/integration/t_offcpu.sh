#!/usr/bin/env bash
# Off-CPU: a thread blocked on a pipe that another thread feeds after a known delay is one
# off_cpu row, stamped when it blocked, lasting the delay, woken by the feeding thread,
# with the stack it blocked with and the waker's; a timer wakeup has no waker.
source "$(dirname "$0")/lib.sh"
out="$TMP/o.parquet"
delay=80
"$PROBEX" -q -o "$out" --no-viewer -- "$FIXTURES/offcpu" "$delay" >"$TMP/stdout" || fail "probex exited $?"
get() { sed -n "s/^$1=//p" "$TMP/stdout"; }
pid=$(get pid) reader=$(get reader) writer=$(get writer)
[ -n "$reader" ] && [ -n "$writer" ] || fail "fixture printed no tids"
row="event_type='off_cpu' AND pid=$reader AND latency_ns > ${delay}000000 * 0.5"
assert_eq "one long off_cpu interval of the reader" "1" "$(q "$out" "SELECT count(*) FROM events WHERE $row")"
lat=$(q "$out" "SELECT latency_ns FROM events WHERE $row")
assert_ge "its duration (ns)" "$(( delay * 1000000 * 9 / 10 ))" "$lat"
assert_le "its duration (ns)" "$(( delay * 1000000 * 3 ))" "$lat"
assert_eq "woken by the writer thread" "$writer $pid" "$(q "$out" "SELECT waker_pid || ' ' || waker_tgid FROM events WHERE $row")"
assert_eq "blocked interruptibly (TASK_INTERRUPTIBLE)" "1" "$(q "$out" "SELECT prev_state FROM events WHERE $row")"
assert_eq "stamped at its blocking sched_switch" "1" \
	"$(q "$out" "SELECT count(*) FROM events s, (SELECT ts_ns FROM events WHERE $row) o WHERE s.event_type='sched_switch' AND s.prev_pid=$reader AND s.ts_ns=o.ts_ns")"
assert_eq "with the stack it blocked in" "true" \
	"$(q "$out" "SELECT list_contains(stack_trace, 'read') AND len(list_filter(stack_trace, x -> x LIKE '%pipe_read')) = 1 AND list_contains(stack_trace, '__schedule') FROM events WHERE $row")"
assert_eq "with the waker's stack (its write waking the pipe)" "true" \
	"$(q "$out" "SELECT list_contains(waker_stack_trace, '__write') AND len(list_filter(waker_stack_trace, x -> x LIKE '%pipe_write')) = 1 AND list_contains(waker_stack_trace, 'try_to_wake_up') FROM events WHERE $row")"
assert_eq "the writer's sleep: a timer woke it, no task" "0" \
	"$(q "$out" "SELECT waker_pid FROM events WHERE event_type='off_cpu' AND pid=$writer AND latency_ns > ${delay}000000 * 0.5")"
# Every recorded interval is at least --offcpu-min (10 us by default); shorter ones are counted.
assert_eq "no row under --offcpu-min" "0" "$(q "$out" "SELECT count(*) FROM events WHERE event_type='off_cpu' AND latency_ns < 10000")"
short=$(q "$out" "SELECT json_extract(decode(value), '\$.off_cpu_short_intervals') FROM parquet_kv_metadata('$out') WHERE key='probex.drops'")
[ -n "$short" ] || fail "off_cpu_short_intervals not in probex.drops"
echo "ok: short intervals counted = $short"
"$PROBEX" -q -o "$TMP/m.parquet" --no-viewer --offcpu-min=1000000 -- "$FIXTURES/offcpu" 20 >/dev/null || fail "probex --offcpu-min exited $?"
assert_eq "--offcpu-min=1s: no rows" "0" "$(q "$TMP/m.parquet" "SELECT count(*) FROM events WHERE event_type='off_cpu'")"

# Wakeups by an interrupt that lands while a traced thread runs: the 1 ms sleeps of a
# thread that shares CPU 0 with a spinning one end in the timer interrupt, on the
# spinner's time.  The interrupt woke the sleeper, not the spinner.  Spinning in user
# code, the interrupt runs on the spinner's stack; spinning in the kernel (in a syscall),
# on the interrupt stack: each case needs its own test in the BPF program.
for mode in user kernel; do
	"$PROBEX" -q -o "$TMP/i.parquet" --no-viewer --force -- "$FIXTURES/offcpu_irq" 50 $mode \
		>"$TMP/stdout" || fail "probex exited $?"
	spinner=$(get spinner) sleeper=$(get sleeper)
	[ -n "$spinner" ] && [ -n "$sleeper" ] || fail "offcpu_irq printed no tids"
	# Blocked (runnable time aside) for a sleep's length: not the final join, which the
	# spinner's exit wakes and which can wait a millisecond for the CPU.
	sleeps="event_type='off_cpu' AND pid=$sleeper AND latency_ns - coalesce(runnable_ns, 0) BETWEEN 900000 AND 20000000"
	assert_ge "the sleeper's 1 ms sleeps ($mode spinner)" 45 \
		"$(q "$TMP/i.parquet" "SELECT count(*) FROM events WHERE $sleeps")"
	assert_eq "sleeps ended by the timer, not the $mode spinner it interrupted" 0 \
		"$(q "$TMP/i.parquet" "SELECT count(*) FROM events WHERE $sleeps AND waker_pid <> 0")"
done
