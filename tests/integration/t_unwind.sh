#!/usr/bin/env bash
# User stacks through code built without frame pointers (-O2 -fomit-frame-pointer, like
# distribution packages): whole stacks from CFI, and no data read as return addresses
# ever shown as a frame.
source "$(dirname "$0")/lib.sh"
user_frames() { # SQL: one row per user frame label (l) of cpu samples
	echo "SELECT unnest(stack_trace[2:coalesce(nullif(list_position(stack_trace, '[kernel]'), 0), len(stack_trace) + 1) - 1]) AS l FROM events WHERE event_type = 'cpu_sample' AND stack_trace[1] = '[user]'"
}
user_part() { # SQL: the labels (st) and objects (sm) of a row's stack up to '[kernel]'
	local k="coalesce(nullif(list_position(stack_trace, '[kernel]'), 0), len(stack_trace) + 1) - 1"
	echo "stack_trace[1:$k] AS st, stack_modules[1:$k] AS sm"
}
drop() { # FILE COUNTER
	q "$1" "SELECT json_extract(decode(value)::VARCHAR, '\$.$2') FROM parquet_kv_metadata('$1') WHERE decode(key) = 'probex.drops'"
}

# A frame-pointer walk of nofp_c reads the spaces rbp points at: 0x2020202020202020.  The
# fixture maps no anonymous code, so every frame must be named by a file (a hex label is
# an address outside every executable mapping the kernel reported).
out="$TMP/fp.parquet"
"$PROBEX" -q -o "$out" --no-viewer --call-graph fp -- "$FIXTURES/nofp" chain 0.5 || fail "probex exited $?"
total=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample'")
assert_ge "cpu samples (a loaded machine gives fewer)" 100 "$total"
assert_eq "user frames outside executable code (fp)" 0 \
	"$(q "$out" "SELECT count(*) FROM ($(user_frames)) WHERE l LIKE '0x%'")"
assert_ge "walks cut at a non-code address, counted in probex.drops (of $total)" \
	"$((total / 2))" "$(drop "$out" ustack_cut_outside_code)"

# Frame-pointer walks to the depth limit (127 frames, bpf_loop steps): 40 levels whole
# from main; 200 marked truncated, and counted.
"$PROBEX" -q -o "$TMP/d40.parquet" --no-viewer --call-graph fp -- "$FIXTURES/deep" 40 0.3 || fail "probex exited $?"
total=$(q "$TMP/d40.parquet" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND list_contains(stack_trace, 'probex_deep')")
assert_ge "fp: samples in probex_deep, 40 levels whole from main (of $total)" "$((total * 90 / 100))" \
	"$(q "$TMP/d40.parquet" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND stack_trace[3] = 'main' AND len(list_filter(stack_trace, x -> x = 'probex_deep')) = 40 AND NOT list_contains(stack_trace, '[truncated]')")"
"$PROBEX" -q -o "$TMP/d200.parquet" --no-viewer --call-graph fp -- "$FIXTURES/deep" 200 0.3 || fail "probex exited $?"
total=$(q "$TMP/d200.parquet" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND list_contains(stack_trace, 'probex_deep')")
assert_ge "fp: samples 200 levels deep marked truncated (of $total)" "$((total * 90 / 100))" \
	"$(q "$TMP/d200.parquet" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND stack_trace[2] = '[truncated]' AND NOT list_contains(stack_trace, 'main')")"
assert_ge "fp: truncated walks counted in probex.drops" "$((total * 90 / 100))" "$(drop "$TMP/d200.parquet" stack_truncated)"

# The default (auto): stacks copied and unwound with CFI.  The hot chain appears whole,
# from main, in (nearly) every sample.
out="$TMP/dw.parquet"
"$PROBEX" -q -o "$out" --no-viewer -- "$FIXTURES/nofp" chain 0.5 || fail "probex exited $?"
total=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample'")
chain=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND contains(array_to_string(stack_trace, '|'), '[user]|_start|__libc_start_main')
	AND contains(array_to_string(stack_trace, '|'), '|main|nofp_a|nofp_b|nofp_c')")
