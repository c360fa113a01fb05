#!/usr/bin/env bash
# Recorder benchmark: each workload untraced and under `probex --no-viewer`, alternating,
# one warm-up, median of RUNS runs, wall time measured from the outside.
#
# Prints a table and writes it to $BUILD/bench/recorder.md.  Needs root (BPF).
#   RUNS=3  WORKLOADS="a b c"  bench/run.sh
set -u
source "$(dirname "$0")/lib.sh"
bench__setup bench "the recorder benchmark loads BPF programs and needs root"
OUT=$ROOT/$BUILD/bench/recorder.md

FIO_FILE=$WORK/fio.dat
declare -A CMD DESC EXTRA
CMD[a]="dd if=/dev/zero of=/dev/null bs=1 count=300000 status=none";	DESC[a]="a syscall-heavy (dd bs=1, 600K syscalls)"
CMD[a_fp]="${CMD[a]}";							DESC[a_fp]="a with --call-graph fp (sampled stacks walked, not copied)";	EXTRA[a_fp]="--call-graph fp"
CMD[a_all]="${CMD[a]}";							DESC[a_all]="a with --stacks=all";	EXTRA[a_all]="--stacks=all"
CMD[a_ref]="${CMD[a]}";							DESC[a_ref]="a with --syscalls=reference";	EXTRA[a_ref]="--syscalls=reference"
CMD[b_sh]="sh -c 'i=0; while [ \$i -lt 300000 ]; do i=\$((i+1)); done'";	DESC[b_sh]="b CPU-bound shell loop"
CMD[b_deep]="$BIN/deepstack 2";						DESC[b_deep]="b CPU-bound deep stacks (C)"
CMD[b_nofp]="$BIN/nofp";						DESC[b_nofp]="b CPU-bound without frame pointers (C, --call-graph auto)"
CMD[b_nofp_fp]="${CMD[b_nofp]}";					DESC[b_nofp_fp]="b without frame pointers, --call-graph fp";	EXTRA[b_nofp_fp]="--call-graph fp"
CMD[b_deeprec]="$BIN/deeprec";						DESC[b_deeprec]="b CPU-bound 100-deep recursion without frame pointers (C, 24 KiB of stack; target <= 1.10x)"
CMD[c]="sh -c 'for i in \$(seq 300); do /bin/true; done'";		DESC[c]="c fork-heavy (300 x /bin/true)"
CMD[d]="$BIN/pagefault 512";						DESC[d]="d page faults (512 MiB)"
CMD[e]="fio --name=t --ioengine=io_uring --rw=randread --bs=4k --size=64m --filename=$FIO_FILE --output=/dev/null"
DESC[e]="e io_uring (fio randread 4k)"
CMD[f]="true";								DESC[f]="f fixed cost (true)"
CMD[g]="$BIN/pingpong 200000";						DESC[g]="g off-CPU ping-pong (2 threads, 200K round trips)"
# The interpreter itself, not a wrapper on PATH (pyenv's shim is ~30 bash processes).
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
CMD[h]="$PY $ROOT/bench/workloads/hashjson.py $WORK/hash.json"
DESC[h]="h page faults of a real program (python3 hashing 300K strings to JSON; target <= 1.30x)"
ORDER=${WORKLOADS:-"a a_ref a_fp a_all b_sh b_deep b_nofp b_nofp_fp b_deeprec c d e f g h"}
STACKS=$ROOT/$BUILD/bench/stacks.md

q() { "$PROBEX" query --no-header "$1" "$2" 2>/dev/null | head -n1; }

run_untraced() { # key → seconds
	local t0 t1
	t0=$(now); eval "${CMD[$1]}" >/dev/null 2>&1; t1=$(now)
	echo "$t1 - $t0" | bc
}

run_traced() { # key out → seconds; leaves $WORK/err and $WORK/rss
	local t0 t1
	rm -f "$2"
	t0=$(now)
	eval "$PROBEX -o $2 --no-viewer ${EXTRA[$1]:-} -- ${CMD[$1]}" >/dev/null 2>"$WORK/err"
	t1=$(now)
	echo "$t1 - $t0" | bc
}

if [[ " $ORDER " == *" e "* ]]; then
	if command -v fio >/dev/null; then
		fio --name=layout --rw=write --bs=1m --size=64m --filename="$FIO_FILE" --output=/dev/null
	else
		echo "bench: fio missing (scripts/deps.sh installs it); skipping workload e"
		ORDER=${ORDER/ e / }
	fi
fi

