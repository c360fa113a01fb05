#!/usr/bin/env bash
# Every syscall by name: the fixture's known calls are all in the trace, exactly, with
# their decoded arguments; whole-run counts per syscall equal strace -f -c's; --syscalls
# narrows the set and rejects unknown names.
source "$(dirname "$0")/lib.sh"
out="$TMP/s.parquet"
"$PROBEX" -q -o "$out" --no-viewer -- "$FIXTURES/sysmix" >"$TMP/stdout" || fail "probex exited $?"
get() { sed -n "s/^$1=//p" "$TMP/stdout"; }
pid=$(get pid)
[ -n "$pid" ] || fail "fixture printed no pid"

t0=$(q "$out" "SELECT ts_ns FROM events WHERE tgid=$pid AND event_type='syscall_close_enter' AND fd=-1001")
t1=$(q "$out" "SELECT ts_ns FROM events WHERE tgid=$pid AND event_type='syscall_close_exit' AND ts_ns > (SELECT ts_ns FROM events WHERE tgid=$pid AND event_type='syscall_close_enter' AND fd=-1002) ORDER BY ts_ns LIMIT 1")
[ -n "$t0" ] && [ -n "$t1" ] || fail "markers not found"
win="tgid=$pid AND ts_ns BETWEEN $t0 AND $t1"
for sc in openat pwrite64 pread64 writev readv pwritev2 preadv2 socket close sendto recvfrom sendmsg recvmsg socketpair unlink; do
	want=$(get "$sc")
	assert_eq "$sc enter rows" "$want" "$(q "$out" "SELECT count(*) FROM events WHERE $win AND event_type='syscall_${sc}_enter'")"
	assert_eq "$sc exit rows" "$want" "$(q "$out" "SELECT count(*) FROM events WHERE $win AND event_type='syscall_${sc}_exit'")"
done
assert_eq "nothing else in the window" "0" \
	"$(q "$out" "SELECT count(*) FROM events WHERE $win AND event_type LIKE 'syscall_%' AND regexp_extract(event_type, '^syscall_(.*)_(enter|exit)\$', 1) NOT IN ('openat','pwrite64','pread64','writev','readv','pwritev2','preadv2','socket','close','sendto','recvfrom','sendmsg','recvmsg','socketpair','unlink')")"

# Decoded arguments.
assert_eq "pread64 count/offsets" "6 256 1000 1005" \
	"$(q "$out" "SELECT count(*) || ' ' || min(count) || ' ' || min(\"offset\") || ' ' || max(\"offset\") FROM events WHERE $win AND event_type='syscall_pread64_enter' AND fd >= 3")"
assert_eq "pwrite64 offsets" "0 16384" \
	"$(q "$out" "SELECT min(\"offset\") || ' ' || max(\"offset\") FROM events WHERE $win AND event_type='syscall_pwrite64_enter' AND count=512")"
assert_eq "writev bytes (3 iovecs)" "600" "$(q "$out" "SELECT DISTINCT count FROM events WHERE $win AND event_type='syscall_writev_enter'")"
assert_eq "readv bytes (2 iovecs)" "300" "$(q "$out" "SELECT DISTINCT count FROM events WHERE $win AND event_type='syscall_readv_enter'")"
assert_eq "pwritev2 bytes/offset" "600 8192" "$(q "$out" "SELECT DISTINCT count || ' ' || \"offset\" FROM events WHERE $win AND event_type='syscall_pwritev2_enter'")"
assert_eq "preadv2 bytes/offset" "100 123" "$(q "$out" "SELECT DISTINCT count || ' ' || \"offset\" FROM events WHERE $win AND event_type='syscall_preadv2_enter'")"
assert_eq "sendto/recvfrom count" "2000 33" "$(q "$out" "SELECT string_agg(DISTINCT count::VARCHAR, ' ' ORDER BY count::VARCHAR) FROM events WHERE $win AND event_type IN ('syscall_sendto_enter','syscall_recvfrom_enter')")"
assert_eq "sendmsg bytes (msghdr iovecs)" "300" "$(q "$out" "SELECT count FROM events WHERE $win AND event_type='syscall_sendmsg_enter'")"
assert_eq "recvfrom ret" "33" "$(q "$out" "SELECT DISTINCT ret FROM events WHERE $win AND event_type='syscall_recvfrom_exit'")"
assert_eq "openat filename" "7" "$(q "$out" "SELECT count(*) FROM events WHERE $win AND event_type='syscall_openat_enter' AND filename='$(get path)' AND fd=-100")"
assert_eq "unlink filename" "$(get path)" "$(q "$out" "SELECT filename FROM events WHERE $win AND event_type='syscall_unlink_enter'")"
assert_eq "long path cut to 255 bytes" "255" "$(q "$out" "SELECT max(length(filename)) FROM events WHERE $win AND event_type='syscall_openat_enter'")"
assert_ge "truncation counted" "1" "$(q "$out" "SELECT json_extract(decode(value), '\$.syscall_path_truncated') FROM parquet_kv_metadata('$out') WHERE key='probex.drops'")"
assert_eq "exit rows carry latency" "0" "$(q "$out" "SELECT count(*) FROM events WHERE $win AND event_type LIKE 'syscall_%_exit' AND latency_ns IS NULL")"
assert_eq "syscall_nr on new syscalls" "17" "$(q "$out" "SELECT DISTINCT syscall_nr FROM events WHERE $win AND event_type='syscall_pread64_enter'")"