echo "cpu samples: $total, with _start ... main > nofp_a > nofp_b > nofp_c: $chain"
assert_ge "samples with the whole chain (of $total)" "$((total * 90 / 100))" "$chain"
assert_eq "user frames outside executable code (dwarf)" 0 \
	"$(q "$out" "SELECT count(*) FROM ($(user_frames)) WHERE l LIKE '0x%'")"
assert_le "unwinds that needed stack beyond the copy (start-up and exit stragglers)" "$((total / 100 + 1))" "$(drop "$out" unwind_copy_end)"
# The sampled stacks of scheduler events are copies too: the same chain when preempted.
sw=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'sched_switch' AND list_contains(stack_trace, 'nofp_c')")
swhole=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'sched_switch' AND list_contains(stack_trace, 'nofp_c') AND contains(array_to_string(stack_trace, '|'), '|main|nofp_a|nofp_b|nofp_c')")
assert_ge "sched_switch stacks in nofp_c with the whole chain (of $sw)" "$((sw * 90 / 100))" "$swhole"

# A callback called from libc (no frame pointers there): main > caller > qsort > callback.
out="$TMP/qs.parquet"
"$PROBEX" -q -o "$out" --no-viewer -- "$FIXTURES/nofp" qsort 0.5 || fail "probex exited $?"
total=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND list_contains(stack_trace, 'nofp_cmp')")
through=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND list_contains(stack_trace, 'nofp_cmp')
	AND regexp_matches(array_to_string(stack_trace, '|'), '\|main\|nofp_sort\|qsort(_r)?\|(msort[^|]*\|)*nofp_cmp')")
echo "samples in the callback: $total, through main > nofp_sort > qsort: $through"
assert_ge "samples in the callback" 100 "$total"
assert_ge "callback samples showing main > nofp_sort > qsort > nofp_cmp (of $total)" "$((total * 90 / 100))" "$through"

# A real interpreter built without frame pointers: python3 samples reach Py_RunMain
# (perf record --call-graph dwarf: ~96% on this loop; the samples of its start-up, before
# Py_RunMain, are a smaller share the longer it runs).
out="$TMP/py.parquet"
"$PROBEX" -q -o "$out" --no-viewer -- /usr/bin/python3 -c 'x = 0
for i in range(8000000): x += i * i' || fail "probex exited $?"
total=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND process_name LIKE 'python%'")
runmain=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND process_name LIKE 'python%' AND list_contains(stack_trace, 'Py_RunMain')")
echo "python3 samples: $total, reaching Py_RunMain: $runmain ($((runmain * 100 / total))%)"
assert_ge "python3 samples reaching Py_RunMain (of $total)" "$((total * 85 / 100))" "$runmain"

# A real program whose threads hold more than 8 KiB of frames (perf's and our old default
# copy): sort's merge threads.  Stripped, so whole means no [truncated] mark; with 8 KiB,
# 91-96% of its samples were cut at the copy's end.
seq 600000 >"$TMP/lines"
out="$TMP/sort.parquet"
"$PROBEX" -q -o "$out" --no-viewer -- sort -R --parallel=2 -o /dev/null "$TMP/lines" || fail "probex exited $?"
total=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND process_name = 'sort' AND NOT list_contains(stack_trace, '[kernel]')")
whole=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND process_name = 'sort' AND NOT list_contains(stack_trace, '[kernel]') AND NOT list_contains(stack_trace, '[truncated]')")
echo "sort samples in user code: $total, whole: $whole"
assert_ge "sort's samples whole (of $total)" "$((total * 90 / 100))" "$whole"

# Every copy size loads (the copy's bound must stay provable to the verifier).
for kib in 1 4 8 16; do
	"$PROBEX" -q -o "$TMP/k.parquet" --force --no-viewer --stack-copy "$kib" -- true ||
		fail "--stack-copy $kib: probex exited $?"
done
echo "ok: --stack-copy 1, 4, 8 and 16 load"

