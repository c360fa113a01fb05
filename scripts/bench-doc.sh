#!/usr/bin/env bash
# Copies the tables `make bench` wrote into the document that shows them: the lines
# between `<!-- bench:NAME:begin -->` and `<!-- bench:NAME:end -->` become DIR/NAME.md
# (or DIR/NAME.txt, fenced as a code block).  A missing or empty file leaves its block as it was,
# so a partial bench (make bench-recorder) updates only its own tables.
#   scripts/bench-doc.sh [DIR [DOC]]      (default: build/bench doc/benchmarks.md)
set -eu
dir=${1:-build/bench}
doc=${2:-doc/benchmarks.md}
tmp=$(mktemp "$doc.XXXXXX")
trap 'rm -f "$tmp"' EXIT

awk -v dir="$dir" '
	function emit(name,   f, line, fenced) {
		f = dir "/" name ".md"
		if ((getline line < f) <= 0) {
			f = dir "/" name ".txt"
			if ((getline line < f) <= 0)
				return 0
			fenced = 1
			print "```"
		}
		do print line; while ((getline line < f) > 0)
		close(f)
		if (fenced)
			print "```"
		updated[name] = 1
		return 1
	}
	match($0, /^<!-- bench:[A-Za-z0-9_-]+:begin -->$/) {
		name = substr($0, 12, length($0) - 21)
		print
		skip = emit(name)	# a new block replaces the old one up to its end marker
		next
	}
	/^<!-- bench:[A-Za-z0-9_-]+:end -->$/ { skip = 0 }
	!skip { print }
	END {
		for (n in updated)
			printf "bench-doc: %s updated\n", n > "/dev/stderr"
		if (skip) {
			print "bench-doc: a begin marker has no end marker" > "/dev/stderr"
			exit 1
		}
	}
' "$doc" >"$tmp"
cat "$tmp" >"$doc"
