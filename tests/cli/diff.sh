# probex diff on a synthetic pair with known differences: NEW is BASE (the synthetic
# trace) with every read exit twice, every CPU sample whose leaf is memcpy twice, and ten
# 1 ms off_cpu rows blocked in wait_here (a list number of their own).  Every figure is checked against the rows
# themselves, read with SQL and summed in Python.  Sourced by run.sh.
B=${traces[0]} N="$TMP/diff_new.parquet"
# kv_metadata FILE [SED]: FILE's probex.* metadata as a DuckDB KV_METADATA struct.
kv_metadata() {
	"$PROBEX" sql --tsv --no-header "$1" "SELECT string_agg('''' || replace(key, '''', '''''') || ''': ''' ||
		replace(value, '''', '''''') || '''', ', ') FROM metadata WHERE key LIKE 'probex.%'" | sed "${2:-}"
}
"$PROBEX" sql "$B" "COPY (SELECT * FROM (SELECT * FROM read_parquet('$B') UNION ALL
	SELECT * FROM read_parquet('$B') WHERE event_type = 'syscall_read_exit' UNION ALL
	SELECT * FROM read_parquet('$B') WHERE event_type = 'cpu_sample' AND stack_trace[-1] = 'memcpy' UNION ALL
	SELECT * REPLACE ('off_cpu' AS event_type, 1000000::UBIGINT AS latency_ns, ['[user]', 'main', 'wait_here'] AS stack_trace,
		(SELECT max(stack_trace_id) + 1 FROM read_parquet('$B'))::UINTEGER AS stack_trace_id, true AS stack_trace_first)
	FROM (SELECT * FROM read_parquet('$B') WHERE event_type = 'cpu_sample' ORDER BY ts_ns LIMIT 10)) ORDER BY ts_ns)
	TO '$N' (FORMAT parquet, KV_METADATA {$(kv_metadata "$B")})" >/dev/null || bad "diff: making NEW"

"$PROBEX" diff "$B" "$N" >"$TMP/d.txt" 2>"$TMP/d.err" || bad "diff: exit $?"
check "diff: text fits 100 columns" 1 "$(awk '{ if (length($0) > m) m = length($0) } END { print (m <= 100) }' "$TMP/d.txt")"
for s in Compared Functions Syscalls Off-CPU Processes; do
	grep -q "^$s" "$TMP/d.txt" || bad "diff: no '$s' section"
done
check "diff: no warning for two runs of one program" "" "$(cat "$TMP/d.err")"
"$PROBEX" diff --json --top 1000000 "$B" "$N" >"$TMP/d.json" || bad "diff --json: exit $?"
for f in "$B" "$N"; do
	"$PROBEX" sql --json "$f" "SELECT stack_trace AS s, coalesce(stack_weight, 1) AS w FROM events
		WHERE event_type = 'cpu_sample' AND stack_trace IS NOT NULL" >"$TMP/st_$(basename "$f").json"
	"$PROBEX" sql --json "$f" "SELECT regexp_extract(event_type, '^syscall_(.*)_exit\$', 1) AS name,
		count(*) AS n, count_if(ret < 0) AS errors, sum(latency_ns)::UBIGINT AS total,
		list_sort(list(latency_ns)) AS l FROM events WHERE event_type LIKE 'syscall\\_%\\_exit' ESCAPE '\\'
		AND latency_ns IS NOT NULL GROUP BY 1" >"$TMP/sys_$(basename "$f").json"
	"$PROBEX" sql --json "$f" "SELECT (SELECT value FROM metadata WHERE key = 'probex.sample_freq_hz') AS hz,
		(SELECT count(DISTINCT tgid) FROM events) AS procs" >"$TMP/m_$(basename "$f").json"
done
check "diff --json: figures equal the rows' own" "ok" "$($PY - "$TMP" "$(basename "$B")" "$(basename "$N")" <<'PYEOF'
import json, sys
d, names = sys.argv[1], sys.argv[2:]
r = json.load(open(d + '/d.json'))
bad = []
def funcs(side):
    hz = int(json.load(open(f'{d}/m_{side}.json'))[0]['hz'])
    self, total = {}, {}
    for row in json.load(open(f'{d}/st_{side}.json')):
        frames, kernel = [], False
        for f in row['s']:
            if f in ('[user]', '[kernel]'):
                kernel = f == '[kernel]'
                continue
            frames.append(f + (' [k]' if kernel else ''))
        if frames:
            self[frames[-1]] = self.get(frames[-1], 0) + row['w']
        for f in set(frames):
            total[f] = total.get(f, 0) + row['w']
    ns = lambda w: int(w * 1e9 / hz + 0.5)
    return {k: ns(v) for k, v in self.items()}, {k: ns(v) for k, v in total.items()}
