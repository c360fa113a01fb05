#!/usr/bin/env bash
# Peers on the same workloads, in the same run: each workload untraced, under probex and
# under what a user of strace, perf or bpftrace reaches for to see the same thing,
# alternating (untraced, probex, each tool, again), wall time measured from the outside;
# times are medians of RUNS, slowdowns the median of each run's ratio to the untraced run
# of its round.  A tool more than 10x slower than untraced runs once: its figure is
# far from every other and a second run would only add minutes.
#
# Prints a table and writes it to $BUILD/bench/peers.md.  Needs root (BPF, perf events).
#   RUNS=3  PEERS="a b_nofp c g"  bench/peers.sh
set -u
source "$(dirname "$0")/lib.sh"
bench__setup peers "tracing with probex, perf and bpftrace needs root"
OUT=$ROOT/$BUILD/bench/peers.md

# Workloads (full paths: bpftrace -c wants one) and what each tool is asked to keep.
declare -A CMD DESC
CMD[a]="/usr/bin/dd if=/dev/zero of=/dev/null bs=1 count=300000 status=none"
DESC[a]="a syscall-heavy (dd bs=1, 600K syscalls)"
CMD[b_nofp]="$BIN/nofp";	DESC[b_nofp]="b CPU-bound without frame pointers (C)"
CMD[c]="/bin/sh -c 'for i in \$(seq 300); do /bin/true; done'";	DESC[c]="c fork-heavy (300 x /bin/true)"
# Half the main table's ping-pong: the four commands of each run take ~25 s at 200K.
CMD[g]="$BIN/pingpong 100000";	DESC[g]="g off-CPU ping-pong (2 threads, 100K round trips)"

