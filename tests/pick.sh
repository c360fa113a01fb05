# pick DIR PREFIX [NAME...]: the test scripts DIR/PREFIX*.sh (run.sh aside) that the NAMEs
# name, one a line, each NAME given with or without PREFIX and .sh; without NAME, all of
# them.  An unknown NAME is an error that names it and lists the tests there are.
pick() {
	local dir=$1 pre=$2 n all=() unknown=()
	shift 2
	for n in "$dir/$pre"*.sh; do
		[ -e "$n" ] && [ "${n##*/}" != run.sh ] && all+=("$n")
	done
	[ $# -eq 0 ] && { printf '%s\n' "${all[@]}"; return 0; }
	for n in "$@"; do
		n=${n##*/}
		n=${n%.sh}
		n=${n#"$pre"}
		if [ -n "$n" ] && [ -e "$dir/$pre$n.sh" ] && [ "$pre$n" != run ]; then
			echo "$dir/$pre$n.sh"
		else
			unknown+=("$n")
		fi
	done
	[ ${#unknown[@]} -eq 0 ] && return 0
	echo "no such ${dir##*/} test: ${unknown[*]}" >&2
	echo "available:$(printf ' %s' "${all[@]##*/}" | sed 's/\.sh//g')" >&2
	return 2
}
