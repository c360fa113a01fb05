// A second, independent implementation of the reference's semantics (a direct
// transcription of its per-row loops, in JavaScript) run on every row of a synthetic trace
// with lost records, compared with the server for many windows and pids.  This covers the
// precomputed pairs, the exact replay around lost exits, and the narrow and wide selection
// paths against one oracle.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { getJson, qs, runProbex, runSql, sqlString, startViewer, stopViewer, tmpdir, payloadOf, refEvent } from './lib.mjs';

let v, rows, byPid, pids, tmin, tmax, freq;

before(async () => {
  const dir = tmpdir();
  const file = path.join(dir, 'synth.parquet');
  // 2% of syscall rows lost: many windows hold a lost exit or enter.
  const r = runProbex(['synth', '-o', file, '--events', '30000', '--seed', '11', '--lost-ppm', '20000'], 120000);
  assert.equal(r.code, 0, r.stderr);
  const json = path.join(dir, 'rows.json');
  runSql(`COPY (SELECT file_row_number AS row, * EXCLUDE (file_row_number) FROM read_parquet(${sqlString(file)}, file_row_number = true))
    TO ${sqlString(json)} (FORMAT json)`);
  rows = fs.readFileSync(json, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  // The tie rule: (pid, ts, file row).
  rows.sort((a, b) => a.pid - b.pid || a.ts_ns - b.ts_ns || a.row - b.row);
  byPid = new Map();
  for (const x of rows) (byPid.get(x.pid) || byPid.set(x.pid, []).get(x.pid)).push(x);
  pids = [...byPid.keys()];
  tmin = Math.min(...rows.map((x) => x.ts_ns));
  tmax = Math.max(...rows.map((x) => x.ts_ns));
  freq = 1999;
  v = await startViewer(file);
});
after(async () => { assert.equal(await stopViewer(v), 0); });

const labels = (x) => (x.stack_trace === null ? null : x.stack_trace.filter((l) => l !== ''));
const inWin = (x, w) => x.ts_ns >= w.start_ns && x.ts_ns <= w.end_ns && (w.pid === undefined || x.pid === w.pid);

// The reference's query_io_statistics / query_memory_statistics / latency loops.
function ops(w) {
  const data = {}, lat = { read: [], write: [], io_uring: [] }, cumulative = [];
  let grow = [0, 0], shrink = [0, 0], mmapBytes = 0, munmapBytes = 0;
  const push = (op, rec) => (data[op] ||= []).push(rec);
  for (const pid of pids) {
    const q = {}, lastBrk = { v: null };
    for (const x of byPid.get(pid)) {
      if (!inWin(x, w)) continue;
      const m = x.event_type.match(/^syscall_(read|write|fsync|fdatasync|mmap|munmap|brk)_(enter|exit)$/);
      if (x.event_type === 'syscall_mmap_enter') mmapBytes += x.count;
      if (x.event_type === 'syscall_munmap_enter') munmapBytes += x.count;
      if (x.event_type === 'io_uring_complete') {
        if (x.submit_ts_ns && x.ts_ns >= x.submit_ts_ns) {
          const l = x.ts_ns - x.submit_ts_ns;
          lat.io_uring.push(l);
          push('io_uring', { lat: l, bytes: Math.max(x.io_uring_res ?? 0, 0), pid, ts: x.ts_ns, stack: labels(x) });
        }
        continue;
      }
      if (!m) continue;
      const [, op, role] = m;
      if (role === 'enter') { (q[op] ||= []).push(x); continue; }
      const e = (q[op] || []).shift();
      if (!e) continue;
      const l = x.ts_ns - e.ts_ns, rec = { lat: l, pid, ts: x.ts_ns, stack: labels(e) };
      if (op === 'read' || op === 'write') { lat[op].push(l); push(op, { ...rec, bytes: Math.max(x.ret, 0) }); }
      else if (op === 'fsync' || op === 'fdatasync') push(op, { ...rec, bytes: 0 });
      else if (op === 'mmap' && x.ret >= 0) { push(op, { ...rec, bytes: e.count ?? 0 }); cumulative.push([x.ts_ns, e.count ?? 0]); }
      else if (op === 'munmap' && x.ret === 0) { push(op, { ...rec, bytes: e.count ?? 0 }); cumulative.push([x.ts_ns, -(e.count ?? 0)]); }
      else if (op === 'brk' && x.ret > 0) {
        if (lastBrk.v !== null && x.ret !== lastBrk.v) {
          const d = x.ret - lastBrk.v;
          push(op, { ...rec, bytes: Math.abs(d) });
          cumulative.push([x.ts_ns, d]);
          if (d > 0) { grow[0]++; grow[1] += d; } else { shrink[0]++; shrink[1] += -d; }
        }
        lastBrk.v = x.ret;
      }
    }
  }
  return { data, lat, cumulative, grow, shrink, mmapBytes, munmapBytes };
}

function summary(xs) {
  if (!xs.length) return { count: 0, avg_ns: 0, p50_ns: 0, p95_ns: 0, max_ns: 0 };
  const s = [...xs].sort((a, b) => a - b), n = s.length;
  // One percentile rule for every figure (common/pct.h): index min(n*p/100, n-1).
  return { count: n, avg_ns: Math.floor(s.reduce((a, b) => a + b, 0) / n), p50_ns: s[Math.min(Math.floor((n * 50) / 100), n - 1)],
    p95_ns: s[Math.min(Math.floor((n * 95) / 100), n - 1)], max_ns: s[n - 1] };
}

function typeStats(op, recs) {
  const d = [...recs].sort((a, b) => a.lat - b.lat), n = d.length;
  const ev = (i) => ({ ts_ns: d[i].ts, latency_ns: d[i].lat, event_type: op, pid: d[i].pid, stack_trace: d[i].stack });
  const at = (p) => ev(Math.min(Math.floor((n * p) / 100), n - 1));
  return { operation: op, total_ops: n, total_bytes: d.reduce((a, r) => a + r.bytes, 0),
    avg_latency_ns: Math.floor(d.reduce((a, r) => a + r.lat, 0) / n), p50_event: at(50), p95_event: at(95),
    p99_event: at(99), max_event: ev(n - 1), latencies_ns: d.map((r) => r.lat), sizes_bytes: d.map((r) => r.bytes).sort((a, b) => a - b) };
}

function byOperation(data, names) {
  return names.filter((op) => data[op]).map((op) => typeStats(op, data[op]))
    .sort((a, b) => b.total_ops - a.total_ops || (a.operation < b.operation ? -1 : 1));
}

// files: synth writes no fd_path (processes.test.mjs checks them on a recording).
const strip = (o) => { const { latency_cdf, size_cdf, latency_histogram, size_histogram, files, ...rest } = o; return rest; };

function windows() {
  const span = tmax - tmin, ws = [{ start_ns: tmin, end_ns: tmax }, { start_ns: 0, end_ns: tmax * 2 }];
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (let i = 0; i < 12; i++) {
    const a = tmin + Math.floor(rnd() * span), len = Math.floor(rnd() * rnd() * span);
    ws.push({ start_ns: a, end_ns: Math.min(a + len, tmax) });
  }
  const out = [];
  for (const w of ws) {
    out.push(w);
    out.push({ ...w, pid: pids[Math.floor(rnd() * pids.length)] });
  }
  return out;
}

test('syscall_latency_stats matches the oracle on every window', async () => {
  for (const w of windows()) {
    const o = ops(w);
    assert.deepEqual(await getJson(v, `/api/syscall_latency_stats?${qs(w)}`), {
      read: summary(o.lat.read), write: summary(o.lat.write), io_uring: summary(o.lat.io_uring),
      mmap_alloc_bytes: o.mmapBytes, munmap_free_bytes: o.munmapBytes,
    }, JSON.stringify(w));
  }
});

test('io_statistics matches the oracle on every window', async () => {
  for (const w of windows()) {
    const o = ops(w), got = await getJson(v, `/api/io_statistics?${qs(w)}`);
    const want = byOperation(o.data, ['read', 'write', 'fsync', 'fdatasync', 'io_uring']);
    assert.deepEqual(got.by_operation.map(strip), want, JSON.stringify(w));
    assert.equal(got.total_ops, want.reduce((a, x) => a + x.total_ops, 0));
    assert.equal(got.total_bytes, want.reduce((a, x) => a + x.total_bytes, 0));
  }
});

test('memory_statistics matches the oracle on every window', async () => {
  for (const w of windows()) {
    const o = ops(w), got = await getJson(v, `/api/memory_statistics?${qs(w)}`);
    const want = byOperation(o.data, ['mmap', 'munmap', 'brk']);
    assert.deepEqual(got.by_operation.map(strip), want, JSON.stringify(w));
    const mm = want.find((x) => x.operation === 'mmap'), mu = want.find((x) => x.operation === 'munmap');
    assert.deepEqual([got.total_alloc_ops, got.total_alloc_bytes, got.total_free_ops, got.total_free_bytes],
      [(mm?.total_ops || 0) + o.grow[0], (mm?.total_bytes || 0) + o.grow[1], (mu?.total_ops || 0) + o.shrink[0],
        (mu?.total_bytes || 0) + o.shrink[1]], JSON.stringify(w));
    let run = 0;
    const cum = o.cumulative.map((c, i) => [...c, i]).sort((a, b) => a[0] - b[0] || a[2] - b[2])
      .map(([ts, d]) => ({ ts_ns: ts, cumulative_bytes: (run += d) }));
    assert.deepEqual(got.cumulative_usage, cum, JSON.stringify(w));
  }
});

test('histogram, counts and event lists match the oracle', async () => {
  let sawBigPage = false;
  for (const w of windows()) {
    const sel = rows.filter((x) => inWin(x, { ...w, pid: undefined }));
    const nb = 37, size = Math.max(1, Math.ceil((w.end_ns - w.start_ns) / nb));
    const h = await getJson(v, `/api/histogram?${qs({ start_ns: w.start_ns, end_ns: w.end_ns, num_buckets: nb })}`);
    const counts = Array.from({ length: nb }, () => ({}));
    for (const x of sel) {
      const b = Math.min(Math.floor((x.ts_ns - w.start_ns) / size), nb - 1);
      counts[b][x.event_type] = (counts[b][x.event_type] || 0) + 1;
    }
    assert.deepEqual(h.buckets.map((b) => b.counts_by_type), counts.map((c) => Object.fromEntries(Object.entries(c).sort())));
    assert.equal(h.total_in_range, sel.length);
    const c = await getJson(v, `/api/event_type_counts?${qs({ start_ns: w.start_ns, end_ns: w.end_ns })}`);
    const want = {};
    for (const x of sel) want[x.event_type] = (want[x.event_type] || 0) + 1;
    assert.deepEqual(c.counts, want);
    if (w.pid !== undefined) {
      const mine = sel.filter((x) => x.pid === w.pid);
      const l = await getJson(v, `/api/event_list?${qs({ ...w, limit: 20, offset: 3, event_types: 'syscall_read_exit,page_fault,bogus' })}`);
      const f = mine.filter((x) => x.event_type === 'syscall_read_exit' || x.event_type === 'page_fault');
      assert.equal(l.total_in_range, f.length);
      assert.deepEqual(l.events.map(refEvent), f.slice(3, 23).map((x) => ({ ts_ns: x.ts_ns, latency_ns: x.latency_ns ?? null, event_type: x.event_type,
        pid: x.pid, stack_trace: labels(x) })));
      // Additive: each row's other non-null columns, read back from the file.
      assert.deepEqual(l.events.map((e) => { const { ts_ns, latency_ns, event_type, pid, stack_trace, ...p } = e; return p; }),
        f.slice(3, 23).map(payloadOf));
      // A page longer than one payload batch (128 rows) takes the 2048-row statement.
      const big = await getJson(v, `/api/event_list?${qs({ ...w, limit: 300, offset: 0 })}`);
      assert.equal(big.total_in_range, mine.length);
      assert.equal(big.payload_error, undefined);
      assert.deepEqual(big.events.map((e) => { const { ts_ns, latency_ns, event_type, pid, stack_trace, ...p } = e; return p; }),
        mine.slice(0, 300).map(payloadOf));
      if (big.events.length > 128) sawBigPage = true;
    }
  }
  assert.ok(sawBigPage, 'some window has a page of more than 128 rows');
});

test('process_events densities and unsampled markers match the oracle', async () => {
  for (const w of windows().filter((x) => x.pid === undefined)) {
    const e = await getJson(v, `/api/process_events?${qs({ start_ns: w.start_ns, end_ns: w.end_ns, max_events_per_pid: 100000 })}`);
    const range = Math.max(1, w.end_ns - w.start_ns);
    const nb = Math.min(2000, Math.max(1, Math.floor(freq * (range / 1e9))));
    const size = Math.max(1, Math.ceil(range / nb));
    assert.equal(e.cpu_sample_bucket_count, nb);
    const dens = {}, marks = {};
    for (const x of rows) {
      if (!inWin(x, w)) continue;
      (marks[x.pid] ||= []).push({ ts_ns: x.ts_ns, event_type: x.event_type });
      if (x.event_type !== 'cpu_sample') continue;
      const b = Math.min(Math.floor((x.ts_ns - w.start_ns) / size), nb - 1);
      (dens[x.pid] ||= new Array(nb).fill(0))[b]++;
    }
    assert.deepEqual(e.cpu_sample_counts_by_pid, dens);
    assert.deepEqual(e.events_by_pid, marks);
  }
});

test('process_lifetimes matches the oracle', async () => {
  const fork = new Map(), exit = new Map(), name = new Map();
  const byTs = [...rows].sort((a, b) => a.ts_ns - b.ts_ns || a.row - b.row);
  for (const x of byTs) {
    if (x.event_type === 'process_fork' && x.child_pid !== null && x.parent_pid !== null && !fork.has(x.child_pid))
      fork.set(x.child_pid, [x.parent_pid, x.ts_ns]);
    if (x.event_type === 'process_exit' && !exit.has(x.pid)) exit.set(x.pid, [x.exit_code, x.ts_ns]);
    if (x.process_name && !name.has(x.pid)) name.set(x.pid, x.process_name);
  }
  const want = pids.map((pid) => {
    const r = byPid.get(pid), f = fork.get(pid), e = exit.get(pid);
    return { pid, process_name: name.get(pid) ?? null, parent_pid: f ? f[0] : null, start_ns: f ? f[1] : r[0].ts_ns,
      end_ns: e ? e[1] : r[r.length - 1].ts_ns, exit: e ? e[0] : null, was_forked: !!f };
  }).sort((a, b) => a.start_ns - b.start_ns || a.pid - b.pid);
  const got = (await getJson(v, '/api/process_lifetimes')).processes;
  assert.deepEqual(got.map(({ last_process_name, tgid, argv, cpu_ns, thread_cpu_ns, threads, ...p }) => p), want);
  // Additive: the last non-empty name of each pid.
  const last = new Map();
  for (const x of byTs) if (x.process_name) last.set(x.pid, x.process_name);
  assert.deepEqual(got.map((p) => p.last_process_name ?? null), want.map((p) => last.get(p.pid) ?? null));
});
