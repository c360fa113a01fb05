// Browser tests of the process view a Perfetto or Firefox Profiler user expects, on a trace
// recorded here (root: real BPF) of tests/fixtures/threeworkers.c: three CPU-bound worker
// threads (one waits on a mutex first), a thread that only sleeps, and a main thread that
// opens a missing file, writes and fsyncs one, then joins them.  Covers: the whole-trace
// flamegraph with nothing selected, a process row standing for its threads, the picker's
// threads beneath their process, CPU and wall time per row and the tree sorted by them,
// syscall spans on the lanes with their details, the overview's CPU series and drag-select,
// W/S/A/D and Ctrl+wheel, ms in the call tree, the icicle fitting the panel, the event menu,
// a thread without CPU samples opening on off-CPU time, the sandwich view, and the Events
// tab (sort by latency, search by type, thread, path or frame, first user frame, errno
// names, jump to the time).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { openSession, waitIdle, shot, root } from './lib.mjs';

const probex = path.resolve(root, process.env.PROBEX || 'build/probex');
const fixture = path.resolve(root, process.env.THREEWORKERS || 'build/fixtures/threeworkers');
const trace = path.resolve(root, 'build/e2e/threeworkers.parquet');
const isRoot = process.getuid?.() === 0;
const skip = isRoot ? false : 'recording the fixture needs root';

let session;
let page;
let errors;
let tids = {};

const idle = async () => {
  await waitIdle(page);
  await page.waitForFunction(() => window.__probex.res.spans.status !== 'loading' && window.__probex.res.states.status !== 'loading', null, { timeout: 30000 });
};
const state = (k) => page.evaluate((key) => window.__probex.state[key], k);
const range = () => page.evaluate(() => ({ ...window.__probex.state.range }));
const lastRequest = (ep) => page.evaluate((e) => [...window.__probex.requests].reverse().find((u) => u.startsWith(`/api/${e}?`)) ?? '', ep);

