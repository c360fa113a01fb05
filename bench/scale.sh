#!/usr/bin/env bash
# Scale benchmark: memory and throughput as traces grow, each figure next to its target.
#   recorder: `dd bs=1` (4 rows a byte) traced with --stacks=none at 4M and 20M events —
#             probex's peak RSS (recording + finalize) and finalize throughput;
#   synth:    `probex synth` peak RSS at 2M and 20M rows (it must stream);
#   viewer:   `probex --view` on synthetic traces — first answered /api/summary, full
#             readiness and peak RSS (bench/viewer_bench.mjs, few iterations).
# Writes a table to $BUILD/bench/scale.md.  Needs root for the recorder rows.
#   SCALE_VIEWER="10000000 20000000"  SCALE_SYNTH="2000000 20000000"  bench/scale.sh
#   (make bench-big adds 100M events.)
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PROBEX=$ROOT/$BUILD/probex
# The test build (the same code, plus PROBEX_TEST_* knobs): it can keep the spool.
PROBEX_TEST=$ROOT/$BUILD/probex-test
OUT=$ROOT/$BUILD/bench/scale.md
WORK=$(mktemp -d /tmp/probex-scale.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
# Unset: the defaults; set but empty: skip that part.
RECORD=${SCALE_RECORD-"1000000 5000000"}	# dd bytes: 4 events each
SYNTH=${SCALE_SYNTH-"2000000 20000000"}
VIEWER=${SCALE_VIEWER-"20000000"}
mkdir -p "$(dirname "$OUT")"
rows=()
row() { rows+=("| $1 | $2 | $3 | $4 |"); printf '| %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", b / a }'; }

if [ "$(id -u)" -eq 0 ]; then
	first=""
	for n in $RECORD; do
		PROBEX_TEST_KEEP_SPOOL=1 /usr/bin/time -f %M -o "$WORK/rss" "$PROBEX_TEST" --no-viewer --stacks=none -o "$WORK/dd.parquet" -- \
			dd if=/dev/zero of=/dev/null bs=1 count="$n" status=none 2>"$WORK/err" || { cat "$WORK/err"; exit 1; }
		# The same spool finalized alone: wall and CPU time (wall is noisy on a shared VM).
		/usr/bin/time -f "%e %U %S" -o "$WORK/fin" "$PROBEX" recover "$WORK/dd.parquet.probex-spool" \
			-o "$WORK/again.parquet" 2>/dev/null || exit 1
		read -r fw fu fsys <"$WORK/fin"
		rm -f "$WORK/dd.parquet.probex-spool" "$WORK/again.parquet"
		rss=$(( $(cat "$WORK/rss") / 1024 ))
		ev=$(sed -n 's/.*wrote .* (\([0-9]*\) events, finalized in \([0-9.]*\) s.*/\1/p' "$WORK/err")
		fs=$(sed -n 's/.*wrote .* (\([0-9]*\) events, finalized in \([0-9.]*\) s.*/\2/p' "$WORK/err")
		m=$(awk -v e="$ev" 'BEGIN { printf "%.3gM", e / 1e6 }')
		row "recorder peak RSS, dd bs=1 --stacks=none, $m events" "$rss MiB" "<= 512 MiB" ""
		row "finalize throughput, $m events" "$(awk -v e="$ev" -v s="$fs" 'BEGIN { printf "%.2fM events/s (%.2f s)", e / s / 1e6, s }')" ">= 5M events/s" "2 cores, load $(cut -d' ' -f1 /proc/loadavg)"
		row "finalize alone (probex recover), $m events" "$(awk -v e="$ev" -v w="$fw" -v u="$fu" -v k="$fsys" 'BEGIN { printf "%.2fM events/s (%.2f s wall, %.2f CPU-s)", e / w / 1e6, w, u + k }')" ">= 5M events/s" "includes reading /proc/kallsyms"
		[ -n "$first" ] && row "recorder peak RSS ratio, $m / ${firstm} events" "$(ratio "$first" "$rss")" "<= 1.3x" ""
		[ -z "$first" ] && { first=$rss; firstm=$m; }
		rm -f "$WORK/dd.parquet"
	done
else
	echo "scale: recorder rows SKIPPED (need root)"
fi

first=""
for n in $SYNTH; do
	t0=$(date +%s.%N)
	/usr/bin/time -f %M -o "$WORK/rss" "$PROBEX" synth -o "$WORK/s.parquet" --events "$n" --seed 1 2>/dev/null || exit 1
	t=$(echo "$(date +%s.%N) - $t0" | bc)
	rss=$(( $(cat "$WORK/rss") / 1024 ))
	m=$(awk -v e="$n" 'BEGIN { printf "%.3gM", e / 1e6 }')
	row "synth peak RSS, $m rows" "$rss MiB ($(printf %.1f "$t") s)" "flat" ""
	[ -n "$first" ] && row "synth peak RSS ratio, $m / ${firstm} rows" "$(ratio "$first" "$rss")" "<= 1.3x" ""
	[ -z "$first" ] && { first=$rss; firstm=$m; }
	rm -f "$WORK/s.parquet"
done

for n in $VIEWER; do
	m=$(awk -v e="$n" 'BEGIN { printf "%.3gM", e / 1e6 }')
	trace=$ROOT/$BUILD/bench/synth-$n.parquet
	node "$ROOT/bench/viewer_bench.mjs" --probex "$PROBEX" --trace "$trace" --events "$n" --iterations 3 \
		--out "$WORK/v.txt" >/dev/null || exit 1
	read -r ready rss < <(node -e 'const j = require(process.argv[1]); console.log((j.startup_summary_ms / 1000).toFixed(2), (j.peak_rss_bytes / 2 ** 20).toFixed(0))' "$WORK/v.json")
	full=$(node -e 'const j = require(process.argv[1]); console.log((j.startup_ready_ms / 1000).toFixed(2))' "$WORK/v.json")
	# The reference's unbounded compatibility arrays ("all points") are left out.
	worst=$(node -e 'const j = require(process.argv[1]); const r = j.rows.filter((x) => x.scope.startsWith("full") && !x.endpoint.includes("all points")).sort((a, b) => b.median - a.median)[0]; console.log(r ? r.endpoint + " " + r.median.toFixed(0) + " ms" : "-")' "$WORK/v.json")
	bpe=$(awk -v r="$rss" -v e="$n" 'BEGIN { printf "%.0f", r * 1048576 / e }')
	if [ "$n" -ge 100000000 ]; then tr="<= 15 s"; tm="<= 4 GB"; else tr="<= 3 s"; tm="<= 60 B/event"; fi
	row "viewer ready (first /api/summary), $m events" "$ready s (all endpoints $full s)" "$tr" ""
	row "viewer peak RSS, $m events" "$rss MiB ($bpe B/event)" "$tm" ""
	row "viewer slowest full-range endpoint median (bounded arrays), $m events" "$worst" "<= 500 ms" ""
	for ep in thread_states critical_path; do
		med=$(node -e 'const j = require(process.argv[1]); const r = j.rows.find((x) => x.endpoint === process.argv[2]); console.log(r ? r.median.toFixed(1) + " ms" : "-")' "$WORK/v.json" "$ep")
		row "viewer /api/$ep median (busiest thread, its life), $m events" "$med" "<= 100 ms" ""
	done
done

{
	echo "probex scale benchmark — $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	echo "| measure | measured | target | note |"
	echo "|---|---|---|---|"
	printf '%s\n' "${rows[@]}"
} >"$OUT"
echo "(written to $OUT)"
