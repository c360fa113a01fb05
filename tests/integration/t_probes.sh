#!/usr/bin/env bash
# --probe: the fixture's known calls, arguments, return values, recursion, sleeps and USDT
# probes are in the trace exactly (checked against bpftrace on the same fixture when it is
# installed); a tracepoint only for the traced processes; every bad spec is exit 2 with the
# spec quoted and no file; --list-probes lists the fixture's functions and probes.
source "$(dirname "$0")/lib.sh"
F="$FIXTURES/probes"
out="$TMP/p.parquet"

"$PROBEX" -o "$out" --no-viewer \
	--probe "u:$F:fx_add(id:s32,name:str)" --probe "u:$F:fx_fact(n:s32)" \
	--probe "u:$F:fx_nap(ms:s32)" --probe "usdt:$F:fixture:tick" \
	--probe "usdt:$F:fixture:gated" --probe tp:sched:sched_process_fork \
	-- sh -c "$F; true" >"$TMP/stdout" 2>"$TMP/stderr" ||
	fail "probex exited $?: $(tail -3 "$TMP/stderr")"
get() { sed -n "s/^$1=//p" "$TMP/stdout"; }
pid=$(get pid)
cp "$TMP/stderr" "$TMP/stderr.first"
cnt() { q "$out" "SELECT count(*) FROM events WHERE event_type='$1' AND ${2:-true}"; }

assert_eq "fx_add enter rows" 1000 "$(cnt probe_fx_add_enter)"
assert_eq "fx_add exit rows" 1000 "$(cnt probe_fx_add_exit)"
assert_eq "fx_add ids 0..999, once each" 1000 \
	"$(q "$out" "SELECT count(DISTINCT json_extract(probe_args, '\$.id')) FROM events WHERE event_type='probe_fx_add_enter'")"
assert_eq "fx_add names" "alpha:250 beta:250 delta:250 gamma:250" \
	"$(q "$out" "SELECT string_agg(n || ':' || c, ' ' ORDER BY n) FROM (SELECT json_extract_string(probe_args, '\$.name') n, count(*) c FROM events WHERE event_type='probe_fx_add_enter' GROUP BY 1)")"
assert_eq "id 7's name" "delta" \
	"$(q "$out" "SELECT json_extract_string(probe_args, '\$.name') FROM events WHERE event_type='probe_fx_add_enter' AND json_extract(probe_args, '\$.id')::INT = 7")"
assert_eq "fx_add returns (2 * id) sum to the fixture's" "$(( $(get sum) - 120 ))" \
	"$(q "$out" "SELECT sum(ret) FROM events WHERE event_type='probe_fx_add_exit'")"
assert_eq "every return paired (latency)" 0 "$(cnt probe_fx_add_exit 'latency_ns IS NULL')"
assert_eq "rows of the fixture only" 0 "$(cnt probe_fx_add_enter "tgid<>$pid")"
# Linux 6.11+ returns from a uretprobe through a syscall of its own: the kernel's, not the
# fixture's, so it is not one of its syscalls.
assert_eq "no syscall rows for the uretprobe trampoline" 0 \
	"$(q "$out" "SELECT count(*) FROM events WHERE event_type IN ('syscall_uretprobe_enter', 'syscall_nr335_enter')")"

# Recursion: fx_fact(5) enters 5,4,3,2,1 and returns 1,2,6,24,120 innermost first, each
# call's latency covering its callee's.
assert_eq "fact args, entry order" "5 4 3 2 1" \
	"$(q "$out" "SELECT string_agg(json_extract(probe_args, '\$.n')::VARCHAR, ' ' ORDER BY ts_ns) FROM events WHERE event_type='probe_fx_fact_enter'")"
assert_eq "fact returns, exit order" "1 2 6 24 120" \
	"$(q "$out" "SELECT string_agg(ret::VARCHAR, ' ' ORDER BY ts_ns) FROM events WHERE event_type='probe_fx_fact_exit'")"