(bs, bt), (ns_, nt) = funcs(names[0]), funcs(names[1])
got = {f['name']: f for f in r['functions']}
if set(got) != set(bt) | set(nt):
    bad.append(f'function names: {len(got)} vs {len(set(bt) | set(nt))}')
for k, f in got.items():
    want = (bs.get(k, 0), ns_.get(k, 0), bt.get(k, 0), nt.get(k, 0))
    have = (f['base_self_ns'], f['new_self_ns'], f['base_total_ns'], f['new_total_ns'])
    if any(abs(a - b) > 1 for a, b in zip(want, have)):
        bad.append(f'function {k}: {have} != {want}')
# Sorted by the absolute change of total; the largest change is memcpy's, self x2.
ch = [abs(f['new_total_ns'] - f['base_total_ns']) for f in r['functions']]
if ch != sorted(ch, reverse=True):
    bad.append('functions not sorted by change')
m = got['memcpy']
if m['new_self_ns'] != 2 * m['base_self_ns'] and abs(m['new_self_ns'] - 2 * m['base_self_ns']) > 2:
    bad.append(f'memcpy self not doubled: {m}')
for k, f in got.items():
    if k != 'memcpy' and f['new_self_ns'] != f['base_self_ns'] and not k.startswith('memcpy'):
        bad.append(f'{k}: self changed')