mkdir -p "$(dirname "$OUT")"
{
	echo "| workload | cpu samples | whole user stacks (_start/clone to leaf) | file bytes per cpu sample |"
	echo "|---|---|---|---|"
} >"$STACKS"
{
	echo "| workload | untraced s | traced s | slowdown | while running | events | events/s | dropped | bytes/event | ref bytes/event | finalize s | samples/expected | probex peak RSS MiB |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} >"$OUT"

for k in $ORDER; do
	out=$WORK/$k.parquet
	run_untraced "$k" >/dev/null
	run_traced "$k" "$out" >/dev/null
	: >"$WORK/u"; : >"$WORK/t"; : >"$WORK/fin"; : >"$WORK/run"
	# Row b without frame pointers holds a target (<= 1.10x) a few percent from its
	# figure, where 3 runs on this VM spread by +-10%: at least 9 runs.
	nruns=$RUNS
	[[ $k == b_nofp || $k == b_deeprec ]] && [ "$nruns" -lt 9 ] && nruns=9
	for i in $(seq "$nruns"); do
		run_untraced "$k" >>"$WORK/u"
		run_traced "$k" "$out" >>"$WORK/t"
		sed -n 's/.*finalized in \([0-9.]*\) s.*/\1/p' "$WORK/err" >>"$WORK/fin"
		# "While running": the root command's exec to its exit, from the trace itself.
		q "$out" "SELECT (max(ts_ns) FILTER (WHERE event_type='process_exit' AND pid=tgid AND tgid=(SELECT min(tgid) FROM events WHERE event_type='process_exec')) - min(ts_ns) FILTER (WHERE event_type='process_exec')) / 1e9 FROM events" >>"$WORK/run"
	done
	u=$(median <"$WORK/u"); t=$(median <"$WORK/t"); fin=$(median <"$WORK/fin"); runs=$(median <"$WORK/run")
	# Ratios are medians of each run's ratio to the untraced run just before it: this VM's
	# speed drifts over a workload's runs, and a pair shares its moment.
	slow=$(paste "$WORK/t" "$WORK/u" | awk '{ print $1 / $2 }' | median)
	runr=$(paste "$WORK/run" "$WORK/u" | awk '$1 > 0 { print $1 / $2 }' | median)
	rows=$(q "$out" "SELECT count(*) FROM events")
	drops=$(q "$out" "SELECT decode(value) FROM parquet_kv_metadata('$out') WHERE key='probex.drops'" |
		grep -o '"\(ringbuf_[a-z_]*\|sideband_lost\)":[0-9]*' | awk -F: '{ s += $2 } END { print s + 0 }')
	size=$(stat -c %s "$out")
	"$PROBEX" query "$out" "COPY (SELECT event_type, ts_ns, pid, tgid, process_name, stack_id, kernel_stack_id, stack_kind, stack_trace, cpu::UTINYINT AS cpu, prev_pid, next_pid, prev_state, parent_pid, child_pid, exit_code, address, error_code, fd, count, ret, submit_ts_ns, io_uring_opcode, io_uring_res FROM events) TO '$WORK/ref.parquet' (FORMAT parquet, COMPRESSION snappy)" >/dev/null
	refsize=$(stat -c %s "$WORK/ref.parquet")
	samples="-"
	if [[ $k == b_* || $k == h ]]; then
		# Expected samples = frequency x the tree's CPU time, measured in the traced run
		# itself (wall-clock bounded loops get less CPU on a busy machine): per thread, its
		# first to last event less the off-CPU intervals of its sched_switch rows (a thread
		# that is never switched out has none: it was on a CPU the whole time).
		cpu=$(q "$out" "WITH t AS (SELECT pid, min(ts_ns) AS t0, max(ts_ns) AS t1 FROM events
			      WHERE event_type NOT IN ('sched_switch', 'cpu_sample') GROUP BY pid),
			s AS (SELECT ts_ns, prev_pid, next_pid FROM events WHERE event_type='sched_switch'),
			e AS (SELECT ts_ns, next_pid AS tid, 1 AS oncpu FROM s WHERE next_pid IN (SELECT pid FROM t)
			      UNION ALL SELECT ts_ns, prev_pid, 0 FROM s WHERE prev_pid IN (SELECT pid FROM t)),
			o AS (SELECT tid, sum(d) AS off FROM (SELECT tid, oncpu, lead(ts_ns) OVER (PARTITION BY tid ORDER BY ts_ns) - ts_ns AS d FROM e)
			      WHERE oncpu = 0 AND d IS NOT NULL GROUP BY tid)
			SELECT sum(t1 - t0 - coalesce(off, 0)) / 1e9 FROM t LEFT JOIN o ON o.tid = t.pid")
		got=$(q "$out" "SELECT count(*) FROM events WHERE event_type='cpu_sample'")
		freq=$(q "$out" "SELECT decode(value) FROM parquet_kv_metadata('$out') WHERE key='probex.sample_freq_hz'")
		samples=$(awk -v g="$got" -v c="$cpu" -v f="$freq" 'BEGIN { printf "%d/%d = %.1f%%", g, f * c, 100 * g / (f * c) }')
		# Whole: the walk reached the thread's first frame, nothing cut or truncated.
		whole=$(q "$out" "SELECT count(*) FROM events WHERE event_type='cpu_sample' AND NOT list_contains(stack_trace, '[truncated]')
			AND len(list_filter(stack_trace, x -> x IN ('_start', '__clone3', '__clone', 'clone3', 'clone'))) > 0")
		awk -v d="${DESC[$k]}" -v g="$got" -v w="$whole" -v s="$size" 'BEGIN {
			printf "| %s | %d | %.1f%% | %.1f |\n", d, g, 100 * w / (g ? g : 1), s / (g ? g : 1) }' >>"$STACKS"
	fi
	rss=$(sed -n 's/.*probex peak RSS \([0-9]*\) MiB.*/\1/p' "$WORK/err")
	row=$(awk -v d="${DESC[$k]}" -v u="$u" -v t="$t" -v r="$runs" -v n="$rows" -v dr="$drops" -v s="$size" \
		-v rs="$refsize" -v f="$fin" -v sm="$samples" -v m="$rss" -v sl="$slow" -v rr="${runr:-0}" 'BEGIN {
		printf "| %s | %.3f | %.3f | %.2fx | %s | %d | %.0f | %d | %.1f | %.1f | %.3f | %s | %s |",
			d, u, t, sl, (rr > 0 ? sprintf("%.2fx", rr) : "-"), n, (r > 0 ? n / r : n / t), dr, s / (n ? n : 1),
			rs / (n ? n : 1), f, sm, m }')
	echo "$row" >>"$OUT"
	echo "$row"
done
# The same workloads under perf record --call-graph dwarf (-N: perf 6.1 can crash filling
# its build-id cache at the end): perf's 8 KiB stack copies on row b without frame
# pointers, its largest (65528 bytes) on the deep recursion.
perf_row() { # key call-graph
	local k=$1 cg=$2 u t n whole size row ratio
	: >"$WORK/u"; : >"$WORK/t"
	for i in $(seq "$RUNS"); do
		run_untraced "$k" >>"$WORK/u"
		t0=$(now); perf record -q -N -F 1999 --call-graph "$cg" -o "$WORK/perf.data" -- ${CMD[$k]} >/dev/null 2>&1; t1=$(now)
		echo "$t1 - $t0" | bc >>"$WORK/t"
	done
	u=$(median <"$WORK/u"); t=$(median <"$WORK/t")
	# perf script: one block of callchain lines per sample, blank lines between.
	read -r n whole < <(perf script -i "$WORK/perf.data" -F ip,sym 2>/dev/null | awk '
		/^$/ { if (lines) { n++; w += start } lines = 0; start = 0; next }
		{ lines++; if ($2 == "_start") start = 1 }
		END { if (lines) { n++; w += start } print n + 0, w + 0 }')
	size=$(stat -c %s "$WORK/perf.data")
	row=$(awk -v d="${DESC[$k]%% (*}" -v c="$cg" -v n="$n" -v w="$whole" -v s="$size" 'BEGIN {
		printf "| perf record --call-graph %s -F 1999: %s | %d | %.1f%% | %.1f (perf.data) |", c, d, n, 100 * w / (n ? n : 1), s / (n ? n : 1) }')
	echo "$row" >>"$STACKS"
	ratio=$(paste "$WORK/t" "$WORK/u" | awk '{ print $1 / $2 }' | median)
	printf "perf record --call-graph %s (%s): untraced %.3f s, traced %.3f s (%.2fx)\n" "$cg" "$k" "$u" "$t" "$ratio" |
		tee -a "$STACKS"
}
if command -v perf >/dev/null; then
	[[ " $ORDER " == *" b_nofp "* ]] && perf_row b_nofp dwarf
	[[ " $ORDER " == *" b_deeprec "* ]] && perf_row b_deeprec dwarf,65528
fi
# The floor under row b: the same workload under cpu-clock events alone at 1999 Hz, no
# program and no buffer (bench/workloads/cpuclock.c): what the timer interrupts cost.
if [[ " $ORDER " == *" b_nofp "* ]]; then
	: >"$WORK/u"; : >"$WORK/t"
	for i in $(seq 9); do
		run_untraced b_nofp >>"$WORK/u"
		t0=$(now); "$BIN/cpuclock" 1999 ${CMD[b_nofp]} >/dev/null 2>&1; t1=$(now)
		echo "$t1 - $t0" | bc >>"$WORK/t"
	done
	u=$(median <"$WORK/u"); t=$(median <"$WORK/t")
	ratio=$(paste "$WORK/t" "$WORK/u" | awk '{ print $1 / $2 }' | median)
	printf "cpu-clock events alone at 1999 Hz (the timer's cost, no program): untraced %.3f s, with them %.3f s (%.2fx)\n" \
		"$u" "$t" "$ratio" | tee -a "$STACKS"
fi
echo
cat "$OUT"
echo
cat "$STACKS"
echo "(written to $OUT and $STACKS)"
