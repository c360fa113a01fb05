# probex export: each format parsed, totals equal SQL over the same file.  Sourced by run.sh.
for t in "${traces[@]}"; do
	name=$(basename "$t" .parquet)
	for et in cpu_sample page_fault syscall_read_exit; do
		want=$(q "$t" "SELECT coalesce(sum(coalesce(stack_weight, 1)), 0) FROM events WHERE event_type = '$et' AND stack_trace IS NOT NULL")
		lines=$(q "$t" "SELECT count(*) FROM (SELECT DISTINCT process_name, stack_trace FROM events WHERE event_type = '$et' AND stack_trace IS NOT NULL)")
		"$PROBEX" export "$t" --format folded --event-type "$et" >"$TMP/f.folded" 2>/dev/null
		check "$name: folded $et weights sum to the events" "$want" "$(awk '{ s += $NF } END { print s + 0 }' "$TMP/f.folded")"
		check "$name: folded $et one line per stack" "$lines" "$(wc -l <"$TMP/f.folded")"
	done
	[ "$want" -gt 0 ] || bad "$name: no syscall_read_exit stacks to test with"
	# Any syscall a trace can hold is an event type, not only the reference's ten.
	et=$(q "$t" "SELECT coalesce(max(event_type), 'syscall_futex_exit') FROM (SELECT event_type FROM events WHERE event_type LIKE 'syscall\\_%\\_exit' ESCAPE '\\' AND syscall_nr IS NOT NULL AND stack_trace IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1)")
	want=$(q "$t" "SELECT coalesce(sum(coalesce(stack_weight, 1)), 0) FROM events WHERE event_type = '$et' AND stack_trace IS NOT NULL")
	"$PROBEX" export "$t" --format folded --event-type "$et" >"$TMP/f.folded" 2>"$TMP/f.err" || bad "$name: export --event-type $et: $(head -c 200 "$TMP/f.err")"
	check "$name: folded $et weights sum to the events" "$want" "$(awk '{ s += $NF } END { print s + 0 }' "$TMP/f.folded")"

	# speedscope: CPU samples in their real unit, ns (samples x the sampling period).
	samples=$(q "$t" "SELECT sum(coalesce(stack_weight, 1)) FROM events WHERE event_type = 'cpu_sample' AND stack_trace IS NOT NULL")
	hz=$(q "$t" "SELECT value FROM metadata WHERE key = 'probex.sample_freq_hz'")
	rm -f "$TMP/s.json"
	"$PROBEX" export "$t" --format speedscope -o "$TMP/s.json"
	check "$name: speedscope parses, weights sum to the samples' ns" "$((samples * (1000000000 / hz))) ok nanoseconds" "$($PY -c "
