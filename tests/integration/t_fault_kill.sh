#!/usr/bin/env bash
# The traced program is SIGKILLed from outside (an OOM killer, an impatient user): the
# root process alone, then every process of a tree at once.  probex exits 137, the trace
# is complete up to the kill (every read of the work done before it: 0 lost), the exit
# rows say SIGKILL, and nothing of the tree is left running or stopped.
source "$(dirname "$0")/lib.sh"
source "$ROOT/tests/reliability/ledger.sh"
wait_for() { for _ in $(seq 200); do [ -e "$1" ] && return 0; sleep 0.05; done; fail "'$1' never appeared"; }
N=20000
reads() { q "$1" "SELECT count(*) FROM events WHERE event_type = 'syscall_read_exit' AND process_name = 'dd'"; }
"$PROBEX" -q --stacks=none -o "$TMP/ref.parquet" --no-viewer -- dd if=/dev/zero of=/dev/null bs=1 count=$N status=none ||
	fail "reference run failed"
ref=$(reads "$TMP/ref.parquet")
assert_ge "dd's read exits in the reference run" $N "$ref"

# The root process: dd's work is done, then the shell becomes `sleep`, which is killed.
"$PROBEX" -q --stacks=none -o "$TMP/a.parquet" --no-viewer -- \
	sh -c "dd if=/dev/zero of=/dev/null bs=1 count=$N status=none; touch $TMP/a.mark; exec sleep 8331" &
pp=$!
wait_for "$TMP/a.mark"
sleep 0.2
pkill -KILL -f "^sleep 8331"
wait_exit $pp 30
assert_eq "exit status when the command is SIGKILLed" 137 $?
assert_no_leftovers "sleep 8331"
[ ! -e "$TMP/a.parquet.probex-spool" ] || fail "spool left behind"
got=$(reads "$TMP/a.parquet")
assert_eq "dd's read exits before the kill" "$ref" "$got"
assert_eq "the root's exit row says SIGKILL" "137 9" \
	"$(q "$TMP/a.parquet" "SELECT exit_code || ' ' || exit_signal FROM events WHERE event_type = 'process_exit' AND NOT is_thread AND pid = (SELECT min(pid) FROM events WHERE event_type = 'process_exec' AND filename LIKE '%sleep')")"
ledger fault "traced command SIGKILLed from outside" 1 $((ref - got))

# The whole tree at once: a shell with three children (one stopped).
script="dd if=/dev/zero of=/dev/null bs=1 count=$N status=none; sleep 8332 & sleep 8333 & sleep 8334 & \
sleep 0.2; kill -STOP \$!; touch $TMP/b.mark; wait"
"$PROBEX" -q --stacks=none -o "$TMP/b.parquet" --no-viewer -- sh -c "$script" &
pp=$!
wait_for "$TMP/b.mark"
sleep 0.2
tree=$(pgrep -f "^sleep 833[234]|^sh -c dd if=/dev/zero of=/dev/null bs=1 count=$N " | tr '\n' ' ')
assert_eq "processes in the tree" 4 "$(echo $tree | wc -w)"
assert_eq "one of them stopped" T "$(ps -o stat= -p "$(pgrep -f '^sleep 8334')" | cut -c1)"
kill -KILL $tree
wait_exit $pp 30
rc=$?
assert_eq "exit status when the whole tree is SIGKILLed" 137 $rc
sleep 0.2
assert_no_leftovers "sleep 833[234]"
got=$(reads "$TMP/b.parquet")
assert_eq "dd's read exits before the kill" "$ref" "$got"
assert_ge "exit rows with SIGKILL" 4 \
	"$(q "$TMP/b.parquet" "SELECT count(*) FROM events WHERE event_type = 'process_exit' AND NOT is_thread AND exit_signal = 9")"
ledger fault "whole traced tree SIGKILLed from outside" 1 $((ref - got))
