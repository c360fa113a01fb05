// Browser tests of the wall-clock views on a trace recorded here (root: real BPF) of
// tests/fixtures/waitchain.c, where main waits on a pipe for a worker, which waits on a mutex
// a holder thread keeps while it spins in hog_cpu and sleeps: thread-state strips (hover, click a
// blocked span: its stacks, its waker, the arrow to the waker's lane), the Critical path
// tab and its track, the call tree beside the flamegraph, off-CPU weights read as time.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { openSession, waitIdle, shot, root } from './lib.mjs';

const probex = path.resolve(root, process.env.PROBEX || 'build/probex');
const relay = path.resolve(root, process.env.RELAY || 'build/fixtures/waitchain');
// hog_cpu 120 ms, then sleep 60 ms while holding the mutex.
const relayArgs = ['120', '60'];
const trace = path.resolve(root, 'build/e2e/relay.parquet');
const isRoot = process.getuid?.() === 0;

let session;
let page;
let errors;
let tids = {};

const idle = () => waitIdle(page);

before(async () => {
  if (!isRoot) return;
  fs.mkdirSync(path.dirname(trace), { recursive: true });
  const out = execFileSync(probex, ['-o', trace, '--force', '--no-viewer', '--', relay, ...relayArgs], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const id = (k) => Number(new RegExp(`${k}=(\\d+)`).exec(out)?.[1]);
  tids = { main: id('pid'), holder: id('holder'), worker: id('worker') };
  assert.ok(tids.main > 0 && tids.holder > 0 && tids.worker > 0, `relay printed its thread ids: ${out}`);
  session = await openSession({ file: trace });
  ({ page, errors } = session);
  await page.goto(session.viewer.url);
  await page.waitForSelector('[data-testid=lanes] .row');
  await idle();
  const lanes = await page.evaluate(() => window.__probex.state.processes.map((p) => p.pid));
  for (const t of Object.values(tids)) assert.ok(lanes.includes(t), `thread ${t} has a lane: ${lanes}`);
});

after(async () => {
  await session?.close();
});

const skip = isRoot ? false : 'recording the fixture needs root';

/** Lane box of a thread and the x of ns inside it. */
async function laneAt(tid, ns) {
  const box = await page.locator(`.row[data-pid="${tid}"] .lane`).boundingBox();
  const r = await page.evaluate(() => window.__probex.state.range);
  return { box, x: box.x + ((ns - r.start) / (r.end - r.start)) * box.width };
}

/** Until the flamegraph (and so the call tree) shows type for pid. */
async function flameFor(type, pid) {
  await page.waitForFunction(
    ([t, p]) => {
      const f = window.__probex.res.flame;
      return f.status === 'ok' && f.data.event_type === t && Number(f.params.pid ?? f.params.tgid) === p;
    },
    [type, pid],
    { timeout: 30000 },
  );
  await page.waitForSelector('[data-testid=calltree] tbody tr td.fn');
}

async function spansOf(tid) {
  await page.waitForFunction((t) => (window.__probex.threadStates(t) ?? []).length > 0, tid, { timeout: 30000 });
  return page.evaluate((t) => window.__probex.threadStates(t), tid);
}

test('thread lanes draw state spans; hover names state, duration, syscall and waker', { skip }, async () => {
  const spans = await spansOf(tids.main);
  const states = new Set(spans.map((s) => s.state));
  assert.ok(states.has('running'), `main runs: ${[...states]}`);
  for (let i = 1; i < spans.length; i++) assert.ok(spans[i].start_ns >= spans[i - 1].end_ns, 'spans sorted, not overlapping');
  // The long wait on the pipe: main sleeps ~100 ms, woken by worker.
  const wait = spans.filter((s) => s.state === 'sleeping').sort((a, b) => b.end_ns - b.start_ns - (a.end_ns - a.start_ns))[0];
  assert.ok(wait && wait.end_ns - wait.start_ns > 50e6, `a long sleep: ${JSON.stringify(wait)}`);
  const { box, x } = await laneAt(tids.main, (wait.start_ns + wait.end_ns) / 2);
  await page.mouse.move(x, box.y + 3);
  const tip = page.locator('.tip');
  await tip.waitFor({ state: 'visible' });
  const text = await tip.innerText();
  assert.match(text, /sleeping/);
  assert.match(text, /\d+\.\d+ ms/);
  if (wait.syscall) assert.ok(text.includes(wait.syscall.name ?? wait.syscall), `syscall in the tip: ${text}`);
  if (wait.waker_tid) assert.ok(text.includes(`TID ${wait.waker_tid}`), `waker in the tip: ${text}`);
  await shot(page, '60-wall-states-hover');
  // The strip is drawn: its top rows of pixels are not the lane's plain background.
  const colors = await page.evaluate((t) => {
    const c = document.querySelector(`.row[data-pid="${t}"] .lane canvas`);
    const d = c.getContext('2d').getImageData(0, 2, c.width, 1).data;
    const seen = new Set();
    for (let i = 0; i < d.length; i += 4) seen.add(`${d[i]},${d[i + 1]},${d[i + 2]}`);
    return seen.size;
  }, tids.main);
  assert.ok(colors >= 2, `the state strip has several colours (${colors})`);
  // Zooming asks for the states of the new window, as finely as before.
  await page.mouse.move(5, 5);
  await page.keyboard.press('+');
  await page.waitForFunction(() => {
    const r = window.__probex.state.range;
    return window.__probex.requests.some((u) => u.startsWith('/api/thread_states') && u.includes(`start_ns=${r.start}&end_ns=${r.end}`));
  });
  await waitIdle(page);
  const zoomed = await page.evaluate((t) => window.__probex.threadStates(t), tids.main);
  const r = await page.evaluate(() => window.__probex.state.range);
  assert.ok(zoomed.length && zoomed[0].start_ns >= r.start && zoomed[zoomed.length - 1].end_ns <= r.end, 'spans clipped to the zoomed window');
  await page.keyboard.press('0');
  await waitIdle(page);
});

test('clicking a blocked span shows its stack and its waker\'s, and an arrow to the waker\'s lane', { skip }, async () => {
  const spans = await spansOf(tids.main);
  const wait = spans.filter((s) => s.state === 'sleeping' && s.waker_tid).sort((a, b) => b.end_ns - b.start_ns - (a.end_ns - a.start_ns))[0];
  assert.ok(wait, 'a sleeping span of main with a waker');
  assert.equal(wait.waker_tid, tids.worker, 'worker wakes main (it writes the pipe)');
  const { box, x } = await laneAt(tids.main, (wait.start_ns + wait.end_ns) / 2);
  await page.mouse.click(x, box.y + 3);
  const detail = page.locator('[data-testid=span-detail]');
  await detail.waitFor({ state: 'visible' });
  const text = await detail.innerText();
  assert.match(text, /sleeping/);
  assert.ok(text.includes(`TID ${tids.worker}`), `the waker named: ${text}`);
  const frames = await page.locator('[data-testid=span-stack] li').allInnerTexts();
  assert.ok(frames.length > 0, 'the blocked stack is listed');
  assert.ok(frames.some((f) => /main|read/.test(f)), `main's blocking stack: ${frames.join(' | ')}`);
  const wframes = await page.locator('[data-testid=waker-stack] li').allInnerTexts();
  assert.ok(wframes.some((f) => /worker|write/.test(f)), `the waker's stack: ${wframes.join(' | ')}`);
  await page.waitForSelector('[data-testid=wake-arrow]');
  const arrow = await page.locator('[data-testid=wake-arrow]').boundingBox();
  const wl = await page.locator(`.row[data-pid="${tids.worker}"] .lane`).boundingBox();
  const vh = page.viewportSize().height;
  assert.ok(wl.y >= 0 && wl.y + wl.height <= vh, 'the waker lane is in view');
  const { x: wakeX } = await laneAt(tids.main, wait.end_ns);
  assert.ok(Math.abs(arrow.x + arrow.width / 2 - wakeX) < 3, 'the arrow stands at the wakeup');
  assert.equal(await page.locator('.row.sel').count(), 0, 'a span click does not select the thread');
  await page.mouse.move(5, 5);
  await shot(page, '61-wall-span-detail');
  await page.click('[data-testid=span-detail-close]');
  await detail.waitFor({ state: 'hidden' });
  assert.equal(await page.locator('[data-testid=wake-arrow]').count(), 0, 'closing drops the arrow');
});

test('critical path: a track under the thread and the path\'s threads and stacks', { skip }, async () => {
  await page.locator(`.row[data-pid="${tids.main}"] .nameblk`).click();
  await page.click('[data-tab=critpath]');
  await page.waitForSelector('[data-testid=critpath-threads]', { timeout: 30000 });
  const rows = await page.locator('[data-testid=critpath-threads] tr').allInnerTexts();
  const body = rows.join('\n');
  assert.ok(body.includes(`TID ${tids.worker}`) && body.includes(`TID ${tids.holder}`), `the path goes through worker and holder:\n${body}`);
  // The track sits right under the thread's row and is drawn.
  const order = await page.evaluate(() => [...document.querySelectorAll('[data-testid=rows] .row')].map((r) => Number(r.dataset.pid)));
  const i = order.indexOf(tids.main);
  assert.equal(order[i + 1], -1 - tids.main, `the track follows the thread: ${order}`);
  const tree = await page.locator('[data-testid=critpath-tree] td.fn').allInnerTexts();
  assert.ok(tree.some((f) => f.includes(`TID ${tids.holder}`)), `the call tree is rooted at the path's threads: ${tree.slice(0, 8)}`);
  assert.match(await page.locator('[data-testid=critpath-tree] th').first().innerText(), /ms/);
  // The path's flame graph: its threads on the top row under the root, hover in ms.
  const fl = await page.locator('[data-testid=critpath-flame]').boundingBox();
  assert.ok(fl && fl.height > 17 * 3, 'the flame graph has rows');
  await page.mouse.move(fl.x + 5, fl.y + 17 + 8);
  const ftip = await page.locator('.tip').innerText();
  assert.match(ftip, /TID \d+[\s\S]*ms · [\d.]+% of the path/, ftip);
  // Hovering the holder's segment of the track names it.
  const segs = await page.evaluate(() => window.__probex.critPath().data.segments);
  const hs = segs.filter((s) => s.tid === tids.holder).sort((a, b) => b.end_ns - b.start_ns - (a.end_ns - a.start_ns))[0];
  assert.ok(hs, 'holder has a segment');
  const { box, x } = await laneAt(-1 - tids.main, (hs.start_ns + hs.end_ns) / 2);
  await page.mouse.move(x, box.y + box.height / 2);
  const tip = await page.locator('.tip').innerText();
  assert.ok(tip.includes(`TID ${tids.holder}`), tip);
  await shot(page, '62-wall-critical-path');
});

test('flamegraph: off_cpu is weighed and labelled in ms; the call tree has total and self in ms', { skip }, async () => {
  await page.click('[data-tab=flame]');
  await page.selectOption('[data-testid=flame-type]', 'off_cpu');
  await flameFor('off_cpu', tids.main);
  const info = await page.locator('[data-testid=flame-info]').innerText();
  assert.match(info, /ms off-CPU/, info);
  assert.doesNotMatch(info, /samples/, info);
  const head = await page.locator('[data-testid=calltree] th').allInnerTexts();
  assert.deepEqual(head.slice(0, 2), ['Total (ms)', 'Self (ms)']);
  const first = Number((await page.locator('[data-testid=calltree] tbody tr td').first().innerText()).replace(/,/g, ''));
  const total = await page.evaluate(() => window.__probex.res.flame.data.total_samples);
  assert.ok(Math.abs(first - total / 1e6) <= Math.max(0.01, total / 1e6 * 0.01) || first < total / 1e6, `the top row is at most the total (${first} ms of ${total / 1e6})`);
  await page.mouse.move(0, 0);
  await shot(page, '63-wall-offcpu-calltree');
  // Inverted: the leaf functions come first, self = total for them.
  await page.check('[data-testid=calltree-invert]');
  const inv = await page.locator('[data-testid=calltree] tbody tr').first().locator('td').allInnerTexts();
  assert.equal(inv[0], inv[1], `an inverted root's self is its total: ${inv}`);
  await shot(page, '64-wall-offcpu-calltree-inverted');
  await page.uncheck('[data-testid=calltree-invert]');
});

test('flamegraph: CPU samples read as time = samples × period in the call tree', { skip }, async () => {
  await page.locator(`.row[data-pid="${tids.holder}"] .nameblk`).click();
  await page.waitForSelector('[data-testid=flame-type]');
  await page.selectOption('[data-testid=flame-type]', 'cpu_sample');
  await flameFor('cpu_sample', tids.holder);
  const hz = await page.evaluate(() => window.__probex.state.summary.cpu_sample_frequency_hz);
  const n = await page.evaluate(() => window.__probex.res.flame.data.total_samples);
  const info = await page.locator('[data-testid=flame-info]').innerText();
  assert.ok(info.includes(`${n} sample`), info);
  const ms = (n * 1e3) / hz;
  assert.ok(info.includes(`(${ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2)} ms)`), `${info} vs ${ms} ms`);
  const rows = await page.locator('[data-testid=calltree] td.fn').allInnerTexts();
  assert.ok(rows.some((f) => f.includes('hog_cpu')), `holder's spin is on CPU: ${rows.slice(0, 12)}`);
  await shot(page, '65-wall-cpu-calltree');
});

test('flamegraph: the wall-clock view weighs on- and off-CPU stacks by time, blocked ones marked', { skip }, async () => {
  await page.locator(`.row[data-pid="${tids.main}"] .nameblk`).click();
  await page.waitForSelector('[data-testid=flame-type]');
  await page.selectOption('[data-testid=flame-type]', 'wall-clock');
  await page.waitForFunction((p) => {
    const f = window.__probex.res.flame;
    // main's row is its process's: all its threads (tgid=).
    return f.status === 'ok' && f.data.total_ns !== undefined && Number(f.params.tgid ?? f.params.tid) === p;
  }, tids.main, { timeout: 30000 });
  await page.waitForSelector('[data-testid=calltree] tbody tr td.fn');
  const d = await page.evaluate(() => window.__probex.res.flame.data);
  const info = await page.locator('[data-testid=flame-info]').innerText();
  assert.match(info, /ms wall-clock \(.*ms on CPU\)/, info);
  assert.doesNotMatch(info, /samples/, info);
  const life = await page.evaluate((t) => window.__probex.state.processes.find((p) => p.pid === t), tids.main);
  const threads = await page.evaluate((t) => window.__probex.state.processes.filter((p) => (p.tgid ?? p.pid) === t).length, tids.main);
  assert.ok(d.total_ns <= threads * (life.end_ns - life.start_ns) + 1e6, `wall time within the threads' lives: ${d.total_ns}`);
  await page.check('[data-testid=calltree-invert]');
  const leaves = await page.locator('[data-testid=calltree] td.fn').allInnerTexts();
  assert.ok(leaves.some((f) => f.includes('[sleeping]')), `blocked time is marked with its state: ${leaves.slice(0, 6)}`);
  await page.mouse.move(5, 5);
  await shot(page, '66-wall-clock-flamegraph');
  await page.uncheck('[data-testid=calltree-invert]');
  assert.deepEqual(errors, []);
});

test('a scrolling list of threads: the waker\'s lane scrolls into view with the arrow, the track follows its thread, Esc closes the details', { skip }, async () => {
  const many = path.resolve(root, 'build/e2e/relay-many.parquet');
  execFileSync(probex, ['-o', many, '--force', '--no-viewer', '--', 'sh', '-c', `for i in 1 2 3 4 5 6; do ${relay} 30 10 >/dev/null & done; wait`], { stdio: 'ignore' });
  const s = await openSession({ file: many });
  const p = s.page;
  try {
    await p.goto(s.viewer.url);
    await p.waitForSelector('[data-testid=lanes] .row');
    await waitIdle(p);
    assert.equal(await p.locator('.rows-wrap.scroll').count(), 1, 'more than 15 rows scroll');
    // The last thread in the list with a wait another lane's thread ended.
    const pick = await p.evaluate(async () => {
      const { processes, range } = window.__probex.state;
      for (const t of processes.slice().reverse()) {
        const r = await fetch(`/api/thread_states?tid=${t.pid}&start_ns=${range.start}&end_ns=${range.end}&max_spans=1000`).then((x) => x.json());
        const sp = (r.spans || [])
          .filter((x) => (x.state === 'sleeping' || x.state === 'disk') && x.waker_tid && x.waker_tid !== t.pid && processes.some((q) => q.pid === x.waker_tid))
          .sort((a, b) => b.end_ns - b.start_ns - (a.end_ns - a.start_ns))[0];
        if (sp) return { tid: t.pid, sp };
      }
      return null;
    });
    assert.ok(pick, 'a blocked span woken by another traced thread');
    await p.evaluate(async (tid) => {
      const w = document.querySelector('.rows-wrap');
      for (let i = 0; i < 100 && !document.querySelector(`.row[data-pid="${tid}"]`); i++) {
        w.scrollTop += 150;
        await new Promise((r) => setTimeout(r, 30));
      }
      document.querySelector(`.row[data-pid="${tid}"]`).scrollIntoView({ block: 'center' });
    }, pick.tid);
    await p.waitForFunction((t) => (window.__probex.threadStates(t) ?? []).length > 0, pick.tid, { timeout: 30000 });
    const box = await p.locator(`.row[data-pid="${pick.tid}"] .lane`).boundingBox();
    const r = await p.evaluate(() => window.__probex.state.range);
    const mid = (pick.sp.start_ns + pick.sp.end_ns) / 2;
    await p.mouse.click(box.x + ((mid - r.start) / (r.end - r.start)) * box.width, box.y + 3);
    await p.waitForSelector('[data-testid=span-detail]', { state: 'visible' });
    await p.waitForSelector('[data-testid=wake-arrow]');
    const sr = await p.locator('.rows-wrap').boundingBox();
    const wl = await p.locator(`.row[data-pid="${pick.sp.waker_tid}"] .lane`).boundingBox();
    assert.ok(wl.y >= sr.y - 1 && wl.y + wl.height <= sr.y + sr.height + 1, 'the waker lane is inside the scrolled list');
    await p.mouse.move(5, 5);
    await shot(p, '67-wall-scroll-span-detail');
    await p.keyboard.press('Escape');
    await p.waitForSelector('[data-testid=span-detail]', { state: 'hidden' });
    assert.equal(await p.locator('[data-testid=wake-arrow]').count(), 0);
    // Critical path of that thread: its track is the next row, placed one row below it.
    await p.locator(`.row[data-pid="${pick.tid}"] .nameblk`).click();
    await p.click('[data-tab=critpath]');
    await p.waitForSelector(`.row[data-pid="${-1 - pick.tid}"]`, { timeout: 30000 });
    const a = await p.locator(`.row[data-pid="${pick.tid}"]`).boundingBox();
    const b = await p.locator(`.row[data-pid="${-1 - pick.tid}"]`).boundingBox();
    assert.ok(Math.abs(b.y - (a.y + 30)) <= 2, `the track is the row under its thread (${a.y} → ${b.y})`);
    await p.waitForSelector('[data-testid=critpath-threads]', { timeout: 30000 });
    await shot(p, '68-wall-scroll-critical-path');
    assert.deepEqual(s.errors, []);
  } finally {
    await s.close();
  }
});
