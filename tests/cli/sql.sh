# probex sql: output formats, globs, metadata, errors.  Sourced by run.sh.
t=${traces[0]}
n=$(q "$t" "SELECT count(*) FROM events")
check "sql: query alias gives the same count" "$n" "$("$PROBEX" query --no-header "$t" "SELECT count(*) FROM events")"
check "sql: csv" "c,$n," "$("$PROBEX" sql --csv "$t" "SELECT count(*) AS c FROM events" | tr '\n' ,)"
check "sql: stdin" "$n" "$(echo "SELECT count(*) FROM events;" | "$PROBEX" sql --tsv --no-header "$t")"
"$PROBEX" sql "$t" "SELECT event_type, count(*) AS n FROM events GROUP BY 1 ORDER BY 2 DESC" >"$TMP/table"
check "sql: table header" "event_type n" "$(head -1 "$TMP/table" | tr -s ' ')"
check "sql: table rule" "1" "$(sed -n 2p "$TMP/table" | grep -c '^-\+  -\+$')"
check "sql: table rows" "$(q "$t" "SELECT count(DISTINCT event_type) FROM events")" "$(($(wc -l <"$TMP/table") - 2))"
"$PROBEX" sql --json "$t" "SELECT pid, stack_trace, 1.5::DOUBLE AS d, NULL AS z FROM events WHERE stack_trace IS NOT NULL LIMIT 5" >"$TMP/j.json"
check "sql: json parses (lists as arrays)" "5 list float None" "$($PY -c "
import json, sys
d = json.load(open('$TMP/j.json'))
print(len(d), type(d[0]['stack_trace']).__name__, type(d[0]['d']).__name__, d[0]['z'])")"
check "sql: metadata view" "$(q "$t" "SELECT decode(value) FROM parquet_kv_metadata('$t') WHERE decode(key) = 'probex.sample_freq_hz'")" \
	"$(q "$t" "SELECT value FROM metadata WHERE key = 'probex.sample_freq_hz'")"

# A glob over two traces: one events view with a file column, both counted.
mkdir -p "$TMP/two"
cp "$t" "$TMP/two/a.parquet"
cp "${traces[-1]}" "$TMP/two/b.parquet"
nb=$(q "${traces[-1]}" "SELECT count(*) FROM events")
check "sql: glob counts both traces" "$((n + nb))" "$(q "$TMP/two/*.parquet" "SELECT count(*) FROM events")"
check "sql: glob file column" "2" "$(q "$TMP/two/*.parquet" "SELECT count(DISTINCT file) FROM events")"
check "sql: glob metadata per file" "2" "$(q "$TMP/two/*.parquet" "SELECT count(*) FROM metadata WHERE key = 'probex.sample_freq_hz'")"
exit_is "sql: glob matching nothing" 1 1 "$PROBEX" sql "$TMP/none*.parquet" "SELECT 1"

# Bad SQL: DuckDB's message, non-zero.
exit_is "sql: bad SQL" 1 1 "$PROBEX" sql "$t" "SELEC count(*) FROM events"
check "sql: bad SQL names DuckDB's error" 1 "$(grep -c 'Parser Error' "$TMP/err")"
exit_is "sql: unknown table" 1 1 "$PROBEX" sql "$t" "SELECT * FROM nope"
check "sql: unknown table message" 1 "$(grep -c 'nope' "$TMP/err")"

# Results stream a chunk at a time: every row arrives in every format, past the rows the
# table takes its widths from.
check "sql: table prints every row" "$((n + 2))" "$("$PROBEX" sql "$t" "SELECT ts_ns, event_type FROM events" | wc -l)"
check "sql: tsv prints every row" "$n" "$("$PROBEX" sql --tsv --no-header "$t" "SELECT ts_ns FROM events" | wc -l)"
check "sql: json holds every row" "$n" "$("$PROBEX" sql --json "$t" "SELECT ts_ns, stack_trace FROM events" | $PY -c 'import json, sys; print(len(json.load(sys.stdin)))')"
check "sql: statements run in order" "6" "$(q "$t" "CREATE TABLE x AS SELECT 5 AS v; SELECT v + 1 FROM x")"

# The prompt on a terminal (script(1)): a statement over two lines, history kept.
if command -v script >/dev/null; then
	printf 'SELECT 40\n+ 2 AS answer;\n.quit\n' >"$TMP/repl.in"
	HOME=$TMP script -qec "'$PROBEX' sql '$t' </dev/tty" /dev/null <"$TMP/repl.in" >"$TMP/repl.out" 2>&1
	check "sql prompt: multi-line statement answered" 1 "$(grep -c '^ *42.$' "$TMP/repl.out")"
	check "sql prompt: history saved" 1 "$(grep -c 'answer' "$TMP/.probex_history")"
fi
