#!/usr/bin/env node
// Compare-mode benchmark: `probex --view NEW --base BASE` on two synthetic traces of N
// events (seeds 1 and 2) — time until the compare view is ready (NEW's event_list and the
// differential flame graph both answered: the stacks of both traces) against `probex
// --view NEW` alone (ready: event_list answered, which needs the stacks), and the median of
// /api/diff_flamegraph as the UI calls it (cpu_sample and off_cpu, max_stacks 5000).
//
//   node bench/compare_bench.mjs --probex build/probex --events N [--runs 3]
//        [--iterations 15] [--out build/bench/compare-bench.md]
//
// Traces are generated with `probex synth` when missing or older than probex.  Wall clock
// on the client; on a shared 2-core machine the figures are noisy.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const args = Object.fromEntries(process.argv.slice(2).reduce((a, x, i, all) =>
  (x.startsWith('--') ? [...a, [x.slice(2), all[i + 1]]] : a), []));
const probex = path.resolve(args.probex || 'build/probex');
const events = Number(args.events || 20000000);
const runs = Number(args.runs || 3);
const iterations = Number(args.iterations || 15);
const out = path.resolve(args.out || 'build/bench/compare-bench.md');
const dir = path.dirname(out);
const now = () => Number(process.hrtime.bigint()) / 1e6;
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };
const qs = (o) => Object.entries(o).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');

function trace(seed) {
  const f = path.join(dir, `synth-${events}-seed${seed}.parquet`);
  if (fs.existsSync(f) && fs.statSync(f).mtimeMs >= fs.statSync(probex).mtimeMs) return f;
  fs.mkdirSync(dir, { recursive: true });
  const r = spawnSync(probex, ['synth', '-o', f, '--force', '--events', String(events), '--seed', String(seed)], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('probex synth failed');
  return f;
}

function start(argv) {
  return new Promise((resolve, reject) => {
    const t0 = now();
    const child = spawn(probex, [...argv, '-p', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      const m = err.match(/viewer at (http:\/\/\S+?)\/?\n/);
      if (m && !child.base) { child.base = m[1]; resolve({ child, base: m[1], t0 }); }
    });
    child.on('exit', (c) => child.base || reject(new Error(`viewer exited ${c}: ${err}`)));
  });
}

async function fetchOk(url) {
  for (;;) {
    try {
      const r = await fetch(url);
      const body = await r.text();
      if (r.status === 200) return body;
      if (r.status !== 503) throw new Error(`${url}: HTTP ${r.status}: ${body.slice(0, 200)}`);
    } catch (e) {
      if (!/fetch failed/.test(String(e))) throw e;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

function stop(v) {
  const rss = Number(fs.readFileSync(`/proc/${v.child.pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/)[1]) * 1024;
  return new Promise((resolve) => { v.child.once('exit', () => resolve(rss)); v.child.kill('SIGINT'); });
}

const full = (s) => ({ start_ns: s.min_ts_ns, end_ns: s.max_ts_ns });
const diffUrl = (v, s, type) => `${v.base}/api/diff_flamegraph?${qs({ ...full(s), event_type: type, max_stacks: 5000 })}`;

// CPU seconds the viewer has used (user + system), to tell load from wall-clock noise.
function cpuSec(pid) {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

// One opening: ms until ready (and CPU-s by then), the viewer left running for the caller.
async function open(argv, compare) {
  const v = await start(argv);
  const s = JSON.parse(await fetchOk(`${v.base}/api/summary`));
  const list = fetchOk(`${v.base}/api/event_list?${qs({ ...full(s), pid: s.unique_pids[0], limit: 1, offset: 0 })}`);
  await Promise.all([list, ...(compare ? [fetchOk(diffUrl(v, s, 'cpu_sample'))] : [])]);
  return { v, s, ms: now() - v.t0, cpu: cpuSec(v.child.pid) };
}

async function main() {
  const base = trace(2);
  const neu = trace(1);
  const alone = [], both = [], cpuAlone = [], cpuBoth = [];
  let rssAlone = 0, rssBoth = 0, diffs = {};
  for (let i = 0; i < runs; i++) {
    const a = await open(['--view', neu], false);
    alone.push(a.ms);
    cpuAlone.push(a.cpu);
    rssAlone = Math.max(rssAlone, await stop(a.v));
    const b = await open(['--view', neu, '--base', base], true);
    both.push(b.ms);
    cpuBoth.push(b.cpu);
    if (i === runs - 1) {
      for (const type of ['cpu_sample', 'off_cpu']) {
        const t = [];
        const c0 = cpuSec(b.v.child.pid);
        for (let k = 0; k < iterations; k++) {
          const t0 = now();
          await fetchOk(diffUrl(b.v, b.s, type));
          t.push(now() - t0);
        }
        diffs[type] = { wall: median(t), cpu: ((cpuSec(b.v.child.pid) - c0) / iterations) * 1000 };
      }
    }
    rssBoth = Math.max(rssBoth, await stop(b.v));
  }
  const m = `${events / 1e6}M`;
  const sec = (ms) => `${(ms / 1000).toFixed(2)} s`;
  const rows = [
    ['| what | value | target | note |', '|---|---|---|---|'],
    [`| viewer ready, NEW alone, ${m} events | ${sec(median(alone))} |  | median of ${runs}; ${median(cpuAlone).toFixed(1)} CPU-s |`],
    [`| compare viewer ready (NEW's event_list and the diff flame graph answered), 2 x ${m} | ${sec(median(both))} | <= 1.5x alone |` +
      ` ${(median(both) / median(alone)).toFixed(2)}x; ${median(cpuBoth).toFixed(1)} CPU-s (${(median(cpuBoth) / median(cpuAlone)).toFixed(2)}x); 2 cores, load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]} |`],
    ...['cpu_sample', 'off_cpu'].map((t) => `| diff_flamegraph median, ${t}, full range, 2 x ${m} | ${diffs[t].wall.toFixed(0)} ms |` +
      ` <= 200 ms | ${iterations} calls; ${diffs[t].cpu.toFixed(0)} CPU-ms a call |`),
    [`| peak RSS, NEW alone / compare | ${(rssAlone / 2 ** 20).toFixed(0)} / ${(rssBoth / 2 ** 20).toFixed(0)} MiB |  |  |`],
  ].flat();
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(out, rows.join('\n') + '\n');
  console.log(rows.join('\n'));
}

main().catch((e) => { console.error(e); process.exit(1); });
