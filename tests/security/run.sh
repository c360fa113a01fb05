#!/usr/bin/env bash
# Runs every tests/security/t_*.sh: the attacks a user allowed to `sudo probex` could try,
# each asserted refused.  Needs root (it plays sudo: SUDO_UID/SUDO_GID/SUDO_USER of a test
# user, created with useradd when missing).
set -u
here=$(cd "$(dirname "$0")" && pwd)
export BUILD=${BUILD:-build}
export PROBEX=${PROBEX:-$(cd "$here/../.." && pwd)/$BUILD/probex}
export PROBEX_TEST=${PROBEX_TEST:-$PROBEX-test}
if [ "$(id -u)" -ne 0 ]; then
	if [ "${ALLOW_SKIP:-}" = 1 ]; then
		echo "security: SKIPPED (ALLOW_SKIP=1) — these tests play sudo and need root"
		exit 0
	fi
	echo "security: needs root (it plays sudo with a test user): run sudo make test-security," >&2
	echo "security: or set ALLOW_SKIP=1 to skip it knowingly" >&2
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
echo "security: $pass passed, $fail failed${failed:+ (${failed[*]})}"
[ "$fail" -eq 0 ]
