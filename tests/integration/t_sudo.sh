#!/usr/bin/env bash
# Under sudo (SUDO_UID/SUDO_GID set by sudo), the traced command runs as the invoking
# user with that user's HOME, the output belongs to that user, and kernel frames are
# still symbolized (kallsyms is read while root).
source "$(dirname "$0")/lib.sh"
uid=65534 gid=65534	# nobody: exists on every Debian system
chmod 777 "$TMP"
home_before=$([ -e "$(getent passwd $uid | cut -d: -f6)" ] && echo yes || echo no)
SUDO_UID=$uid SUDO_GID=$gid SUDO_USER=nobody "$PROBEX" -q -o "$TMP/s.parquet" --no-viewer -- \
	sh -c 'echo "uid=$(id -u) gid=$(id -g) home=$HOME"; cat /proc/self/status | grep -i vmlck' >"$TMP/out" \
	|| fail "probex exited $?"
cat "$TMP/out"
grep -q "uid=$uid gid=$gid" "$TMP/out" || fail "command did not run as $uid:$gid"
home=$(getent passwd $uid | cut -d: -f6)
grep -q "home=$home" "$TMP/out" || fail "HOME is not the user's ($home)"
assert_eq "output owner" "$uid:$gid" "$(stat -c %u:%g "$TMP/s.parquet")"
# The symbol cache lives under the user's home only if that exists (nobody's does not).
assert_eq "user's home exists after the run" "$home_before" "$([ -e "$home" ] && echo yes || echo no)"
assert_ge "symbolized kernel frames" 1 \
	"$(q "$TMP/s.parquet" "SELECT count(*) FROM events WHERE list_contains(stack_trace, 'do_syscall_64')")"
SUDO_UID=$uid "$PROBEX" -q -o "$TMP/t.parquet" --no-viewer -- true 2>"$TMP/err"
assert_eq "inconsistent SUDO_UID/SUDO_GID" 1 $?
grep -q inconsistent "$TMP/err" || fail "no message about SUDO_UID/SUDO_GID"
