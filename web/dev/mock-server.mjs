#!/usr/bin/env node
// Development only: a stand-in for `probex --view` that serves a built UI directory and
// answers the viewer API (the /api/* endpoints) from a small synthetic trace held in memory.
//   node web/dev/mock-server.mjs DIST_DIR [PORT] [EVENTS]
// The real server is src/server/; tests run against it, never against this.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const [dist = 'build/web', port = '8090', nEvents = '60000'] = process.argv.slice(2);
let seed = 42;
const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const pick = (a) => a[Math.floor(rnd() * a.length)];

const T0 = 5_000_000_000;
const DUR = 2_400_000_000;
const names = ['bash', 'make', 'cc1', 'ld', 'tokio-runtime-w', 'postgres', 'python3', 'worker'];
const procs = [];
for (let i = 0; i < Number(process.env.MOCK_PROCS ?? 40); i++) {
  const pid = 1000 + i;
  const parent = i === 0 ? null : 1000 + Math.floor(rnd() * i);
  const start = i === 0 ? T0 : T0 + Math.floor(rnd() * DUR * 0.6);
  const end = Math.min(T0 + DUR, start + Math.floor(rnd() * DUR));
  procs.push({ pid, process_name: i === 0 ? 'bash' : pick(names), parent_pid: parent, start_ns: start, end_ns: i === 0 ? T0 + DUR : end,
    exit: i === 0 ? 0 : rnd() < 0.15 ? 1 : rnd() < 0.9 ? 0 : null, was_forked: i > 0 });
}
const userFrames = ['main', 'run', 'parse_args', 'compile', 'optimize', 'emit', 'read_file', 'write_out', 'hash_insert', 'memcpy', 'malloc', 'free'];
const kernFrames = ['entry_SYSCALL_64', 'do_syscall_64', 'ksys_read', 'vfs_read', 'ext4_file_read_iter', 'filemap_read', 'copy_user_generic'];
function stack() {
  const s = ['[user]', '_start', '__libc_start_main', 'main'];
  const d = 1 + Math.floor(rnd() * 6);
  for (let i = 0; i < d; i++) s.push(pick(userFrames));
  if (rnd() < 0.6) {
    s.push('[kernel]');
    const k = 1 + Math.floor(rnd() * 5);
    for (let i = 0; i < k; i++) s.push(kernFrames[i]);
  }
  return s;
}
const events = [];
const add = (e) => events.push(e);
for (const p of procs) {
  if (p.was_forked) add({ ts_ns: p.start_ns, event_type: 'process_fork', pid: p.parent_pid ?? p.pid, child_pid: p.pid, parent_pid: p.parent_pid, cpu: 0, stack_trace: stack() });
  if (p.exit !== null) add({ ts_ns: p.end_ns, event_type: 'process_exit', pid: p.pid, exit_code: p.exit, cpu: 1, stack_trace: stack() });
  if (rnd() < 0.5) add({ ts_ns: p.start_ns + 1000, event_type: 'process_exec', pid: p.pid, cpu: 0, stack_trace: null });
}
const N = Number(nEvents);
let brk = 0x5555000;
for (let i = 0; i < N; i++) {
  const p = pick(procs);
  const ts = p.start_ns + Math.floor(rnd() * Math.max(1, p.end_ns - p.start_ns));
  const cpu = Math.floor(rnd() * 4);
  const r = rnd();
  if (r < 0.45) add({ ts_ns: ts, event_type: 'cpu_sample', pid: p.pid, cpu, stack_trace: stack() });
  else if (r < 0.6) add({ ts_ns: ts, event_type: 'sched_switch', pid: p.pid, cpu, prev_pid: p.pid, next_pid: 0, prev_state: 1, stack_trace: stack() });
  else if (r < 0.75) {
    const rd = rnd() < 0.6;
    const lat = Math.floor(Math.exp(rnd() * 12) * 200);
    const bytes = rnd() < 0.05 ? 0 : Math.floor(Math.exp(rnd() * 11));
    add({ ts_ns: ts, event_type: rd ? 'syscall_read_enter' : 'syscall_write_enter', pid: p.pid, cpu, fd: 3 + Math.floor(rnd() * 5), count: bytes * 2, stack_trace: stack() });
    add({ ts_ns: ts + lat, event_type: rd ? 'syscall_read_exit' : 'syscall_write_exit', pid: p.pid, cpu, ret: bytes, latency_ns: lat, stack_trace: stack() });
  } else if (r < 0.8) {
    const lat = Math.floor(1e6 + rnd() * 2e7);
    add({ ts_ns: ts, event_type: 'syscall_fsync_enter', pid: p.pid, cpu, fd: 4, stack_trace: stack() });
    add({ ts_ns: ts + lat, event_type: 'syscall_fsync_exit', pid: p.pid, cpu, ret: 0, latency_ns: lat, stack_trace: stack() });
  } else if (r < 0.88) add({ ts_ns: ts, event_type: 'page_fault', pid: p.pid, cpu, address: 0x7f0000000000 + Math.floor(rnd() * 1e9), error_code: 6, stack_trace: stack() });
  else if (r < 0.92) {
    const len = 4096 * (1 + Math.floor(rnd() * 512));
    add({ ts_ns: ts, event_type: 'syscall_mmap_enter', pid: p.pid, cpu, count: len, address: 0, stack_trace: stack() });
    add({ ts_ns: ts + 3000, event_type: 'syscall_mmap_exit', pid: p.pid, cpu, ret: 0x7f00000000, latency_ns: 3000, stack_trace: stack() });
  } else if (r < 0.95) {
    const len = 4096 * (1 + Math.floor(rnd() * 128));
    add({ ts_ns: ts, event_type: 'syscall_munmap_enter', pid: p.pid, cpu, count: len, address: 0x7f00000000, stack_trace: stack() });
  } else if (r < 0.97) {
    brk += Math.floor((rnd() - 0.3) * 65536);
    add({ ts_ns: ts, event_type: 'syscall_brk_exit', pid: p.pid, cpu, ret: brk, stack_trace: stack() });
  } else {
    const lat = Math.floor(5000 + rnd() * 200000);
    add({ ts_ns: ts + lat, event_type: 'io_uring_complete', pid: p.pid, cpu, submit_ts_ns: ts, io_uring_opcode: 22, io_uring_res: 4096, latency_ns: lat, stack_trace: stack() });
  }
}
events.sort((a, b) => a.ts_ns - b.ts_ns);
const types = [...new Set(events.map((e) => e.event_type))].sort();
const minTs = events[0].ts_ns;
const maxTs = events[events.length - 1].ts_ns;

