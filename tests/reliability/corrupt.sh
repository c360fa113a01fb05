#!/usr/bin/env bash
# Damaged and wrong trace files against `probex --view FILE` and `probex query FILE SQL`.
#
# Files that cannot be a trace (truncated at many offsets, empty, a directory, a FIFO, a
# device, text, bare magic, a footer length past the file, wrong metadata or schema) are
# refused by --view before it binds: exit 1 and exactly one line, naming the file.
# `probex query` refuses the unreadable ones the same way (it reads any Parquet, so files
# with foreign metadata or schema are answered).  Bit-flipped files may be refused before
# binding, refused while loading (exactly one error line naming the file, exit 1), or —
# when the flip is benign — served with valid JSON and a clean exit; `probex query`
# answers or refuses with one line.  Never a crash, a hang or a second error line.
#   CORRUPT_CUTS / CORRUPT_FLIPS: truncation offsets / bit flips per base trace (10 / 20).
source "$(dirname "$0")/lib.sh"
cuts=${CORRUPT_CUTS:-10}
flips=${CORRUPT_FLIPS:-20}
declare -A seen
tried=0 okn=0

# query_outcome FILE → ok | refused | BAD:reason
query_outcome() {
	local f=$1 rc lines
	timeout 60 "$PROBEX" query --no-header "$f" "SELECT count(*), sum(hash(events)) FROM events" \
		>"$TMP/q.out" 2>"$TMP/q.err"
	rc=$?
	lines=$(wc -l <"$TMP/q.err")
	if [ $rc -eq 124 ]; then echo "BAD:query hung"
	elif [ $rc -ge 128 ]; then echo "BAD:query killed by signal $((rc - 128))"
	elif [ $rc -eq 0 ]; then [ "$lines" -eq 0 ] && echo ok || echo "BAD:query succeeded with messages"
	elif [ "$lines" -ne 1 ]; then echo "BAD:query printed $lines lines"
	elif ! grep -qF -- "$f" "$TMP/q.err"; then echo "BAD:query error does not name the file"
	else echo refused
	fi
}

# view_outcome FILE → refused | refused-loading | served | BAD:reason
view_outcome() {
	local f=$1 rc errs lines code
	if view_start "$f" && view_wait_loaded 60; then
		code=$(curl -s -o "$TMP/sum.json" -w '%{http_code}' "$VIEW_URL/api/summary")
		view_stop INT
		rc=$?
		if [ "$code" != 200 ] || ! json_ok "$TMP/sum.json"; then echo "BAD:served but /api/summary gave $code"
		elif [ $rc -ne 0 ]; then echo "BAD:served, then exited $rc on SIGINT"
		elif grep -q "error" "$VIEW_LOG"; then echo "BAD:served with an error logged"
		else echo served
		fi
		return
	fi
	if kill -0 "$VIEW_PID" 2>/dev/null; then
		view_stop KILL
		echo "BAD:view neither served nor stopped within 60 s"
		return
	fi
	wait "$VIEW_PID"
	rc=$?
	VIEW_PID=
	errs=$(grep -c "error:" "$VIEW_LOG")
	lines=$(wc -l <"$VIEW_LOG")
	if [ $rc -ge 128 ]; then echo "BAD:view killed by signal $((rc - 128))"
	elif [ $rc -eq 0 ]; then echo "BAD:view exited 0 without serving"
	elif [ "$errs" -ne 1 ]; then echo "BAD:view printed $errs error lines"
	elif ! grep "error:" "$VIEW_LOG" | grep -qF -- "$f"; then echo "BAD:view error does not name the file"
	elif grep -q "viewer at" "$VIEW_LOG"; then echo refused-loading
	elif [ "$lines" -eq 1 ]; then echo refused
	else echo "BAD:view printed $lines lines before binding"
	fi
}

