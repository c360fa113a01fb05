# BUILD, PROBEX and PROBEX_TEST for the integration tests (run.sh, lib.sh): the repository's
# build unless given.  Started by hand (not by make, no PROBEX given), make first brings the
# binaries and fixtures up to date, so one test runs by name from any directory.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export BUILD=${BUILD:-build}
if [ -z "${PROBEX:-}" ] && [ -z "${MAKELEVEL:-}" ]; then
	make -s -C "$ROOT" -j"$(nproc)" BUILD="$BUILD" integration-build >&2 ||
		{ echo "integration: building the binaries and fixtures (make integration-build) failed" >&2; exit 1; }
fi
export PROBEX=${PROBEX:-$ROOT/$BUILD/probex}
# The test build: fault injection through PROBEX_TEST_* variables; the shipped one has none.
export PROBEX_TEST=${PROBEX_TEST:-$PROBEX-test}
