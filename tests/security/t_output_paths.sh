#!/usr/bin/env bash
# `sudo probex -o PATH` may only create what the invoking user could create: a root-only
# file, a planted symlink and a root-only directory are refused before the command runs,
# and nothing root-only changes.
source "$(dirname "$0")/lib.sh"
ran=$UDIR/command-ran

# -o /etc/shadow: refused before the command starts, nothing in /etc touched.  The
# target is a decoy with /etc/shadow's owner and mode in /etc, not the real file: a
# regression must fail this test, not break the machine's logins.
decoy=/etc/probex-sec-shadow-$$
trap 'rm -f "$decoy" "$decoy".*; for j in $(jobs -p); do kill -INT "$j" 2>/dev/null; done; wait; rm -rf "$TMP"' EXIT
echo "root:*:20000:0:99999:7:::" >"$decoy"
chown root:shadow "$decoy" && chmod 640 "$decoy"
before=$(fingerprint "$decoy")
sprobex -q -o "$decoy" --no-viewer -- touch "$ran" 2>"$TMP/err"
assert_refused "-o a root-only file in /etc (as /etc/shadow)" $? "$TMP/err" "$decoy"
assert_eq "the /etc file is unchanged" "$before" "$(fingerprint "$decoy")"
[ ! -e "$ran" ] || fail "the command ran although the output was refused"
[ -z "$(ls "$decoy".* 2>/dev/null)" ] || fail "probex created files in /etc: $(ls "$decoy".*)"

# A root-only directory.
sprobex -q -o "$RDIR/t.parquet" --no-viewer -- touch "$ran" 2>"$TMP/err"
assert_refused "-o into a root-only directory" $? "$TMP/err" "$RDIR"
assert_eq "root-only directory still holds only the secret" "secret" "$(ls "$RDIR")"
[ ! -e "$ran" ] || fail "the command ran although the output was refused"

# A symlink the user plants at OUT.probex-tmp (and at OUT.probex-spool), pointing at a
# root file: never followed, never removed.
before=$(fingerprint "$RDIR/secret")
for suffix in .probex-tmp .probex-spool; do
	as_user ln -s "$RDIR/secret" "$UDIR/s.parquet$suffix"
	sprobex -q -o "$UDIR/s.parquet" --no-viewer -- touch "$ran" 2>"$TMP/err"
	assert_refused "planted symlink at OUT$suffix" $? "$TMP/err" "s.parquet$suffix"
	assert_eq "the symlink's target is unchanged" "$before" "$(fingerprint "$RDIR/secret")"
	[ -L "$UDIR/s.parquet$suffix" ] || fail "probex removed the user's symlink OUT$suffix"
	[ ! -e "$ran" ] || fail "the command ran although the output was refused"
	rm -f "$UDIR/s.parquet$suffix"
done

# The same symlink planted while the command runs (after the checks): the temporary
# file is created with O_EXCL|O_NOFOLLOW as the user, so the finalization fails and the
# recorded data stays in the spool.
sprobex -q -o "$UDIR/r.parquet" --no-viewer -- \
	sh -c "ln -s '$RDIR/secret' '$UDIR/r.parquet.probex-tmp'" 2>"$TMP/err"
assert_refused "symlink planted during the recording" $? "$TMP/err" "r.parquet.probex-tmp"
assert_eq "the symlink's target is unchanged" "$before" "$(fingerprint "$RDIR/secret")"
[ -L "$UDIR/r.parquet.probex-tmp" ] || fail "probex removed the user's symlink"
[ -s "$UDIR/r.parquet.probex-spool" ] || fail "the spool was not kept for recover"
rm -f "$UDIR/r.parquet.probex-tmp"
as_sudo "$PROBEX" recover "$UDIR/r.parquet.probex-spool" 2>"$TMP/err" || { cat "$TMP/err"; fail "recover failed"; }
assert_ge "recovered trace rows" 1 "$(q "$UDIR/r.parquet" "SELECT count(*) FROM events")"

# Everything probex made belongs to the user: created as the user, not chowned.
sprobex -q -o "$UDIR/ok.parquet" --no-viewer -- true || fail "a plain recording failed"
assert_eq "trace owner" "$SEC_UID:$SEC_GID" "$(stat -c %u:%g "$UDIR/ok.parquet")"
assert_none_root_owned "$UDIR"
assert_eq "root-only directory untouched" "secret" "$(ls "$RDIR")"
