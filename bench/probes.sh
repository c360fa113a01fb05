#!/usr/bin/env bash
# --probe costs: a function called 1M times, probed u: with two arguments, per call
# (the workload times its own loop: traced minus untraced, divided by calls) under probex
# as a user runs it (CPU samples at --probe's 99 Hz), at 1999 Hz (the rate without
# probes) and without CPU sampling (--sample-freq 1), under bpftrace (uprobe +
# uretprobe, the same arguments counted into a map; and that plus what probex does
# besides: both ends timed, syscall tracepoints attached) and with an empty bpftrace
# uprobe (the floor: the trap and return alone); and what attaching 10 probes adds to probex's
# start-up (`probex -- true`, STARTUP_RUNS rounds, paired).
# Prints a table and writes it to $BUILD/bench/probes.md.  Needs root.
set -u
source "$(dirname "$0")/lib.sh"
bench__setup probes "uprobes need root"
OUT=$ROOT/$BUILD/bench/probes.md
W=$BIN/probecall
N=${CALLS:-1000000}

per_call() { sed -n 's/^ns_per_call=//p'; }
untraced() { "$W" "$N" | per_call; }
probex_run() { "$PROBEX" -q -o "$WORK/p.parquet" --no-viewer --force \
	--probe "u:$W:pc_work(a:s64,b:s64)" "$@" -- "$W" "$N" | per_call; }
bt_run() { bpftrace -q -e "$1" -c "$W $N" 2>/dev/null | per_call; }
BT_FULL="uprobe:$W:pc_work { @args[arg0, arg1] = count(); } uretprobe:$W:pc_work { @ret[retval] = count(); }"
# What probex does besides: both ends timed, and syscall tracepoints attached (a uretprobe
# returns through a syscall of its own on Linux 6.11+, so it takes their path).
BT_SAME="uprobe:$W:pc_work { @args[arg0, arg1] = count(); @t[tid] = nsecs; }
	uretprobe:$W:pc_work { @ret[retval] = count(); @lat = hist(nsecs - @t[tid]); }
	tracepoint:raw_syscalls:sys_enter { } tracepoint:raw_syscalls:sys_exit { }"
BT_EMPTY="uprobe:$W:pc_work { }"

declare -a base px px2k px1 bt same empty
for r in $(seq "$RUNS"); do
	base+=("$(untraced)")
	px+=("$(probex_run)")
	px2k+=("$(probex_run --sample-freq 1999)")
	# Without CPU sampling (the lowest rate): sampling's share of the rows above.
	px1+=("$(probex_run --sample-freq 1)")
	command -v bpftrace >/dev/null && bt+=("$(bt_run "$BT_FULL")") && same+=("$(bt_run "$BT_SAME")") &&
		empty+=("$(bt_run "$BT_EMPTY")")
done
rows=$("$PROBEX" query --no-header "$WORK/p.parquet" "SELECT count(*) FROM events WHERE event_type = 'probe_pc_work_exit'")
med() { printf '%s\n' "$@" | median; }
b=$(med "${base[@]}")
cost() { awk -v t="$1" -v b="$b" 'BEGIN { printf "%.2f", (t - b) / 1000 }'; }

# The command is /bin/true: the wall time is probex's own set-up and finish; its -v log
# says when the probes were attached (the start-up alone).
startup() {
	local t0 t1
	t0=$(now)
	"$PROBEX" -v -o "$WORK/s.parquet" --no-viewer --force "$@" -- /bin/true 2>"$WORK/v.log" >/dev/null
	t1=$(now)
	echo "$t1 - $t0" | bc
	sed -n 's/.*probes attached in \([0-9.]*\) s.*/\1/p' "$WORK/v.log" >>"$WORK/attach.$#"
}
ten=(--probe "u:$W:pc_work(a:s64,b:s64)")
for i in 0 1 2 3 4 5 6 7 8; do ten+=(--probe "u:$W:pc_f$i(a:s64)"); done
declare -a s0 s10
for r in $(seq "${STARTUP_RUNS:-15}"); do
	s0+=("$(startup)")
	s10+=("$(startup "${ten[@]}")")
done
# Added time: the median of each round's difference (the runs of a round are adjacent,
# so the machine's load moves them together).
paired() { paste "$1" "$2" | awk '{ printf "%.6f\n", $1 - $2 }' | median | awk '{ printf "%.0f", $1 * 1000 }'; }
printf '%s\n' "${s10[@]}" >"$WORK/wall.10"
printf '%s\n' "${s0[@]}" >"$WORK/wall.0"
d=$(paired "$WORK/wall.10" "$WORK/wall.0")
a0=$(median <"$WORK/attach.0")
a10=$(median <"$WORK/attach.${#ten[@]}")
da=$(paired "$WORK/attach.${#ten[@]}" "$WORK/attach.0")

{
	echo "| $N calls of pc_work(a, b), $RUNS runs (medians) | ns per call | added per call (us) |"
	echo "|---|---:|---:|"
	echo "| untraced | $b | — |"
	echo "| probex --probe 'u:...:pc_work(a:s64,b:s64)', CPU samples at 99 Hz ($rows exit rows) | $(med "${px[@]}") | $(cost "$(med "${px[@]}")") |"
	echo "| the same with --sample-freq 1999 (the rate without --probe) | $(med "${px2k[@]}") | $(cost "$(med "${px2k[@]}")") |"
	echo "| the same with --sample-freq 1 (no CPU sampling) | $(med "${px1[@]}") | $(cost "$(med "${px1[@]}")") |"
	if [ "${#bt[@]}" -gt 0 ]; then
		echo "| bpftrace uprobe + uretprobe, args and ret counted in maps | $(med "${bt[@]}") | $(cost "$(med "${bt[@]}")") |"
		echo "| bpftrace, the same plus both ends timed (latency histogram) and empty raw_syscalls programs | $(med "${same[@]}") | $(cost "$(med "${same[@]}")") |"
		echo "| bpftrace empty uprobe (the floor) | $(med "${empty[@]}") | $(cost "$(med "${empty[@]}")") |"
	fi
	echo
	echo "Start-up (probes attached, from the -v log): $a0 s without probes, $a10 s with 10 u: probes (+$da ms, paired)."
	echo "Start-up and finish of \`probex -- /bin/true\`: $(med "${s0[@]}") s without probes, $(med "${s10[@]}") s with 10 u: probes (+$d ms, paired)."
	echo "Load average: $(cut -d' ' -f1-3 /proc/loadavg)."
} | tee "$OUT"
