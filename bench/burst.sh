#!/usr/bin/env bash
# A syscall burst (tests/fixtures/burst: THREADS threads x CALLS uname calls, released at
# once) untraced, under probex with its defaults, probex --lossless, perf trace -s and
# strace -f -c: wall time (median of RUNS, one run for a tool 10x slower than untraced),
# its ratio to the untraced median, and how many of the burst's uname calls each kept
# (probex: exit rows; perf trace and strace: their summaries' counts) and dropped.
#
# Prints a table and writes it to $BUILD/bench/burst.md.  Needs root (BPF).
#   RUNS=3 THREADS=300 CALLS=3000 bench/burst.sh
set -u
source "$(dirname "$0")/lib.sh"
bench__setup burst "tracing with probex and perf trace needs root"
OUT=$ROOT/$BUILD/bench/burst.md
THREADS=${THREADS:-300}
CALLS=${CALLS:-3000}
BURST="$ROOT/$BUILD/fixtures/burst $THREADS $CALLS"
WANT=$((THREADS * CALLS))

q() { "$PROBEX" query --no-header "$1" "$2" 2>/dev/null | head -n1; }
timed() { # command line → seconds (or "fail")
	local t0 t1
	t0=$(now)
	if eval "$1" >/dev/null 2>"$WORK/err"; then t1=$(now); echo "$t1 - $t0" | bc; else echo fail; fi
}

# label | command | how to count what it kept (a function of the run)
kept_probex() { q "$WORK/p.parquet" "SELECT count(*) FROM events WHERE event_type = 'syscall_uname_exit'"; }
kept_perf() { awk '$1 == "uname" { n += $2 } END { print n + 0 }' "$WORK/pt.txt"; }
kept_strace() { awk '$NF == "uname" { print $4 }' "$WORK/st.txt"; }
TOOLS=(
	"untraced|$BURST|"
	"probex (defaults)|$PROBEX -q --no-viewer --force -o $WORK/p.parquet -- $BURST|kept_probex"
	"probex --lossless|$PROBEX -q --no-viewer --force --lossless -o $WORK/p.parquet -- $BURST|kept_probex"
	"perf trace -s|perf trace -s -o $WORK/pt.txt -- $BURST|kept_perf"
	"strace -f -c|strace -f -c -o $WORK/st.txt $BURST|kept_strace"
)

mkdir -p "$(dirname "$OUT")"
{
	echo "Burst: $THREADS threads x $CALLS uname calls ($WANT), $(nproc) CPUs"
	echo
	echo "| tool | wall s | vs untraced | uname calls kept | kept % | dropped | runs |"
	echo "|---|---|---|---|---|---|---|"
} >"$OUT"
cat "$OUT"
declare -A once=()
for i in "${!TOOLS[@]}"; do : >"$WORK/t$i"; : >"$WORK/k$i"; done
for r in $(seq "$RUNS"); do
	for i in "${!TOOLS[@]}"; do
		IFS='|' read -r label cmd count <<<"${TOOLS[$i]}"
		[ -n "${once[$i]:-}" ] && continue
		command -v "${cmd%% *}" >/dev/null || { once[$i]=missing; continue; }
		t=$(timed "$cmd")
		echo "$t" >>"$WORK/t$i"
		[ -n "$count" ] && [ "$t" != fail ] && $count >>"$WORK/k$i"
		u=$(head -n1 "$WORK/t0")
		[ "$i" -gt 0 ] && [ "$t" != fail ] && awk -v t="$t" -v u="$u" 'BEGIN { exit !(t > 10 * u) }' && once[$i]=1
	done
done
u=$(median <"$WORK/t0")
for i in "${!TOOLS[@]}"; do
	IFS='|' read -r label cmd count <<<"${TOOLS[$i]}"
	if [ "${once[$i]:-}" = missing ]; then
		row="| $label | not installed | - | - | - | - | 0 |"
	elif grep -q fail "$WORK/t$i"; then
		row="| $label | failed | - | - | - | - | - |"
	else
		t=$(median <"$WORK/t$i")
		k=$( [ -s "$WORK/k$i" ] && median <"$WORK/k$i" || echo "")
		row=$(awk -v l="$label" -v t="$t" -v u="$u" -v k="$k" -v w="$WANT" -v n="$(grep -c . "$WORK/t$i")" 'BEGIN {
			if (k == "") printf "| %s | %.3f | 1.00x | - | - | - | %d |", l, t, n
			else printf "| %s | %.3f | %.2fx | %d | %.2f%% | %d | %d |", l, t, t / u, k, 100 * k / w, w - k, n }')
	fi
	echo "$row" | tee -a "$OUT"
done
echo "(written to $OUT)"