# check FILE VIEW-EXPECT QUERY-EXPECT DESCRIPTION; an expectation is a |-list of outcomes.
check() {
	local f=$1 ve=$2 qe=$3 what=$4 v q
	v=$(view_outcome "$f")
	q=$(query_outcome "$f")
	tried=$((tried + 2))
	seen["view $v"]=$((${seen["view $v"]:-0} + 1))
	seen["query $q"]=$((${seen["query $q"]:-0} + 1))
	if [[ "|$ve|" == *"|$v|"* ]]; then okn=$((okn + 1)); else
		bad "$what: --view: $v (want $ve)"
		# view_outcome ran in a subshell: its log is the newest one.
		sed 's/^/     | /' "$(ls -t "$TMP"/view.*.log 2>/dev/null | head -n1)" 2>/dev/null | head -5 >&2
	fi
	if [[ "|$qe|" == *"|$q|"* ]]; then okn=$((okn + 1)); else
		bad "$what: query: $q (want $qe)"
		sed 's/^/     | /' "$TMP/q.err" | head -5 >&2
	fi
}

# Bases: a reference-format trace (DuckDB's writer) and, as root, one recorded by probex
# (its own writer, extra columns).
bases=("$TMP/synth.parquet")
"$PROBEX" synth -o "$TMP/synth.parquet" --events 400 --seed 5 2>/dev/null || { bad "synth failed"; exit 1; }
if [ "$(id -u)" -eq 0 ]; then
	if "$PROBEX" -q --sample-freq 499 -o "$TMP/rec.parquet" --no-viewer -- \
		sh -c 'ls -R /usr/include >/dev/null; dd if=/dev/zero of=/dev/null bs=1k count=50 status=none'; then
		bases+=("$TMP/rec.parquet")
	else
		bad "recording a base trace failed"
	fi
else
	echo "note: not root: only the reference-format base (no recorded trace)"
fi

for base in "${bases[@]}"; do
	name=$(basename "$base" .parquet)
	size=$(stat -c %s "$base")
	check "$base" served ok "$name intact"
	# Truncated: evenly spread cuts, and every few bytes through the footer's tail.
	offs=(0 1 4 8 $((size - 1)) $((size - 4)) $((size - 8)) $((size - 9)))
	for i in $(seq 1 "$cuts"); do offs+=($((size * i / (cuts + 1)))); done
	for off in "${offs[@]}"; do
		f="$TMP/$name-cut$off.parquet"
		head -c "$off" "$base" >"$f"
		check "$f" refused refused "$name cut at $off of $size"
		rm -f "$f"
	done
	# Bit flips: half anywhere, half in the footer (metadata, schema, statistics), where
	# they meet the checks made before binding.
	flen=$(od -An -tu4 -j $((size - 8)) -N4 "$base" | tr -d ' ')
	for i in $(seq 1 "$flips"); do
		if [ $((i % 2)) -eq 0 ]; then off=$(((i * 2654435761) % (size - 8)))
		else off=$((size - 8 - flen + (i * 40503) % flen)); fi
		bit=$((i % 8))
		f="$TMP/$name-flip$off.$bit.parquet"
		cp "$base" "$f"
		byte=$(od -An -tu1 -j "$off" -N1 "$f" | tr -d ' ')
		printf "$(printf '\\%03o' $((byte ^ (1 << bit))))" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
		check "$f" "refused|refused-loading|served" "ok|refused" "$name bit $bit of byte $off flipped"
		rm -f "$f"
	done
done

# Not trace files at all.
base=$TMP/synth.parquet
: >"$TMP/empty.parquet";                    check "$TMP/empty.parquet" refused refused "empty file"
mkdir "$TMP/dir.parquet";                    check "$TMP/dir.parquet" refused refused "a directory"
mkfifo "$TMP/fifo.parquet";                  check "$TMP/fifo.parquet" refused refused "a FIFO"
check /dev/null refused refused "a character device"
check "$TMP/missing.parquet" refused refused "a missing file"
ln -s "$TMP/loop.parquet" "$TMP/loop.parquet"; check "$TMP/loop.parquet" refused refused "a symlink loop"
printf 'event_type,ts_ns\ncpu_sample,1\n' >"$TMP/text.parquet"; check "$TMP/text.parquet" refused refused "a CSV file"
printf 'PAR1PAR1' >"$TMP/magic.parquet";     check "$TMP/magic.parquet" refused refused "bare magic"
{ printf 'PAR1'; head -c 300 /dev/urandom; printf '\x20\x00\x00\x00PAR1'; } >"$TMP/junk.parquet"
check "$TMP/junk.parquet" refused refused "magic around random bytes"
{ head -c $(($(stat -c %s "$base") - 8)) "$base"; printf '\xff\xff\xff\x7fPAR1'; } >"$TMP/flen.parquet"
check "$TMP/flen.parquet" refused refused "footer length past the start of the file"
chmod 000 "$TMP/synth.parquet" 2>/dev/null
if [ "$(id -u)" -ne 0 ]; then check "$base" refused refused "an unreadable file"; fi
chmod 644 "$base"

