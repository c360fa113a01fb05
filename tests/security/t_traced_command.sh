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
# Signals 32 and 33 are glibc's own (thread cancellation, setxid): probex's setresuid
# installs a handler for 33, which exec resets, and glibc's sigaction refuses both; a
# caller that ignores them (some job runners do) cannot pass that on.  The rest must match.
sigign() { printf '%x' $((16#$(awk '/^SigIgn/ { print $2 }' "$1") & ~(3 << 31))); }
assert_eq "ignored signals (SigIgn, but glibc's 32 and 33) are the caller's" "$(sigign "$TMP/caller")" "$(sigign "$TMP/out")"
ign=$((16#$(awk '/^SigIgn/ { print $2 }' "$TMP/out")))
[ $((ign & (1 << (10 - 1)))) -ne 0 ] || fail "SIGUSR1, ignored by the caller, is not ignored by the command"
[ $((ign & (1 << (13 - 1)))) -ne 0 ] || fail "SIGPIPE, ignored by the caller, is not ignored by the command"
echo "ok: SIGUSR1 and SIGPIPE ignored as by the caller"

# While the command runs the recorder itself is the user, keeping only CAP_BPF and
# CAP_KILL in its main thread and nothing in the others; it still stops the tree on
# Ctrl-C and writes the trace.
sprobex -q -o "$UDIR/c.parquet" --no-viewer -- sh -c 'sleep 0.5; for t in /proc/$PPID/task/*; do
	grep -E "^(Uid|CapEff|CapPrm):" $t/status | tr "\n" " "; echo; done;
	cat /proc/$PPID/environ >/dev/null 2>&1 && echo recorder-readable; true' >"$TMP/rec" || fail "probex failed"
cat "$TMP/rec"
! grep -q recorder-readable "$TMP/rec" || fail "the user can read the recorder's /proc/PID/environ (dumpable)"
echo "ok: the recorder is not dumpable for the user"
sed -i '/recorder-readable/d' "$TMP/rec"
main=$(head -1 "$TMP/rec")
grep -q "Uid:	$SEC_UID	$SEC_UID	$SEC_UID	$SEC_UID" <<<"$main" || fail "the recorder is not uid $SEC_UID while recording"
# CAP_BPF (39) and CAP_KILL (5).
grep -q "CapPrm:	0000008000000020 CapEff:	0000008000000020" <<<"$main" || fail "the recorder keeps more than CAP_BPF and CAP_KILL"
[ "$(tail -n +2 "$TMP/rec" | grep -vc 'CapPrm:	0000000000000000 CapEff:	0000000000000000')" = 0 ] ||
	fail "a recorder thread keeps capabilities"
echo "ok: recorder is uid $SEC_UID with CAP_BPF and CAP_KILL only, its other threads with none"
# env execs probex ($! is probex) with SIGINT at its default, as a terminal would have it.
env --default-signal=INT SUDO_UID="$SEC_UID" SUDO_GID="$SEC_GID" SUDO_USER="$SEC_USER" \
	"$PROBEX" -q -o "$UDIR/i.parquet" --no-viewer -- sleep 30 &
pp=$!
sleep 1.5
kill -INT "$pp"
wait_exit "$pp" 10
assert_ge "rows after Ctrl-C under sudo" 1 "$(q "$UDIR/i.parquet" "SELECT count(*) FROM events")"
assert_none_root_owned "$UDIR"

# A command in a root-only directory is judged as the user: not run, existence not told.
cp /bin/true "$RDIR/prog"
sprobex -q -o "$UDIR/x.parquet" --no-viewer -- "$RDIR/prog" 2>"$TMP/err1"
st1=$?
sprobex -q -o "$UDIR/y.parquet" --no-viewer -- "$RDIR/missing" 2>"$TMP/err2"
st2=$?
[ "$st1" -ne 0 ] || fail "a program in a root-only directory ran"
assert_eq "same answer for a root-only program and a missing one" "$st2 $(sed "s|$RDIR/missing|P|" "$TMP/err2")" \
	"$st1 $(sed "s|$RDIR/prog|P|" "$TMP/err1")"
