#!/usr/bin/env node
// Viewer benchmark: start `probex --view` on a synthetic trace and time every endpoint as
// the web UI calls it (full range and sub-ranges), startup, and peak memory.
//
//   node bench/viewer_bench.mjs --probex build/probex --trace FILE [--events N]
//        [--iterations 15] [--out build/bench/viewer-bench.txt]
//
// The trace is generated with `probex synth` when FILE does not exist or is older than
// probex.  Timings are wall clock on the client, full response read; on a shared 2-core
// machine they are noisy.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const args = Object.fromEntries(process.argv.slice(2).reduce((a, x, i, all) =>
  (x.startsWith('--') ? [...a, [x.slice(2), all[i + 1]]] : a), []));
const probex = path.resolve(args.probex || 'build/probex');
const events = Number(args.events || 10000000);
const trace = path.resolve(args.trace || `build/bench/synth-${events}.parquet`);
const iterations = Number(args.iterations || 15);
const out = path.resolve(args.out || 'build/bench/viewer-bench.txt');
const now = () => Number(process.hrtime.bigint()) / 1e6;

function generate() {
  // A trace older than the probex that reads it may lack columns this one writes (and
  // reads faster): made again.
  if (fs.existsSync(trace) && fs.statSync(trace).mtimeMs >= fs.statSync(probex).mtimeMs) return null;
  fs.mkdirSync(path.dirname(trace), { recursive: true });
  const t = now();
  const r = spawnSync(probex, ['synth', '-o', trace, '--force', '--events', String(events), '--seed', '1'], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('probex synth failed');
  return now() - t;
}

function start() {
  return new Promise((resolve, reject) => {
    const t0 = now();
    const child = spawn(probex, ['--view', trace, '-p', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      const m = err.match(/viewer at (http:\/\/\S+?)\/?\n/);
      if (m && !child.base) { child.base = m[1]; resolve({ child, base: m[1], t0 }); }
    });
    child.on('exit', (c) => reject(new Error(`viewer exited ${c}: ${err}`)));
  });
}

async function fetchText(url) {
  const r = await fetch(url);
  const body = await r.text();
  if (r.status !== 200) throw new Error(`${url}: HTTP ${r.status}: ${body.slice(0, 200)}`);
  return body;
}

async function waitFor(url) {
  for (;;) {
    try { return await fetchText(url); } catch { await new Promise((r) => setTimeout(r, 20)); }
  }
}

function peakRss(pid) {
  const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(s.match(/VmHWM:\s+(\d+) kB/)[1]) * 1024;
}

const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]; };
const qs = (o) => Object.entries(o).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');

