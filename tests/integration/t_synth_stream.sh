#!/usr/bin/env bash
# `probex synth` streams: its peak RSS does not grow with the row count (1M vs 10M rows within
# 1.3x), the rows come out sorted by ts_ns, and equal arguments still give equal files.
source "$(dirname "$0")/lib.sh"
rss() { # rows → peak RSS in KiB of `probex synth`
	/usr/bin/time -f %M -o "$TMP/rss" "$PROBEX" synth -o "$TMP/s$1.parquet" --events "$1" --seed 7 2>/dev/null \
		--lost-ppm 1000 || return 1
	cat "$TMP/rss"
}
small=$(rss 1000000) && big=$(rss 10000000) || fail "synth"
echo "peak RSS: 1M rows $small KiB, 10M rows $big KiB"
assert_le "peak RSS 10M / 1M rows (x100)" 130 $((big * 100 / small))
assert_eq "rows" 10000000 "$(q "$TMP/s10000000.parquet" "SELECT count(*) FROM events")"
assert_eq "ts_ns backsteps" 0 "$(q "$TMP/s10000000.parquet" "SELECT count(*) FILTER (WHERE ts_ns < prev) FROM (
	SELECT ts_ns, lag(ts_ns) OVER (ORDER BY file_row_number) AS prev
	FROM read_parquet('$TMP/s10000000.parquet', file_row_number = true))")"
"$PROBEX" synth -o "$TMP/again.parquet" --events 1000000 --seed 7 --lost-ppm 1000 2>/dev/null || fail "synth again"
cmp -s "$TMP/s1000000.parquet" "$TMP/again.parquet" || fail "equal arguments gave different files"
echo "ok: deterministic"
