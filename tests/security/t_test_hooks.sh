#!/usr/bin/env bash
# Fault injection exists only in the test build: the shipped binary reads no PROBEX_TEST_*
# variable, so a user cannot switch it on through sudo's environment.
source "$(dirname "$0")/lib.sh"
if grep -a -o 'PROBEX_TEST_[A-Z_]*' "$PROBEX" | sort -u | grep .; then
	fail "the shipped $PROBEX reads test variables"
fi
echo "ok: no PROBEX_TEST_ string in $PROBEX"
assert_ge "test variables in the test build" 1 "$(grep -a -c 'PROBEX_TEST_CONSUMER_DELAY_MS' "$PROBEX_TEST")"
# Behaviour, not only strings: the shipped binary keeps no spool when asked to.
PROBEX_TEST_KEEP_SPOOL=1 sprobex -q -o "$UDIR/t.parquet" --no-viewer -- true || fail "recording failed"
[ ! -e "$UDIR/t.parquet.probex-spool" ] || fail "the shipped binary honoured PROBEX_TEST_KEEP_SPOOL"
echo "ok: PROBEX_TEST_KEEP_SPOOL has no effect on the shipped binary"