# Per workload: "label|command line" of each tool, the workload's command as {}.
declare -A TOOLS
# (one line each: the tool lists below are split by lines)
BT_SYS='tracepoint:raw_syscalls:sys_enter /pid == cpid/ { @s[tid] = nsecs; } tracepoint:raw_syscalls:sys_exit /pid == cpid && @s[tid]/ { @lat[args->id] = hist(nsecs - @s[tid]); delete(@s[tid]); }'
BT_PROF='profile:hz:1999 /pid == cpid/ { @[ustack, kstack] = count(); }'
BT_OFF='tracepoint:sched:sched_switch /pid == cpid/ { @s[tid] = nsecs; @st[tid] = ustack; } tracepoint:sched:sched_switch /@s[args->next_pid]/ { @off[@st[args->next_pid]] = sum(nsecs - @s[args->next_pid]); delete(@s[args->next_pid]); }'
TOOLS[a]="probex: every syscall as enter/exit rows, sampled stacks|$PROBEX -q -o $WORK/p.parquet --no-viewer -- {}
strace -f -o FILE: every syscall as text|strace -f -qq -o $WORK/s.txt {}
perf record -e raw_syscalls:*: every syscall event|perf record -q -N -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -o $WORK/p.data -- {}
bpftrace: latency histogram per syscall (in-kernel, no events kept)|bpftrace -q -o $WORK/bt.txt -e '$BT_SYS' -c '{}'"
TOOLS[b_nofp]="probex: CPU samples at 1999 Hz, stacks unwound from .eh_frame|$PROBEX -q -o $WORK/p.parquet --no-viewer -- {}
perf record -F 1999 --call-graph dwarf|perf record -q -N -F 1999 --call-graph dwarf -o $WORK/p.data -- {}
perf record -F 1999 -g (frame pointers)|perf record -q -N -F 1999 -g -o $WORK/p.data -- {}
bpftrace profile:hz:1999, stack counts (frame pointers)|bpftrace -q -o $WORK/bt.txt -e '$BT_PROF' -c '{}'
cpu-clock events alone at 1999 Hz, no program (the timer's cost: a floor for every sampler)|$BIN/cpuclock 1999 {}"
TOOLS[c]="probex: every process and syscall|$PROBEX -q -o $WORK/p.parquet --no-viewer -- {}
strace -f -o FILE: every syscall as text|strace -f -qq -o $WORK/s.txt {}
perf record -e sched:sched_process_*: forks, execs, exits|perf record -q -N -e sched:sched_process_fork -e sched:sched_process_exec -e sched:sched_process_exit -o $WORK/p.data -- {}"
TOOLS[g]="probex: off-CPU intervals with stacks and wakers|$PROBEX -q -o $WORK/p.parquet --no-viewer -- {}
perf record -e sched:sched_switch,sched_wakeup -g|perf record -q -N -e sched:sched_switch -e sched:sched_wakeup -g -o $WORK/p.data -- {}
perf sched record: every switch and wakeup, no stacks (what perf sched timehist reads)|perf sched record -q -B -N -o $WORK/p.data -- {}
bpftrace: off-CPU time per user stack (in-kernel sums)|bpftrace -q -o $WORK/bt.txt -e '$BT_OFF' -c '{}'"
ORDER=${PEERS:-"a b_nofp c g"}

have() { command -v "${1%% *}" >/dev/null; }
timed() { # command line → seconds (or "fail")
	local t0 t1
	t0=$(now)
	if eval "$1" >/dev/null 2>&1; then t1=$(now); echo "$t1 - $t0" | bc; else echo fail; fi
}

mkdir -p "$(dirname "$OUT")"
{
	echo "| workload | tool (what it keeps) | untraced s | traced s | slowdown | output bytes | runs |"
	echo "|---|---|---|---|---|---|---|"
} >"$OUT"
for k in $ORDER; do
	mapfile -t tools <<<"${TOOLS[$k]}"
	: >"$WORK/u"
	for i in "${!tools[@]}"; do : >"$WORK/t$i"; done
	declare -A slow=()
	# The CPU-bound row tells apart costs a few percent apart, where 3 rounds on this VM
	# spread by +-10% (7 rounds: +-3%): at least 9 rounds, as the recorder table.
	rounds=$RUNS
	[ "$k" = b_nofp ] && [ "$rounds" -lt 9 ] && rounds=9
	for r in $(seq "$rounds"); do
		timed "${CMD[$k]}" >>"$WORK/u"
		for i in "${!tools[@]}"; do
			line=${tools[$i]#*|}
			[ -n "${slow[$i]:-}" ] && continue
			have "$line" || { slow[$i]=missing; continue; }
			timed "${line//\{\}/${CMD[$k]}}" >>"$WORK/t$i"
			# What it wrote: the file after its -o.
			out=$(grep -o -- "-o $WORK/[a-z.]*" <<<"$line" | cut -d' ' -f2)
			stat -c %s "$out" >"$WORK/size$i" 2>/dev/null
			rm -f "$out"
			u=$(head -n1 "$WORK/u")
			t=$(tail -n1 "$WORK/t$i")
			[ "$t" != fail ] && awk -v t="$t" -v u="$u" 'BEGIN { exit !(t > 10 * u) }' && slow[$i]=once
		done
	done
	u=$(median <"$WORK/u")
	for i in "${!tools[@]}"; do
		label=${tools[$i]%%|*}
		if [ "${slow[$i]:-}" = missing ]; then
			row="| ${DESC[$k]} | $label | - | not installed | - | - | 0 |"
		elif grep -q fail "$WORK/t$i"; then
			row="| ${DESC[$k]} | $label | - | failed | - | - | - |"
		else
			t=$(median <"$WORK/t$i")
			n=$(grep -c . "$WORK/t$i")
			sz=$(cat "$WORK/size$i" 2>/dev/null)
			# The median of each run's ratio to the untraced run of its round.
			sl=$(paste "$WORK/t$i" <(head -n "$n" "$WORK/u") | awk '{ print $1 / $2 }' | median)
			row=$(awk -v d="${DESC[$k]}" -v l="$label" -v u="$u" -v t="$t" -v n="$n" -v sz="${sz:--}" -v sl="$sl" 'BEGIN {
				printf "| %s | %s | %.3f | %.3f | %.2fx | %s | %d |", d, l, u, t, sl, sz, n }')
		fi
		echo "$row" | tee -a "$OUT"
	done
	unset slow
done
echo "(written to $OUT)"
