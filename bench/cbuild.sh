#!/usr/bin/env bash
# Symbolization benchmark: a parallel C build (bench/workloads/cbuild.sh: 20 files,
# gcc -O2 -g, make -j2, ~70 processes of a few binaries) untraced, under probex, and
# under perf record + perf report for comparison.  Median of RUNS runs of each, alternating.
#
# Rows: untraced build, traced total, finalize, `probex resymbolize` of the trace, perf,
# and the ratios against the targets (finalize <= 0.3x untraced, total <= 1.6x untraced,
# resymbolize <= 1 s).  Needs root (BPF).  Writes $BUILD/bench/cbuild.md.
#   RUNS=3 PROBEX=build/probex bench/cbuild.sh
set -u
source "$(dirname "$0")/lib.sh"
bench__setup cbuild "the cbuild benchmark loads BPF programs and needs root"
OUT=$ROOT/$BUILD/bench/cbuild.md
"$ROOT/bench/workloads/cbuild.sh" "$WORK/src"
# The cache directory of this run only: "cold" runs start from an empty one.
export XDG_CACHE_HOME=$WORK/cache

q() { "$PROBEX" query --no-header "$1" "$2" 2>/dev/null | head -n1; }
clean() { make -s -C "$WORK/src" clean >/dev/null; }
build() { make -s -C "$WORK/src" -j2 >/dev/null 2>&1; }
elapsed() { local t0 t1; t0=$(now); "$@"; t1=$(now); echo "$t1 - $t0" | bc; }

untraced() { clean; elapsed build; }
traced() { # out extra-args... → total seconds; finalize seconds in $WORK/fin
	local out=$1 t0 t1
	shift
	clean
	rm -f "$out"
	t0=$(now)
	"$PROBEX" -o "$out" --no-viewer "$@" -- make -s -C "$WORK/src" -j2 >/dev/null 2>"$WORK/err"
	t1=$(now)
	sed -n 's/.*finalized in \([0-9.]*\) s.*/\1/p' "$WORK/err" >"$WORK/fin"
	echo "$t1 - $t0" | bc
}
perf_both() { # record + report, the way a perf user looks at the same build (perf 6.1 aborts
	# on BPF program events when BPF programs are loaded: --no-bpf-event)
	clean
	elapsed sh -c "perf record -q -g --no-bpf-event -o '$WORK/perf.data' -- make -s -C '$WORK/src' -j2 >/dev/null 2>&1 &&
		perf report -i '$WORK/perf.data' --stdio >/dev/null 2>&1"
}

build; clean	# warm the page cache and gcc's files
: >"$WORK/u"; : >"$WORK/tc"; : >"$WORK/fc"; : >"$WORK/tw"; : >"$WORK/fw"; : >"$WORK/r"; : >"$WORK/p"; : >"$WORK/cp"
for _ in $(seq "$RUNS"); do
	untraced >>"$WORK/u"
	rm -rf "$XDG_CACHE_HOME"
	traced "$WORK/t.parquet" >>"$WORK/tc"; cat "$WORK/fin" >>"$WORK/fc"
	traced "$WORK/t.parquet" >>"$WORK/tw"; cat "$WORK/fin" >>"$WORK/fw"
	elapsed "$PROBEX" resymbolize "$WORK/t.parquet" -o "$WORK/r.parquet" 2>/dev/null >>"$WORK/r"
	elapsed sh -c "'$PROBEX' report --critical-path '$WORK/t.parquet' >/dev/null 2>&1" >>"$WORK/cp"
	if command -v perf >/dev/null; then perf_both >>"$WORK/p"; fi
done
u=$(median <"$WORK/u"); tc=$(median <"$WORK/tc"); fc=$(median <"$WORK/fc")
tw=$(median <"$WORK/tw"); fw=$(median <"$WORK/fw"); r=$(median <"$WORK/r"); cp=$(median <"$WORK/cp")
p=$( [ -s "$WORK/p" ] && median <"$WORK/p" || echo 0)

# Frames of the unique user stacks: named, or left as file+0xoffset / bare address.
frames="SELECT unnest(stack_trace[2:coalesce(nullif(list_position(stack_trace, '[kernel]'), 0), len(stack_trace) + 1) - 1]) AS l
	FROM (SELECT any_value(stack_trace) AS stack_trace FROM events WHERE stack_id IS NOT NULL GROUP BY stack_id)"
named=$(q "$WORK/t.parquet" "SELECT count(*) FROM ($frames) WHERE l NOT LIKE '0x%' AND l NOT LIKE '/%+0x%' AND l NOT LIKE '[%'")
unnamed=$(q "$WORK/t.parquet" "SELECT count(*) FROM ($frames) WHERE l LIKE '0x%' OR l LIKE '/%+0x%'")
procs=$(q "$WORK/t.parquet" "SELECT count(DISTINCT tgid) FROM events")
stats=$(q "$WORK/t.parquet" "SELECT decode(value) FROM parquet_kv_metadata('$WORK/t.parquet') WHERE key='probex.symbolize'")

mkdir -p "$(dirname "$OUT")"
awk -v u="$u" -v cp="$cp" -v tc="$tc" -v fc="$fc" -v tw="$tw" -v fw="$fw" -v r="$r" -v p="$p" -v n="$named" \
	-v un="$unnamed" -v pr="$procs" -v runs="$RUNS" 'BEGIN {
	printf "cbuild: 20 files, gcc -O2 -g, make -j2, %d processes; median of %d runs\n\n", pr, runs
	print "| measure | seconds | x untraced | target |"
	print "|---|---|---|---|"
	printf "| untraced build | %.2f | 1.00x | |\n", u
	printf "| probex total, cold cache | %.2f | %.2fx | <= 1.6x %s |\n", tc, tc / u, tc <= 1.6 * u ? "met" : "MISSED"
	printf "| probex finalize, cold cache | %.2f | %.2fx | <= 0.3x %s |\n", fc, fc / u, fc <= 0.3 * u ? "met" : "MISSED"
	printf "| probex total, warm cache | %.2f | %.2fx | <= 1.6x %s |\n", tw, tw / u, tw <= 1.6 * u ? "met" : "MISSED"
	printf "| probex finalize, warm cache | %.2f | %.2fx | <= 0.3x %s |\n", fw, fw / u, fw <= 0.3 * u ? "met" : "MISSED"
	printf "| probex resymbolize | %.2f | | <= 1 s %s |\n", r, r <= 1 ? "met" : "MISSED"
	printf "| probex report --critical-path | %.2f | | <= 2 s %s |\n", cp, cp <= 2 ? "met" : "MISSED"
	if (p > 0)
		printf "| perf record -g + perf report | %.2f | %.2fx | |\n", p, p / u
	printf "\nunique user stacks: %d frames named, %d unnamed\n", n, un
}' >"$OUT"
[ -n "$stats" ] && echo "symbolizer: $stats" >>"$OUT"
cat "$OUT"
echo "(written to $OUT)"