# Whole run against strace -f -c (execve: tracing starts after the command's own exec;
# exit_group never returns, which strace -c leaves out).  stdout is a file in both runs:
# stdio asks a terminal or /dev/null for its mode (ioctl), not a file.
strace -f -c -o "$TMP/strace" "$FIXTURES/sysmix" >"$TMP/stdout2" || fail "strace failed"
awk '$NF != "total" && $1 ~ /^[0-9.]+$/ { c = (NF == 6) ? $4 : $4; print $NF, c }' "$TMP/strace" | grep -v '^execve ' | sort >"$TMP/want"
"$PROBEX" query --no-header "$out" "SELECT regexp_extract(event_type, '^syscall_(.*)_enter\$', 1), count(*) FROM events WHERE tgid=$pid AND event_type LIKE 'syscall_%_enter' GROUP BY 1" |
	tr '\t' ' ' | grep -v '^execve \|^exit_group ' | sort >"$TMP/got"
diff "$TMP/want" "$TMP/got" || fail "per-syscall counts differ from strace -f -c (< strace, > probex)"
echo "ok: $(wc -l <"$TMP/got") syscalls, counts equal to strace -f -c"

# --syscalls=reference: only the reference's ten syscalls.
"$PROBEX" -q -o "$TMP/r.parquet" --no-viewer --syscalls=reference -- "$FIXTURES/sysmix" >/dev/null || fail "probex --syscalls=reference exited $?"
assert_eq "reference set only" "0" "$(q "$TMP/r.parquet" "SELECT count(*) FROM events WHERE event_type LIKE 'syscall_%' AND regexp_extract(event_type, '^syscall_(.*)_(enter|exit)\$', 1) NOT IN ('read','write','mmap','munmap','brk','fsync','fdatasync','io_uring_setup','io_uring_enter','io_uring_register')")"
assert_ge "reference syscalls still there" "1" "$(q "$TMP/r.parquet" "SELECT count(*) FROM events WHERE event_type='syscall_mmap_enter'")"
# A class and a name.
"$PROBEX" -q -o "$TMP/n.parquet" --no-viewer --syscalls=%net,close -- "$FIXTURES/sysmix" >/dev/null || fail "probex --syscalls=%net,close exited $?"
assert_eq "%net,close" "close recvfrom recvmsg sendmsg sendto socket socketpair" \
	"$(q "$TMP/n.parquet" "SELECT string_agg(DISTINCT regexp_extract(event_type, '^syscall_(.*)_enter\$', 1), ' ' ORDER BY regexp_extract(event_type, '^syscall_(.*)_enter\$', 1)) FROM events WHERE event_type LIKE 'syscall_%_enter'")"
# Unknown names are a usage error that lists the valid ones.
rc=0
"$PROBEX" -q --no-viewer --syscalls=openat,nosuchcall -- true 2>"$TMP/err" || rc=$?
assert_eq "unknown syscall: exit status" "2" "$rc"
grep -q "nosuchcall" "$TMP/err" && grep -q "valid names:" "$TMP/err" && grep -qw "newfstatat" "$TMP/err" && grep -q "%file" "$TMP/err" ||
	fail "usage error does not name the bad item and the valid names: $(cat "$TMP/err")"
echo "ok: unknown syscall rejected"

# A new task's return from the clone/fork its parent entered is no lost enter: 20 forks
# leave only the command's own execve exit (entered before tracing began) unpaired.
"$PROBEX" -q -o "$TMP/f.parquet" --no-viewer -- sh -c 'for i in $(seq 20); do /bin/true; done' >/dev/null ||
	fail "probex (fork loop) exited $?"
assert_eq "forks in the trace" "20" "$(q "$TMP/f.parquet" "SELECT count(*) FROM events WHERE event_type='process_exec' AND filename='/bin/true'")"
assert_eq "unpaired syscall exits with 20 forks" "1" \
	"$(q "$TMP/f.parquet" "SELECT json_extract(decode(value), '\$.syscall_exit_unpaired') FROM parquet_kv_metadata('$TMP/f.parquet') WHERE key='probex.drops'")"
