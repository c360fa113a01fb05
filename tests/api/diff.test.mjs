// The compare view's API (`probex --view NEW --base BASE`): diff_flamegraph's numbers
// against the same folding done by DuckDB SQL on the two files, trace=base on the other
// endpoints, and the errors.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { get, getJson, qs, runSql, sqlString, startViewer, stopViewer, tmpdir, writeTrace } from './lib.mjs';

const STACKS = [
  ['[user]', 'main', 'work_a', 'spin'],
  ['[user]', 'main', 'work_b', 'spin'],
  ['[user]', 'main', 'nap', '[kernel]', 'do_nanosleep', 'schedule'],
  ['[user]', 'main', 'only_base'],
  ['[user]', 'main', 'only_new'],
  [],
  null,
];
const TYPES = ['cpu_sample', 'off_cpu', 'syscall_read_enter', 'page_fault'];
const EXTRA = { columns: { latency_ns: 'UBIGINT' } };
const ALL = { start_ns: 0, end_ns: '18446744073709551615' };

// Deterministic rows: `weights[i]` scales how often stack i appears; new has no only_base
// rows and base no only_new ones.
function rows(seed, weights) {
  let x = seed;
  const rnd = (n) => ((x = (x * 1103515245 + 12345) % 2147483648), x % n);
  const out = [];
  for (let i = 0; i < 3000; i++) {
    let s = rnd(STACKS.length);
    if (rnd(4) >= weights[s]) continue;
    const type = TYPES[rnd(TYPES.length)];
    const pid = 100 + rnd(3);
    out.push({
      event_type: type, ts_ns: 1000 + i * 10, pid, tgid: 100, process_name: `p${pid}`,
      stack_trace: STACKS[s], latency_ns: type === 'off_cpu' && rnd(5) ? 1000 + rnd(100000) : null,
    });
  }
  return out;
}

// The expected answer, folded by DuckDB: stacks joined with ';' (no label has one here).
function sqlDiff(dir, base, neu, type, w, bw) {
  const side = (file, win) => `SELECT array_to_string(stack_trace, ';') AS k,
      sum(CASE WHEN event_type = 'off_cpu' THEN coalesce(latency_ns, 0) ELSE 1 END) AS w
    FROM read_parquet(${sqlString(file)})
    WHERE event_type = ${sqlString(type)} AND len(stack_trace) > 0
      AND ts_ns BETWEEN ${win.start} AND ${win.end} ${win.pid ? `AND pid = ${win.pid}` : ''}
    GROUP BY 1`;
  const out = path.join(dir, `expect-${type}-${w.start}-${bw.start}-${w.pid ?? 0}.json`);
  runSql(`COPY (SELECT coalesce(b.k, n.k) AS k, coalesce(b.w, 0)::UBIGINT AS base_weight,
      coalesce(n.w, 0)::UBIGINT AS weight
    FROM (${side(base, bw)}) b FULL JOIN (${side(neu, w)}) n ON b.k = n.k ORDER BY 1)
    TO ${sqlString(out)} (FORMAT json, ARRAY true);`);
  return JSON.parse(fs.readFileSync(out, 'utf8')).map((r) => ({ ...r, base_weight: Number(r.base_weight), weight: Number(r.weight) }));
}

const got = (r) => r.stacks.map((s) => ({ k: s.frames.join(';'), base_weight: s.base_weight, weight: s.weight }))
  .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k));

let dir, files, v, single;

before(async () => {
  dir = tmpdir();
  files = {
    base: writeTrace(path.join(dir, 'base.parquet'), rows(7, [4, 2, 1, 4, 0, 4, 4]), EXTRA),
    new: writeTrace(path.join(dir, 'new.parquet'), rows(9, [4, 4, 3, 0, 4, 4, 4]), EXTRA),
  };
  v = await startViewer(files.new, ['--base', files.base]);
  single = await startViewer(files.new);
});
after(async () => {
  await stopViewer(v);
  await stopViewer(single);
});

test('diff_flamegraph: every event type, all of both traces, matches SQL', async () => {
  for (const type of TYPES) {
    const r = await getJson(v, `/api/diff_flamegraph?${qs({ ...ALL, event_type: type, max_stacks: 1000000 })}`);
    const want = sqlDiff(dir, files.base, files.new, type, { start: 0, end: ALL.end_ns }, { start: 0, end: ALL.end_ns });
    assert.deepEqual(got(r), want, type);
    assert.equal(r.weight_unit, type === 'off_cpu' ? 'ns' : type === 'cpu_sample' ? 'samples' : 'events');
    assert.equal(r.total, want.reduce((s, x) => s + x.weight, 0));
    assert.equal(r.base_total, want.reduce((s, x) => s + x.base_weight, 0));
  }
});