import json
d = json.load(open('$TMP/s.json'))
p = d['profiles'][0]
nf = len(d['shared']['frames'])
okf = all(0 <= i < nf for s in p['samples'] for i in s) and len(p['samples']) == len(p['weights'])
print(sum(p['weights']), 'ok' if okf and p['type'] == 'sampled' else 'bad', p['unit'])")"

	# Chrome: tracks named by thread and process, a slice per completed syscall.
	slices=$(q "$t" "SELECT count(*) FROM events WHERE event_type LIKE 'syscall\\_%\\_exit' ESCAPE '\\' AND latency_ns IS NOT NULL")
	threads=$(q "$t" "SELECT count(*) FROM (SELECT DISTINCT tgid, pid FROM events)")
	procs=$(q "$t" "SELECT count(*) FROM (SELECT DISTINCT tgid, pid FROM events WHERE pid = tgid)")
	nsamp=$(q "$t" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample'")
	uring=$(q "$t" "SELECT count(*) FROM events WHERE event_type = 'io_uring_complete' AND submit_ts_ns > 0")
	reads=$(q "$t" "SELECT count(*) FROM events WHERE event_type = 'syscall_read_exit' AND latency_ns IS NOT NULL")
	rm -f "$TMP/c.json"
	"$PROBEX" export "$t" --format chrome -o "$TMP/c.json"
	check "$name: chrome slices, tracks, samples, io_uring" \
		"$slices $reads $threads $procs $nsamp $uring $uring ok" "$($PY -c "
import json, collections
d = json.load(open('$TMP/c.json'))
ev = d['traceEvents']
c = collections.Counter((e['ph'], e.get('cat') or e.get('name')) for e in ev)
reads = sum(1 for e in ev if e['ph'] == 'X' and e.get('cat') == 'syscall' and e['name'] == 'read')
ok = all(e['dur'] >= 0 for e in ev if e['ph'] == 'X') and all(e['args']['name'] for e in ev if e['ph'] == 'M')
print(c[('X', 'syscall')], reads, c[('M', 'thread_name')], c[('M', 'process_name')], c[('i', 'cpu_sample')],
      c[('b', 'io_uring')], c[('e', 'io_uring')], 'ok' if ok else 'bad')")"

	# pprof: protoc decodes it with the vendored profile.proto; values sum to the samples.
	rm -f "$TMP/p.pb.gz"
	"$PROBEX" export "$t" --format pprof -o "$TMP/p.pb.gz"
	if gzip -dc "$TMP/p.pb.gz" | protoc --proto_path="$ROOT/src/export" \
		--decode=perftools.profiles.Profile profile.proto >"$TMP/p.txt" 2>"$TMP/p.err"; then
		check "$name: pprof decodes; first values sum to the samples" "$samples" "$($PY -c "
import re
total, depth, first = 0, 0, False
for line in open('$TMP/p.txt'):
    s = line.strip()
    if s == 'sample {':
        first = True
    elif first and s.startswith('value:'):
        total += int(s.split(':')[1]); first = False
print(total)")"
		check "$name: pprof one sample per stack" "$(q "$t" "SELECT count(*) FROM (SELECT DISTINCT process_name, stack_trace FROM events WHERE event_type = 'cpu_sample' AND stack_trace IS NOT NULL)")" \
			"$(grep -c '^sample {' "$TMP/p.txt")"
	else
		bad "$name: protoc cannot decode the pprof export: $(head -c 200 "$TMP/p.err")"
	fi
done

# --pid keeps one process's stacks.
t=${traces[-1]}
pid=$(q "$t" "SELECT tgid FROM events WHERE event_type = 'cpu_sample' GROUP BY tgid ORDER BY count(*) DESC, tgid LIMIT 1")
check "export --pid $pid" "$(q "$t" "SELECT sum(coalesce(stack_weight, 1)) FROM events WHERE event_type = 'cpu_sample' AND stack_trace IS NOT NULL AND (pid = $pid OR tgid = $pid)")" \
	"$("$PROBEX" export "$t" --format folded --pid "$pid" | awk '{ s += $NF } END { print s + 0 }')"

# -o never replaces a file.
echo keep >"$TMP/exists"
exit_is "export -o onto an existing file" 1 1 "$PROBEX" export "$t" --format folded -o "$TMP/exists"
check "export -o left the file alone" keep "$(cat "$TMP/exists")"
exit_is "export: unknown format" 2 any "$PROBEX" export "$t" --format svg
exit_is "export: unknown event type" 2 any "$PROBEX" export "$t" --format folded --event-type nope
exit_is "export: no format" 2 any "$PROBEX" export "$t"

# Progress: quiet unless stderr is a terminal; on one (script(1)), phases with their step.
exit_is "export is quiet when stderr is not a terminal" 0 0 "$PROBEX" export "$t" --format folded
if command -v script >/dev/null; then
	script -qec "'$PROBEX' export '$t' --format chrome -o '$TMP/tty.json'" /dev/null >"$TMP/tty.out" 2>&1
	check "export shows its phases on a terminal" 1 "$(grep -c 'export: \[5/5\] instants' "$TMP/tty.out")"
	script -qec "'$PROBEX' report '$t'" /dev/null >"$TMP/tty.out" 2>&1
	check "report shows its phases on a terminal" 1 "$(grep -c 'report: \[9/9\] stacks' "$TMP/tty.out")"
fi
