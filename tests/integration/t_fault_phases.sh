#!/usr/bin/env bash
# Stop requests and kills at the edges of a run: Ctrl-C at start-up (before the command
# runs: 130, no spool, no file, nothing left), Ctrl-C and SIGTERM during finalization
# (the file is still completed, with every record: 0 lost), probex SIGKILLed at start-up
# (nothing of the tree left) and during finalization (the spool left behind recovers
# every record).  Every JSON metadata value of a trace parses.
source "$(dirname "$0")/lib.sh"
source "$ROOT/tests/reliability/ledger.sh"

# Background jobs of a script start with SIGINT ignored, which would discard a Ctrl-C
# that arrives before probex blocks it: start probex as a terminal would, and return
# once env has become probex (before that, a signal would still be ignored).
bg_probex_bin() { # binary args...
	local bin=$1
	shift
	env --default-signal=INT,QUIT "$bin" "$@" &
	for _ in $(seq 400); do
		[ "$(readlink "/proc/$!/exe" 2>/dev/null)" = "$(readlink -f "$bin")" ] && return 0
		kill -0 $! 2>/dev/null || return 0
		sleep 0.005
	done
}
bg_probex() { bg_probex_bin "$PROBEX" "$@"; }

# A deterministic workload: the number of read exits is the same on every run.
N=150000
dd_cmd=(dd if=/dev/zero of=/dev/null bs=1 count=$N status=none)
reads() { q "$1" "SELECT count(*) FROM events WHERE event_type = 'syscall_read_exit'"; }
"$PROBEX" -q --stacks=none -o "$TMP/ref.parquet" --no-viewer -- "${dd_cmd[@]}" || fail "reference run failed"
ref=$(reads "$TMP/ref.parquet")
assert_ge "read exits of the reference run" $N "$ref"
for key in probex.drops probex.command probex.missing_probes probex.hostname; do
	assert_eq "metadata $key is valid JSON" true \
		"$(q "$TMP/ref.parquet" "SELECT json_valid(decode(value)) FROM parquet_kv_metadata('$TMP/ref.parquet') WHERE key = '$key'")"
done

# --- Ctrl-C at start-up -------------------------------------------------------------
# An early signal lands before the command runs: probex says so ("received Interrupt
# before the command started") or, before it blocks signals, dies of SIGINT at once.  A
# later one, after the resume, stops a running command instead (then the file is
# written).  The shipped binary's set-up takes a few tens of ms, so which of the two a
# given delay hits depends on the machine; each outcome is checked for what it must be.
# The test build then holds the command back for 600 ms after arming, so that every
# delay below lands before the command starts, however fast the load.
startup_ctrl_c() { # binary delay -> 0 if the signal landed before the command started
	local bin=$1 delay=$2 out=$TMP/s$2.parquet rc
	rm -f "$out"
	bg_probex_bin "$bin" -o "$out" --no-viewer -- sh -c "exec sleep 8321" 2>"$TMP/err"
	local pp=$!
	sleep "$delay"
	kill -INT $pp
	wait_exit $pp 20
	rc=$?
	sleep 0.2
	assert_no_leftovers "^sleep 8321"
	if grep -q "received .* before the command started" "$TMP/err" ||
		{ [ $rc -eq 130 ] && ! grep -q "received" "$TMP/err"; }; then
		assert_eq "exit status of Ctrl-C after ${delay}s at start-up" 130 "$rc"
		[ ! -e "$out" ] || fail "an output file was written for a command that never ran"
		[ ! -e "$out.probex-spool" ] || fail "spool left behind by a Ctrl-C at start-up"
		[ ! -e "$out.probex-tmp" ] || fail "temporary file left behind"
		ledger fault "Ctrl-C at start-up (+${delay}s)" 1 0
		return 0
	fi
	echo "note: Ctrl-C after ${delay}s came after the command started (rc $rc)"
	grep -q "received" "$TMP/err" || fail "no message about the Ctrl-C: $(cat "$TMP/err")"
	[ $rc -eq 143 ] || [ $rc -eq 130 ] || fail "Ctrl-C just after start: exit status $rc"
	[ -s "$out" ] || fail "Ctrl-C just after start: no trace written"
	[ ! -e "$out.probex-spool" ] || fail "spool left behind"
	return 1
}
for delay in 0 0.02 0.05 0.1 0.2 0.4; do
	startup_ctrl_c "$PROBEX" "$delay" || true
done
startup=0
for delay in 0 0.05 0.2 0.4; do
	PROBEX_TEST_STARTUP_DELAY_MS=600 startup_ctrl_c "$PROBEX_TEST" "$delay" && startup=$((startup + 1))
done
assert_eq "Ctrl-Cs before a held-back command started" 4 "$startup"

