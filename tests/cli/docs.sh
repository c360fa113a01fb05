# The man page documents every subcommand and option --help lists; make install puts it
# (and the binary, DuckDB, bash completion) under DESTDIR/PREFIX.  Sourced by run.sh.
man_text=$(sed 's/\\-/-/g' "$ROOT/doc/probex.1")
missing=""
for c in $("$PROBEX" --help | sed -n 's/^  probex \([a-z]*\) .*/\1/p'); do
	grep -q "^\.SS probex $c" <<<"$man_text" || missing+=" $c"
done
for o in $("$PROBEX" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	grep -q -- "$o" <<<"$man_text" || missing+=" $o"
done
check "man page covers every subcommand and option" "" "$missing"
for s in "EXIT STATUS" FILES OVERHEAD; do
	grep -q "^\.SH $s" "$ROOT/doc/probex.1" || bad "man page has no $s section"
done
if command -v man >/dev/null && [ -n "$(MANWIDTH=100 man --warnings -l "$ROOT/doc/probex.1" 2>&1 >/dev/null)" ]; then
	bad "man reports warnings on probex.1"
fi

make -s -C "$ROOT" BUILD="$BUILD" install DESTDIR="$TMP/inst" PREFIX=/opt/px >/dev/null 2>&1 || bad "make install"
for f in bin/probex lib/probex/libduckdb.so share/man/man1/probex.1 share/bash-completion/completions/probex; do
	[ -f "$TMP/inst/opt/px/$f" ] || bad "make install: no $f"
done
check "installed probex runs" "probex $("$PROBEX" --version | cut -d' ' -f2)" "$("$TMP/inst/opt/px/bin/probex" --version | cut -d' ' -f1-2)"

# Bash completion: subcommands, then their options and values.
complete_words() { # WORDS... (the last one is completed)
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _probex; echo "${COMPREPLY[*]}"' _ \
		"$ROOT/doc/probex.bash-completion" "$@"
}
check "completion: subcommand" "export" "$(complete_words probex exp | tr ' ' '\n' | grep -x export | sort -u)"
check "completion: export option" "--format" "$(complete_words probex export --fo)"
check "completion: format" "pprof" "$(complete_words probex export --format pp)"
check "--help fits 100 columns" "" "$("$PROBEX" --help | awk 'length($0) > 100')"
