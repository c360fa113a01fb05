#!/usr/bin/env bash
# `probex synth` writes exactly a recording's schema: the same columns in the same order with
# the same types, nullability and metadata keys, and both are sorted by ts_ns.
source "$(dirname "$0")/lib.sh"
"$PROBEX" -q -o "$TMP/rec.parquet" --no-viewer -- sh -c 'cat /etc/hostname >/dev/null'
assert_eq "record" 0 $?
"$PROBEX" synth -o "$TMP/syn.parquet" --events 50000 --seed 5 2>/dev/null
assert_eq "synth" 0 $?

# parquet_schema: physical type, logical/converted type and repetition of every leaf and group.
schema() {
	"$PROBEX" query --no-header "$1" "SELECT string_agg(concat_ws(' ', name, type, repetition_type,
		converted_type, logical_type::VARCHAR, num_children), '; ' ORDER BY rowid) FROM (
		SELECT row_number() OVER () AS rowid, * FROM parquet_schema('$1'))"
}
rec=$(schema "$TMP/rec.parquet"); syn=$(schema "$TMP/syn.parquet")
[ -n "$rec" ] || fail "no schema read from the recording"
assert_eq "parquet_schema of synth = of a recording" "$rec" "$syn"
describe() { "$PROBEX" query --no-header "$1" "SELECT string_agg(column_name || ' ' || column_type, ', ') FROM (DESCRIBE SELECT * FROM events)"; }
assert_eq "DuckDB types of synth = of a recording" "$(describe "$TMP/rec.parquet")" "$(describe "$TMP/syn.parquet")"

# Metadata keys: all but the symbol data and symbolizer counters only a recording has (its
# binaries).
keys() {
	"$PROBEX" query --no-header "$1" "SELECT string_agg(decode(key), ' ' ORDER BY decode(key))
		FROM parquet_kv_metadata('$1') WHERE decode(key) NOT IN ('probex.symbol_data', 'probex.symbolize')"
}
assert_eq "metadata keys of synth = of a recording" "$(keys "$TMP/rec.parquet")" "$(keys "$TMP/syn.parquet")"
arrow_schema() { q "$1" "SELECT md5(decode(value)) FROM parquet_kv_metadata('$1') WHERE decode(key) = 'ARROW:schema'"; }
[ -n "$(arrow_schema "$TMP/rec.parquet")" ] || fail "a recording has no ARROW:schema"
assert_eq "ARROW:schema of synth = of a recording" "$(arrow_schema "$TMP/rec.parquet")" "$(arrow_schema "$TMP/syn.parquet")"

backsteps() {
	q "$1" "SELECT count(*) FILTER (WHERE ts_ns < prev) FROM (
		SELECT ts_ns, lag(ts_ns) OVER (ORDER BY file_row_number) AS prev
		FROM read_parquet('$1', file_row_number = true))"
}
assert_eq "synth ts_ns backsteps" 0 "$(backsteps "$TMP/syn.parquet")"
assert_eq "recording ts_ns backsteps" 0 "$(backsteps "$TMP/rec.parquet")"
assert_eq "synth rows" 50000 "$(q "$TMP/syn.parquet" "SELECT count(*) FROM events")"
# The added columns carry values in synth files too.
assert_eq "synth exit rows without latency_ns" 0 \
	"$(q "$TMP/syn.parquet" "SELECT count(*) FROM events WHERE event_type LIKE '%_exit' AND event_type <> 'process_exit' AND latency_ns IS NULL")"
assert_eq "synth stacks without stack_weight" 0 \
	"$(q "$TMP/syn.parquet" "SELECT count(*) FROM events WHERE stack_trace IS NOT NULL AND stack_weight IS NULL")"
assert_eq "synth forks without child_tgid/is_thread" 0 \
	"$(q "$TMP/syn.parquet" "SELECT count(*) FROM events WHERE event_type = 'process_fork' AND (child_tgid IS NULL OR is_thread IS NULL)")"
