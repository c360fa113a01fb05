#!/usr/bin/env bash
# probex exits with the traced command's status; 128+N when killed by N; 127 when the
# command cannot be run.
source "$(dirname "$0")/lib.sh"
"$PROBEX" -q -o "$TMP/a.parquet" --no-viewer -- false; assert_eq "false" 1 $?
"$PROBEX" -q -o "$TMP/b.parquet" --no-viewer -- sh -c 'exit 42'; assert_eq "exit 42" 42 $?
"$PROBEX" -q -o "$TMP/c.parquet" --no-viewer -- sh -c 'kill -9 $$'; assert_eq "SIGKILL" 137 $?
assert_eq "exit row of the killed shell" "137 9" \
	"$(q "$TMP/c.parquet" "SELECT exit_code || ' ' || exit_signal FROM events WHERE event_type='process_exit' AND NOT is_thread")"
"$PROBEX" -q -o "$TMP/d.parquet" --no-viewer -- /nonexistent/cmd 2>"$TMP/err"; assert_eq "missing command" 127 $?
grep -q "/nonexistent/cmd" "$TMP/err" || fail "no message naming the command: $(cat "$TMP/err")"
[ ! -e "$TMP/d.parquet" ] || fail "a trace was written for a command that never ran"
"$PROBEX" -q -o "$TMP/e.parquet" --no-viewer -- /etc/hostname 2>"$TMP/err"; assert_eq "not executable" 127 $?
"$PROBEX" --sample-freq 0 -- true 2>/dev/null; assert_eq "usage error" 2 $?
"$PROBEX" --bogus -- true 2>/dev/null; assert_eq "unknown option" 2 $?
"$PROBEX" --sample-freq 999999 --no-viewer -- true 2>"$TMP/err"; assert_eq "frequency above the kernel limit" 2 $?
"$PROBEX" -q -o "$TMP/f.parquet" --no-viewer -- true; assert_eq "true" 0 $?
assert_eq "metadata: stack format" "symbolized_v1" \
	"$(q "$TMP/f.parquet" "SELECT decode(value) FROM parquet_kv_metadata('$TMP/f.parquet') WHERE key='probex.stack_trace_format'")"
assert_eq "metadata: command" '["true"]' \
	"$(q "$TMP/f.parquet" "SELECT decode(value) FROM parquet_kv_metadata('$TMP/f.parquet') WHERE key='probex.command'")"
