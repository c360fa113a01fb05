#!/usr/bin/env bash
# Security of the viewer (the reference bound 0.0.0.0 with no auth, served as root under
# sudo, and built its SQL by string interpolation):
#   1. the default bind is loopback only: a client in another network namespace, over a
#      veth pair, is refused, and reaches the same viewer only with --bind 0.0.0.0;
#   2. hostile parameters and paths (hostile.mjs): 400s naming the parameter, 404s for
#      escapes, and the data unchanged afterwards;
#   3. `--view` under sudo runs as the invoking user (uid/gid in /proc), and cannot read
#      a file only root can.
# Parts 1 and 3 need root and print SKIP otherwise.
source "$(dirname "$0")/lib.sh"
"$PROBEX" synth -o "$TMP/t.parquet" --events 3000 --seed 21 2>/dev/null || { bad "synth failed"; exit 1; }
chmod 755 "$TMP"
chmod 644 "$TMP/t.parquet"

# --- 1. bind ----------------------------------------------------------------------------
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: bind test: creating a network namespace needs root"
else
	ns=probex-sec-$$
	host_ip=10.213.$((RANDOM % 250)).1
	peer_ip=${host_ip%.1}.2
	cleanup_ns() { ip netns del "$ns" 2>/dev/null; ip link del "veth-$$" 2>/dev/null; }
	trap 'cleanup_ns; rel_cleanup' EXIT
	if ip netns add "$ns" && ip link add "veth-$$" type veth peer name "vpeer-$$" &&
		ip link set "vpeer-$$" netns "$ns" && ip addr add "$host_ip/30" dev "veth-$$" &&
		ip link set "veth-$$" up && ip -n "$ns" addr add "$peer_ip/30" dev "vpeer-$$" &&
		ip -n "$ns" link set "vpeer-$$" up && ip -n "$ns" link set lo up; then
		f0=$FAILS
		remote() { ip netns exec "$ns" curl -s -o /dev/null -m 3 -w '%{http_code}' "$1"; }
		if view_start "$TMP/t.parquet"; then
			port=${VIEW_URL##*:}
			[ "$(curl -s -o /dev/null -w '%{http_code}' "$VIEW_URL/api/summary")" = 200 ] &&
				ok "default bind: served on loopback" || bad "default bind: not served on loopback"
			code=$(remote "http://$host_ip:$port/api/summary")
			ip netns exec "$ns" curl -s -m 3 "http://$host_ip:$port/" >/dev/null 2>&1
			rc=$?
			[ "$code" = 000 ] && [ $rc -eq 7 ] && ok "default bind: a remote client is refused (curl exit 7)" ||
				bad "default bind: a remote client got HTTP $code (curl exit $rc)"
			ss -ltn "sport = :$port" | grep -q "127.0.0.1:$port" && ok "default bind: listening on 127.0.0.1 only" ||
				bad "default bind: $(ss -ltn "sport = :$port" | tail -n +2)"
			view_stop INT || bad "viewer exit status $?"
		else
			bad "viewer did not start: $(cat "$VIEW_LOG")"
		fi
		# The positive control: exposure is opt-in and works.
		# A non-loopback bind needs the token printed in the URL (as Jupyter does).
		if view_start "$TMP/t.parquet" --bind 0.0.0.0; then
			port=${VIEW_URL##*:}
			token=$(sed -n 's/.*viewer at http:[^ ]*?token=\([0-9a-f]*\).*/\1/p' "$VIEW_LOG" | head -n1)
			code=$(remote "http://$host_ip:$port/api/summary")
			[ "$code" = 403 ] && ok "--bind 0.0.0.0: a remote client without the token is refused (403)" ||
				bad "--bind 0.0.0.0: a remote client without the token got HTTP $code"
			code=$(remote "http://$host_ip:$port/api/summary?token=$token")
			[ -n "$token" ] && [ "$code" = 200 ] && ok "--bind 0.0.0.0: the remote client with the token is served" ||
				bad "--bind 0.0.0.0: the remote client with the token '$token' got HTTP $code"
			view_stop INT || bad "viewer exit status $?"
		fi
		ledger input "remote connections" 3 $((3 - (FAILS - f0)))
	else
		echo "SKIP: bind test: cannot set up a network namespace with a veth pair"
	fi
	cleanup_ns
fi

# --- 2. hostile parameters and paths -----------------------------------------------------
if view_start "$TMP/t.parquet" && view_wait_loaded 60; then
	out=$(node "$REL_ROOT/tests/reliability/hostile.mjs" "$VIEW_URL/" 2>&1)
	rc=$?
	echo "$out" | tail -n 12
	read -r tried okn <<<"$(echo "$out" | sed -n 's/^hostile: tried \([0-9]*\) ok \([0-9]*\)$/\1 \2/p')"
	ledger input "hostile requests" "${tried:-0}" "${okn:-0}"
	[ $rc -eq 0 ] || bad "hostile requests: $((${tried:-0} - ${okn:-0})) failures"
	grep -q "error" "$VIEW_LOG" && bad "the viewer logged errors: $(grep error "$VIEW_LOG" | head -3)"
	view_stop INT || bad "viewer exit status after hostile requests: $?"
else
	bad "viewer did not start: $(cat "$VIEW_LOG")"
fi

# --- 3. --view under sudo -----------------------------------------------------------------
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: sudo test: needs root (it simulates sudo with SUDO_UID/SUDO_GID)"
else
	f0=$FAILS
	export SUDO_UID=65534 SUDO_GID=65534 SUDO_USER=nobody
	if view_start "$TMP/t.parquet" && view_wait_loaded 60; then
		uids=$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "/proc/$VIEW_PID/status")
		gids=$(awk '/^Gid:/ { print $2, $3, $4, $5 }' "/proc/$VIEW_PID/status")
		caps=$(awk '/^CapEff:/ { print $2 }' "/proc/$VIEW_PID/status")
		[ "$uids" = "65534 65534 65534 65534" ] && ok "--view under sudo: uids $uids" || bad "--view under sudo: uids $uids"
		[ "$gids" = "65534 65534 65534 65534" ] && ok "--view under sudo: gids $gids" || bad "--view under sudo: gids $gids"
		[ "$caps" = 0000000000000000 ] && ok "--view under sudo: no capabilities" || bad "--view under sudo: CapEff $caps"
		[ "$(curl -s -o /dev/null -w '%{http_code}' "$VIEW_URL/api/summary")" = 200 ] ||
			bad "--view under sudo: not serving"
		view_stop INT || bad "viewer exit status $?"
	else
		bad "--view under sudo did not serve: $(cat "$VIEW_LOG")"
	fi
	# A file only root may read: refused, because the file is opened after the drop.
	cp "$TMP/t.parquet" "$TMP/root-only.parquet"
	chmod 600 "$TMP/root-only.parquet"
	"$PROBEX" --view "$TMP/root-only.parquet" -p 0 2>"$TMP/err" &
	vp=$!
	for _ in $(seq 100); do kill -0 $vp 2>/dev/null || break; sleep 0.05; done
	if kill -0 $vp 2>/dev/null; then
		kill -9 $vp
		bad "--view under sudo served a file only root can read"
	else
		wait $vp
		rc=$?
		[ $rc -eq 1 ] && grep -q "Permission denied" "$TMP/err" &&
			ok "--view under sudo cannot read a root-only file" || bad "root-only file: exit $rc: $(cat "$TMP/err")"
	fi
	unset SUDO_UID SUDO_GID SUDO_USER
	ledger input "privilege checks" 4 $((4 - (FAILS - f0)))
fi
[ "$FAILS" -eq 0 ]
