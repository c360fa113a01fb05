#!/usr/bin/env bash
# A traced command woken by a process outside the traced tree (-a off): the traced shell
# blocks opening a FIFO that an untraced shell, started beside probex, opens for writing.
# The off_cpu row names that waker (waker_name: its comm at the wakeup), and the critical
# path and the thread states end the chain there, naming it by pid and comm.
source "$(dirname "$0")/lib.sh"
fifo="$TMP/fifo" out="$TMP/w.parquet"
mkfifo "$fifo"
ln -s /bin/sh "$TMP/fifowaker"	# its comm: fifowaker
# Writes once the traced shell is about to block: the write ends its wait.
"$TMP/fifowaker" -c "while [ ! -e '$TMP/ready' ]; do sleep 0.05; done; sleep 0.3; echo x > '$fifo'" &
waker=$!
timeout 60 "$PROBEX" -q -o "$out" --no-viewer -- sh -c "echo \$\$ > '$TMP/ready'; read l < '$fifo'" ||
	fail "probex exited $?"
wait "$waker"
tid=$(cat "$TMP/ready")
wait_row="event_type = 'off_cpu' AND pid = $tid AND latency_ns > 200000000"
assert_eq "the long wait: woken by the untraced writer, named" "$waker $waker fifowaker" \
	"$(q "$out" "SELECT waker_pid || ' ' || waker_tgid || ' ' || waker_name FROM events WHERE $wait_row")"
assert_eq "the writer has no rows of its own" 0 "$(q "$out" "SELECT count(*) FROM events WHERE pid = $waker")"

"$PROBEX" report "$out" --critical-path --json >"$TMP/cp.json" || fail "report --critical-path --json failed"
longest() { # the longest segment of a critical-path JSON: tid state waker_tid waker_pid waker_name
	python3 -c "import json,sys; s = max(json.load(open(sys.argv[1]))['segments'], key=lambda s: s['end_ns'] - s['start_ns'])
print(s['tid'], s['state'], s['waker_tid'], s['waker_pid'], s['waker_name'])" "$1"
}
assert_eq "report: the path ends in the wait, naming its waker" "$tid sleeping $waker $waker fifowaker" \
	"$(longest "$TMP/cp.json")"
"$PROBEX" report "$out" --critical-path >"$TMP/cp.txt" || fail "report --critical-path failed"
grep -q "Waits ended by wakers outside the trace" "$TMP/cp.txt" || fail "no outside-waker table: $(cat "$TMP/cp.txt")"
grep -qE "fifowaker/$waker +$waker\$" "$TMP/cp.txt" || fail "the waker is not named: $(cat "$TMP/cp.txt")"
echo "ok: the text report names the waker"

# The viewer's answers: /api/critical_path and /api/thread_states.
"$PROBEX" --view "$out" -p 0 2>"$TMP/view.log" &
vp=$!
for _ in $(seq 200); do grep -qE "viewer at http" "$TMP/view.log" && break; sleep 0.05; done
base=$(sed -n 's/.*viewer at \(http:[^ ]*[0-9]\)\/*$/\1/p' "$TMP/view.log" | head -1)
[ -n "$base" ] || fail "the viewer did not start: $(cat "$TMP/view.log")"
api() { for _ in $(seq 100); do curl -sf "$base/api/$1" && return; sleep 0.1; done; fail "GET $1 failed"; }
api "critical_path?tid=$tid" >"$TMP/api_cp.json"
assert_eq "api: the path ends in the wait, naming its waker" "$tid sleeping $waker $waker fifowaker" \
	"$(longest "$TMP/api_cp.json")"
win=$(python3 -c "import json,sys; d = json.load(open(sys.argv[1])); print(f\"start_ns={d['start_ns']}&end_ns={d['end_ns']}\")" "$TMP/api_cp.json")
api "thread_states?tid=$tid&$win" >"$TMP/api_st.json"
assert_eq "api: the sleeping span names its waker" "$waker $waker fifowaker" "$(python3 -c "import json,sys
s = max(json.load(open(sys.argv[1]))['spans'], key=lambda s: s['end_ns'] - s['start_ns'])
print(s['waker_tid'], s['waker_pid'], s['waker_name'])" "$TMP/api_st.json")"
kill -INT $vp
wait $vp
