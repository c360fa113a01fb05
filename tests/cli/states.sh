# Off-CPU by time, thread states and the critical path, against SQL over the same file.
# Sourced by run.sh.
for t in "${traces[@]}"; do
	name=$(basename "$t" .parquet)
	ns=$(q "$t" "SELECT coalesce(sum(latency_ns), 0) FROM events WHERE event_type = 'off_cpu' AND stack_trace IS NOT NULL")
	[ "$ns" -gt 0 ] || bad "$name: no off_cpu stacks to test with"
	stacks=$(q "$t" "SELECT count(*) FROM (SELECT DISTINCT process_name, stack_trace FROM events WHERE event_type = 'off_cpu' AND stack_trace IS NOT NULL)")
	"$PROBEX" export "$t" --format folded --event-type off_cpu >"$TMP/o.folded"
	check "$name: folded off_cpu in microseconds (offcputime -f)" 1 "$(awk -v ns="$ns" -v n="$stacks" '{ s += $NF } END { d = s - ns / 1000; print (d <= n && d >= -n) }' "$TMP/o.folded")"
	rm -f "$TMP/o.json"
	"$PROBEX" export "$t" --format speedscope --event-type off_cpu -o "$TMP/o.json"
	check "$name: speedscope off_cpu in nanoseconds" "nanoseconds $ns" "$($PY -c "
import json; p = json.load(open('$TMP/o.json'))['profiles'][0]; print(p['unit'], sum(p['weights']))")"
	rm -f "$TMP"/o*.json "$TMP/o.pb.gz"
	"$PROBEX" export "$t" --format pprof --event-type off_cpu -o "$TMP/o.pb.gz"
	check "$name: pprof off_cpu/nanoseconds sums the blocked time" "off_cpu nanoseconds $ns" "$(gzip -dc "$TMP/o.pb.gz" |
		protoc --proto_path="$ROOT/src/export" --decode=perftools.profiles.Profile profile.proto | $PY -c "
import sys, re
txt = sys.stdin.read()
strs = re.findall(r'^string_table: \"(.*)\"$', txt, re.M)
st = re.search(r'sample_type \{\s*type: (\d+)\s*unit: (\d+)\s*\}\s*sample_type \{\s*type: (\d+)\s*unit: (\d+)', txt)
vals = re.findall(r'sample \{[^}]*?value: \d+\s*value: (\d+)', txt)
print(strs[int(st.group(3))], strs[int(st.group(4))], sum(map(int, vals)))")"

	"$PROBEX" report --json "$t" >"$TMP/r.json" || bad "$name: report --json failed"
	check "$name: report --json thread_states, one per thread with rows" \
		"$(q "$t" "SELECT count(DISTINCT pid) FROM events") ok" "$($PY -c "
import json; d = json.load(open('$TMP/r.json')); ts = d['thread_states']
keys = {'tid', 'pid', 'name', 'running_ns', 'runnable_ns', 'sleeping_ns', 'disk_ns', 'unknown_ns'}
print(len(ts), 'ok' if all(set(x) == keys and all(x[k] >= 0 for k in keys - {'name'}) for x in ts) else 'bad')")"
	check "$name: report --event-type off_cpu weighs ns" "ns $ns" "$("$PROBEX" report --json --top 100000 --event-type off_cpu "$t" | $PY -c "
import json, sys; d = json.load(sys.stdin); print(d['weight_unit'], sum(s['weight'] for s in d['stacks']))")"

	"$PROBEX" report --critical-path --json "$t" >"$TMP/cp.json" || bad "$name: report --critical-path failed"
	check "$name: critical path segments tile its window" ok "$($PY -c "
import json; d = json.load(open('$TMP/cp.json')); s = d['segments']
ok = not s or (s[0]['start_ns'] == d['start_ns'] and s[-1]['end_ns'] == d['end_ns'] and all(a['end_ns'] == b['start_ns'] for a, b in zip(s, s[1:])))
print('ok' if ok and all(x['state'] in ('running', 'runnable', 'sleeping', 'disk', 'unknown') for x in s) else 'bad')")"
	"$PROBEX" report --critical-path "$t" >"$TMP/cp.txt" || bad "$name: report --critical-path (text) failed"
	check "$name: critical path text fits 100 columns" 1 "$(awk '{ if (length($0) > m) m = length($0) } END { print (m <= 100) }' "$TMP/cp.txt")"
done
exit_is "report --critical-path --tid not in the trace" 1 1 "$PROBEX" report --critical-path --tid 4000000000 "${traces[0]}"
exit_is "report --tid without --critical-path" 2 any "$PROBEX" report --tid 1 "${traces[0]}"