assert_eq "nested latencies grow outward" 1 \
	"$(q "$out" "SELECT bool_and(l > pl)::INT FROM (SELECT latency_ns l, lag(latency_ns) OVER (ORDER BY ts_ns) pl FROM events WHERE event_type='probe_fx_fact_exit') WHERE pl IS NOT NULL")"
# Sleeps: 20 ms each, within the known sleep (and its wake-up).
assert_eq "nap calls" 2 "$(cnt probe_fx_nap_exit)"
assert_ge "nap latency" 20000000 "$(q "$out" "SELECT min(latency_ns) FROM events WHERE event_type='probe_fx_nap_exit'")"
assert_le "nap latency" 60000000 "$(q "$out" "SELECT max(latency_ns) FROM events WHERE event_type='probe_fx_nap_exit'")"
assert_eq "nap returns -20 as the int its DWARF says" -20 \
	"$(q "$out" "SELECT DISTINCT ret FROM events WHERE event_type='probe_fx_nap_exit'")"
# ret's type: the spec's :TYPE over DWARF; without debug info the whole register (s64).
cp "$F" "$TMP/nodebug" && strip --strip-debug "$TMP/nodebug"
"$PROBEX" -q -o "$TMP/r.parquet" --no-viewer --probe "u:$F:fx_nap(ms:s32):u8" \
	--probe "u:$TMP/nodebug:fx_nap" --probe "u:$TMP/nodebug:fx_fact():s16" \
	-- sh -c "$F >/dev/null; $TMP/nodebug >/dev/null" 2>"$TMP/stderr" || fail "typed ret: $(tail -3 "$TMP/stderr")"
assert_eq "nap ret as :u8 (-20 & 255)" 236 \
	"$(q "$TMP/r.parquet" "SELECT arg_min(ret, ts_ns) FROM events WHERE event_type='probe_fx_nap_exit'")"
assert_eq "nap ret without debug info: the whole register" 4294967276 \
	"$(q "$TMP/r.parquet" "SELECT arg_max(ret, ts_ns) FROM events WHERE event_type='probe_fx_nap_exit'")"
assert_eq "fact ret as :s16 without debug info" "1 2 6 24 120" \
	"$(q "$TMP/r.parquet" "SELECT string_agg(ret::VARCHAR, ' ' ORDER BY ts_ns) FROM events WHERE event_type='probe_fx_fact_exit'")"
assert_eq "probex.probes says ret's type" "s64" \
	"$(q "$TMP/r.parquet" "SELECT json_extract_string(decode(value), '\$[1].ret') FROM parquet_kv_metadata('$TMP/r.parquet') WHERE key = 'probex.probes'")"
# CPU sampling: --probe's lower default rate, unless --sample-freq names one.
assert_eq "--probe's default sample rate" 99 \
	"$(q "$out" "SELECT decode(value) FROM parquet_kv_metadata('$out') WHERE key = 'probex.sample_freq_hz'")"
grep -q "cpu samples at 99 Hz" "$TMP/stderr.first" ||
	fail "the summary does not say the rate: $(tail -2 "$TMP/stderr.first")"
"$PROBEX" -q -o "$TMP/f.parquet" --no-viewer --sample-freq 1999 --probe "u:$F:fx_nap(ms:s32)" \
	-- "$F" >/dev/null 2>"$TMP/stderr" || fail "--sample-freq 1999 with --probe: $(tail -3 "$TMP/stderr")"
assert_eq "--sample-freq given with --probe" 1999 \
	"$(q "$TMP/f.parquet" "SELECT decode(value) FROM parquet_kv_metadata('$TMP/f.parquet') WHERE key = 'probex.sample_freq_hz'")"
# Stacks sampled as for other events: some entries carry one, each with its caller.
assert_ge "entry stacks" 1 "$(cnt probe_fx_add_enter "stack_trace IS NOT NULL")"
assert_eq "entry stacks through main" 0 \
	"$(cnt probe_fx_add_enter "stack_trace IS NOT NULL AND NOT (list_contains(stack_trace, 'fx_add') AND list_contains(stack_trace, 'main'))")"