# The cached CFI rules give the frames libdwfl gives: the same spool (python3 and a
# shell's processes) finalized both ways, every row's user stack and its objects equal.
# (Kernel frames can differ between two recovers: probex's own BPF programs, on the
# kernel side of the stacks, leave kallsyms some time after the recording.)
PROBEX_TEST_KEEP_SPOOL=1 "$PROBEX_TEST" -q -o "$TMP/eq.parquet" --no-viewer -- sh -c \
	"/usr/bin/python3 -c 'import json, hashlib; [hashlib.sha1(json.dumps(list(range(i % 50))).encode()).hexdigest() for i in range(200000)]'; ls -R /usr/include >/dev/null" ||
	fail "probex (equivalence run) exited $?"
"$PROBEX_TEST" recover -v "$TMP/eq.parquet.probex-spool" -o "$TMP/eq-rules.parquet" 2>"$TMP/eq-rules.log" ||
	fail "recover with the rules failed: $(cat "$TMP/eq-rules.log")"
PROBEX_TEST_NO_CFI_RULES=1 "$PROBEX_TEST" recover -v "$TMP/eq.parquet.probex-spool" -o "$TMP/eq-dwfl.parquet" 2>"$TMP/eq-dwfl.log" ||
	fail "recover with libdwfl only failed: $(cat "$TMP/eq-dwfl.log")"
fast=$(sed -n 's/.*; \([0-9]*\) by cached CFI rules.*/\1/p' "$TMP/eq-rules.log")
copied=$(sed -n 's/.* \([0-9]*\) unwound from stack bytes.*/\1/p' "$TMP/eq-rules.log")
echo "stacks unwound from copies (the kernel's walk stopped or had no table yet): $copied, by cached rules: $fast"
# libdwfl is left only what the rules cannot say (a pc in the vDSO, an expression other
# than the PLT's): ld.so's code and its entry point, PLT stubs are the rules' (a sample
# that needs libdwfl costs a session for its process).  The copies left are the ones
# the kernel's walk could not do, the harder ones: 97% here.
assert_ge "stacks unwound by the cached rules (of $copied)" "$((copied * 90 / 100))" "$fast"
assert_eq "the libdwfl-only run used no rule" 0 "$(sed -n 's/.*; \([0-9]*\) by cached CFI rules.*/\1/p' "$TMP/eq-dwfl.log")"
assert_eq "rows whose stack differs between the rules and libdwfl" "0 $(q "$TMP/eq-dwfl.parquet" "SELECT count(*) FROM events")" \
	"$(q "$TMP/eq-rules.parquet" "WITH a AS (SELECT row_number() OVER () AS rn, $(user_part) FROM read_parquet('$TMP/eq-rules.parquet')),
		b AS (SELECT row_number() OVER () AS rn, $(user_part) FROM read_parquet('$TMP/eq-dwfl.parquet'))
		SELECT count(*) FILTER (WHERE a.st IS DISTINCT FROM b.st OR a.sm IS DISTINCT FROM b.sm) || ' ' || count(*)
		FROM a JOIN b USING (rn)")"

# Every label has its object in stack_modules, aligned with stack_trace.
out="$TMP/qs.parquet"
assert_eq "rows whose stack_modules and stack_trace differ in length" 0 \
	"$(q "$out" "SELECT count(*) FROM events WHERE stack_trace IS NOT NULL AND len(stack_trace) IS DISTINCT FROM len(stack_modules)")"
assert_eq "qsort's object" "$(readlink -f "$(ldd "$FIXTURES/nofp" | awk '/libc.so/ { print $3 }')")" \
	"$(q "$out" "SELECT stack_modules[list_position(stack_trace, 'nofp_sort') + 1] FROM events WHERE event_type = 'cpu_sample' AND list_contains(stack_trace, 'nofp_cmp') LIMIT 1")"
assert_eq "the callback's object" "$FIXTURES/nofp" \
	"$(q "$out" "SELECT stack_modules[list_position(stack_trace, 'nofp_cmp')] FROM events WHERE list_contains(stack_trace, 'nofp_cmp') LIMIT 1")"
