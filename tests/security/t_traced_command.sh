#!/usr/bin/env bash
# The traced command is the user, with the caller's resource limits, signal mask and
# dispositions — not the recorder's raised RLIMIT_MEMLOCK or root's groups.
source "$(dirname "$0")/lib.sh"
probe='echo "id=$(id -u):$(id -g) groups=$(id -G) memlock=$(ulimit -l) nofile=$(ulimit -n)";
grep -E "^(SigIgn|SigBlk):" /proc/self/status; cat /etc/shadow >/dev/null 2>&1 && echo shadow-readable; true'
( ulimit -l 64; ulimit -n 512; trap '' USR1 PIPE
  grep -E "^(SigIgn|SigBlk):" /proc/self/status >"$TMP/caller"	# what grep inherits: ours
  sprobex -q -o "$UDIR/t.parquet" --no-viewer -- sh -c "$probe" >"$TMP/out" ) || fail "probex failed"
cat "$TMP/out"
grep -q "id=$SEC_UID:$SEC_GID " "$TMP/out" || fail "the command did not run as $SEC_UID:$SEC_GID"
grep -q "groups=$(id -G "$SEC_USER") memlock=" "$TMP/out" || fail "the command's groups are not the user's ($(id -G "$SEC_USER"))"
grep -q "memlock=64 " "$TMP/out" || fail "RLIMIT_MEMLOCK is not the caller's (64 KiB)"
grep -q "nofile=512" "$TMP/out" || fail "RLIMIT_NOFILE is not the caller's (512)"
! grep -q shadow-readable "$TMP/out" || fail "the command could read /etc/shadow"
cat "$TMP/caller"
assert_eq "signal mask (SigBlk) is the caller's" "$(grep SigBlk "$TMP/caller")" "$(grep SigBlk "$TMP/out")"
assert_eq "ignored signals (SigIgn) are the caller's" "$(grep SigIgn "$TMP/caller")" "$(grep SigIgn "$TMP/out")"
ign=$((16#$(awk '/^SigIgn/ { print $2 }' "$TMP/out")))
[ $((ign & (1 << (10 - 1)))) -ne 0 ] || fail "SIGUSR1, ignored by the caller, is not ignored by the command"
[ $((ign & (1 << (13 - 1)))) -ne 0 ] || fail "SIGPIPE, ignored by the caller, is not ignored by the command"
echo "ok: SIGUSR1 and SIGPIPE ignored as by the caller"
