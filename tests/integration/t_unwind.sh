#!/usr/bin/env bash
# User stacks through code built without frame pointers: no data read as return
# addresses ever shows as a frame.
source "$(dirname "$0")/lib.sh"
user_frames() { # SQL: one row per user frame label (l) of cpu samples
	echo "SELECT unnest(stack_trace[2:coalesce(nullif(list_position(stack_trace, '[kernel]'), 0), len(stack_trace) + 1) - 1]) AS l FROM events WHERE event_type = 'cpu_sample' AND stack_trace[1] = '[user]'"
}
drop() { # FILE COUNTER
	q "$1" "SELECT json_extract(decode(value)::VARCHAR, '\$.$2') FROM parquet_kv_metadata('$1') WHERE decode(key) = 'probex.drops'"
}

# A frame-pointer walk of nofp_c reads the spaces rbp points at: 0x2020202020202020.  The
# fixture maps no anonymous code, so every frame must be named by a file (a hex label is
# an address outside every executable mapping the kernel reported).
out="$TMP/fp.parquet"
"$PROBEX" -q -o "$out" --no-viewer -- "$FIXTURES/nofp" chain 0.5 || fail "probex exited $?"
total=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample'")
assert_ge "cpu samples" 200 "$total"
assert_eq "user frames outside executable code (fp)" 0 \
	"$(q "$out" "SELECT count(*) FROM ($(user_frames)) WHERE l LIKE '0x%'")"
assert_ge "walks cut at a non-code address, counted in probex.drops (of $total)" \
	"$((total / 2))" "$(drop "$out" ustack_cut_outside_code)"
