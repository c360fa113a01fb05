#!/usr/bin/env bash
# The fault-injection integration tests (root: they trace), run for the reliability
# suite's ledger.  The newer scripts record each fault themselves; the older ones
# (t_faults.sh, t_ctrl_c.sh, t_exit_status.sh) are credited here with the faults they
# inject, all survived when the script passes: their assertions account for every record
# (rows + counted drops = a lossless run's rows; every read recovered).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
: "${PROBEX:?}" "${BUILD:?}"
# The fault-injection knobs exist only in the test build.
: "${PROBEX_TEST:=$PROBEX-test}"
export PROBEX BUILD PROBEX_TEST
source "$here/ledger.sh"
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: fault tests: they trace with BPF and need root (sudo make check-reliability)"
	exit 0
fi

declare -A manifest=(
	[t_faults]="segfaulting command|daemon outliving the command|probex SIGKILLed mid-run, spool recovered|full output filesystem|tiny ring buffer, drops counted exactly"
	[t_ctrl_c]="Ctrl-C mid-run|tree ignoring SIGTERM|double Ctrl-C|stopped member of the tree"
	[t_exit_status]="command SIGKILLs itself|command that cannot be run"
)
status=0
for t in t_faults t_ctrl_c t_exit_status t_fault_phases t_fault_kill; do
	script=$root/tests/integration/$t.sh
	[ -e "$script" ] || continue
	start=$(date +%s)
	out=$(bash "$script" 2>&1)
	rc=$?
	took=$(($(date +%s) - start))
	if [ -n "${manifest[$t]:-}" ]; then
		IFS='|' read -r -a faults <<<"${manifest[$t]}"
		for f in "${faults[@]}"; do
			[ "$f" = "full output filesystem" ] && grep -q "SKIP: full-filesystem" <<<"$out" && continue
			if [ $rc -eq 0 ]; then ledger fault "$f" 1 0; else ledger fault "$f" 0 "?"; fi
		done
	elif [ $rc -ne 0 ]; then
		ledger fault "$t (failed part-way)" 0 "?"
	fi
	if [ $rc -eq 0 ]; then
		printf 'ok   %-16s %4ds\n' "$t" "$took"
	else
		printf 'FAIL %-16s %4ds\n' "$t" "$took"
		printf '%s\n' "$out" | tail -25 | sed 's/^/     | /'
		status=1
	fi
done
exit $status