def pct(l, p):
    return l[min(len(l) * p // 100, len(l) - 1)]
sys_ = [{x['name']: x for x in json.load(open(f'{d}/sys_{s}.json'))} for s in names]
got = {x['name']: x for x in r['syscalls']}
if set(got) != set(sys_[0]) | set(sys_[1]):
    bad.append('syscall names')
for k, g in got.items():
    for i, side in enumerate(('base', 'new')):
        w = sys_[i].get(k)
        exp = {'count': w['n'], 'errors': w['errors'], 'total_ns': w['total'], 'p50_ns': pct(w['l'], 50),
               'p99_ns': pct(w['l'], 99), 'max_ns': w['l'][-1]} if w else {'count': 0}
        for key, v in exp.items():
            if g[f'{side}_{key}'] != v:
                bad.append(f'syscall {k} {side}_{key}: {g[side + "_" + key]} != {v}')
    if k == 'read':
        if g['new_count'] != 2 * g['base_count'] or g['new_p99_ns'] != g['base_p99_ns']:
            bad.append('read: not twice the calls with the same p99')
    elif g['new_count'] != g['base_count'] or g['new_total_ns'] != g['base_total_ns']:
        bad.append(f'{k} changed')
# synth's own off_cpu rows are the same in both: only the added wait changes.
if [o for o in r['off_cpu'] if o['base_ns'] != o['new_ns']] != [{'stack': ['main', 'wait_here'], 'base_ns': 0, 'new_ns': 10000000, 'base_count': 0, 'new_count': 10}]:
    bad.append(f'off_cpu: {r["off_cpu"]}')
procs = json.load(open(f'{d}/m_{names[0]}.json'))[0]['procs']
if len(r['processes']) != procs or any(p['base_pid'] != p['new_pid'] or p['base_wall_ns'] != p['new_wall_ns']
                                      for p in r['processes']):
    bad.append('processes not matched one to one')
for side in ('base', 'new'):
    for key in ('file', 'command', 'version', 'duration_ns', 'events', 'sample_freq_hz', 'stack_mode'):
        if key not in r[side]:
            bad.append(f'{side}.{key} missing')
    if (r[side]['syscalls'], r[side]['syscall_ns']) != (sum(s[side + '_count'] for s in r['syscalls']),
                                                        sum(s[side + '_total_ns'] or 0 for s in r['syscalls'])):
        bad.append(f'{side}: syscall totals')
    if r[side]['off_cpu_ns'] != sum(o[side + '_ns'] for o in r['off_cpu']) or r[side]['processes'] != procs:
        bad.append(f'{side}: off-CPU or process totals')
print('; '.join(bad[:8]) or 'ok')
PYEOF
)"

# A file without list numbers (stack_trace_id) gives the same figures, read list by list.
"$PROBEX" sql "$N" "COPY (SELECT * EXCLUDE (stack_trace_id, stack_trace_first) FROM read_parquet('$N'))
	TO '$TMP/unnumbered.parquet' (FORMAT parquet, KV_METADATA {$(kv_metadata "$N")})" >/dev/null
"$PROBEX" diff --json --top 1000000 "$B" "$TMP/unnumbered.parquet" >"$TMP/u.json" || bad "diff unnumbered: exit $?"
check "diff: numbered and unnumbered lists agree" "ok" "$($PY -c "
import json; a, b = json.load(open('$TMP/d.json')), json.load(open('$TMP/u.json'))
# Entries of equal change may come in another order: compare them as sets.
same = lambda k: sorted(map(json.dumps, a[k])) == sorted(map(json.dumps, b[k]))
print(next(('differ: %s %s' % (k, [x for x in a[k] if x not in b[k]][:1]) for k in ('functions', 'syscalls', 'off_cpu', 'processes') if not same(k)), 'ok'))")"

# Folded: each line's weights are the two exports' weights of that stack.
"$PROBEX" diff --format folded -o "$TMP/d.folded" "$B" "$N" || bad "diff --format folded: exit $?"
for f in "$B" "$N"; do "$PROBEX" export "$f" --format folded >"$TMP/x_$(basename "$f").folded"; done
check "diff folded = the two folded exports joined" "ok" "$($PY - "$TMP/d.folded" "$TMP/x_$(basename "$B").folded" "$TMP/x_$(basename "$N").folded" <<'PYEOF'
import sys
def load(p):
    out = {}
    for l in open(p):
        s, w = l.rstrip('\n').rsplit(' ', 1)
        out[s] = out.get(s, 0) + int(w)
    return out
got, b, n = {}, load(sys.argv[2]), load(sys.argv[3])
for l in open(sys.argv[1]):
    s, wb, wn = l.rstrip('\n').rsplit(' ', 2)
    got[s] = (int(wb), int(wn))
want = {s: (b.get(s, 0), n.get(s, 0)) for s in set(b) | set(n)}
doubled = all(v[1] == (2 * v[0] if s.endswith(';memcpy') else v[0]) for s, v in got.items())
print('ok' if got == want and doubled else f'{len(got)} lines vs {len(want)}; doubled={doubled}')
PYEOF
)"
exit_is "diff -o an existing file keeps it as .old" 0 any "$PROBEX" diff --format folded -o "$TMP/d.folded" "$B" "$N"
[ -f "$TMP/d.folded.old" ] || bad "diff -o: no .old"

# diff A A: no change anywhere.
"$PROBEX" diff --json --top 1000000 "$B" "$B" >"$TMP/aa.json" || bad "diff A A: exit $?"
check "diff A A shows no change" "ok" "$($PY - "$TMP/aa.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
bad = [f['name'] for f in r['functions'] if f['base_total_ns'] != f['new_total_ns'] or f['base_self_ns'] != f['new_self_ns']]
bad += [s['name'] for s in r['syscalls'] if any(s['base_' + k] != s['new_' + k] for k in ('count', 'errors', 'total_ns', 'p50_ns', 'p99_ns'))]
bad += [str(o['stack']) for o in r['off_cpu'] if o['base_ns'] != o['new_ns']]
bad += [p['name'] for p in r['processes'] if p['base_wall_ns'] != p['new_wall_ns'] or p['base_cpu_ns'] != p['new_cpu_ns']]
print('ok' if not bad and not r['warnings'] and r['functions'] else f'changed: {bad[:5]}')
PYEOF
)"
check "diff A A text: every change column 0 or -" "" \
	"$("$PROBEX" diff "$B" "$B" | awk '/^Functions/ { f = 1 } /^Syscalls/ { f = 0 } f && $5 ~ /^[+-][0-9]/ { print }')"

# Filters apply to both: --pid keeps one process, --start/--end a window, -e another type.
pid=$(q "$B" "SELECT tgid FROM events WHERE event_type = 'cpu_sample' GROUP BY 1 ORDER BY count(*) DESC LIMIT 1")
"$PROBEX" diff --json --pid "$pid" "$B" "$N" >"$TMP/p.json" || bad "diff --pid: exit $?"
check "diff --pid: only that process" "$pid $pid" \
	"$($PY -c "import json; print(*[(p['base_pid'], p['new_pid']) for p in json.load(open('$TMP/p.json'))['processes']][0])")"
