#!/usr/bin/env bash
# Python frames' cost: a CPU-bound pure-Python loop of fixed work (bench/workloads/pyloop.py,
# its own CPU seconds) untraced, under probex at 1999 Hz with Python frames and with native
# stacks only (PROBEX_PYTHON_FRAMES=0), and under perf record -g at the same rate; the
# trace's bytes per CPU sample (a run recording CPU samples and exit_group only) and the
# drops.  py-spy has no Debian or npm package: it is not in the table.
# Prints a table and writes it to $BUILD/bench/python.md.  Needs root.
set -u
source "$(dirname "$0")/lib.sh"
bench__setup python "probex needs root"
OUT=$ROOT/$BUILD/bench/python.md
mkdir -p "$(dirname "$OUT")"
PY=${PYTHON:-/usr/bin/python3.11}
W=$ROOT/bench/workloads/pyloop.py
N=${ROUNDS:-6000}

secs() { sed -n 's/^seconds=//p'; }
untraced() { "$PY" "$W" "$N" | secs; }
probex_run() { "$PROBEX" -q -o "$WORK/$1.parquet" --no-viewer --force -- "$PY" "$W" "$N" | secs; }
perf_run() { perf record -q -g -F 1999 -o "$WORK/perf.data" -- "$PY" "$W" "$N" 2>/dev/null | secs; }

declare -a base py nat pf
for r in $(seq "$RUNS"); do
	base+=("$(untraced)")
	py+=("$(probex_run py)")
	nat+=("$(PROBEX_PYTHON_FRAMES=0 probex_run native)")
	command -v perf >/dev/null && pf+=("$(perf_run)")
done
med() { printf '%s\n' "$@" | median; }
b=$(med "${base[@]}")
ratio() { awk -v t="$1" -v b="$b" 'BEGIN { printf "%.3f", t / b }'; }
drop() { "$PROBEX" query --no-header "$1" "SELECT json_extract(decode(value)::VARCHAR, '\$.$2') FROM parquet_kv_metadata('$1') WHERE decode(key) = 'probex.drops'" | head -1; }
samples() { "$PROBEX" query --no-header "$1" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample'" | head -1; }
with_py() { "$PROBEX" query --no-header "$1" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND list_contains(list_transform(stack_trace, x -> x LIKE 'fib (%pyloop.py:%'), true)" | head -1; }
bytes_per_sample() {
	env "$@" "$PROBEX" -q -o "$WORK/b.parquet" --no-viewer --force --syscalls=exit_group -- "$PY" "$W" "$N" >/dev/null
	awk -v s="$(stat -c %s "$WORK/b.parquet")" -v n="$(samples "$WORK/b.parquet")" 'BEGIN { printf "%.1f", s / n }'
}
bps_py=$(bytes_per_sample PROBEX_PYTHON_FRAMES=1)
bps_nat=$(bytes_per_sample PROBEX_PYTHON_FRAMES=0)
pyv=$("$PY" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')

{
	echo "| $PY ($pyv) pyloop.py $N rounds, $RUNS runs (medians) | CPU seconds | vs untraced |"
	echo "|---|---:|---:|"
	echo "| untraced | $b | 1.000 |"
	echo "| probex, Python frames ($(samples "$WORK/py.parquet") samples, $(with_py "$WORK/py.parquet") with fib's Python frame; cpu_sample drops $(drop "$WORK/py.parquet" ringbuf_cpu_sample)) | $(med "${py[@]}") | $(ratio "$(med "${py[@]}")") |"
	echo "| probex, native stacks only (PROBEX_PYTHON_FRAMES=0; drops $(drop "$WORK/native.parquet" ringbuf_cpu_sample)) | $(med "${nat[@]}") | $(ratio "$(med "${nat[@]}")") |"
	[ "${#pf[@]}" -gt 0 ] && echo "| perf record -g -F 1999 (frame pointers; no Python frames) | $(med "${pf[@]}") | $(ratio "$(med "${pf[@]}")") |"
	echo
	echo "Python frames over native stacks: $(awk -v a="$(med "${py[@]}")" -v n="$(med "${nat[@]}")" 'BEGIN { printf "%+.1f%%", (a / n - 1) * 100 }')."
	echo "Trace bytes per CPU sample (CPU samples and exit_group only): $bps_py with Python frames, $bps_nat native only."
	echo "py-spy: no Debian or npm package, not measured."
} | tee "$OUT"