test('diff_flamegraph: a window and pid on NEW, a window on BASE', async () => {
  const w = { start: 5000, end: 20000, pid: 101 };
  const bw = { start: 12000, end: 25000 };
  const r = await getJson(v, `/api/diff_flamegraph?${qs({ start_ns: w.start, end_ns: w.end, pid: w.pid,
    base_start_ns: bw.start, base_end_ns: bw.end, event_type: 'cpu_sample', max_stacks: 1000000 })}`);
  assert.deepEqual(got(r), sqlDiff(dir, files.base, files.new, 'cpu_sample', w, bw));
  // The NEW side alone is what event_flamegraph says.
  const f = await getJson(v, `/api/event_flamegraph?${qs({ start_ns: w.start, end_ns: w.end, pid: w.pid, event_type: 'cpu_sample', max_stacks: 1000000 })}`);
  assert.equal(r.total, f.total_samples);
});

test('diff_flamegraph: a type neither trace has is empty; max_stacks bounds each side', async () => {
  const r = await getJson(v, `/api/diff_flamegraph?${qs({ ...ALL, event_type: 'no_such_type', max_stacks: 10 })}`);
  assert.deepEqual(r.stacks, []);
  const s = await getJson(v, `/api/diff_flamegraph?${qs({ ...ALL, event_type: 'cpu_sample', max_stacks: 500 })}`);
  assert.ok(s.total <= 500 && s.base_total <= 500 && s.stacks.length > 0, 'max_stacks bounds each side');
});

test('trace=base answers for the base trace', async () => {
  const b = await getJson(v, '/api/summary?trace=base');
  const n = await getJson(v, '/api/summary?trace=new');
  assert.equal(b.total_events, rows(7, [4, 2, 1, 4, 0, 4, 4]).length);
  assert.equal(n.total_events, rows(9, [4, 4, 3, 0, 4, 4, 4]).length);
  assert.deepEqual(await getJson(v, '/api/summary'), n);
  const c = await getJson(v, '/api/compare');
  assert.deepEqual(c, { new_file: files.new, base_file: files.base });
  const l = await getJson(v, '/api/process_lifetimes?trace=base');
  assert.deepEqual(l.processes.map((p) => p.pid).sort(), [100, 101, 102]);
});

// BASE pairs its operations after NEW is loaded, or when a request asks first: either way
// the answers are those of BASE opened alone.
test('trace=base: endpoints on paired operations answer as BASE alone', async () => {
  const alone = await startViewer(files.base);
  try {
    for (const ep of ['syscall_latency_stats', 'io_statistics', 'memory_statistics']) {
      const q = `/api/${ep}?${qs(ALL)}`;
      assert.deepEqual(await getJson(v, `${q}&trace=base`), await getJson(alone, q), ep);
    }
  } finally {
    await stopViewer(alone);
  }
});

test('bad input: 400 naming the parameter; no base: a clear error', async () => {
  const bad = async (params, name) => {
    const r = await get(v, `/api/diff_flamegraph?${qs(params)}`);
    assert.equal(r.status, 400, JSON.stringify(params));
    assert.equal(r.json.parameter, name);
  };
  const ok = { ...ALL, event_type: 'cpu_sample', max_stacks: 10 };
  await bad({ ...ok, event_type: undefined }, 'event_type');
  await bad({ ...ok, max_stacks: 0 }, 'max_stacks');
  await bad({ ...ok, start_ns: 'x' }, 'start_ns');
  await bad({ ...ok, start_ns: 9, end_ns: 8 }, 'end_ns');
  await bad({ ...ok, base_start_ns: 9, base_end_ns: 8 }, 'base_end_ns');
  await bad({ ...ok, base_start_ns: '-1' }, 'base_start_ns');
  await bad({ ...ok, pid: 'p' }, 'pid');
  const t = await get(v, '/api/summary?trace=old');
  assert.equal(t.status, 400);
  assert.equal(t.json.parameter, 'trace');
  const nb = await get(single, `/api/diff_flamegraph?${qs(ok)}`);
  assert.equal(nb.status, 400);
  assert.match(nb.json.error, /no base trace/);
  const c = await getJson(single, '/api/compare');
  assert.equal(c.base_file, null);
  const sb = await get(single, '/api/summary?trace=base');
  assert.equal(sb.status, 400);
  assert.match(sb.json.error, /no base trace/);
});

test('--base: a missing base file is refused before serving, naming it', async () => {
  const { runProbex } = await import('./lib.mjs');
  const r = runProbex(['--view', files.new, '--base', path.join(dir, 'missing.parquet'), '-p', '0']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /missing\.parquet/);
  const u = runProbex(['--base', files.base]);
  assert.equal(u.code, 2);
});