check "diff --start/--end: the window's events" "$(q "$B" "SELECT count(*) FROM events WHERE ts_ns BETWEEN (SELECT min(ts_ns) FROM events) + 10000000 AND (SELECT min(ts_ns) FROM events) + 20000000")" \
	"$("$PROBEX" diff --json --start 10ms --end 20ms "$B" "$N" | $PY -c "import json, sys; print(json.load(sys.stdin)['base']['events'])")"
check "diff -e page_fault: weights in events" "$(q "$B" "SELECT count(*) FROM events WHERE event_type = 'page_fault' AND stack_trace IS NOT NULL")" \
	"$("$PROBEX" diff --json -e page_fault --top 1000000 "$B" "$N" | $PY -c "import json, sys; print(max([f['base_total'] for f in json.load(sys.stdin)['functions']] or [0]))")"
comm=$(q "$B" "SELECT process_name FROM events WHERE event_type = 'cpu_sample' GROUP BY 1 ORDER BY count(*) DESC LIMIT 1")
check "diff --comm: only that name's threads" "1" \
	"$("$PROBEX" diff --json --comm "$comm" "$B" "$N" | $PY -c "import json, sys; print(int(all(p['name'] == '$comm' for p in json.load(sys.stdin)['processes'])))")"

# Different programs (another probex.command) compare, with a warning.
"$PROBEX" sql "$B" "COPY (SELECT * FROM read_parquet('$B')) TO '$TMP/other_prog.parquet' (FORMAT parquet,
	KV_METADATA {$(kv_metadata "$B" 's|\["probex","synth"|["/usr/bin/gzip","-9"|')})" >/dev/null
exit_is "diff of two programs" 0 1 "$PROBEX" diff "$B" "$TMP/other_prog.parquet"
grep -q "different programs" "$TMP/err" || bad "diff of two programs: no warning on stderr"
grep -q "warning: different programs" "$TMP/out" || bad "diff of two programs: no warning in the output"

# An older format (the reference's 24 columns): compared on what both have, saying what
# was left out.
cols=$(q "$N" "SELECT string_agg(column_name, ', ') FROM (SELECT column_name FROM (DESCRIBE SELECT * FROM read_parquet('$N')) LIMIT 24)")
"$PROBEX" sql "$N" "COPY (SELECT $cols FROM read_parquet('$N')) TO '$TMP/ref.parquet' (FORMAT parquet,
	KV_METADATA {$(kv_metadata "$N")})" >/dev/null
"$PROBEX" diff --json "$TMP/ref.parquet" "$N" >"$TMP/ref.json" 2>"$TMP/ref.err" || bad "diff of an older format: exit $?"
check "diff of an older format: off-CPU left out, syscalls compared, said so" "[] True 2" "$($PY -c "
import json; r = json.load(open('$TMP/ref.json'))
print(r['off_cpu'], any(s['name'] == 'write' and s['base_count'] == s['new_count'] for s in r['syscalls']),
      sum('latency_ns' in w or 'stack_weight' in w for w in r['warnings']))")"
check "diff of an older format: the text fits 100 columns" 0 "$("$PROBEX" diff "$TMP/ref.parquet" "$N" 2>/dev/null | awk 'length > 100' | wc -l)"

# Bad input: exit 1, one line naming the file, nothing on stdout, no -o file.
for f in "$TMP/missing.parquet" "$TMP/trunc.parquet" "$TMP/text.parquet" "$TMP/other.parquet"; do
	for order in "$f $B" "$B $f"; do
		exit_is "diff $(basename "$f") ($( [ "${order%% *}" = "$f" ] && echo base || echo new))" 1 1 \
			"$PROBEX" diff --format folded -o "$TMP/bad.folded" $order
		grep -qF -- "$f" "$TMP/err" || bad "diff $(basename "$f"): the message does not name the file"
		[ ! -e "$TMP/bad.folded" ] && [ ! -s "$TMP/out" ] || bad "diff $(basename "$f"): wrote output"
	done
done
exit_is "diff with one FILE" 2 any "$PROBEX" diff "$B"
exit_is "diff -o without --format folded" 2 any "$PROBEX" diff -o "$TMP/x" "$B" "$B"