assert_eq "user frames without an object" 0 "$(q "$out" "SELECT count(*) FROM (SELECT unnest(stack_trace) AS l, unnest(stack_modules) AS m FROM events) WHERE m = '' AND l NOT IN ('[user]', '[kernel]', '[truncated]')")"

# Stripped, its DWARF and CFI (.debug_frame, no .eh_frame for its own code) in a separate
# file found through .gnu_debuglink: names and whole stacks still.
out="$TMP/dl.parquet"
"$PROBEX" -q -o "$out" --no-viewer -- "$FIXTURES/nofp_debuglink" chain 0.3 || fail "probex exited $?"
total=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample'")
chain=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND contains(array_to_string(stack_trace, '|'), '[user]|_start|') AND contains(array_to_string(stack_trace, '|'), '|main|nofp_a|nofp_b|nofp_c')")
assert_ge "stripped + debuglink: samples with the whole chain (of $total)" "$((total * 90 / 100))" "$chain"

# A separate debug file without .debug_frame (glibc's -dbg files) has no CFI to give:
# unwinding looks at it once and never loads it (loading ld.so's inflated its DWARF once
# per process: 20 processes, 23 opens).
ldso=$(readlink -f /lib64/ld-linux-x86-64.so.2)
id=$(readelf -n "$ldso" 2>/dev/null | awk '/Build ID/ { print $3 }')
dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
if [ -n "$id" ] && [ -e "$dbg" ] && command -v strace >/dev/null; then
	out="$TMP/dbg.parquet"
	strace -qq -e trace=openat -o "$TMP/opens" "$PROBEX" -q -o "$out" --no-viewer -- \
		sh -c 'for i in $(seq 20); do /bin/true; done' || fail "probex exited $?"
	assert_ge "copied user stacks of the 20 processes" 20 "$(q "$out" "SELECT count(*) FROM events WHERE stack_trace IS NOT NULL")"
	assert_le "opens of ld.so's debug file (the unwinder skips it: ld.so has its own .eh_frame; the symbolizer may open it once)" 2 "$(grep -c "$dbg" "$TMP/opens")"
else
	echo "skip: no separate debug file for $ldso (libc6-dbg) or no strace"
fi

# JIT code: an anonymous executable mapping named through /tmp/perf-PID.map, which the
# fixture deletes at exit (probex copies it while the process lives).
for cg in auto fp; do
	out="$TMP/jit-$cg.parquet"
	"$PROBEX" -q -o "$out" --no-viewer --call-graph $cg -- "$FIXTURES/jit" 0.5 || fail "probex exited $?"
	total=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample'")
	named=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND contains(array_to_string(stack_trace, '|'), '|main|jit_spin_loop')")
	assert_ge "$cg: samples in main > jit_spin_loop, named by the perf map (of $total)" "$((total * 80 / 100))" "$named"
	assert_eq "$cg: the JIT frame's object" "//anon" \
		"$(q "$out" "SELECT stack_modules[list_position(stack_trace, 'jit_spin_loop')] FROM events WHERE list_contains(stack_trace, 'jit_spin_loop') LIMIT 1")"
	assert_eq "$cg: malformed perf map lines counted" 1 "$(drop "$out" jit_map_lines_skipped)"
done

# A map written only at exit and left behind (a JVM's -XX:+DumpPerfMapAtExit): read after
# the process is gone, as the command's user's and newer than the recording, and whole
# (~1 MiB, the loop's symbol last: more than one poll's slice).
out="$TMP/jit-exit.parquet"
pid=$("$PROBEX" -q -o "$out" --no-viewer -- "$FIXTURES/jit" 0.5 atexit) || fail "probex exited $?"
rm -f "/tmp/perf-$pid.map"
total=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample'")
named=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND contains(array_to_string(stack_trace, '|'), '|main|jit_spin_loop')")
assert_ge "a map written at exit: samples in main > jit_spin_loop (of $total)" "$((total * 80 / 100))" "$named"

