#!/usr/bin/env bash
# The viewer runs as the user and answers only requests for itself: a foreign Host (DNS
# rebinding) or Origin is refused, a non-loopback bind needs the printed token.
source "$(dirname "$0")/lib.sh"
tr=$UDIR/s.parquet
as_sudo "$PROBEX" synth -o "$tr" --events 200 2>/dev/null || fail "synth failed"

start_viewer() { # log args...
	local log=$1
	shift
	# env execs probex: $! is the viewer itself.
	env SUDO_UID="$SEC_UID" SUDO_GID="$SEC_GID" SUDO_USER="$SEC_USER" "$PROBEX" --view "$tr" -p 0 "$@" >"$log" 2>&1 &
	VPID=$!
	for _ in $(seq 100); do
		URL=$(grep -o 'viewer at http://[^ ]*' "$log" | head -1 | cut -d' ' -f3)
		[ -n "$URL" ] && break
		sleep 0.1
	done
	[ -n "$URL" ] || { cat "$log"; fail "the viewer printed no URL"; }
	PORT=$(sed -E 's|http://[^/]*:([0-9]+)/.*|\1|' <<<"$URL")
}
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }

start_viewer "$TMP/v1.log"
assert_eq "viewer process uid" "$SEC_UID" "$(awk '/^Uid:/ { print $3 }' /proc/$VPID/status)"
base=http://127.0.0.1:$PORT
assert_eq "own URL" 200 "$(code "$base/api/summary")"
for h in "localhost:$PORT" "[::1]:$PORT" "127.0.0.1:$PORT"; do
	assert_eq "Host $h" 200 "$(code -H "Host: $h" "$base/api/summary")"
done
for h in "evil.example:$PORT" "localhost.evil.example:$PORT" "127.0.0.1" "localhost:1" "127.0.0.1:$PORT.evil"; do
	assert_eq "Host $h refused" 403 "$(code -H "Host: $h" "$base/api/summary")"
	assert_eq "Host $h refused for the page too" 403 "$(code -H "Host: $h" "$base/")"
done
assert_eq "foreign Origin on /api" 403 "$(code -H "Origin: http://evil.example" "$base/api/summary")"
assert_eq "null Origin on /api" 403 "$(code -H "Origin: null" "$base/api/summary")"
assert_eq "own Origin on /api" 200 "$(code -H "Origin: http://127.0.0.1:$PORT" "$base/api/summary")"
hdrs=$(curl -s -D - -o /dev/null "$base/")
grep -qi '^X-Content-Type-Options: nosniff' <<<"$hdrs" || fail "no X-Content-Type-Options: nosniff"
grep -qi "^Content-Security-Policy: .*script-src 'self'" <<<"$hdrs" || fail "no Content-Security-Policy"
echo "ok: nosniff and Content-Security-Policy sent"
kill "$VPID"; wait "$VPID"

# Non-loopback bind: the token printed in the URL, then its cookie; --no-token opts out.
start_viewer "$TMP/v2.log" --bind 0.0.0.0
grep -q '?token=[0-9a-f]\{32\}' <<<"$URL" || fail "no token in the printed URL: $URL"
token=${URL##*token=}
base=http://127.0.0.1:$PORT
assert_eq "no token" 403 "$(code "$base/api/summary")"
assert_eq "no token (page)" 403 "$(code "$base/")"
# The token with its last character changed (to 0, or to 1 when it already ends in 0).
wrong=${token%?}0
[ "$wrong" != "$token" ] || wrong=${token%?}1
assert_eq "wrong token" 403 "$(code "$base/api/summary?token=$wrong")"
assert_eq "token in the query" 200 "$(code "$base/api/summary?token=$token")"
assert_eq "page with the token" 200 "$(code -c "$TMP/jar" "$base/?token=$token")"
assert_eq "then the cookie alone" 200 "$(code -b "$TMP/jar" "$base/api/summary")"
assert_eq "an IP literal Host (cannot be rebound) with the token" 200 \
	"$(code -H "Host: 10.1.2.3:$PORT" "$base/api/summary?token=$token")"
assert_eq "a foreign name with the token" 403 "$(code -H "Host: evil.example:$PORT" "$base/api/summary?token=$token")"
kill "$VPID"; wait "$VPID"
# The viewer a recording opens at its end: the user too, with no capability left.
env SUDO_UID="$SEC_UID" SUDO_GID="$SEC_GID" SUDO_USER="$SEC_USER" "$PROBEX" -q -p 0 -o "$UDIR/r.parquet" -- true \
	>"$TMP/v4.log" 2>&1 &
VPID=$!
for _ in $(seq 200); do grep -q 'viewer at http' "$TMP/v4.log" && break; sleep 0.1; done
grep -q 'viewer at http' "$TMP/v4.log" || { cat "$TMP/v4.log"; fail "the recording's viewer printed no URL"; }
assert_eq "recording's viewer uid" "$SEC_UID" "$(awk '/^Uid:/ { print $3 }' /proc/$VPID/status)"
assert_eq "recording's viewer capabilities" 0000000000000000 "$(awk '/^CapPrm:/ { print $2 }' /proc/$VPID/status)"
kill "$VPID"; wait "$VPID"

start_viewer "$TMP/v3.log" --bind 0.0.0.0 --no-token
! grep -q 'token=' <<<"$URL" || fail "--no-token printed a token"
assert_eq "--no-token" 200 "$(code "http://127.0.0.1:$PORT/api/summary")"
kill "$VPID"; wait "$VPID"
true