# --- Ctrl-C / SIGTERM during finalization -----------------------------------------
# -v prints "drained and detached" when recording ends and finalization begins; the
# signal counts only if it went out before "wrote" (the end of finalization).
finalize_signal() { # signal count
	local sig=$1 n=$2 out=$TMP/f$1.parquet
	bg_probex -v --stacks=none -o "$out" --no-viewer -- "${dd_cmd[@]}" 2>"$TMP/f.log"
	local pp=$! hit=0
	for _ in $(seq 600); do
		grep -q "drained and detached" "$TMP/f.log" && break
		sleep 0.01
	done
	for _ in $(seq "$n"); do kill "-$sig" $pp; sleep 0.05; done
	grep -q "^probex: wrote" "$TMP/f.log" || hit=1
	wait_exit $pp 60
	local rc=$?
	[ $hit -eq 1 ] || { echo "note: $sig came after finalization ended"; return 0; }
	assert_eq "exit status after $n x SIG$sig during finalization" 0 "$rc"
	[ -s "$out" ] || fail "no trace written"
	[ ! -e "$out.probex-spool" ] || fail "spool left behind"
	[ ! -e "$out.probex-tmp" ] || fail "temporary file left behind"
	local got
	got=$(reads "$out")
	assert_eq "read exits after SIG$sig during finalization" "$ref" "$got"
	assert_eq "the file says it is complete" "" \
		"$(q "$out" "SELECT decode(value) FROM parquet_kv_metadata('$out') WHERE key = 'probex.incomplete'")"
	ledger fault "SIG$sig x$n during finalization" 1 $((ref - got))
	hits=$((hits + 1))
}
hits=0
finalize_signal INT 1
finalize_signal INT 2
finalize_signal TERM 1
assert_ge "signals that landed during finalization" 1 "$hits"

# --- probex SIGKILLed right after forking the command, before tracing it: the guardian
# cannot know the command yet, so the command (stopped, not exec'd) must die with probex.
PROBEX_TEST_DIE_AFTER_SPAWN=1 "$PROBEX_TEST" -q -o "$TMP/spawn.parquet" --no-viewer -- sh -c "exec sleep 8323" 2>/dev/null
assert_eq "exit status of probex killed after the fork" 137 $?
sleep 0.5
assert_no_leftovers "sleep 8323"

# --- probex SIGKILLed at start-up: the stopped, not-yet-exec'd command is not left ------
for delay in 0.05 0.2; do
	out=$TMP/k$delay.parquet
	bg_probex -q -o "$out" --no-viewer -- sh -c "exec sleep 8322" 2>/dev/null
	pp=$!
	sleep "$delay"
	kill -9 $pp
	wait $pp 2>/dev/null
	sleep 1
	assert_no_leftovers "sleep 8322"
	[ ! -e "$out" ] || fail "an output file appeared although probex was killed"
	if [ -e "$out.probex-spool" ]; then
		"$PROBEX" recover "$out.probex-spool" 2>"$TMP/err" || fail "recover failed: $(cat "$TMP/err")"
		# Killed before the end facts were written: the trace opens and says it is partial.
		rows=$(q "$out" "SELECT count(*) FROM events")
		is_num "$rows" || fail "the trace recovered from a start-up spool does not open"
		assert_eq "recovered start-up trace is marked incomplete" true \
			"$(q "$out" "SELECT decode(value) FROM parquet_kv_metadata('$out') WHERE key = 'probex.incomplete'")"
	fi
	ledger fault "probex SIGKILLed at start-up (+${delay}s)" 1 0
done

# --- probex SIGKILLed during finalization: the spool recovers everything -------------
out=$TMP/kf.parquet
bg_probex -v --stacks=none -o "$out" --no-viewer -- "${dd_cmd[@]}" 2>"$TMP/kf.log"
pp=$!
for _ in $(seq 600); do grep -q "drained and detached" "$TMP/kf.log" && break; sleep 0.01; done
kill -9 $pp
wait $pp 2>/dev/null
if grep -q "^probex: wrote" "$TMP/kf.log"; then
	echo "note: SIGKILL came after finalization ended"
else
	[ ! -e "$out" ] || fail "a file appeared at the output path although finalization was killed"
	[ -s "$out.probex-spool" ] || fail "no spool left to recover"
	"$PROBEX" recover "$out.probex-spool" 2>"$TMP/err" || fail "recover failed: $(cat "$TMP/err")"
	got=$(reads "$out")
	assert_eq "read exits recovered after SIGKILL during finalization" "$ref" "$got"
	assert_eq "a complete spool recovers as complete" "" \
		"$(q "$out" "SELECT decode(value) FROM parquet_kv_metadata('$out') WHERE key = 'probex.incomplete'")"
	arrow_schema() { q "$1" "SELECT md5(decode(value)) FROM parquet_kv_metadata('$1') WHERE key = 'ARROW:schema'"; }
	assert_eq "a recovered file's ARROW:schema is a recording's" "$(arrow_schema "$TMP/ref.parquet")" \
		"$(arrow_schema "$out")"
	ledger fault "probex SIGKILLed during finalization, recovered" 1 $((ref - got))
fi