# One record per call when the entry sends none (no stack sampled, no strings): the
# kernel keeps the arguments until the return; a call that never returns (exit() inside
# it) still has its entry, sent when the thread ends.
"$PROBEX" -q -o "$TMP/c.parquet" --no-viewer --stacks=none --syscalls=exit_group \
	--probe "u:$F:fx_add(id:s32,name:ptr)" --probe "u:$F:fx_fact(n:s32)" --probe "u:$F:fx_leave(code:s32)" \
	-- "$F" >/dev/null 2>"$TMP/stderr" || fail "one record per call: $(tail -3 "$TMP/stderr")"
cq() { q "$TMP/c.parquet" "$1"; }
assert_eq "held calls: enter rows" 1000 "$(cq "SELECT count(*) FROM events WHERE event_type='probe_fx_add_enter'")"
assert_eq "held calls: exit rows" 1000 "$(cq "SELECT count(*) FROM events WHERE event_type='probe_fx_add_exit' AND latency_ns IS NOT NULL")"
assert_eq "held calls: ids 0..999" 499500 "$(cq "SELECT sum(json_extract(probe_args, '\$.id')::BIGINT) FROM events WHERE event_type='probe_fx_add_enter'")"
assert_eq "held calls: returns" 999000 "$(cq "SELECT sum(ret) FROM events WHERE event_type='probe_fx_add_exit'")"
assert_eq "held calls: enter before exit" 0 \
	"$(cq "SELECT count(*) FROM (SELECT ts_ns, lead(ts_ns) OVER (ORDER BY ts_ns) nx, event_type, lead(event_type) OVER (ORDER BY ts_ns) ne FROM events WHERE event_type LIKE 'probe_fx_add_%') WHERE event_type = 'probe_fx_add_enter' AND ne <> 'probe_fx_add_exit'")"
assert_eq "held recursion: args, entry order" "5 4 3 2 1" \
	"$(cq "SELECT string_agg(json_extract(probe_args, '\$.n')::VARCHAR, ' ' ORDER BY ts_ns) FROM events WHERE event_type='probe_fx_fact_enter'")"
assert_eq "held recursion: returns, exit order" "1 2 6 24 120" \
	"$(cq "SELECT string_agg(ret::VARCHAR, ' ' ORDER BY ts_ns) FROM events WHERE event_type='probe_fx_fact_exit'")"
assert_eq "a call that exits: its entry" '1 {"code": 0}' \
	"$(cq "SELECT count(*) || ' ' || any_value(probe_args) FROM events WHERE event_type='probe_fx_leave_enter'")"
assert_eq "a call that exits: no return" 0 "$(cq "SELECT count(*) FROM events WHERE event_type='probe_fx_leave_exit'")"
rows=$(cq "SELECT count(*) FROM events")
recs=$(cq "SELECT json_extract(decode(value), '\$.records_submitted') FROM parquet_kv_metadata('$TMP/c.parquet') WHERE key = 'probex.drops'")
# Other records are one row each: the probes' 2012 rows took about 1006 records, not 2012.
assert_le "records for 1006 probed calls" 1056 "$((recs - (rows - 2012)))"

# USDT: all of the note's arguments, signed per the note; a semaphore-gated probe fires.
assert_eq "usdt tick rows" "$(get tick)" "$(cnt usdt_fixture_tick)"
assert_eq "usdt tick args: arg1 = -arg0" 1000 \
	"$(cnt usdt_fixture_tick "json_extract(probe_args, '\$.arg1')::INT = -json_extract(probe_args, '\$.arg0')::INT")"
assert_eq "semaphore set while attached" 1000 "$(get gated)"
assert_eq "usdt gated rows" 1000 "$(cnt usdt_fixture_gated)"

# Tracepoint: the shell's fork of the fixture, not other processes' forks.
assert_eq "fork tracepoint: the child" 1 "$(cnt tp_sched_sched_process_fork "json_extract(probe_args, '\$.child_pid')::INT = $pid")"
assert_eq "fork tracepoint: traced processes only" 0 \
	"$(q "$out" "SELECT count(*) FROM events e WHERE event_type='tp_sched_sched_process_fork' AND tgid NOT IN (SELECT DISTINCT tgid FROM events WHERE event_type='process_exec')")"
