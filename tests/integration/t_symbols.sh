#!/usr/bin/env bash
# Stacks a user can trust: demangled C++ names, inline frames after their physical function,
# the call chain root first; short-lived processes symbolized; `probex resymbolize`
# reproduces the labels from the raw data kept in the file.
source "$(dirname "$0")/lib.sh"
out="$TMP/s.parquet"
"$PROBEX" -q -o "$out" --no-viewer -- "$FIXTURES/stacks" 0.5 || fail "probex exited $?"
chain='main | outer | inner | probex_fx::Burner::spin(long) | probex_fx::inlined_work'
total=$(q "$out" "SELECT count(*) FROM events WHERE event_type='cpu_sample'")
with=$(q "$out" "SELECT count(*) FROM events WHERE event_type='cpu_sample' AND contains(array_to_string(stack_trace, ' | '), '$chain')")
echo "cpu samples: $total, with the full chain: $with"
assert_ge "samples with '[user] ... $chain' (of $total)" "$((total * 70 / 100))" "$with"
assert_eq "chain starts at [user], root first" "[user]" \
	"$(q "$out" "SELECT stack_trace[1] FROM events WHERE event_type='cpu_sample' AND list_contains(stack_trace, 'inner') LIMIT 1")"
assert_eq "inline frame right after its physical function" "probex_fx::inlined_work" \
	"$(q "$out" "SELECT stack_trace[list_position(stack_trace, 'probex_fx::Burner::spin(long)') + 1] FROM events WHERE list_contains(stack_trace, 'probex_fx::Burner::spin(long)') LIMIT 1")"

# Processes that exit within milliseconds are symbolized (mappings come from the kernel's
# mmap records, not from /proc after the fact).
"$PROBEX" -q -o "$TMP/q.parquet" --no-viewer -- "$FIXTURES/quick" || fail "probex failed"
life=$(q "$TMP/q.parquet" "SELECT (max(ts_ns) - min(ts_ns)) / 1e6 FROM events")
# A figure, not a threshold (wall-clock time belongs to `make bench`).
echo "quick fixture lived $life ms under tracing, exec to exit"
assert_eq "its first write names the function and its caller" 1 \
	"$(q "$TMP/q.parquet" "SELECT count(*) FROM events WHERE event_type='syscall_write_enter' AND contains(array_to_string(stack_trace, '|'), 'main|probex_quick_work|[kernel]')")"
assert_eq "frames in its own binary left unnamed" 0 \
	"$(q "$TMP/q.parquet" "SELECT count(*) FROM (SELECT unnest(stack_trace) AS l FROM events) WHERE l LIKE '%/fixtures/quick+0x%'")"

"$PROBEX" -q -o "$TMP/t.parquet" --no-viewer -- sh -c 'for i in $(seq 50); do /bin/true; done' || fail "probex failed"
user_frames="SELECT unnest(stack_trace[2:coalesce(nullif(list_position(stack_trace, '[kernel]'), 0), len(stack_trace) + 1) - 1]) AS l FROM events WHERE process_name = 'true' AND stack_trace[1] = '[user]'"
all=$(q "$TMP/t.parquet" "SELECT count(*) FROM ($user_frames)")
named=$(q "$TMP/t.parquet" "SELECT count(*) FROM ($user_frames) WHERE l NOT LIKE '0x%' AND l NOT LIKE '/%+0x%' AND l <> '[truncated]'")
mapped=$(q "$TMP/t.parquet" "SELECT count(*) FROM ($user_frames) WHERE l LIKE '/%+0x%'")
# ld.so and libc have no names for their internal functions unless debug symbols are
# installed (libc6-dbg); frames outside any file are debris of walks through code built
# without frame pointers.  Reported, not asserted; every process must have named frames.
echo "user frames of /bin/true processes: $all, named $named ($((named * 100 / all))%), in a file but unnamed $mapped"
assert_ge "true processes seen" 50 "$(q "$TMP/t.parquet" "SELECT count(DISTINCT tgid) FROM events WHERE process_name='true'")"
assert_eq "true processes without a named user frame" 0 \
	"$(q "$TMP/t.parquet" "SELECT count(*) FROM (SELECT tgid FROM events WHERE process_name='true' GROUP BY tgid HAVING count(*) FILTER (WHERE len(list_filter(stack_trace[1:coalesce(nullif(list_position(stack_trace, '[kernel]'), 0), 1000)], x -> x NOT LIKE '0x%' AND x NOT LIKE '[%' AND x NOT LIKE '/%')) > 0) = 0)")"

# Re-symbolization from the raw data gives the same labels, row for row.
"$PROBEX" resymbolize "$out" -o "$TMP/r.parquet" || fail "resymbolize failed"
assert_eq "rows whose labels changed" 0 \
	"$(q "$out" "SELECT count(*) FROM read_parquet('$out', file_row_number=true) a JOIN read_parquet('$TMP/r.parquet', file_row_number=true) b USING (file_row_number) WHERE a.stack_trace IS DISTINCT FROM b.stack_trace")"
