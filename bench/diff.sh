#!/usr/bin/env bash
# `probex diff` of two synthetic traces of DIFF_EVENTS (default 20M) events each (seeds 1
# and 2): wall time, CPU time (wall is noisy on a shared VM) and peak RSS of the text diff
# and of the folded output, each next to its target.  Writes a table to $BUILD/bench/diff.md.  The traces are kept in
# $BUILD/bench (as the viewer bench keeps its own) so that a rerun skips synth.
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PROBEX=$ROOT/$BUILD/probex
OUT=$ROOT/$BUILD/bench/diff.md
N=${DIFF_EVENTS:-20000000}
WORK=$(mktemp -d /tmp/probex-diffbench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$(dirname "$OUT")"
m=$(awk -v e="$N" 'BEGIN { printf "%.3gM", e / 1e6 }')
for s in 1 2; do
	t=$ROOT/$BUILD/bench/synth-$N-seed$s.parquet
	[ -s "$t" ] || "$PROBEX" synth -o "$t" --events "$N" --seed "$s" 2>/dev/null || exit 1
done
rows=()
for mode in text folded; do
	args=()
	[ $mode = folded ] && args=(--format folded -o "$WORK/d.folded")
	/usr/bin/time -f "%e %U %S %M" -o "$WORK/t" "$PROBEX" diff "${args[@]}" \
		"$ROOT/$BUILD/bench/synth-$N-seed1.parquet" "$ROOT/$BUILD/bench/synth-$N-seed2.parquet" \
		>"$WORK/d.txt" 2>"$WORK/err" || { cat "$WORK/err"; exit 1; }
	read -r wall user sys rss <"$WORK/t"
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }')
	rows+=("| probex diff ($mode), two $m-event synthetic traces | $wall s ($cpu CPU-s), $(( rss / 1024 )) MiB peak RSS | <= 10 s, <= 1024 MiB | $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg) |")
	printf '%s\n' "${rows[-1]}"
done
{
	echo "probex diff benchmark — $(date -u +%FT%TZ), $(nproc) cores"
	echo
	echo "| measure | measured | target | note |"
	echo "|---|---|---|---|"
	printf '%s\n' "${rows[@]}"
} >"$OUT"
echo "(written to $OUT)"