assert_eq "no probe drops" 0 \
	"$(q "$out" "SELECT json_extract(decode(value), '\$.ringbuf_probe')::INT + json_extract(decode(value), '\$.ringbuf_probe_str')::INT + json_extract(decode(value), '\$.ringbuf_probe_call')::INT FROM parquet_kv_metadata('$out') WHERE key = 'probex.drops'")"

# A probe faster than the ring drains: every call is a row or a drop counted for its
# probe, and the warning names them (they have no exact counts to be a share of).
PROBEX_TEST_CONSUMER_DELAY_MS=20 "$PROBEX_TEST" --no-viewer --ringbuf-size 64 -o "$TMP/d.parquet" \
	--probe "u:$F:fx_add(id:s32)" -- "$F" 20000 >/dev/null 2>"$TMP/stderr.d" ||
	fail "probe drops: probex exited $?: $(tail -3 "$TMP/stderr.d")"
dropped=$(q "$TMP/d.parquet" "SELECT json_extract(decode(value), '\$.probe_drops_probe_fx_add')::INT FROM parquet_kv_metadata('$TMP/d.parquet') WHERE key = 'probex.drops'")
assert_ge "probe calls dropped (64 KiB ring, slow consumer)" 1 "$dropped"
assert_eq "fx_add calls: rows + drops" 20000 \
	"$(( $(q "$TMP/d.parquet" "SELECT count(*) FROM events WHERE event_type='probe_fx_add_exit'") + dropped ))"
grep -q "warning: dropped [0-9]* probed calls" "$TMP/stderr.d" ||
	fail "the drop warning does not name the probed calls: $(grep warning "$TMP/stderr.d")"

# A --pid recording that ends inside a probed call of a process that lives on: the call's
# entry, held in the kernel for its return, is still a row.  The fixture's second 2.5 s
# nap starts at 2.5 s; the recording runs from ~0.3 s to ~3.4 s.
"$F" 1 2500 >/dev/null &
fx=$!
sleep 0.3
"$PROBEX" -q -o "$TMP/live.parquet" --no-viewer --stacks=none --pid "$fx" --duration 3 \
	--probe "u:$F:fx_nap(ms:s32)" 2>"$TMP/stderr.live" || fail "--pid, open call: $(tail -3 "$TMP/stderr.live")"
kill "$fx" 2>/dev/null
wait "$fx" 2>/dev/null
assert_eq "the open call's entry, its process alive at the end" "probes 2500 1" \
	"$(q "$TMP/live.parquet" "SELECT process_name || ' ' || json_extract(probe_args, '\$.ms') || ' ' || count(*) OVER () FROM events WHERE event_type='probe_fx_nap_enter' AND pid=$fx")"

# The same fixture under bpftrace: the same counts.
if command -v bpftrace >/dev/null; then
	bt=$(bpftrace -q -e "uprobe:$F:fx_add { @a = count(); } uretprobe:$F:fx_fact { @f = count(); } usdt:$F:fixture:tick { @t = count(); }" -c "$F" 2>/dev/null)
	assert_eq "bpftrace: fx_add calls" 1000 "$(sed -n 's/^@a: //p' <<<"$bt")"
	assert_eq "bpftrace: fx_fact returns" 5 "$(sed -n 's/^@f: //p' <<<"$bt")"
	assert_eq "bpftrace: tick probes" 1000 "$(sed -n 's/^@t: //p' <<<"$bt")"
fi

