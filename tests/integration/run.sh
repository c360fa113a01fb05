#!/usr/bin/env bash
# Runs every tests/integration/t_*.sh; each test is a bash script that exits non-zero on
# failure.  They trace real processes, so they need root and BPF.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export BUILD=${BUILD:-build}
export PROBEX=${PROBEX:-$(cd "$here/../.." && pwd)/$BUILD/probex}
# The test build (fault injection through PROBEX_TEST_* variables); the shipped one has none.
export PROBEX_TEST=${PROBEX_TEST:-$PROBEX-test}
if [ "$(id -u)" -ne 0 ]; then
	if [ "${ALLOW_SKIP:-}" = 1 ]; then
		echo "integration: SKIPPED (ALLOW_SKIP=1) — these tests load BPF programs and need root"
		exit 0
	fi
	echo "integration: needs root (it loads BPF programs): run sudo make test-integration," >&2
	echo "integration: or set ALLOW_SKIP=1 to skip it knowingly" >&2
	exit 1
fi
pass=0 fail=0 failed=()
for t in "$here"/t_*.sh; do
	[ -e "$t" ] || continue
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