function inRange(q, pid) {
  const s = Number(q.get('start_ns') ?? minTs);
  const e = Number(q.get('end_ns') ?? maxTs);
  return events.filter((x) => x.ts_ns >= s && x.ts_ns <= e && (pid === undefined || pid === null || x.pid === pid));
}
const pidOf = (q) => (q.get('pid') ? Number(q.get('pid')) : null);
function counts(list) {
  const c = {};
  for (const e of list) c[e.event_type] = (c[e.event_type] ?? 0) + 1;
  return { counts: c };
}
function latSummary(vals) {
  if (!vals.length) return { count: 0, avg_ns: 0, p50_ns: 0, p95_ns: 0, max_ns: 0 };
  const s = [...vals].sort((a, b) => a - b);
  const at = (p) => s[Math.floor(((s.length - 1) * p) / 100)];
  return { count: s.length, avg_ns: Math.floor(s.reduce((a, b) => a + b, 0) / s.length), p50_ns: at(50), p95_ns: at(95), max_ns: s[s.length - 1] };
}
const detail = (e) => e && { ts_ns: e.ts_ns, latency_ns: e.latency_ns ?? null, event_type: e.event_type, pid: e.pid, stack_trace: e.stack_trace };
function opStats(name, list, sizeOf) {
  const byLat = [...list].sort((a, b) => (a.latency_ns ?? 0) - (b.latency_ns ?? 0));
  const n = byLat.length;
  const at = (p) => byLat[Math.min(n - 1, Math.floor((n * p) / 100))];
  return {
    operation: name, total_ops: n, total_bytes: list.reduce((a, e) => a + sizeOf(e), 0),
    avg_latency_ns: n ? Math.floor(list.reduce((a, e) => a + (e.latency_ns ?? 0), 0) / n) : 0,
    p50_event: n ? detail(at(50)) : null, p95_event: n ? detail(at(95)) : null, p99_event: n ? detail(at(99)) : null, max_event: n ? detail(byLat[n - 1]) : null,
    latencies_ns: byLat.map((e) => e.latency_ns ?? 0), sizes_bytes: list.map(sizeOf).sort((a, b) => a - b),
  };
}
const api = {
  summary: () => ({ total_events: events.length, event_types: types, unique_pids: [...new Set(events.map((e) => e.pid))].sort((a, b) => a - b), min_ts_ns: minTs, max_ts_ns: maxTs, cpu_sample_frequency_hz: 999 }),
  process_lifetimes: () => ({ processes: procs }),
  histogram: (q) => {
    const s = Number(q.get('start_ns')); const e = Number(q.get('end_ns')); const n = Number(q.get('num_buckets'));
    const w = Math.max(1, Math.ceil((e - s) / n));
    const buckets = Array.from({ length: n }, (_, i) => ({ bucket_start_ns: s + i * w, bucket_end_ns: s + (i + 1) * w, count: 0, counts_by_type: {} }));
    for (const x of events) {
      if (x.ts_ns < s || x.ts_ns > e) continue;
      const b = buckets[Math.min(n - 1, Math.floor((x.ts_ns - s) / w))];
      b.count++; b.counts_by_type[x.event_type] = (b.counts_by_type[x.event_type] ?? 0) + 1;
    }
    return { buckets, total_in_range: buckets.reduce((a, b) => a + b.count, 0) };
  },
  event_type_counts: (q) => counts(inRange(q)),
  pid_event_type_counts: (q) => counts(inRange(q, pidOf(q))),
  process_events: (q) => {
    const s = Number(q.get('start_ns')); const e = Number(q.get('end_ns')); const max = Number(q.get('max_events_per_pid'));
    const B = Math.min(2000, Math.max(1, Math.floor((999 * (e - s)) / 1e9)));
    const bs = Math.max(1, Math.ceil(Math.max(1, e - s) / B));
    const ev = {}; const cpu = {}; const seen = {};
    for (const x of inRange(q)) {
      const k = String(x.pid);
      if (x.event_type === 'cpu_sample') { (cpu[k] ??= new Array(B).fill(0))[Math.min(B - 1, Math.floor((x.ts_ns - s) / bs))]++; }
      const l = (ev[k] ??= []); seen[k] = (seen[k] ?? 0) + 1;
      if (l.length < max) l.push({ ts_ns: x.ts_ns, event_type: x.event_type });
      else { const i = Math.floor(rnd() * seen[k]); if (i < max) l[i] = { ts_ns: x.ts_ns, event_type: x.event_type }; }
    }
    for (const k in ev) ev[k].sort((a, b) => a.ts_ns - b.ts_ns);
    return { events_by_pid: ev, cpu_sample_counts_by_pid: cpu, cpu_sample_bucket_count: B, total_events_by_pid: seen };
  },
  syscall_latency_stats: (q) => {
    const l = inRange(q, pidOf(q));
    const lat = (t) => l.filter((e) => e.event_type === t).map((e) => e.latency_ns);
    return { read: latSummary(lat('syscall_read_exit')), write: latSummary(lat('syscall_write_exit')), io_uring: latSummary(lat('io_uring_complete')),
      mmap_alloc_bytes: l.filter((e) => e.event_type === 'syscall_mmap_enter').reduce((a, e) => a + e.count, 0),
      munmap_free_bytes: l.filter((e) => e.event_type === 'syscall_munmap_enter').reduce((a, e) => a + e.count, 0) };
  },
  event_flamegraph: (q) => {
    const l = inRange(q, pidOf(q)).filter((e) => e.event_type === q.get('event_type') && e.stack_trace);
    const folded = new Map();
    for (const e of l.slice(0, Number(q.get('max_stacks')))) { const k = e.stack_trace.join(';'); folded.set(k, (folded.get(k) ?? 0) + 1); }
    const total = Math.min(l.length, Number(q.get('max_stacks')));
    if (process.env.MOCK_SVG) return { event_type: q.get('event_type'), total_samples: total, svg: infernoSvg(folded) };
    return { event_type: q.get('event_type'), total_samples: total, total_events: l.length, svg: null,
      stacks: [...folded].map(([k, n]) => ({ frames: k.split(';'), count: n })) };
  },
  io_statistics: (q) => {
    const l = inRange(q, pidOf(q));
    const ops = [['read', 'syscall_read_exit', (e) => Math.max(0, e.ret)], ['write', 'syscall_write_exit', (e) => Math.max(0, e.ret)],
      ['fsync', 'syscall_fsync_exit', () => 0], ['io_uring', 'io_uring_complete', (e) => Math.max(0, e.io_uring_res)]]
      .map(([n, t, f]) => opStats(n, l.filter((e) => e.event_type === t), f)).filter((o) => o.total_ops).sort((a, b) => b.total_ops - a.total_ops);
    return { by_operation: ops, total_ops: ops.reduce((a, o) => a + o.total_ops, 0), total_bytes: ops.reduce((a, o) => a + o.total_bytes, 0), time_range_ns: [minTs, maxTs] };
  },
  memory_statistics: (q) => {
    const l = inRange(q, pidOf(q));
    const mm = opStats('mmap', l.filter((e) => e.event_type === 'syscall_mmap_exit').map((e, i, a) => ({ ...e, count: 4096 * (1 + (i % 64)) })), (e) => e.count);
    const mu = opStats('munmap', l.filter((e) => e.event_type === 'syscall_munmap_enter'), (e) => e.count);
    const ops = [mm, mu].filter((o) => o.total_ops).sort((a, b) => b.total_ops - a.total_ops);
    let cum = 0;
    const usage = l.filter((e) => e.event_type === 'syscall_mmap_exit' || e.event_type === 'syscall_munmap_enter').map((e) => {
      cum += e.event_type === 'syscall_mmap_exit' ? 4096 * 8 : -(e.count ?? 0);
      return { ts_ns: e.ts_ns, cumulative_bytes: cum };
    });
    return { by_operation: ops, total_alloc_ops: mm.total_ops, total_alloc_bytes: mm.total_bytes, total_free_ops: mu.total_ops, total_free_bytes: mu.total_bytes,
      cumulative_usage: usage, time_range_ns: [minTs, maxTs] };
  },
  event_list: (q) => {
    const tset = q.get('event_types') ? new Set(q.get('event_types').split(',')) : null;
    const l = inRange(q, pidOf(q)).filter((e) => !tset || tset.has(e.event_type));
    const off = Number(q.get('offset') ?? 0); const lim = Number(q.get('limit') ?? 50);
    return { events: l.slice(off, off + lim).map((e) => ({ latency_ns: null, ...e })), total_in_range: l.length };
  },
};
// An SVG laid out like inferno's (root "all" at the bottom, fg:x/fg:w sample offsets).
function infernoSvg(folded) {
  const root = { name: 'all', value: 0, kids: new Map() };
  for (const [k, n] of folded) {
    root.value += n;
    let node = root;
    for (const f of k.split(';')) {
      if (!node.kids.has(f)) node.kids.set(f, { name: f, value: 0, kids: new Map() });
      node = node.kids.get(f);
      node.value += n;
    }
  }
  const out = [];
  let depthMax = 0;
  const walk = (n, x, d) => {
    depthMax = Math.max(depthMax, d);
    out.push([n, x, d]);
    let cx = x;
    for (const c of [...n.kids.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) { walk(c, cx, d + 1); cx += c.value; }
  };
  walk(root, 0, 0);
  const esc = (t) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const g = out.map(([n, x, d]) => {
    const y = (depthMax - d) * 16 + 84;
    return `<g><title>${esc(n.name)} (${n.value} samples, ${((n.value / root.value) * 100).toFixed(2)}%)</title><rect x="${((x / root.value) * 100).toFixed(4)}%" y="${y}" width="${((n.value / root.value) * 100).toFixed(4)}%" height="15" fill="rgb(230,100,50)" fg:x="${x}" fg:w="${n.value}"/><text x="0" y="${y + 10}">${esc(n.name)}</text></g>`;
  });
  return `<?xml version="1.0" standalone="no"?><svg version="1.1" width="1200" height="${(depthMax + 1) * 16 + 120}" xmlns="http://www.w3.org/2000/svg" xmlns:fg="http://github.com/jonhoo/inferno"><text id="title" x="50%" y="24">probex</text><svg id="frames" x="10" width="1180" total_samples="${root.value}">${g.join('')}</svg></svg>`;
}
const types_ = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
http.createServer((req, res) => {
  const u = new URL(req.url, 'http://x');
  if (u.pathname.startsWith('/api/')) {
    const fn = api[u.pathname.slice(5)];
    if (!fn) { res.writeHead(404); return res.end('no such endpoint'); }
    const delay = Number(process.env.MOCK_DELAY_MS ?? 0);
    setTimeout(() => {
      try { const body = JSON.stringify(fn(u.searchParams)); res.writeHead(200, { 'content-type': 'application/json' }); res.end(body); }
      catch (e) { res.writeHead(500); res.end(String(e.stack)); }
    }, delay);
    return;
  }
  let f = path.join(dist, u.pathname === '/' ? 'index.html' : u.pathname);
  if (!fs.existsSync(f)) f = path.join(dist, 'index.html');
  res.writeHead(200, { 'content-type': types_[path.extname(f)] ?? 'application/octet-stream' });
  fs.createReadStream(f).pipe(res);
}).listen(Number(port), '127.0.0.1', function () {
  console.log(`probex: viewer at http://127.0.0.1:${this.address().port}/`);
});
