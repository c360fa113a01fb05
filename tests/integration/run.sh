#!/usr/bin/env bash
# Runs every tests/integration/t_*.sh, or those named (run.sh offcpu t_ring); each test is
# a bash script that exits non-zero on failure.  They trace real processes, so they need
# root and BPF.
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../pick.sh"
list=$(pick "$here" t_ "$@") || exit 2
mapfile -t tests <<<"$list"
if [ "$(id -u)" -ne 0 ]; then
	if [ "${ALLOW_SKIP:-}" = 1 ]; then
		echo "integration: SKIPPED (ALLOW_SKIP=1) — these tests load BPF programs and need root"
		exit 0
	fi
	echo "integration: needs root (it loads BPF programs): run sudo make test-integration," >&2
	echo "integration: or set ALLOW_SKIP=1 to skip it knowingly" >&2
	exit 1
fi
source "$here/env.sh"
pass=0 fail=0 failed=()
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	start=$(date +%s.%N)
	if out=$(bash "$t" 2>&1); then
		pass=$((pass + 1))
		printf 'ok   %-40s %5.1fs\n' "$name" "$(echo "$(date +%s.%N) - $start" | bc)"
	else
		fail=$((fail + 1))
		failed+=("$name")
		printf 'FAIL %-40s\n' "$name"
		printf '%s\n' "$out" | sed 's/^/     | /' | tail -40
	fi
done
echo "integration: $pass passed, $fail failed${failed:+ (${failed[*]})}"
[ "$fail" -eq 0 ]
