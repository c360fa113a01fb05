#!/usr/bin/env bash
# An existing trace at the output path is never lost silently: it is kept as FILE.old
# with a message (perf's habit); --force replaces it.  Same for recover and synth.
source "$(dirname "$0")/lib.sh"
out=$UDIR/t.parquet

sprobex -q -o "$out" --no-viewer -- true || fail "first recording failed"
first=$(fingerprint "$out")
sprobex -o "$out" --no-viewer -- true 2>"$TMP/err" || fail "second recording failed"
grep -q "kept the earlier $out as $out.old" "$TMP/err" || { cat "$TMP/err"; fail "no message about $out.old"; }
assert_eq "the first trace is kept as .old" "$first" "$(fingerprint "$out.old")"
[ "$(fingerprint "$out")" != "$first" ] || fail "the output was not rewritten"

second=$(fingerprint "$out")
sprobex -q --force -o "$out" --no-viewer -- true || fail "--force recording failed"
assert_eq "--force leaves .old alone" "$first" "$(fingerprint "$out.old")"
[ "$(fingerprint "$out")" != "$second" ] || fail "--force did not replace the output"

as_sudo "$PROBEX" synth -o "$UDIR/s.parquet" --events 50 2>/dev/null || fail "synth failed"
s1=$(fingerprint "$UDIR/s.parquet")
as_sudo "$PROBEX" synth -o "$UDIR/s.parquet" --events 60 2>"$TMP/err" || fail "second synth failed"
assert_eq "synth keeps the earlier file as .old" "$s1" "$(fingerprint "$UDIR/s.parquet.old")"
assert_none_root_owned "$UDIR"
