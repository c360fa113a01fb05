#!/usr/bin/env bash
# Every subcommand runs as the invoking user: DuckDB's SQL cannot read or write what
# the user could not, and -o cannot reach a root-only place.  As plain root: unchanged.
source "$(dirname "$0")/lib.sh"
tr=$UDIR/s.parquet
as_sudo "$PROBEX" synth -o "$tr" --events 100 2>/dev/null || fail "synth failed"
assert_eq "synth output owner" "$SEC_UID:$SEC_GID" "$(stat -c %u:%g "$tr")"

# query: COPY TO a root-only place, read_text / read_csv of a root-only file.
as_sudo "$PROBEX" query "$tr" "COPY (SELECT 1) TO '$RDIR/copied.csv'" 2>"$TMP/err"
assert_refused "query COPY TO a root-only directory" $? "$TMP/err" "Permission denied"
[ ! -e "$RDIR/copied.csv" ] || fail "query wrote into the root-only directory"
as_sudo "$PROBEX" query "$tr" "COPY (SELECT 1) TO '/root/probex-sec-$$.csv'" 2>"$TMP/err"
assert_refused "query COPY TO /root" $? "$TMP/err" "Permission denied"
[ ! -e "/root/probex-sec-$$.csv" ] || { rm -f "/root/probex-sec-$$.csv"; fail "query wrote into /root"; }
for sql in "SELECT content FROM read_text('$RDIR/secret')" "SELECT * FROM read_csv('$RDIR/secret')" \
	   "SELECT content FROM read_text('/etc/shadow')"; do
	out=$(as_sudo "$PROBEX" query "$tr" "$sql" 2>&1)
	if grep -q "$SECRET" <<<"$out" || grep -q '^root:' <<<"$out"; then
		fail "query read a root-only file: $sql"
	fi
	echo "ok: refused: $sql"
done
# It does run: the user's own files are fine (the refusals above are not a broken query).
as_sudo "$PROBEX" query "$tr" "COPY (SELECT 42 AS x) TO '$UDIR/mine.csv'" || fail "COPY to the user's directory failed"
assert_eq "COPY output owner" "$SEC_UID:$SEC_GID" "$(stat -c %u:%g "$UDIR/mine.csv")"

# -o of synth, resymbolize and recover into root-only places.
for cmd in "synth --events 10 -o" "resymbolize $tr -o"; do
	as_sudo "$PROBEX" $cmd "$RDIR/x.parquet" 2>"$TMP/err"
	assert_refused "$cmd into a root-only directory" $? "$TMP/err" "$RDIR"
	as_sudo "$PROBEX" $cmd "/etc/probex-sec.parquet" 2>"$TMP/err"
	assert_refused "$cmd /etc/..." $? "$TMP/err" "/etc"
done
[ ! -e /etc/probex-sec.parquet ] || fail "a subcommand wrote into /etc"
assert_eq "root-only directory untouched" "secret" "$(ls "$RDIR")"

# A trace only root may read (mode 600, or in a root-only directory) is not opened.
cp "$tr" "$RDIR/root.parquet"
cp "$tr" "$TMP/root600.parquet"
chmod 600 "$TMP/root600.parquet"
for f in "$RDIR/root.parquet" "$TMP/root600.parquet"; do
	as_sudo "$PROBEX" query "$f" "SELECT count(*) FROM events" >"$TMP/out" 2>"$TMP/err"
	assert_refused "query of root-only $f" $? "$TMP/err" "$f"
	[ ! -s "$TMP/out" ] || fail "query printed rows of a root-only trace"
	as_sudo "$PROBEX" resymbolize "$f" -o "$UDIR/r.parquet" 2>"$TMP/err"
	assert_refused "resymbolize of root-only $f" $? "$TMP/err" "$f"
	[ ! -e "$UDIR/r.parquet" ] || fail "resymbolize copied a root-only trace"
	as_sudo "$PROBEX" --view "$f" -p 0 2>"$TMP/err"
	assert_refused "--view of root-only $f" $? "$TMP/err" "$f"
done
assert_none_root_owned "$UDIR"

# Plain root (no SUDO_*): nothing changes.
"$PROBEX" query "$tr" "COPY (SELECT 1) TO '$RDIR/copied.csv'" || fail "plain root could not COPY"
assert_eq "plain root's file owner" "0:0" "$(stat -c %u:%g "$RDIR/copied.csv")"