# Bad specs: exit 2, the spec quoted, nothing run, no file.
for spec in "u:/nonexistent/bin:f" "u:$F:no_such_function" "u:$F:fx_add(x:u128)" \
	"u:$F:fx_add(a:u8,b:u8,c:u8,d:u8,e:u8,f:u8,g:u8)" "u:$F:fx_add(x)" \
	"usdt:$F:fixture:nope" "usdt:$F:fixture:tick(a:u64,b:u64,c:u64)" "tp:sched:no_such_tp" \
	"tp:nonsense" "k:do_sys_openat2" "z:what" "u:libno_such_lib:f" "u:$F:fx_nap(ms:s32):str" \
	"u:$F:fx_nap(ms:s32)s32"; do
	rm -f "$TMP/bad.parquet"
	"$PROBEX" -o "$TMP/bad.parquet" --no-viewer --probe "$spec" -- touch "$TMP/ran" 2>"$TMP/err"
	rc=$?
	[ "$rc" = 2 ] || fail "'$spec': exit $rc, expected 2"
	grep -qF "'$spec'" "$TMP/err" || fail "'$spec' not quoted in: $(cat "$TMP/err")"
	[ ! -e "$TMP/ran" ] && [ ! -e "$TMP/bad.parquet" ] || fail "'$spec': something ran or a file was left"
	echo "ok: '$spec' refused: $(head -1 "$TMP/err")"
done
"$PROBEX" -o "$TMP/bad.parquet" --no-viewer --probe "u:/usr/bin/true:main" -- true 2>"$TMP/err"
grep -q "stripped" "$TMP/err" || fail "a stripped binary's missing function does not say stripped"

"$PROBEX" --list-probes "$F" >"$TMP/list" || fail "--list-probes exited $?"
grep -qx "u:$F:fx_add" "$TMP/list" || fail "--list-probes: no fx_add"
grep -q "^usdt:$F:fixture:tick.*2 args" "$TMP/list" || fail "--list-probes: no fixture:tick"
"$PROBEX" --list-probes tp | grep -qx "tp:sched:sched_process_fork" || fail "--list-probes tp: no sched_process_fork"
echo "ok: --list-probes"

# --list-probes lists every USDT note readelf -n shows (one line per note: a probe placed
# at several sites has several), on Debian's own binaries where installed.
for bin in /usr/bin/python3.11 /usr/lib/x86_64-linux-gnu/libstdc++.so.6 \
	/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so; do
	[ -e "$bin" ] && command -v readelf >/dev/null || continue
	real=$(realpath "$bin")
	readelf -n "$real" | awk '/Provider:/ { p = $2 } /Name:/ { n = $2 }
		/Arguments:/ { sub(/^ *Arguments: */, ""); print p ":" n " " $0 }' | sort >"$TMP/re"
	"$PROBEX" --list-probes "$bin" 2>/dev/null | sed -n "s|^usdt:$real:||p" |
		sed 's/\t([0-9]* args: \(.*\))$/ \1/' | sort >"$TMP/px"
	assert_ge "$bin: USDT notes" 1 "$(wc -l <"$TMP/re")"
	assert_eq "$bin: --list-probes = readelf -n" "$(wc -l <"$TMP/re")" "$(wc -l <"$TMP/px")"
	diff "$TMP/re" "$TMP/px" >&2 || fail "$bin: --list-probes differs from readelf -n"
done

# A return type from a separate debug file, found by address (glibc's DWARF names malloc
# __libc_malloc): where libc's build-id debug file is installed.
libc=$(realpath /lib/x86_64-linux-gnu/libc.so.6 2>/dev/null)
id=$(readelf -n "$libc" 2>/dev/null | sed -n 's/.*Build ID: \(..\)\(.*\)/\1\/\2/p')
if [ -n "$id" ] && [ -e "/usr/lib/debug/.build-id/$id.debug" ]; then
	"$PROBEX" -q -o "$TMP/m.parquet" --no-viewer --probe 'u:libc:malloc(size:u64)' -- "$F" >/dev/null 2>"$TMP/stderr" ||
		fail "libc:malloc: $(tail -3 "$TMP/stderr")"
	assert_eq "malloc's ret from libc's debug file" ptr \
		"$(q "$TMP/m.parquet" "SELECT json_extract_string(decode(value), '\$[0].ret') FROM parquet_kv_metadata('$TMP/m.parquet') WHERE key = 'probex.probes'")"
	assert_ge "malloc calls" 1 "$(q "$TMP/m.parquet" "SELECT count(*) FROM events WHERE event_type='probe_malloc_exit' AND ret > 0")"
fi
