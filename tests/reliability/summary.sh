#!/usr/bin/env bash
# The suite's closing summary from its ledger (ledger.sh): inputs tried and handled as
# specified, faults injected and survived, data lost.  Fails when anything was lost, a
# fault was not survived or an input was mishandled.
#   summary.sh LEDGER
set -u
ledger=$1
[ -s "$ledger" ] || { echo "reliability summary: nothing was run"; exit 1; }
awk -F'\t' '
	$1 == "input" { tried += $3; ok += $4; parts = parts sprintf("%s%s %d", parts ? ", " : "", $2, $3) }
	$1 == "fault" {
		faults++; survived += $3
		if ($4 == "?") unknown++; else lost += $4
		if ($3 != 1 || $4 != "0") bad_faults = bad_faults sprintf("\n    not survived or lossy: %s (lost %s)", $2, $4)
	}
	END {
		printf "reliability summary\n"
		printf "  inputs tried:      %d (%s)\n", tried, parts
		printf "  handled as specified: %d of %d\n", ok, tried
		printf "  faults injected:   %d\n", faults
		printf "  faults survived:   %d of %d%s\n", survived, faults, bad_faults
		printf "  data lost:         %d records%s (must be 0)\n", lost, unknown ? sprintf(" + %d faults with an unknown loss", unknown) : ""
		exit (ok != tried || survived != faults || lost != 0 || unknown != 0)
	}' "$ledger"
