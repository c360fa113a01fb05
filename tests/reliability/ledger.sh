# The suite's ledger: every part appends what it tried, so the summary (summary.sh) can
# say how many inputs were tried, how many faults injected and survived, and how much
# data was lost.  A no-op unless REL_LEDGER names the ledger file.
#
#   ledger input NAME TRIED OK            inputs (fuzz runs, files, requests) and how many were handled right
#   ledger fault NAME SURVIVED LOST       one injected fault: 1/0, and records lost (0, a count, or ?)
ledger() {
	[ -n "${REL_LEDGER:-}" ] || return 0
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$REL_LEDGER"
}