# A real JIT: node --perf-basic-prof.  V8 maps part of node's own text a second time,
# near its JIT code; the stacks through both are whole, and JS functions are named.
command -v node >/dev/null || fail "node is missing (scripts/deps.sh installs it)"
out="$TMP/node.parquet"
echo 'function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
let s = 0; const t0 = Date.now(); while (Date.now() - t0 < 1000) s += fib(20);' >"$TMP/fib.js"
# (From $TMP: node writes V8 logs to its working directory.)
(cd "$TMP" && "$PROBEX" -q -o "$out" --no-viewer -- node --perf-basic-prof "$TMP/fib.js") || fail "probex (node) exited $?"
for pid in $(q "$out" "SELECT DISTINCT tgid FROM events WHERE process_name = 'node'"); do
	rm -f "/tmp/perf-$pid.map"	# node leaves its map behind
done
total=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND process_name = 'node'")
assert_ge "node samples" 500 "$total"
assert_ge "node samples whole, not truncated (of $total)" "$((total * 90 / 100))" \
	"$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND process_name = 'node' AND NOT list_contains(stack_trace, '[truncated]') AND list_contains(stack_trace, '_start')")"
assert_ge "node samples in the JS function fib (of $total)" "$((total * 50 / 100))" \
	"$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND process_name = 'node' AND len(list_filter(stack_trace, x -> x LIKE '%fib%')) > 0")"

# Re-symbolization keeps the JIT names (the maps are gone; the names used are kept in the
# symbol data) and the modules, row for row.
"$PROBEX" resymbolize "$TMP/jit-auto.parquet" -o "$TMP/jit-r.parquet" || fail "resymbolize failed"
assert_eq "resymbolized rows whose labels or modules changed" 0 \
	"$(q "$TMP/jit-auto.parquet" "SELECT count(*) FROM read_parquet('$TMP/jit-auto.parquet', file_row_number=true) a JOIN read_parquet('$TMP/jit-r.parquet', file_row_number=true) b USING (file_row_number) WHERE a.stack_trace IS DISTINCT FROM b.stack_trace OR a.stack_modules IS DISTINCT FROM b.stack_modules")"

# Debug information installed after the recording: probex resymbolize names the frames
# from it, and every row keeps its kernel part and its place.  The binary carries a
# .gnu_debuglink whose file is missing while it runs.
cc -O2 -g -fomit-frame-pointer "$ROOT/tests/fixtures/nofp.c" -o "$TMP/late.full" || fail "cc failed"
objcopy --only-keep-debug "$TMP/late.full" "$TMP/late.debug"
strip --strip-all -o "$TMP/late.tmp" "$TMP/late.full"
objcopy --add-gnu-debuglink="$TMP/late.debug" "$TMP/late.tmp" "$TMP/late"
mv "$TMP/late.debug" "$TMP/late.debug.away"
out="$TMP/late.parquet"
"$PROBEX" -q -o "$out" --no-viewer -- "$TMP/late" chain 0.3 || fail "probex exited $?"
named="SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND contains(array_to_string(stack_trace, '|'), '|main|nofp_a|nofp_b|nofp_c')"
total=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample'")
assert_eq "debug file missing: samples with the named chain" 0 "$(q "$out" "$named")"
mv "$TMP/late.debug.away" "$TMP/late.debug"
"$PROBEX" resymbolize "$out" -o "$TMP/late-r.parquet" || fail "resymbolize failed"
assert_ge "debug file installed, resymbolized: samples with the named chain (of $total)" "$((total * 90 / 100))" \
	"$(q "$TMP/late-r.parquet" "$named")"
