# Shared by the recorder benchmarks (run.sh, peers.sh, cbuild.sh), sourced after `set -u`:
# paths, a scratch directory removed on exit, the root check, and the timing helpers.
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PROBEX=${PROBEX:-$ROOT/$BUILD/probex}
BIN=$ROOT/$BUILD/bench
RUNS=${RUNS:-3}

# NAME WHY: WORK=/tmp/probex-NAME.*, removed on exit; without root, say WHY and stop
# (a skipped benchmark is not a failed one).
bench__setup() {
	WORK=$(mktemp -d "/tmp/probex-$1.XXXXXX")
	trap 'rm -rf "$WORK"' EXIT
	if [ "$(id -u)" -ne 0 ]; then
		echo "bench: SKIPPED — $2"
		exit 0
	fi
}

now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
