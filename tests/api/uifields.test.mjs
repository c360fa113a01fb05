// Every field the UI reads is one the server documents and sends.  The UI is compiled
// (tsc, strict) against the response types in web/src/api.ts, which have no index
// signatures (EventDetail's payload aside, which the event list shows generically), so
// the UI can read only fields declared there.  This test parses those declarations,
// finds which endpoint feeds which type from the UI's own request code, and walks real
// responses of a real viewer against them: a declared field that is never sent, sent with
// another type, or not documented in src/server/API.md fails.  Fields the UI sets itself
// carry `@client` in their doc comment and are skipped.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { getJson, qs, startViewer, stopViewer, tmpdir, writeTrace } from './lib.mjs';
import { traceA, write } from './traces.mjs';

const WEB = path.resolve('web/src');
const API_TS = fs.readFileSync(path.join(WEB, 'api.ts'), 'utf8');
const API_MD = fs.readFileSync(path.resolve('src/server/API.md'), 'utf8');

// --- a small parser for the declarations api.ts uses --------------------------------

function tokenize(s) {
  const out = [];
  const re = /\s*(?:([A-Za-z_$][\w$]*)|('(?:[^'\\]|\\.)*')|(\S))/gy;
  let m;
  while ((m = re.exec(s)) && m[0].length) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

function parseType(toks) {
  let i = 0;
  const peek = () => toks[i];
  const eat = (t) => {
    if (toks[i] !== t) throw new Error(`expected ${t} at ${toks.slice(i).join(' ')}`);
    i++;
  };
  const list = (close) => {
    const items = [union()];
    while (peek() === ',') { i++; items.push(union()); }
    eat(close);
    return items;
  };
  function members() {
    const ms = [];
    while (peek() !== '}') {
      const name = toks[i++];
      const optional = peek() === '?';
      if (optional) i++;
      eat(':');
      ms.push({ name, optional, type: union(), client: false });
      if (peek() === ';' || peek() === ',') i++;
    }
    eat('}');
    return ms;
  }
  function primary() {
    const t = toks[i++];
    if (t === '[') return { k: 'tuple', of: list(']') };
    if (t === '{') return { k: 'obj', members: members(), extra: false };
    if (t === '(') { const u = union(); eat(')'); return u; }
    if (peek() === '<') { i++; return { k: 'ref', name: t, args: list('>') }; }
    return { k: 'ref', name: t, args: [] };
  }
  function postfix() {
    let t = primary();
    while (peek() === '[' && toks[i + 1] === ']') { i += 2; t = { k: 'array', of: t }; }
    return t;
  }
  function union() {
    const of = [postfix()];
    while (peek() === '|') { i++; of.push(postfix()); }
    return of.length === 1 ? of[0] : { k: 'union', of };
  }
  const t = union();
  if (i !== toks.length) throw new Error(`trailing ${toks.slice(i).join(' ')}`);
  return t;
}

// Members of an interface body: split at ';' outside brackets, doc comments kept for @client.
function parseBody(body) {
  const members = [];
  let extra = false;
  let depth = 0, start = 0, doc = '';
  const flush = (end) => {
    let text = body.slice(start, end);
    const docs = [...text.matchAll(/\/\*\*[^]*?\*\//g)].map((d) => d[0]).join(' ');
    text = text.replace(/\/\*[^]*?\*\//g, '').replace(/\/\/.*$/gm, '').trim();
    start = end + 1;
    if (!text) return;
    const idx = /^\[\s*\w+\s*:\s*string\s*\]\s*:\s*unknown$/.exec(text);
    if (idx) { extra = true; return; }
    const m = /^(\w+)(\?)?\s*:\s*([^]*)$/.exec(text);
    assert.ok(m, `cannot parse member: ${text}`);
    members.push({ name: m[1], optional: !!m[2], type: parseType(tokenize(m[3])), client: /@client\b/.test(docs + doc) });
  };
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '/' && body[i + 1] === '*') { i = body.indexOf('*/', i) + 1; continue; }
    if ('{[(<'.includes(c)) depth++;
    else if ('}])>'.includes(c)) depth--;
    else if (c === ';' && depth === 0) flush(i);
  }
  flush(body.length);
  return { members, extra };
}

const TYPES = new Map();
for (const m of API_TS.matchAll(/export interface (\w+)(?: extends [\w, ]+)? \{([^]*?)\n\}/g)) {
  const { members, extra } = parseBody(m[2]);
  TYPES.set(m[1], { k: 'obj', name: m[1], members, extra });
}

// --- which endpoint feeds which type, read from the UI's request code ---------------

function endpointTypes() {
  const src = fs.readdirSync(WEB).filter((f) => f.endsWith('.ts')).map((f) => fs.readFileSync(path.join(WEB, f), 'utf8')).join('\n');
  const resourceType = new Map([...src.matchAll(/(\w+): new Resource<(\w+)>/g)].map((m) => [m[1], m[2]]));
  const map = new Map();
  for (const m of src.matchAll(/res\.(\w+)\.want\(\s*'(\w+)'/g)) map.set(m[2], resourceType.get(m[1]));
  for (const m of src.matchAll(/getJson<(\w+)>\('(\w+)'/g)) map.set(m[2], m[1]);
  return map;
}

// --- walking a value against a type ------------------------------------------------

function check(v, t, where, seen, errors) {
  const fail = (msg) => { errors.push(`${where}: ${msg} (got ${JSON.stringify(v)?.slice(0, 80)})`); return false; };
  switch (t.k) {
    case 'union': {
      for (const b of t.of) {
        const s = new Set(), e = [];
        if (check(v, b, where, s, e)) { for (const x of s) seen.add(x); return true; }
      }
      return fail('matches no branch of the union');
    }
    case 'array':
      if (!Array.isArray(v)) return fail('not an array');
      return v.every((x, i) => check(x, t.of, `${where}[${i}]`, seen, errors));
    case 'tuple':
      if (!Array.isArray(v) || v.length !== t.of.length) return fail(`not a ${t.of.length}-tuple`);
      return t.of.every((x, i) => check(v[i], x, `${where}[${i}]`, seen, errors));
    case 'obj': {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return fail('not an object');
      let ok = true;
      for (const m of t.members) {
        if (m.client) continue;
        if (!(m.name in v)) {
          if (!m.optional) ok = fail(`required field ${m.name} missing`);
          continue;
        }
        if (t.name) seen.add(`${t.name}.${m.name}`);
        ok = check(v[m.name], m.type, `${where}.${m.name}`, seen, errors) && ok;
      }
      return ok;
    }
    case 'ref': {
      const n = t.name;
      if (n === 'number') return typeof v === 'number' || fail('not a number');
      if (n === 'string') return typeof v === 'string' || fail('not a string');
      if (n === 'boolean') return typeof v === 'boolean' || fail('not a boolean');
      if (n === 'null') return v === null || fail('not null');
      if (n === 'unknown') return true;
      if (n === 'Array') return check(v, { k: 'array', of: t.args[0] }, where, seen, errors);
      if (n === 'Record') {
        if (v === null || typeof v !== 'object' || Array.isArray(v)) return fail('not an object');
        return Object.entries(v).every(([k, x]) => check(x, t.args[1], `${where}.${k}`, seen, errors));
      }
      const it = TYPES.get(n);
      if (!it) return fail(`unknown type ${n}`);
      return check(v, it, where, seen, errors);
    }
  }
  return fail(`unhandled type kind ${t.k}`);
}

// Types reachable from a response type (to list the fields that must have been sent).
function reachable(name, out = new Set()) {
  if (out.has(name) || !TYPES.has(name)) return out;
  out.add(name);
  const walk = (t) => {
    if (t.k === 'ref') { if (TYPES.has(t.name)) reachable(t.name, out); t.args.forEach(walk); }
    else if (t.k === 'obj') t.members.forEach((m) => walk(m.type));
    else (t.of && [].concat(t.of).forEach(walk));
  };
  walk(TYPES.get(name));
  return out;
}

// --- the requests, with the parameters the UI sends --------------------------------

const W = { start_ns: 100, end_ns: 600 };	// the whole trace
const NARROW = { start_ns: 120, end_ns: 600 };
const REQUESTS = {
  summary: [{}],
  process_lifetimes: [{}],
  histogram: [{ ...W, num_buckets: 50 }],
  process_events: [{ ...W, max_events_per_pid: 2 }, { ...W, max_events_per_pid: 500 }],
  event_type_counts: [W, NARROW],
  pid_event_type_counts: [{ ...W, pid: 10 }],
  syscall_latency_stats: [W, { ...W, pid: 10 }, NARROW],
  io_statistics: [{ ...W, max_points: 1000 }, { ...W, pid: 11, max_points: 1000 }, { ...NARROW, max_points: 1000 }],
  memory_statistics: [{ ...W, max_points: 1000 }],
  event_flamegraph: [{ ...W, event_type: 'cpu_sample', max_stacks: 5000 }, { ...W, event_type: 'page_fault', max_stacks: 10 }],
  event_list: [{ ...W, pid: 10, limit: 100, offset: 0 }, { ...W, pid: 11, limit: 100, offset: 0, event_types: 'syscall_write_enter' }],
  compare: [{}],
  diff_flamegraph: [{ ...W, event_type: 'cpu_sample', max_stacks: 5000 }, { ...W, event_type: 'cpu_sample', max_stacks: 5000, base_start_ns: 0, base_end_ns: 200 }],
};

// Exact counts above the rows of read (so the exact fields are sent) and a drop.
const META = {
  'probex.sample_freq_hz': '1000', 'probex.stack_trace_format': 'symbolized_v1', 'probex.drops': '{"ringbuf_syscall": 3}',
  'probex.exact': JSON.stringify([{ tgid: 10, event_type: 'syscall_read_exit', nr: 0, count: 5, errors: 2, total_ns: 500, hist: [0, 1, 4] }]),
};
// The wall-clock endpoints answer on a relay with scheduling rows: main (10) blocks in a
// read of fd 3 until worker (11) wakes it; the worker blocks (D) in an openat of a file
// until holder (12) wakes it.
const RELAY_W = { start_ns: 0, end_ns: 1000 };
Object.assign(REQUESTS, {
  thread_states: [{ ...RELAY_W, tid: 10, max_spans: 1000 }, { ...RELAY_W, tid: 11, max_spans: 1000 }, { ...RELAY_W, tid: 10, max_spans: 1 }],
  critical_path: [{ ...RELAY_W, tid: 10 }],
  wall_flamegraph: [{ ...RELAY_W, tid: 10 }],
});
const ON_RELAY = new Set(['thread_states', 'critical_path', 'wall_flamegraph']);
const STK = ['[user]', 'main', 'do_read', '[kernel]', '__schedule'];
const relay = [
  ['sched_switch', 100, 10, { prev_pid: 1, next_pid: 10, prev_state: 1, next_tgid: 10 }],
  ['cpu_sample', 150, 10, { stack_trace: ['[user]', 'main', 'work'] }],
  ['syscall_read_enter', 200, 10, { fd: 3, count: 1 }],
  ['sched_switch', 210, 10, { prev_pid: 10, next_pid: 11, prev_state: 1 }],
  ['off_cpu', 210, 10, { latency_ns: 240, prev_state: 1, waker_pid: 11, waker_tgid: 10, stack_trace: STK, waker_stack_trace: STK }],
  ['syscall_openat_enter', 290, 11, { filename: '/tmp/relay.dat' }],
  ['sched_switch', 300, 11, { prev_pid: 11, next_pid: 12, prev_state: 2 }],
  ['off_cpu', 300, 11, { latency_ns: 100, prev_state: 2, waker_pid: 12, waker_tgid: 10, stack_trace: STK }],
  ['sched_switch', 400, 12, { prev_pid: 12, next_pid: 11, prev_state: 256 }],
  ['syscall_openat_exit', 401, 11, { ret: 5 }],
  ['sched_switch', 450, 11, { prev_pid: 11, next_pid: 10, prev_state: 1 }],
  ['syscall_read_exit', 600, 10, { ret: 1 }],
].map(([event_type, ts_ns, pid, more]) => ({ event_type, ts_ns, pid, tgid: 10, process_name: 'relay', ...more }));

let v, vr;
before(async () => {
  const dir = tmpdir();
  const columns = { latency_ns: 'UBIGINT', waker_pid: 'UINTEGER', waker_tgid: 'UINTEGER', waker_stack_trace: 'VARCHAR[]', next_tgid: 'UINTEGER', filename: 'VARCHAR' };
  const meta = { 'probex.sample_freq_hz': '1000', 'probex.stack_trace_format': 'symbolized_v1', 'probex.root_pid': '10' };
  // Compare mode (--base, here the same file) so that its endpoints answer too.
  // fd_path on the rows with a descriptor, so io_statistics lists files.
  const withPaths = traceA.map((r) => (r.fd === undefined ? r : { ...r, fd_path: `/tmp/f${r.fd}` }));
  const f = write(dir, 'ui', withPaths, { meta: META, columns: { fd_path: 'VARCHAR' } });
  [v, vr] = await Promise.all([startViewer(f, ['--base', f]), startViewer(writeTrace(`${dir}/relay.parquet`, relay, { columns, meta }))]);
});
after(async () => {
  assert.equal(await stopViewer(v), 0);
  assert.equal(await stopViewer(vr), 0);
});

test('api.ts declares no open-ended response types (tsc then rejects reads of unknown fields)', () => {
  assert.ok(TYPES.size >= 15, `parsed ${TYPES.size} interfaces from web/src/api.ts`);
  const open = [...TYPES.values()].filter((t) => t.extra).map((t) => t.name);
  assert.deepEqual(open, ['EventDetail']);
});

test('every field the UI reads from a response is sent, with its declared type, and documented', async () => {
  const map = endpointTypes();
  assert.ok(map.size >= 10, `found ${map.size} endpoints in the UI's request code`);
  assert.deepEqual([...map.keys()].filter((e) => !REQUESTS[e]), [], 'endpoints the UI requests but this test does not');
  const seen = new Set(), errors = [], declared = new Set();
  for (const [endpoint, type] of map) {
    assert.ok(TYPES.has(type), `${endpoint}: type ${type} not declared in api.ts`);
    for (const t of reachable(type))
      for (const m of TYPES.get(t).members) if (!m.client) declared.add(`${t}.${m.name}`);
    for (const params of REQUESTS[endpoint]) {
      const body = await getJson(ON_RELAY.has(endpoint) ? vr : v, `/api/${endpoint}?${qs(params)}`);
      check(body, { k: 'ref', name: type, args: [] }, `${endpoint}?${qs(params)}`, seen, errors);
    }
  }
  assert.deepEqual(errors, []);
  assert.deepEqual([...declared].filter((f) => !seen.has(f)), [], 'declared in web/src/api.ts but never sent');
  const undocumented = [...declared].map((f) => f.split('.')[1]).filter((f) => !new RegExp(`\\b${f}\\b`).test(API_MD));
  assert.deepEqual(undocumented, [], 'read by the UI but not in src/server/API.md');
});
