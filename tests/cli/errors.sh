# Bad input: one line naming the file, exit 1; usage errors exit 2.  Sourced by run.sh.
head -c 2000 "${traces[0]}" >"$TMP/trunc.parquet"
echo 'not a trace' >"$TMP/text.parquet"
"$PROBEX" sql "${traces[0]}" "COPY (SELECT 1 AS x) TO '$TMP/other.parquet' (FORMAT parquet)" >/dev/null
for f in "$TMP/missing.parquet" "$TMP/trunc.parquet" "$TMP/text.parquet"; do
	for c in "report" "export --format folded"; do
		exit_is "$c $(basename "$f")" 1 1 "$PROBEX" $c "$f"
		grep -qF -- "$f" "$TMP/err" || bad "$c $(basename "$f"): the message does not name the file"
	done
	exit_is "sql $(basename "$f")" 1 1 "$PROBEX" sql "$f" "SELECT 1"
done
# A Parquet file that is not a probex trace: report and export refuse it.
for c in "report" "export --format chrome"; do
	exit_is "$c on non-probex Parquet" 1 1 "$PROBEX" $c "$TMP/other.parquet"
done
exit_is "report without FILE" 2 any "$PROBEX" report
exit_is "sql without FILE" 2 any "$PROBEX" sql

# --help lists every subcommand.
for c in sql query export report diff recover resymbolize synth; do
	"$PROBEX" --help | grep -q "^  probex $c " || bad "--help does not list $c"
done
ok "--help lists every subcommand"