assert_eq "rows in both" "$(q "$out" "SELECT count(*) FROM events")" "$(q "$TMP/r.parquet" "SELECT count(*) FROM events")"

# Kernel frames are named by the kernel's own lookup after recording, without reading
# /proc/kallsyms: the same names as a finalize of the same spool from kallsyms (`recover`
# as root).  Compared outside the tracing machinery: kallsyms, read after our programs
# are gone, leaves their frames as addresses (or names another program loaded there
# since), which changes how much of the leaf end is recognised as tracing and dropped.
strace -f -qq -e trace=openat -o "$TMP/opens" "$PROBEX" -q -o "$TMP/k.parquet" --no-viewer -- true ||
	fail "probex under strace failed"
assert_eq "recordings that open /proc/kallsyms" 0 "$(grep -c kallsyms "$TMP/opens")"
PROBEX_TEST_KEEP_SPOOL=1 "$PROBEX_TEST" -v --no-viewer --stacks=all -o "$TMP/ks.parquet" -- \
	sh -c 'dd if=/dev/zero of=/dev/null bs=1 count=5000 2>/dev/null; ls -R /usr/share/doc >/dev/null' 2>"$TMP/ks.err" ||
	fail "probex failed"
"$PROBEX" recover "$TMP/ks.parquet.probex-spool" -o "$TMP/kr.parquet" 2>"$TMP/recover.err" || fail "recover failed"
kframes() { echo "SELECT ts_ns, pid, event_type, list_filter(stack_trace[list_position(stack_trace, '[kernel]'):], x -> NOT regexp_matches(x, '^(0x|probex:|bpf_|__bpf_|__traceiter_|perf_trace_|trace_event_raw_event_|__perf_|perf_swevent_|perf_event_)')) AS k FROM read_parquet('$1') WHERE list_contains(stack_trace, '[kernel]')"; }
assert_ge "kernel stacks" 1000 "$(q "$TMP/ks.parquet" "SELECT count(*) FROM ($(kframes "$TMP/ks.parquet"))")"
differ=$(q "$TMP/ks.parquet" "SELECT count(*) FROM ($(kframes "$TMP/ks.parquet") EXCEPT ALL $(kframes "$TMP/kr.parquet"))")
if [ "$differ" != 0 ]; then	# what differs, and what the recorder and recover said
	"$PROBEX" query "$TMP/ks.parquet" "$(kframes "$TMP/ks.parquet") EXCEPT ALL $(kframes "$TMP/kr.parquet") LIMIT 3"
	cat "$TMP/ks.err" "$TMP/recover.err"
fi
assert_eq "kernel stacks named otherwise than from kallsyms" 0 "$differ"
assert_eq "kernel frames left as addresses" 0 \
	"$(q "$TMP/ks.parquet" "SELECT count(*) FROM (SELECT unnest(stack_trace[list_position(stack_trace, '[kernel]'):]) AS f FROM events) WHERE f LIKE '0x%'")"
# CPU samples that interrupt probex's own programs (each syscall runs two) name them and
# their subprograms as probex's, whichever way kernel frames are named.
ours() { q "$1" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND len(list_filter(range(1, len(stack_trace) + 1), i -> stack_trace[i] LIKE 'probex:% [bpf]' AND stack_modules[i] = 'bpf')) > 0"; }
echo "CPU samples inside probex's programs: $(ours "$TMP/ks.parquet")"
assert_ge "CPU samples named inside probex's programs" 1 "$(ours "$TMP/ks.parquet")"
# Where the kernel's lookup cannot run, /proc/kallsyms (read while root) names them.
PROBEX_TEST_KALLSYMS=1 "$PROBEX_TEST" -q --no-viewer --stacks=all -o "$TMP/kk.parquet" -- \
	sh -c 'dd if=/dev/zero of=/dev/null bs=1 count=2000 2>/dev/null' || fail "probex failed"
assert_ge "kernel frames named from kallsyms" 1000 \
	"$(q "$TMP/kk.parquet" "SELECT count(*) FROM (SELECT unnest(stack_trace[list_position(stack_trace, '[kernel]'):]) AS f FROM events WHERE list_contains(stack_trace, '[kernel]')) WHERE f NOT LIKE '0x%' AND f NOT LIKE '[%'")"
assert_eq "kernel frames left as addresses (kallsyms)" 0 \
	"$(q "$TMP/kk.parquet" "SELECT count(*) FROM (SELECT unnest(stack_trace[list_position(stack_trace, '[kernel]'):]) AS f FROM events) WHERE f LIKE '0x%'")"
echo "CPU samples inside probex's programs (kallsyms): $(ours "$TMP/kk.parquet")"
assert_ge "CPU samples named inside probex's programs (kallsyms)" 1 "$(ours "$TMP/kk.parquet")"