before(async () => {
  if (!isRoot) return;
  fs.mkdirSync(path.dirname(trace), { recursive: true });
  const out = execFileSync(probex, ['-o', trace, '--force', '--no-viewer', '--', fixture, '300', path.join(path.dirname(trace), 'threeworkers.dat')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  for (const k of ['main', 'holder', 'spinner', 'waiter', 'sleeper']) tids[k] = Number(new RegExp(`${k}=(\\d+)`).exec(out)?.[1]);
  assert.ok(Object.values(tids).every((t) => t > 0), `the fixture printed its thread ids: ${out}`);
  session = await openSession({ file: trace });
  ({ page, errors } = session);
  await page.goto(session.viewer.url);
  await page.waitForSelector('[data-testid=lanes] .row');
  await idle();
});

after(async () => {
  await session?.close();
});

async function clearSelection() {
  await page.evaluate(() => window.__probex.select(null));
  await page.waitForFunction(() => window.__probex.state.pid === null);
}

test('nothing selected: the panel covers the whole trace, its flamegraph the workers\' spin_work, in ms', { skip }, async () => {
  await page.waitForSelector('[data-testid=panel-scope]');
  assert.match(await page.locator('[data-testid=panel-scope]').innerText(), /All processes/);
  await page.waitForFunction(() => window.__probex.res.flame.status === 'ok' && window.__probex.res.flame.data?.event_type === 'cpu_sample');
  const req = await lastRequest('event_flamegraph');
  assert.doesNotMatch(req, /[?&](pid|tgid)=/, `whole trace: ${req}`);
  await page.waitForFunction(() => (window.__probex.flameFrame('spin_work')?.w ?? 0) > 300, null, { timeout: 30000 });
  assert.equal(await state('flameInverted'), true, 'icicle (root on top) by default');
  // The graph scrolls inside the panel instead of growing the page.
  const sc = await page.locator('[data-testid=flame-scroll]').evaluate((e) => getComputedStyle(e).overflowY);
  assert.equal(sc, 'auto');
  const head = await page.locator('[data-testid=calltree] thead').innerText();
  assert.match(head, /Total \(ms\)/);
  assert.match(head, /Samples/);
  const spin = page.locator('[data-testid=calltree] tr', { hasText: 'spin_work' }).first();
  const cells = await spin.locator('td').allInnerTexts();
  const ms = Number(cells[0].replace(/,/g, ''));
  const samples = Number(cells[2].replace(/,/g, ''));
  const hz = await page.evaluate(() => window.__probex.state.summary.cpu_sample_frequency_hz);
  assert.ok(ms > 50, `the workers spin (on a loaded machine, less than their 3 × 300 ms): ${ms} ms`);
  assert.ok(Math.abs(ms - (samples * 1000) / hz) <= Math.max(1, ms * 0.01), `ms = samples × period: ${cells}`);
  await shot(page, 'pv-01-whole-trace');
  assert.deepEqual(errors, []);
});

test('header counts processes and threads apart; lanes carry CPU time; the tree sorts by CPU time', { skip }, async () => {
  const head = await page.locator('[data-testid=header-figures]').innerText();
  assert.match(head, /Processes\s*1\b/);
  assert.match(head, /Threads\s*5\b/);
  await page.waitForFunction((m) => /CPU \d/.test(document.querySelector(`.row[data-pid="${m}"] [data-testid=lane-times]`)?.textContent ?? ''), tids.main, { timeout: 30000 });
  assert.match(await page.locator(`.row[data-pid="${tids.main}"] [data-testid=lane-times]`).innerText(), /5 thr/);
  await page.selectOption('[data-testid=tree-sort]', 'cpu');
  await page.waitForFunction(() => window.__probex.state.treeSort === 'cpu');
  const order = await page.evaluate(() => [...document.querySelectorAll('[data-testid=rows] .row')].map((r) => Number(r.dataset.pid)));
  assert.equal(order[0], tids.main, 'the process first');
  assert.equal(order[order.length - 1], tids.sleeper, `the sleeper has the least CPU: ${order}`);
  await shot(page, 'pv-02-tree-by-cpu');
  await page.selectOption('[data-testid=tree-sort]', 'start');
});

test('the picker lists the process with its threads beneath it', { skip }, async () => {
  await page.click('[data-testid=pid-input]');
  await page.waitForSelector('[data-testid=pid-list] .opt');
  const opts = await page.evaluate(() => [...document.querySelectorAll('[data-testid=pid-list] .opt')].map((o) => ({ pid: o.dataset.pid, thread: o.classList.contains('thread'), text: o.textContent })));
  const i = opts.findIndex((o) => o.pid === String(tids.main));
  assert.ok(i > 0 && !opts[i].thread && /5 threads/.test(opts[i].text), JSON.stringify(opts[i]));
  const beneath = opts.slice(i + 1, i + 5);
  assert.ok(beneath.every((o) => o.thread), 'its four other threads follow it, marked as threads');
  assert.deepEqual(new Set(beneath.map((o) => Number(o.pid))), new Set([tids.holder, tids.spinner, tids.waiter, tids.sleeper]));
  await shot(page, 'pv-03-picker');
  await page.keyboard.press('Escape');
});

test('a process row scopes to all its threads (tgid=), a thread row to that thread', { skip }, async () => {
  await page.locator(`.row[data-pid="${tids.main}"] .nameblk`).click();
  await page.waitForFunction((m) => window.__probex.state.pid === m, tids.main);
  assert.match(await page.locator('[data-testid=panel-scope]').innerText(), /Process .* all 5 threads/);
  await idle();
  const tg = await page.evaluate(() => Array.isArray(window.__probex.state.summary.unique_tgids));
  const req = await lastRequest('event_flamegraph');
  // A server with tgid= is asked for the process; an older one for its main thread.
  assert.match(req, tg ? new RegExp(`[?&]tgid=${tids.main}\\b`) : new RegExp(`[?&]pid=${tids.main}\\b`), req);
  await page.locator(`.row[data-pid="${tids.spinner}"] .nameblk`).click();
  await page.waitForFunction((m) => window.__probex.state.pid === m, tids.spinner);
  assert.match(await page.locator('[data-testid=panel-scope]').innerText(), new RegExp(`Thread .* TID ${tids.spinner} of PID ${tids.main}`));
  await idle();
  assert.match(await lastRequest('event_flamegraph'), new RegExp(`[?&]pid=${tids.spinner}\\b`));
  await shot(page, 'pv-04-thread');
});

test('the event menu lists the types with stacks, CPU and off-CPU first', { skip }, async () => {
  await page.waitForFunction(() => {
    const o = [...document.querySelectorAll('[data-testid=flame-type] option')].map((x) => x.value);
    return o.length > 1 && !o.includes('syscall_clone3_enter') && !o.includes('process_exec');
  }, null, { timeout: 30000 });
  const opts = await page.evaluate(() => [...document.querySelectorAll('[data-testid=flame-type] option')].map((x) => x.value));
  assert.equal(opts[0], 'cpu_sample', opts.join(','));
});

test('a thread without CPU samples opens on its off-CPU time', { skip }, async () => {
  // The sleeper's one long wait ends at its off_cpu row: the window up to it has no samples.
  const t = await page.evaluate(async (tid) => {
    const s = window.__probex.state.summary;
    const r = await fetch(`/api/event_list?start_ns=${s.min_ts_ns}&end_ns=${s.max_ts_ns}&pid=${tid}&limit=10&offset=0&event_types=off_cpu&order=latency`).then((x) => x.json());
    return r.events[0];
  }, tids.sleeper);
  assert.ok(t && t.latency_ns > 100e6, `the sleeper slept: ${JSON.stringify(t)}`);
  await page.locator(`.row[data-pid="${tids.sleeper}"] .nameblk`).click();
  await page.evaluate(([a, b]) => window.__probex.setRange(a, b), [t.ts_ns - t.latency_ns + 1e6, t.ts_ns]);
  await page.waitForFunction(() => window.__probex.state.flameType === 'off_cpu', null, { timeout: 30000 });
  await page.waitForSelector('[data-testid=flame-note]:visible');
  await idle();
  await shot(page, 'pv-05-offcpu-default');
  await page.evaluate(() => window.__probex.resetRange());
  await page.waitForFunction(() => window.__probex.state.flameType === 'cpu_sample' || window.__probex.state.flameType === 'off_cpu');
});

test('syscalls are spans on their lane: hover gives the latency, a click its details', { skip }, async () => {
  await clearSelection();
  await page.evaluate(() => window.__probex.resetRange());
  await idle();
  // main's pthread_join waits ~300 ms in futex: a span on its lane.
  await page.waitForFunction((m) => window.__probex.opSpans(m).some((s) => s.ev.event_type === 'syscall_futex_exit' && s.end - s.start > 100e6), tids.main, { timeout: 30000 });
  const sp = await page.evaluate((m) => window.__probex.opSpans(m).filter((s) => s.ev.event_type === 'syscall_futex_exit').sort((a, b) => b.end - b.start - (a.end - a.start))[0], tids.main);
  await page.locator(`.row[data-pid="${tids.main}"] .lane`).scrollIntoViewIfNeeded();
  const box = await page.locator(`.row[data-pid="${tids.main}"] .lane`).boundingBox();
  const r = await range();
  const x = box.x + (((sp.start + sp.end) / 2 - r.start) / (r.end - r.start)) * box.width;
  await page.mouse.move(x, box.y + 16);
  await page.waitForSelector('.tip:visible', { timeout: 5000 });
  const tip = await page.evaluate(() => document.querySelector('.tip')?.textContent ?? '');
  assert.match(tip, /futex \d+(\.\d+)? ms/, tip);
  await page.mouse.click(x, box.y + 16);
  await page.waitForSelector('[data-testid=op-detail]:visible');
  assert.match(await page.locator('[data-testid=op-detail-title]').innerText(), /^futex · \d+(\.\d+)? ms/);
  // The row's fields (arguments, return) are read on the click.
  await page.waitForFunction(() => /(^|\n)ret\s/.test(document.querySelector('[data-testid=op-detail-facts]')?.innerText ?? ''));
  const facts = await page.locator('[data-testid=op-detail-facts]').innerText();
  assert.match(facts, /latency/);
  assert.match(facts, /ret\s*0/);
  assert.match(await page.locator('[data-testid=op-stack]').innerText(), /pthread|main/);
  await shot(page, 'pv-06-span-detail');
  await page.click('[data-testid=op-detail-close]');
});

test('overview: CPU activity series, per-process on hover; a drag at full range selects a range', { skip }, async () => {
  await page.waitForFunction(() => Number(document.querySelector('[data-testid=overview] canvas').dataset.cpuMax) > 0);
  await page.locator('[data-testid=overview]').scrollIntoViewIfNeeded();
  const box = await page.locator('[data-testid=overview]').boundingBox();
  const y = box.y + box.height / 2;
  // The bucket with the most CPU samples.
  const busiest = await page.evaluate(() => {
    const d = window.__probex.res.overview.data;
    const b = d.buckets.reduce((a, x) => ((x.counts_by_type.cpu_sample ?? 0) > (a.counts_by_type.cpu_sample ?? 0) ? x : a));
    const s = window.__probex.state.summary;
    return ((b.bucket_start_ns + b.bucket_end_ns) / 2 - s.min_ts_ns) / (s.max_ts_ns - s.min_ts_ns);
  });
  await page.mouse.move(box.x + box.width * busiest, y);
  const tip = await (await page.waitForFunction(() => {
    const t = document.querySelector('.tip')?.textContent ?? '';
    return /^CPU [\d,]+ samples/m.test(t) && t;
  })).jsonValue();
  assert.match(tip, /threeworkers \(PID \d+\): \d+ samples/, tip);
  await shot(page, 'pv-07-overview-hover');
  const full = await range();
  await page.mouse.move(box.x + box.width * 0.3, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.5, y, { steps: 5 });
  await page.mouse.up();
  await page.waitForFunction((w) => window.__probex.state.range.end - window.__probex.state.range.start < w * 0.5, full.end - full.start);
  const sel = await range();
  const f = (ns) => (ns - full.start) / (full.end - full.start);
  assert.ok(Math.abs(f(sel.start) - 0.3) < 0.02 && Math.abs(f(sel.end) - 0.5) < 0.02, JSON.stringify(sel));
  await shot(page, 'pv-08-overview-selected');
});

test('W/S zoom at the pointer, A/D pan, Ctrl+wheel zooms the lanes at the pointer', { skip }, async () => {
  await page.evaluate(() => window.__probex.resetRange());
  await page.locator(`.row[data-pid="${tids.main}"] .lane`).scrollIntoViewIfNeeded();
  const box = await page.locator(`.row[data-pid="${tids.main}"] .lane`).boundingBox();
  const full = await range();
  const px = box.x + box.width * 0.25;
  await page.mouse.move(px, box.y + 15);
  const at = full.start + (full.end - full.start) * 0.25;
  await page.keyboard.press('w');
  const z = await range();
  assert.ok(z.end - z.start < full.end - full.start, 'w zooms in');
  assert.ok(Math.abs((at - z.start) / (z.end - z.start) - 0.25) < 0.02, 'the time under the pointer stays put');
  await page.keyboard.press('d');
  const p = await range();
  assert.ok(p.start > z.start && p.end - p.start === z.end - z.start, 'd pans right');
  await page.keyboard.press('a');
  assert.ok((await range()).start < p.start, 'a pans left');
  await page.keyboard.press('s');
  assert.ok((await range()).end - (await range()).start > z.end - z.start, 's zooms out');
  const before = await range();
  await page.keyboard.down('Control');
  await page.mouse.wheel(0, -400);
  await page.keyboard.up('Control');
  await page.waitForFunction((w) => window.__probex.state.range.end - window.__probex.state.range.start < w, before.end - before.start);
  await page.evaluate(() => window.__probex.resetRange());
});

test('sandwich: right-click a frame for its callers and callees over every call path', { skip }, async () => {
  await clearSelection();
  await page.waitForFunction(() => (window.__probex.flameFrame('spin_work')?.w ?? 0) > 300, null, { timeout: 30000 });
  const hit = await page.evaluate(() => window.__probex.flameFrame('spin_work'));
  const cb = await page.locator('[data-testid=flame-canvas]').boundingBox();
  await page.mouse.click(cb.x + hit.x + Math.min(20, hit.w / 2), cb.y + hit.y + 5, { button: 'right' });
  await page.waitForSelector('[data-testid=sandwich]');
  assert.match(await page.locator('[data-testid=sandwich-title]').innerText(), /^spin_work · total/);
  const callers = await page.locator('[data-testid=sandwich-callers] tbody').innerText();
  assert.match(callers, /spin_work[\s\S]*worker/, 'worker calls spin_work');
  await shot(page, 'pv-09-sandwich');
  // The view and its function are in the URL, so a link opens the same sandwich.
  const q = new URLSearchParams(await page.evaluate(() => window.__probex.query()));
  assert.equal(q.get('fv'), 'sandwich');
  assert.equal(q.get('fn'), 'spin_work');
  await page.click('[data-testid=flame-view]');
  await page.waitForSelector('[data-testid=flame-canvas]');
});

test('events: sorted by latency, searched, first user frame, errno names, no plumbing, jump to the time', { skip }, async () => {
  await page.locator(`.row[data-pid="${tids.main}"] .nameblk`).click();
  await page.waitForFunction((m) => window.__probex.state.pid === m, tids.main);
  await page.evaluate(() => window.__probex.setEnabled('all'));
  await page.click('[data-testid=panel] button[data-tab=events]');
  await page.waitForSelector('[data-testid=event-row]');
  await page.click('[data-testid=sort-latency]');
  await page.waitForFunction(() => window.__probex.res.events.params?.order === 'latency' && window.__probex.res.events.status === 'ok');
  await page.waitForSelector('[data-testid=event-row]');
  const lat = await page.locator('[data-testid=event-latency]').allInnerTexts();
  const ms = lat.filter((x) => x).map((x) => parseFloat(x));
  assert.ok(ms[0] > 100, `the longest first: ${lat.slice(0, 3)}`);
  assert.deepEqual([...ms].sort((a, b) => b - a), ms, 'descending');
  const leaf = await page.locator('[data-testid=event-row]').first().locator('[data-testid=event-leaf]').innerText();
  assert.doesNotMatch(leaf, /syscall_exit_work|^—$/, `the first user frame: ${leaf}`);
  const table = await page.locator('[data-testid=events-table]').innerText();
  assert.doesNotMatch(table, /stack_trace_id|syscall_nr/);
  await shot(page, 'pv-10-events-by-latency');
  await page.fill('[data-testid=events-search]', 'openat');
  await page.waitForFunction(() => window.__probex.res.events.params?.search === 'openat' && window.__probex.res.events.status === 'ok');
  const rows = await page.locator('[data-testid=event-row]').allInnerTexts();
  // The type, or a frame (a CPU sample inside do_sys_openat2) holds the text.
  assert.ok(rows.filter((r) => /syscall_openat_(enter|exit)/.test(r)).length >= 4, rows.join('\n'));
  assert.ok(rows.every((r) => !/syscall_write_exit/.test(r)), 'no unrelated rows');
  assert.ok(rows.some((r) => /ret=-1 ENOENT/.test(r)), `the missing file's open reads -1 ENOENT: ${rows.join('\n')}`);
  await shot(page, 'pv-11-events-search');
  // A path: the file main writes and fsyncs, named by its open.
  await page.fill('[data-testid=events-search]', 'threeworkers.dat');
  await page.waitForFunction(() => window.__probex.res.events.params?.search === 'threeworkers.dat' && window.__probex.res.events.status === 'ok');
  const byPath = await page.locator('[data-testid=event-row]').allInnerTexts();
  assert.ok(byPath.some((r) => /syscall_openat_enter.*threeworkers\.dat/.test(r)), byPath.join('\n'));
  const before = await range();
  await page.locator('[data-testid=event-jump]').first().click();
  await page.waitForFunction((w) => window.__probex.state.range.end - window.__probex.state.range.start < w, before.end - before.start);
  await page.fill('[data-testid=events-search]', '');
  assert.deepEqual(errors, []);
});
