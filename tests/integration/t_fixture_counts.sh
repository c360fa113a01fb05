#!/usr/bin/env bash
# The fixture's known syscalls, fork, exit code, io_uring completions and CPU samples
# are all in the trace, exactly: with the BPF object loaded by the light skeleton (the
# default) and by libbpf's skeleton (where the light one cannot load).
source "$(dirname "$0")/lib.sh"

check() { # loader, then the probex command
	local loader=$1
	shift
	echo "== loaded by the $loader skeleton"
	out="$TMP/$loader.parquet"
	"$@" -v -o "$out" --no-viewer -- "$FIXTURES/workload" 600 >"$TMP/stdout" 2>"$TMP/stderr" ||
		fail "probex exited $?: $(tail -3 "$TMP/stderr")"
	cat "$TMP/stdout"
	grep -q "probes: loaded .* ($loader skeleton)" "$TMP/stderr" || fail "not loaded by the $loader skeleton"
	get() { sed -n "s/^$1=//p" "$TMP/stdout"; }
	pid=$(get pid)
	[ -n "$pid" ] || fail "fixture printed no pid"

	# The window between the two marker writes (inclusive), on the fixture's tgid.
	t0=$(q "$out" "SELECT ts_ns FROM events WHERE tgid=$pid AND event_type='syscall_write_enter' AND count=1001")
	t1=$(q "$out" "SELECT ts_ns FROM events WHERE tgid=$pid AND event_type='syscall_write_exit' AND ts_ns > $t0 ORDER BY ts_ns LIMIT 1 OFFSET 0")
	tend=$(q "$out" "SELECT min(ts_ns) FROM events WHERE pid=$pid AND event_type='syscall_write_exit' AND ts_ns >= (SELECT ts_ns FROM events WHERE tgid=$pid AND event_type='syscall_write_enter' AND count=1002)")
	[ -n "$t0" ] && [ -n "$tend" ] || fail "markers not found"
	win="tgid=$pid AND ts_ns BETWEEN $t0 AND $tend"

	for sc in read mmap munmap brk fsync fdatasync io_uring_setup io_uring_enter; do
		want=$(get "$sc")
		assert_eq "$sc enter rows" "$want" "$(q "$out" "SELECT count(*) FROM events WHERE $win AND event_type='syscall_${sc}_enter'")"
		assert_eq "$sc exit rows" "$want" "$(q "$out" "SELECT count(*) FROM events WHERE $win AND event_type='syscall_${sc}_exit'")"
	done
	want=$(( $(get write) + $(get thread_write) ))
	assert_eq "write enter rows" "$want" "$(q "$out" "SELECT count(*) FROM events WHERE $win AND event_type='syscall_write_enter'")"
	assert_eq "write exit rows" "$want" "$(q "$out" "SELECT count(*) FROM events WHERE $win AND event_type='syscall_write_exit'")"
	assert_eq "thread writes on another tid" "$(get thread_write)" \
		"$(q "$out" "SELECT count(*) FROM events WHERE $win AND pid<>$pid AND event_type='syscall_write_enter'")"
	assert_eq "marker fd is -1 (not 4294967295)" "-1" \
		"$(q "$out" "SELECT fd FROM events WHERE tgid=$pid AND event_type='syscall_write_enter' AND count=1001")"
	assert_eq "marker ret is -EBADF" "-9" \
		"$(q "$out" "SELECT ret FROM events WHERE tgid=$pid AND event_type='syscall_write_exit' AND ts_ns=$t1")"

	child=$(get child)
	assert_eq "fork row for the child" "1" \
		"$(q "$out" "SELECT count(*) FROM events WHERE event_type='process_fork' AND tgid=$pid AND child_pid=$child AND NOT is_thread")"
	assert_eq "thread creation row" "1" \
		"$(q "$out" "SELECT count(*) FROM events WHERE event_type='process_fork' AND tgid=$pid AND is_thread")"
	assert_eq "child exit code" "3" \
		"$(q "$out" "SELECT exit_code FROM events WHERE event_type='process_exit' AND pid=$child")"
	assert_eq "fixture exit code" "0" \
		"$(q "$out" "SELECT exit_code FROM events WHERE event_type='process_exit' AND pid=$pid AND NOT is_thread")"

	assert_eq "io_uring_complete rows" "$(get io_uring_complete)" \
		"$(q "$out" "SELECT count(*) FROM events WHERE event_type='io_uring_complete' AND tgid=$pid")"
	assert_eq "io_uring completions after submission" "0" \
		"$(q "$out" "SELECT count(*) FROM events WHERE event_type='io_uring_complete' AND NOT (submit_ts_ns <= ts_ns)")"
	# Every completion of the fixture had its submission seen: counted, and none unmatched.
	assert_eq "io_uring completions without a seen submission (probex.drops)" 0 \
		"$(q "$out" "SELECT json_extract(decode(value), '\$.io_uring_complete_unmatched') FROM parquet_kv_metadata('$out') WHERE key = 'probex.drops'")"

	freq=$(q "$out" "SELECT decode(value) FROM parquet_kv_metadata('$out') WHERE key='probex.sample_freq_hz'")
	burn=$(get burn_s)
	expected=$(awk -v f="$freq" -v b="$burn" 'BEGIN { printf "%d", f * b }')
	samples=$(q "$out" "SELECT count(*) FROM events WHERE event_type='cpu_sample' AND pid=$pid AND ts_ns BETWEEN $t0 AND $tend")
	assert_ge "cpu samples (expected $expected)" "$(( expected * 80 / 100 ))" "$samples"
	assert_ge "cpu samples naming probex_fixture_burn" "$(( expected * 50 / 100 ))" \
		"$(q "$out" "SELECT count(*) FROM events WHERE event_type='cpu_sample' AND pid=$pid AND list_contains(stack_trace, 'probex_fixture_burn')")"
	assert_eq "rows sorted by time" "0" \
		"$(q "$out" "SELECT count(*) FROM (SELECT ts_ns < lag(ts_ns) OVER () AS back FROM events) WHERE back")"
}

check light "$PROBEX"
check libbpf env PROBEX_TEST_LIBBPF_LOADER=1 "$PROBEX_TEST"
