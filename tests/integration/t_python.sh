#!/usr/bin/env bash
# Python frames in every stack of a CPython process (issue 35): on each CPython found on
# this machine, a fixture with a known split of CPU time shows its functions in order,
# in the split, in CPU samples; its sleep and read lines in off-CPU and syscall stacks;
# its thread and subprocess too.  An interpreter probex cannot walk keeps native stacks
# and is counted.
source "$(dirname "$0")/lib.sh"
SPLIT="$ROOT/tests/fixtures/python/split.py"
SLEEP_LINE=$(grep -n 'time.sleep(0.02)' "$SPLIT" | cut -d: -f1)
READ_LINE=$(grep -n 'return os.read(r, 1)' "$SPLIT" | cut -d: -f1)
PYENV=${PYENV_ROOT:-/root/.pyenv}/versions

drop() { # FILE COUNTER
	q "$1" "SELECT json_extract(decode(value)::VARCHAR, '\$.$2') FROM parquet_kv_metadata('$1') WHERE decode(key) = 'probex.drops'"
}
# Samples whose stack holds a Python frame of function $2 in split.py.
has() { echo "list_contains(list_transform(stack_trace, x -> regexp_extract(x, '^([A-Za-z_.<>]+) \\(.*split\\.py:[0-9]+\\)$', 1)), '$1')"; }
share() { # FILE FUNCTION: percent of the fixture's work samples in it
	q "$1" "SELECT round(100.0 * count(*) FILTER (WHERE $(has "$2")) / count(*)) FROM events
		WHERE event_type = 'cpu_sample' AND ($(has pure) OR $(has recurse) OR $(has cext) OR $(has child_fn))"
}

check_version() { # PYTHON LABEL
	local py=$1 v=$2 out="$TMP/py-$2.parquet" total
	echo "--- $v ($py)"
	"$PROBEX" -q -o "$out" --no-viewer -- "$py" "$SPLIT" || fail "$v: probex exited $?"
	assert_eq "$v: python processes found (parent, child)" 2 "$(drop "$out" python_processes)"
	total=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND ($(has pure) OR $(has recurse) OR $(has cext) OR $(has child_fn))")
	assert_ge "$v: samples in the fixture's functions (a loaded machine gives fewer)" 300 "$total"
	# The split: pure 0.4 + threaded 0.2 (pure) + child 0.2 (pure) of 1.2 s, recurse 0.2, cext 0.2.
	local p r c
	p=$(share "$out" pure); r=$(share "$out" recurse); c=$(share "$out" cext)
	echo "$v: split pure/recurse/cext = $p/$r/$c (expected 67/17/17)"
	assert_ge "$v: pure share" 57 "$p"; assert_le "$v: pure share" 77 "$p"
	assert_ge "$v: recurse share" 10 "$r"; assert_le "$v: recurse share" 24 "$r"
	assert_ge "$v: cext share" 10 "$c"; assert_le "$v: cext share" 24 "$c"
	# In order, root first: native start-up, <module>, run_phases, then the phase (before
	# 3.11 each Python call is a C call too: native frames between the Python ones).
	local pu
	pu=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND $(has pure) AND pid = tgid
		AND NOT $(has child_fn)")
	assert_ge "$v: main-thread pure samples as _start ... Py_BytesMain ... <module> > run_phases > pure (of $pu)" \
		"$((pu * 85 / 100))" \
		"$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND $(has pure) AND pid = tgid
			AND regexp_matches(array_to_string(stack_trace, '|'), '^\\[user\\]\\|_start\\|.*Py_BytesMain\\|.*\\|<module> \\([^|]*split\\.py:[0-9]+\\)\\|(.*\\|)?run_phases \\([^|]*\\)\\|(.*\\|)?pure \\(')")"
	local rec whole
	rec=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND $(has recurse)")
	whole=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND $(has recurse)
		AND len(list_filter(stack_trace, x -> x LIKE 'recurse (%split.py:%')) = 13")
	assert_ge "$v: recursion 13 frames deep, whole (of $rec)" "$((rec * 85 / 100))" "$whole"
	# The C extension below its Python caller: _json's C frames (named, or addresses in the
	# stripped module) after json's Python frames.
	local ce below
	ce=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND $(has cext)")
	below=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND $(has cext)
		AND regexp_matches(array_to_string(stack_trace, '|'), 'cext \\([^|]*\\)\\|(.*\\|)?loads \\([^|]*json[^|]*\\)\\|.*decode[^|]*\\)\\|.*(_json|scan)')")
	assert_ge "$v: json.loads samples with cext > loads > ... > the _json C scanner (of $ce)" "$((ce * 60 / 100))" "$below"
	# The second thread, with its own chain; the subprocess.
	assert_ge "$v: threaded samples in another thread, under threading's bootstrap" 20 \
		"$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND pid <> tgid AND $(has threaded)
			AND array_to_string(stack_trace, '|') LIKE '%_bootstrap%|threaded (%|pure (%'")"
	assert_ge "$v: child_fn samples in the subprocess" 20 \
		"$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND $(has child_fn)
			AND tgid <> (SELECT min(tgid) FROM events WHERE $(has run_phases))")"
	# Blocking: the sleep's and the read's Python lines in off-CPU and syscall stacks.
	assert_ge "$v: off_cpu rows of napper's sleep with its line" 1 \
		"$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'off_cpu' AND array_to_string(stack_trace, '|') LIKE '%|napper (%split.py:$SLEEP_LINE)%'")"
	assert_ge "$v: sleep syscall stacks (clock_nanosleep; select before 3.11) with napper's line" 1 \
		"$(q "$out" "SELECT count(*) FROM events WHERE regexp_matches(event_type, '^syscall_(clock_nanosleep|pselect6|select)_') AND array_to_string(stack_trace, '|') LIKE '%|napper (%split.py:$SLEEP_LINE)%'")"
	assert_ge "$v: read(2) stacks with wait_read's line" 1 \
		"$(q "$out" "SELECT count(*) FROM events WHERE event_type LIKE 'syscall_read%' AND array_to_string(stack_trace, '|') LIKE '%|wait_read (%split.py:$READ_LINE)%'")"
	assert_ge "$v: wait_read's off_cpu row with its waker's Python frames (threading's Timer.run; run before 3.11)" 1 \
		"$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'off_cpu' AND array_to_string(stack_trace, '|') LIKE '%|wait_read (%'
			AND regexp_matches(array_to_string(waker_stack_trace, '|'), '\\|(Timer\\.)?run \\([^|]*threading\\.py:')")"
	assert_eq "$v: no Python frame labelled in the kernel part" 0 \
		"$(q "$out" "SELECT count(*) FROM events WHERE list_position(stack_trace, '[kernel]') > 0
			AND len(list_filter(stack_trace[list_position(stack_trace, '[kernel]'):], x -> x LIKE '%split.py:%')) > 0")"
	assert_eq "$v: stack_modules of Python frames" python \
		"$(q "$out" "SELECT DISTINCT stack_modules[list_position(stack_trace, list_filter(stack_trace, x -> x LIKE 'pure (%')[1])] FROM events WHERE event_type = 'cpu_sample' AND $(has pure)")"
}