kpart() { echo "list_slice($1.stack_trace, coalesce(nullif(list_position($1.stack_trace, '[kernel]'), 0), len($1.stack_trace) + 1), len($1.stack_trace))"; }
assert_eq "resymbolized rows whose time, type or kernel part changed (of $(q "$out" "SELECT count(*) FROM events"))" 0 \
	"$(q "$out" "SELECT count(*) FROM read_parquet('$out', file_row_number=true) a FULL JOIN read_parquet('$TMP/late-r.parquet', file_row_number=true) b USING (file_row_number)
		WHERE a.ts_ns IS DISTINCT FROM b.ts_ns OR a.event_type IS DISTINCT FROM b.event_type
		OR $(kpart a) IS DISTINCT FROM $(kpart b)")"

# Stripped binaries: names from .dynsym when exported, else path+0xOFFSET; whole either way.
out="$TMP/dyn.parquet"
"$PROBEX" -q -o "$out" --no-viewer -- "$FIXTURES/nofp_dynsym" chain 0.3 || fail "probex exited $?"
total=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample'")
assert_ge "stripped, .dynsym: samples with the whole named chain (of $total)" "$((total * 90 / 100))" \
	"$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND contains(array_to_string(stack_trace, '|'), '[user]|_start|') AND contains(array_to_string(stack_trace, '|'), '|main|nofp_a|nofp_b|nofp_c')")"
out="$TMP/str.parquet"
"$PROBEX" -q -o "$out" --no-viewer -- "$FIXTURES/nofp_stripped" chain 0.3 || fail "probex exited $?"
total=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample'")
# Its entry point keeps a name: the ELF header says where _start is.
assert_ge "stripped, no symbols: samples walked whole from _start (named from e_entry) to a path+0x frame (of $total)" "$((total * 90 / 100))" \
	"$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND NOT list_contains(stack_trace, '[truncated]') AND stack_trace[2] = '_start' AND stack_modules[2] LIKE '%/nofp_stripped' AND len(list_filter(stack_trace, x -> x LIKE '%/nofp_stripped+0x%')) >= 4")"

# probex reads JIT maps as root from a directory anyone can write: a symlink, or a file
# owned by another user than the process's, is never copied.
out="$TMP/hostile.parquet"
secret="probex-secret-$$"
echo "7f0000000000 10 $secret" >"$TMP/secret.map"
chmod 600 "$TMP/secret.map"
PROBEX_TEST_KEEP_SPOOL=1 "$PROBEX_TEST" -q -o "$out" --no-viewer -- sh -c \
	"ln -sf '$TMP/secret.map' /tmp/perf-\$\$.map; sleep 0.3; rm -f /tmp/perf-\$\$.map" || fail "probex exited $?"
assert_eq "spool bytes from a symlinked perf map" 0 "$(grep -c "$secret" "$out.probex-spool")"
rm -f "$out" "$out.probex-spool"
PROBEX_TEST_KEEP_SPOOL=1 "$PROBEX_TEST" -q -o "$out" --no-viewer -- sh -c \
	"cp '$TMP/secret.map' /tmp/perf-\$\$.map; chown nobody /tmp/perf-\$\$.map; sleep 0.3; rm -f /tmp/perf-\$\$.map" || fail "probex exited $?"
assert_eq "spool bytes from a perf map of another user" 0 "$(grep -c "$secret" "$out.probex-spool")"
rm -f "$out" "$out.probex-spool"
PROBEX_TEST_KEEP_SPOOL=1 "$PROBEX_TEST" -q -o "$out" --no-viewer -- sh -c \
	"cp '$TMP/secret.map' /tmp/perf-\$\$.map; sleep 0.3; rm -f /tmp/perf-\$\$.map" || fail "probex exited $?"
assert_eq "the same map, the process's own: copied" 1 "$(grep -c "$secret" "$out.probex-spool")"
rm -f "$out" "$out.probex-spool"
PROBEX_TEST_KEEP_SPOOL=1 "$PROBEX_TEST" -q -o "$out" --no-viewer -- sh -c \
	"ln -f '$TMP/secret.map' /tmp/perf-\$\$.map; sleep 0.3; rm -f /tmp/perf-\$\$.map" || fail "probex exited $?"
assert_eq "spool bytes from a hard-linked perf map" 0 "$(grep -c "$secret" "$out.probex-spool")"
