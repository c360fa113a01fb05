#!/usr/bin/env bash
# Real software: probex's per-syscall counts for `tar czf` of a small directory equal
# strace -f -c's (tar and the gzip it forks).  The directory fits in one tar record, so
# gzip's pipe reads do not depend on timing.
source "$(dirname "$0")/lib.sh"
mkdir -p "$TMP/d/sub"
echo one >"$TMP/d/a"; echo two >"$TMP/d/sub/b"; seq 100 >"$TMP/d/c"
cd "$TMP"
"$PROBEX" -q -o "$TMP/t.parquet" --no-viewer -- tar czf "$TMP/p.tgz" -C "$TMP" d || fail "probex exited $?"
strace -f -c -o "$TMP/strace" tar czf "$TMP/s.tgz" -C "$TMP" d || fail "strace failed"
# execve: tracing starts after the command's own exec; exit_group never returns (strace -c
# leaves it out).
awk '$NF != "total" && $1 ~ /^[0-9.]+$/ { print $NF, $4 }' "$TMP/strace" | grep -v '^execve ' | sort >"$TMP/want"
"$PROBEX" query --no-header "$TMP/t.parquet" "SELECT regexp_extract(event_type, '^syscall_(.*)_enter\$', 1), count(*) FROM events WHERE event_type LIKE 'syscall_%_enter' GROUP BY 1" |
	tr '\t' ' ' | grep -v '^execve \|^exit_group ' | sort >"$TMP/got"
diff "$TMP/want" "$TMP/got" || fail "per-syscall counts differ from strace -f -c (< strace, > probex)"
echo "ok: $(wc -l <"$TMP/got") syscalls of tar czf, counts equal to strace -f -c"
assert_eq "execve of gzip seen" "1" "$(q "$TMP/t.parquet" "SELECT count(*) FROM events WHERE event_type='syscall_execve_enter' AND filename LIKE '%gzip'")"
