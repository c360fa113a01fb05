#!/usr/bin/env bash
# Attach: --pid traces a running process and what it forks, leaves it running untouched
# when probex stops, ends by itself when the targets exit; bad pids are clear errors.
# -a sees a process probex did not start.
source "$(dirname "$0")/lib.sh"
loop='while :; do head -c 10 /etc/hostname >/dev/null; sleep 0.05; done'
bash -c "$loop" >/dev/null 2>&1 &
tgt=$!
sleep 0.3
"$PROBEX" -q -o "$TMP/a.parquet" --no-viewer --pid "$tgt" 2>"$TMP/err" &
px=$!
sleep 1.5
kill -INT "$px"
rc=0; wait_exit "$px" 30 || rc=$?
assert_eq "probex --pid exit status after Ctrl-C" "0" "$rc"
kill -0 "$tgt" 2>/dev/null || fail "the target did not survive probex"
assert_eq "target still running (not stopped)" "R S" "$(awk '{print ($3=="R"||$3=="S") ? "R S" : $3}' /proc/$tgt/stat)"
assert_ge "the target's own syscalls" "10" "$(q "$TMP/a.parquet" "SELECT count(*) FROM events WHERE tgid=$tgt AND event_type='syscall_wait4_enter'")"
assert_ge "its forks after attach" "5" "$(q "$TMP/a.parquet" "SELECT count(*) FROM events WHERE tgid=$tgt AND event_type='process_fork' AND NOT is_thread")"
assert_ge "its children traced (head's reads)" "5" "$(q "$TMP/a.parquet" "SELECT count(DISTINCT tgid) FROM events WHERE process_name='head' AND event_type='syscall_read_enter'")"
assert_ge "stacks symbolized from the mappings read at attach" "1" \
	"$(q "$TMP/a.parquet" "SELECT count(*) FROM events WHERE tgid=$tgt AND list_contains(stack_trace, 'wait4')")"
assert_eq "nothing from other processes" "0" \
	"$(q "$TMP/a.parquet" "SELECT count(*) FROM events WHERE process_name NOT IN ('bash', 'head', 'sleep')")"
sleep 0.2
kill -0 "$tgt" 2>/dev/null || fail "the target died after probex detached"
kill "$tgt"; wait "$tgt" 2>/dev/null

# The targets' exit ends the recording.
sleep 3 &
s=$!
"$PROBEX" -q -o "$TMP/e.parquet" --no-viewer --pid "$s" 2>"$TMP/err" &
px=$!
rc=0; wait_exit "$px" 20 || rc=$?
[ "$rc" = 0 ] || cat "$TMP/err"; assert_eq "probex ends with its targets" "0" "$rc"
assert_eq "the target's exit is recorded" "1" "$(q "$TMP/e.parquet" "SELECT count(*) FROM events WHERE event_type='process_exit' AND tgid=$s AND NOT is_thread")"

# Bad input.
rc=0; "$PROBEX" -q -o "$TMP/n.parquet" --no-viewer --pid 4194000 2>"$TMP/err" || rc=$?
assert_eq "nonexistent pid: exit status" "1" "$rc"
grep -q "4194000: no such process" "$TMP/err" || fail "no clear message: $(cat "$TMP/err")"
[ ! -e "$TMP/n.parquet" ] && [ -z "$(ls "$TMP" | grep probex-spool)" ] || fail "files left behind"
# A thread id is not a process.
"$FIXTURES/offcpu" 1500 >/dev/null &
mt=$!
sleep 0.3
tid=$(ls /proc/$mt/task | grep -vx "$mt" | head -n1)
rc=0; "$PROBEX" -q --no-viewer --pid "$tid" 2>"$TMP/err" || rc=$?
assert_eq "thread id: exit status" "1" "$rc"
grep -q "is a thread of process $mt" "$TMP/err" || fail "no clear message: $(cat "$TMP/err")"
wait "$mt"
rc=0; "$PROBEX" -q --no-viewer --pid 1 -- true 2>/dev/null || rc=$?
assert_eq "--pid with a command: usage error" "2" "$rc"

# -a: a process probex did not start is in the trace.
bash -c "$loop" >/dev/null 2>&1 &
other=$!
sleep 0.2
"$PROBEX" -q -o "$TMP/all.parquet" --no-viewer -a -- sleep 1 || fail "probex -a exited $?"
kill -0 "$other" 2>/dev/null || fail "-a hurt an unrelated process"
assert_ge "-a: the unrelated process's syscalls" "5" "$(q "$TMP/all.parquet" "SELECT count(*) FROM events WHERE tgid=$other AND event_type='syscall_wait4_enter'")"
assert_ge "-a: syscalls of several processes" "3" "$(q "$TMP/all.parquet" "SELECT count(DISTINCT tgid) FROM events WHERE event_type LIKE 'syscall_%'")"
kill "$other"; wait "$other" 2>/dev/null
true
