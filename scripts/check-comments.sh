#!/usr/bin/env bash
# Fails when a comment in src/, mk/, scripts/ or tests/ (or the Makefile) names a
# repository file that does not exist, or when README.md grows past 350 lines.
#
# A path counts when it starts with a top-level folder (src/ doc/ tests/ mk/ scripts/
# bench/ web/) and must then exist from the repository root, or when it is a bare name
# ending in .c or .h, which must exist somewhere under src/ or tests/ (or be a
# generated or system header).  Globs and placeholders (test_*.c, <harness>, $NAME, NAME.c)
# are patterns, not names, and are skipped.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
README_MAX=350

status=0
lines=$(wc -l <README.md)
if [ "$lines" -gt "$README_MAX" ]; then
	echo "check-comments: README.md has $lines lines (at most $README_MAX)"
	status=1
fi

# Tracked files, or every file when this is not a git checkout (a source tarball).
list() {
	git ls-files -- "$@" 2>/dev/null || find "$@" -type f -not -path '*/node_modules/*'
}
files=$(list src mk scripts tests Makefile | grep -v -e '/node_modules/' -e '\.json$' -e '\.parquet$')
# Bare names that exist: the repository's own C files, then names the build generates.
known=$(list src tests | grep -E '\.[ch]$' | sed 's|.*/||'
	echo vmlinux.h probex.skel.h probex.lskel.h profile.pb-c.c profile.pb-c.h web_assets.c | tr ' ' '\n')

# shellcheck disable=SC2086
missing=$(KNOWN="$known" perl -e '
	use strict; use warnings;
	my %known = map { $_ => 1 } split /\n/, $ENV{KNOWN};
	my $seg = qr{[A-Za-z0-9_.+-]};

	# The comments of one file, as (line, text) pairs.
	sub comments {
		my ($file, $text) = @_;
		my @out;
		if ($file =~ /\.(c|h|bpf\.h|proto|mjs|js|ts|cjs)$/) {
			# C-like: block and line comments, outside string and char literals.
			my ($line, $i, $n) = (1, 0, length $text);
			while ($i < $n) {
				my $c = substr($text, $i, 1);
				my $two = substr($text, $i, 2);
				if ($two eq "/*") {
					my $end = index($text, "*/", $i + 2);
					$end = $n if $end < 0;
					my $body = substr($text, $i + 2, $end - $i - 2);
					push @out, [$line, $body];
					$line += ($body =~ tr/\n//);
					$i = $end + 2;
				} elsif ($two eq "//") {
					my $end = index($text, "\n", $i);
					$end = $n if $end < 0;
					push @out, [$line, substr($text, $i + 2, $end - $i - 2)];
					$i = $end;
				} elsif ($c eq q(") || $c eq q(\x27) || ($c eq q(`) && $file =~ /\.(mjs|js|ts|cjs)$/)) {
					my $j = $i + 1;
					while ($j < $n) {
						my $d = substr($text, $j, 1);
						if ($d eq "\\") { $j += 2; next; }
						last if $d eq $c;
						last if $d eq "\n" && $c ne q(`);
						$j++;
					}
					$line += (substr($text, $i, $j - $i) =~ tr/\n//);
					$i = $j + 1;
				} else {
					$line++ if $c eq "\n";
					$i++;
				}
			}
		} else {
			# Shell, make, awk, Python: "#" at a line start or after a blank, outside quotes.
			my $line = 0;
			for my $l (split /\n/, $text, -1) {
				$line++;
				my ($q, $prev) = ("", " ");
				for my $k (0 .. length($l) - 1) {
					my $c = substr($l, $k, 1);
					if ($q) { $q = "" if $c eq $q && $prev ne "\\"; }
					elsif ($c eq q(") || $c eq q(\x27)) { $q = $c; }
					elsif ($c eq "#" && $prev =~ /\s/) {
						push @out, [$line, substr($l, $k + 1)];
						last;
					}
					$prev = $c;
				}
			}
		}
		return @out;
	}

	for my $file (@ARGV) {
		open(my $fh, "<", $file) or next;
		local $/;
		my $text = <$fh>;
		close $fh;
		next if $text =~ /\0/;
		for my $cm (comments($file, $text)) {
			my ($line, $body) = @$cm;
			my $ln = $line;
			for my $l (split /\n/, $body, -1) {
				while ($l =~ m{(?<![A-Za-z0-9_./~\$-])((?:src|doc|tests|mk|scripts|bench|web)/$seg*(?:/$seg*)*)}g) {
					my $p = $1;
					my $after = substr($l, pos($l), 1);
					next if $after =~ /[*<{\$]/;
					$p =~ s/[.+-]+\z//;
					next if $p =~ m{/\.\.?(?:/|\z)|node_modules};	# installed, not ours
					next if $p =~ m{/[A-Z][A-Z0-9_]*(?:\.\w+)?(?:/|\z)};	# tests/fixtures/NAME.c
					print "$file:$ln: $p\n" unless -e $p;
				}
				while ($l =~ m{(?<![A-Za-z0-9_./~\$*<-])([A-Za-z_][A-Za-z0-9_-]*\.[ch])(?![A-Za-z0-9_/*-])}g) {
					my $p = $1;
					next if $known{$p};
					next if $p =~ /^[A-Z][A-Z0-9_]*\.[ch]\z/;	# NAME.c
					next if -e "/usr/include/$p" || glob("/usr/include/*/$p");
					print "$file:$ln: $p\n";
				}
				$ln++;
			}
		}
	}
' $files)

if [ -n "$missing" ]; then
	echo "check-comments: comments name files that do not exist:"
	echo "$missing" | sed 's/^/  /'
	status=1
fi
exit $status