async function main() {
  const genMs = generate();
  const v = await start();
  const summaryText = await waitFor(`${v.base}/api/summary`);
  const tSummary = now() - v.t0;
  const s = JSON.parse(summaryText);
  const full = { start_ns: s.min_ts_ns, end_ns: s.max_ts_ns };
  // Full readiness: an endpoint that needs the stacks (the second pass over the file).
  await fetchText(`${v.base}/api/event_list?${qs({ ...full, pid: s.unique_pids[0], limit: 1, offset: 0 })}`);
  const tReady = now() - v.t0;

  // The busiest pid, as a user would pick it.
  let busiest = s.unique_pids[0], most = -1;
  for (const pid of s.unique_pids) {
    const c = JSON.parse(await fetchText(`${v.base}/api/pid_event_type_counts?pid=${pid}`)).counts;
    const n = Object.values(c).reduce((a, b) => a + b, 0);
    if (n > most) { most = n; busiest = pid; }
  }
  const span = s.max_ts_ns - s.min_ts_ns;
  const mid = (f) => ({ start_ns: s.min_ts_ns + Math.floor(span * (0.5 - f / 2)), end_ns: s.min_ts_ns + Math.floor(span * (0.5 + f / 2)) });
  const w10 = mid(0.1), w1 = mid(0.01);
  const ui = (w, pid) => [
    ['process_events', { ...w, max_events_per_pid: 500 }],
    [pid ? 'pid_event_type_counts' : 'event_type_counts', { pid, ...w }],
    ['syscall_latency_stats', { ...w, pid }],
    ['io_statistics', { ...w, pid, max_points: 1000 }],
    ['memory_statistics', { ...w, pid, max_points: 1000 }],
  ];
  const cases = [
    ['full', 'summary', {}],
    ['full', 'process_lifetimes', {}],
    ['full', 'histogram', { ...full, num_buckets: 80 }],
    ['full', 'event_type_counts', full],
    ['full', 'pid_event_type_counts', { pid: busiest, ...full }],
    ['full', 'syscall_latency_stats', full],
    ['full', 'process_events', { ...full, max_events_per_pid: 500 }],
    ['full', 'event_flamegraph', { ...full, pid: busiest, event_type: 'cpu_sample', max_stacks: 5000 }],
    ['full', 'event_flamegraph', { ...full, event_type: 'cpu_sample', max_stacks: 5000 }],
    ['full', 'io_statistics', { ...full, max_points: 1000 }],
    ['full', 'memory_statistics', { ...full, max_points: 1000 }],
    ['full', 'event_list', { ...full, pid: busiest, limit: 50, offset: 0 }],
    ['full', 'event_list', { ...full, pid: busiest, limit: 50, offset: 100000, event_types: 'syscall_read_enter,syscall_read_exit,page_fault' }],
    ['full', 'thread_states', { ...full, tid: busiest, max_spans: 2000 }],
    ['full', 'critical_path', { tid: busiest }],
    ['full', 'wall_flamegraph', { ...full, tid: busiest }],
    ['full, compat', 'io_statistics', full],
    ['full, compat', 'memory_statistics', full],
    ['full, pid', 'syscall_latency_stats', { ...full, pid: busiest }],
    ['full, pid', 'io_statistics', { ...full, pid: busiest, max_points: 1000 }],
    ['full, pid', 'memory_statistics', { ...full, pid: busiest, max_points: 1000 }],
    ['10%', 'histogram', { ...w10, num_buckets: 80 }],
    ...ui(w10).map(([e, p]) => ['10%', e, p]),
    ['10%', 'event_flamegraph', { ...w10, pid: busiest, event_type: 'cpu_sample', max_stacks: 5000 }],
    ['10%', 'event_list', { ...w10, pid: busiest, limit: 50, offset: 0 }],
    ...ui(w1, busiest).map(([e, p]) => ['1%, pid', e, p]),
  ];

  const rows = [];
  for (const [scope, ep, params] of cases) {
    const url = `${v.base}/api/${ep}${Object.keys(params).length ? '?' + qs(params) : ''}`;
    let bytes = 0;
    for (let i = 0; i < 2; i++) await fetchText(url);
    const ms = [];
    for (let i = 0; i < iterations; i++) {
      const t = now();
      bytes = (await fetchText(url)).length;
      ms.push(now() - t);
    }
    const extra = params.pid !== undefined ? ' pid' : '';
    const label = ep + (params.max_points ? '' : (ep.endsWith('statistics') ? ' (all points)' : '')) +
      (params.event_types ? ' (types, offset 100000)' : '') + (ep === 'event_flamegraph' && params.pid === undefined ? ' (all pids)' : '');
    rows.push({ scope, endpoint: label, median: pct(ms, 0.5), p95: pct(ms, 0.95), bytes, extra });
  }

  // The UI's debounced batch: all at once.
  const batch = ui(full, busiest).concat([['event_flamegraph', { ...full, pid: busiest, event_type: 'cpu_sample', max_stacks: 5000 }]])
    .map(([e, p]) => `${v.base}/api/${e}?${qs(p)}`);
  const batchMs = [];
  for (let i = 0; i < Math.max(5, Math.floor(iterations / 2)); i++) {
    const t = now();
    await Promise.all(batch.map(fetchText));
    batchMs.push(now() - t);
  }
  const rss = peakRss(v.child.pid);
  v.child.kill('SIGINT');

  const lines = [];
  const cpu = os.cpus();
  lines.push(`probex viewer benchmark — ${new Date().toISOString()}`);
  lines.push(`trace: ${trace} (${s.total_events} events, ${s.unique_pids.length} pids, ${(fs.statSync(trace).size / 1e6).toFixed(0)} MB)`);
  lines.push(`machine: ${cpu.length} x ${cpu[0].model}, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  if (genMs !== null) lines.push(`synth: ${(genMs / 1000).toFixed(1)} s`);
  lines.push(`startup: first /api/summary ${(tSummary / 1000).toFixed(2)} s; all endpoints ready ${(tReady / 1000).toFixed(2)} s`);
  lines.push(`peak RSS: ${(rss / 2 ** 20).toFixed(0)} MiB (${(rss / s.total_events).toFixed(0)} B/event; target 60)`);
  lines.push(`iterations: ${iterations} per endpoint (after 2 warm-ups); busiest pid ${busiest}`);
  lines.push('');
  lines.push('| scope | endpoint | median ms | p95 ms | response |');
  lines.push('|---|---|---:|---:|---:|');
  for (const r of rows)
    lines.push(`| ${r.scope} | ${r.endpoint} | ${r.median.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.bytes >= 1e6 ? (r.bytes / 1e6).toFixed(1) + ' MB' : (r.bytes / 1e3).toFixed(1) + ' kB'} |`);
  lines.push(`| full, pid | UI batch of ${batch.length} at once (wall) | ${pct(batchMs, 0.5).toFixed(1)} | ${pct(batchMs, 0.95).toFixed(1)} | |`);
  const text = lines.join('\n') + '\n';
  process.stdout.write(text);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, text);
  fs.writeFileSync(out.replace(/\.txt$/, '') + '.json', JSON.stringify({ trace, events: s.total_events, startup_summary_ms: tSummary,
    startup_ready_ms: tReady, peak_rss_bytes: rss, synth_ms: genMs, rows, batch_ms: batchMs }, null, 1));
}

main().catch((e) => { console.error(e); process.exit(1); });