found=0
for py in /usr/bin/python3.11 "$PYENV"/3.8.*/bin/python3.8 "$PYENV"/3.9.*/bin/python3.9 \
	  "$PYENV"/3.10.*/bin/python3.10 "$PYENV"/3.11.*/bin/python3.11 "$PYENV"/3.12.*/bin/python3.12 \
	  "$PYENV"/3.13.*/bin/python3.13; do
	[ -x "$py" ] || continue
	found=$((found + 1))
	first=${first:-$py}
	last="$("$py" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')-$(basename "$(dirname "$(dirname "$py")")")"
	check_version "$py" "$last"
done
[ "$found" -gt 0 ] || fail "no CPython 3.8-3.13 here (scripts/deps.sh installs Debian's python3)"

# probex resymbolize keeps the Python frames (their code objects are gone by then).
"$PROBEX" resymbolize "$TMP/py-$last.parquet" -o "$TMP/resym.parquet" --force >/dev/null 2>&1 || fail "resymbolize exited $?"
labels() { q "$1" "SELECT md5(string_agg(array_to_string(stack_trace, '|'), ';' ORDER BY ts_ns, pid, event_type)) FROM events"; }
assert_eq "resymbolize: the same stacks, Python frames included" "$(labels "$TMP/py-$last.parquet")" "$(labels "$TMP/resym.parquet")"

# Attached with --pid, no restart: a running program's frames from the first sample on.
SPLIT_SCALE=4 "$first" "$SPLIT" &
target=$!
sleep 0.5
"$PROBEX" -q -o "$TMP/att.parquet" --no-viewer --pid "$target" --duration 1 || fail "--pid: probex exited $?"
wait "$target"
total=$(q "$TMP/att.parquet" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND tgid = $target")
assert_ge "--pid: samples under run_phases (of $total)" "$((total * 80 / 100))" \
	"$(q "$TMP/att.parquet" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND tgid = $target AND $(has run_phases)")"

# An interpreter probex cannot walk: native stacks, counted, one line.
for py in "$PYENV"/3.6.*/bin/python3.6 "$PYENV"/3.7.*/bin/python3.7; do
	[ -x "$py" ] || continue
	out="$TMP/old.parquet"
	"$PROBEX" -o "$out" --no-viewer -- "$py" -c 'x = 0
for i in range(3000000): x += i' 2>"$TMP/old.err" || fail "$py: probex exited $?"
	assert_eq "$py: python_unsupported" 1 "$(drop "$out" python_unsupported)"
	assert_eq "$py: one line says so" 1 "$(grep -c 'which probex cannot walk' "$TMP/old.err")"
	assert_ge "$py: native stacks kept" 50 \
		"$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND list_contains(stack_trace, '_PyEval_EvalFrameDefault')")"
done
