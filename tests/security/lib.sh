# Helpers for the security tests: a test user, probex run as sudo would run it, and
# assertions that nothing root-only was read, written or re-owned.
source "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh"

SEC_USER=probex-sec
if ! id "$SEC_USER" >/dev/null 2>&1; then
	useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$SEC_USER" ||
		fail "cannot create the test user $SEC_USER"
fi
SEC_UID=$(id -u "$SEC_USER")
SEC_GID=$(id -g "$SEC_USER")
# The user's own directory, and a directory only root may enter.
UDIR=$TMP/user
RDIR=$TMP/root-only
mkdir -p "$UDIR" "$RDIR"
chmod 755 "$TMP"
chown "$SEC_UID:$SEC_GID" "$UDIR"
chmod 700 "$RDIR"
echo "root secret $RANDOM$RANDOM" >"$RDIR/secret"
chmod 600 "$RDIR/secret"
SECRET=$(cat "$RDIR/secret")

# sudo's environment for the test user.
as_sudo() { SUDO_UID=$SEC_UID SUDO_GID=$SEC_GID SUDO_USER=$SEC_USER SUDO_COMMAND=probex "$@"; }
sprobex() { as_sudo "$PROBEX" "$@"; }
# Run as the user directly (to plant files the way the user could).
as_user() { setpriv --reuid="$SEC_UID" --regid="$SEC_GID" --init-groups -- "$@"; }

# fingerprint FILE: content hash, owner, mode — equal before and after an attack.
fingerprint() { echo "$(sha256sum <"$1" | cut -d' ' -f1) $(stat -c '%u:%g %a' "$1")"; }

# No file under DIR may belong to root (what probex creates belongs to the user).
assert_none_root_owned() { # dir
	local f
	f=$(find "$1" -mindepth 1 -user 0 -print | head -5)
	[ -z "$f" ] || fail "root-owned files under $1: $f"
	echo "ok: nothing under $1 belongs to root"
}
assert_refused() { # what status stderr-file pattern
	[ "$2" -ne 0 ] || fail "$1: probex exited 0"
	grep -q -- "$4" "$3" || { cat "$3" >&2; fail "$1: no message matching '$4'"; }
	echo "ok: $1 refused (exit $2): $(grep -m1 -- "$4" "$3")"
}
