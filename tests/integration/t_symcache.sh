#!/usr/bin/env bash
# Symbolization in proportion to distinct objects: many processes of one binary, and copies
# of it under other paths (same build-id), open and index it once; a binary replaced on
# disk between recording and finalize is never named from the new file's symbols.
source "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME="$TMP/xdg"	# not the machine's cache: cold where the test says so
stat_of() { # FILE KEY → a counter of the file's probex.symbolize metadata
	q "$1" "SELECT decode(value) FROM parquet_kv_metadata('$1') WHERE key='probex.symbolize'" |
		grep -o "\"$2\":[0-9]*" | cut -d: -f2
}

mkdir -p "$TMP/a" "$TMP/b"
cp "$FIXTURES/quick" "$TMP/a/quick"
cp "$FIXTURES/quick" "$TMP/b/quick"
# A shell loop (no seq: another binary) of three copies.
"$PROBEX" -q -o "$TMP/many.parquet" --no-viewer -- sh -c \
	"i=0; while [ \$i -lt 20 ]; do $FIXTURES/quick; $TMP/a/quick; $TMP/b/quick; i=\$((i + 1)); done" ||
	fail "probex failed"
assert_eq "quick processes traced" 60 \
	"$(q "$TMP/many.parquet" "SELECT count(DISTINCT tgid) FROM events WHERE process_name='quick'")"
assert_eq "their frames named (all three copies)" 60 \
	"$(q "$TMP/many.parquet" "SELECT count(DISTINCT tgid) FROM events WHERE process_name='quick' AND list_contains(stack_trace, 'probex_quick_work')")"
# sh, ld.so, libc and quick: four objects at most (which of sh's own frames are sampled
# varies); the copies of quick must not count apart, nor the processes.
many=$(stat_of "$TMP/many.parquet" objects)
echo "objects opened for 60 quick processes from three paths: $many"
assert_ge "objects opened" 3 "$many"
assert_le "objects opened (sh, ld.so, libc, quick)" 4 "$many"
assert_le "objects indexed" "$many" "$(stat_of "$TMP/many.parquet" objects_indexed)"

# The traced command replaces its own binary (same path, another build-id) before probex
# finalizes: frames stay file+offset and are counted, in finalize and in resymbolize.
cp "$FIXTURES/quick" "$TMP/p"
"$PROBEX" -q -o "$TMP/changed.parquet" --no-viewer -- sh -c "$TMP/p; cp $FIXTURES/sym_chain $TMP/p" 2>"$TMP/err" ||
	fail "probex failed"
cat "$TMP/err"
grep -q "binary changed on disk" "$TMP/err" || fail "no warning about the changed binary"
for f in "$TMP/changed.parquet" "$TMP/changed-r.parquet"; do
	[ "$f" = "$TMP/changed.parquet" ] || "$PROBEX" resymbolize "$TMP/changed.parquet" -o "$f" || fail "resymbolize failed"
	frames="SELECT unnest(stack_trace) AS l FROM events WHERE process_name='p'"
	assert_eq "$(basename "$f"): frames named from the replaced file" 0 \
		"$(q "$f" "SELECT count(*) FROM ($frames) WHERE l IN ('probex_quick_work', 'main', 'fx_inner', 'fx_outer')")"
	assert_ge "$(basename "$f"): frames left as $TMP/p+0x..." 1 \
		"$(q "$f" "SELECT count(*) FROM ($frames) WHERE l LIKE '$TMP/p+0x%'")"
	assert_ge "$(basename "$f"): mismatches counted" 1 "$(stat_of "$f" build_id_mismatch)"
done

# The on-disk symbol cache: a second run starts warm with the same labels; a damaged entry
# is counted and rebuilt, not trusted; --no-cache neither reads nor writes it.
rm -rf "$XDG_CACHE_HOME"
labels() { q "$1" "SELECT md5(string_agg(coalesce(array_to_string(stack_trace, '|'), '-'), chr(10) ORDER BY file_row_number)) FROM read_parquet('$1', file_row_number = true)"; }
"$PROBEX" -q -o "$TMP/c1.parquet" --no-viewer -- sh -c "$FIXTURES/quick; $FIXTURES/sym_cxx_stripped" >/dev/null ||
	fail "probex failed"
entries=$(ls "$XDG_CACHE_HOME/probex" | grep -c '\.syms$')
assert_ge "cache entries written" 1 "$entries"
assert_eq "cold run: hits" 0 "$(stat_of "$TMP/c1.parquet" cache_hits)"
"$PROBEX" resymbolize "$TMP/c1.parquet" -o "$TMP/c2.parquet" 2>/dev/null || fail "resymbolize failed"
assert_eq "warm resymbolize: misses" 0 "$(stat_of "$TMP/c2.parquet" cache_misses)"
assert_ge "warm resymbolize: hits" 1 "$(stat_of "$TMP/c2.parquet" cache_hits)"
assert_eq "warm labels = cold labels" "$(labels "$TMP/c1.parquet")" "$(labels "$TMP/c2.parquet")"
for e in "$XDG_CACHE_HOME"/probex/*.syms; do
	# Flip a byte near the end (inside a symbol name: only the checksum can tell).
	size=$(stat -c %s "$e")
	printf 'X' | dd of="$e" bs=1 seek=$((size - 2)) conv=notrunc status=none
done
"$PROBEX" resymbolize "$TMP/c1.parquet" -o "$TMP/c3.parquet" 2>/dev/null || fail "resymbolize failed"
assert_eq "damaged entries detected" "$entries" "$(stat_of "$TMP/c3.parquet" cache_corrupt)"
assert_eq "labels with damaged entries = cold labels" "$(labels "$TMP/c1.parquet")" "$(labels "$TMP/c3.parquet")"
"$PROBEX" resymbolize "$TMP/c1.parquet" -o "$TMP/c4.parquet" 2>/dev/null || fail "resymbolize failed"
assert_eq "rebuilt entries: hits" "$entries" "$(stat_of "$TMP/c4.parquet" cache_hits)"
rm -rf "$XDG_CACHE_HOME"
"$PROBEX" -q --no-cache -o "$TMP/c5.parquet" --no-viewer -- "$FIXTURES/quick" >/dev/null || fail "probex failed"
"$PROBEX" resymbolize --no-cache "$TMP/c5.parquet" -o "$TMP/c6.parquet" 2>/dev/null || fail "resymbolize failed"
assert_eq "--no-cache: no cache directory" no "$([ -e "$XDG_CACHE_HOME" ] && echo yes || echo no)"
assert_eq "--no-cache: lookups" 0 "$(($(stat_of "$TMP/c5.parquet" cache_hits) + $(stat_of "$TMP/c6.parquet" cache_misses)))"