# Valid Parquet, wrong metadata or schema: --view refuses before binding; query answers.
copy() { # NAME SELECT [KV]: a Parquet file from the base trace
	local kv=${3-"{'probex.sample_freq_hz': '99', 'probex.stack_trace_format': 'symbolized_v1'}"}
	"$PROBEX" query "$base" "COPY ($2) TO '$TMP/$1.parquet' (FORMAT parquet${kv:+, KV_METADATA $kv})" >/dev/null ||
		bad "cannot write $1"
	echo "$TMP/$1.parquet"
}
all="SELECT * FROM events"
check "$(copy nometa "$all" "")" refused ok "no metadata"
check "$(copy freq0 "$all" "{'probex.sample_freq_hz': '0', 'probex.stack_trace_format': 'symbolized_v1'}")" refused ok "frequency 0"
check "$(copy freqx "$all" "{'probex.sample_freq_hz': '1e3', 'probex.stack_trace_format': 'symbolized_v1'}")" refused ok "frequency not a number"
check "$(copy freqbig "$all" "{'probex.sample_freq_hz': '99999999999999999999', 'probex.stack_trace_format': 'symbolized_v1'}")" refused ok "frequency past 64 bits"
check "$(copy nofmt "$all" "{'probex.sample_freq_hz': '99'}")" refused ok "no stack format"
check "$(copy rawfmt "$all" "{'probex.sample_freq_hz': '99', 'probex.stack_trace_format': 'raw'}")" refused ok "another stack format"
check "$(copy nostack "SELECT * EXCLUDE (stack_trace) FROM events")" refused ok "no stack_trace column"
check "$(copy strstack "SELECT * REPLACE (array_to_string(stack_trace, ';') AS stack_trace) FROM events")" refused ok "stack_trace as a string"
check "$(copy legacy "SELECT *, 'x' AS stack_frames FROM events")" refused ok "a legacy stack column"
check "$(copy nots "SELECT * EXCLUDE (ts_ns) FROM events")" refused ok "no ts_ns column"
check "$(copy strts "SELECT * REPLACE (ts_ns::VARCHAR AS ts_ns) FROM events")" refused ok "ts_ns as a string"
check "$(copy intet "SELECT * REPLACE (length(event_type) AS event_type) FROM events")" refused ok "event_type as an integer"
check "$(copy nullet "SELECT * REPLACE (NULL::VARCHAR AS event_type) FROM events")" refused-loading ok "NULL event types"
check "$(copy types300 "SELECT * REPLACE ('t' || (row_number() OVER ()) % 300 AS event_type) FROM events")" served ok "300 event types (every syscall recorded gives this many)"
# Past the viewer's 2048 type codes: each of the 400 rows repeated 6 times, 2400 types.
check "$(copy types2400 "SELECT * REPLACE ('t' || (row_number() OVER ()) AS event_type) FROM events, range(6)")" refused-loading ok "2400 event types"
check "$(copy empty0 "SELECT * FROM events WHERE false")" served ok "no rows"

ledger input "corrupt files" "$tried" "$okn"
summary=""
for k in "${!seen[@]}"; do summary+="${summary:+, }$k ${seen[$k]}"; done
echo "corrupt: $tried checks ($okn as expected): $summary"
[ "$FAILS" -eq 0 ]
