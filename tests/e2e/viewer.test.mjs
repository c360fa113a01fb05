// Browser tests of the viewer UI: Debian's chromium driven by playwright-core against a real
// `probex --view` on a small synthetic fixture trace. Screenshots go to build/e2e-artifacts/.
//   PROBEX=build/probex E2E_FIXTURE=build/e2e/fixture.parquet node --test tests/e2e/viewer.test.mjs
// E2E_SERVER="cmd args…" replaces the probex command line (development against a stand-in).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openSession, waitIdle as idle, shot } from './lib.mjs';

let session;
let viewer;
let browser;
let page;
let errors;
let pick; // { pid, name } of the busiest process

async function api(p) {
  const r = await fetch(new URL(`api/${p}`, viewer.url));
  assert.equal(r.status, 200, `GET /api/${p} -> ${r.status}`);
  return r.json();
}

/** The process with the most IO and CPU samples, so every tab has something to show. */
async function busiestPid() {
  const { processes } = await api('process_lifetimes');
  const s = await api('summary');
  const cands = [...processes].sort((a, b) => b.end_ns - b.start_ns - (a.end_ns - a.start_ns)).slice(0, 25);
  let best = null;
  for (const p of cands) {
    const { counts } = await api(`pid_event_type_counts?pid=${p.pid}&start_ns=${s.min_ts_ns}&end_ns=${s.max_ts_ns}`);
    const io = (counts.syscall_read_exit ?? 0) + (counts.syscall_write_exit ?? 0);
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    const score = (io > 0 ? 1e9 : 0) + ((counts.cpu_sample ?? 0) > 0 ? 1e8 : 0) + total;
    if (!best || score > best.score) best = { pid: p.pid, name: p.process_name ?? 'unknown', score, total };
  }
  return best;
}

const text = (sel) => page.locator(sel).first().innerText();

const waitIdle = () => idle(page);

before(async () => {
  session = await openSession({ fixture: 'build/e2e/fixture.parquet' });
  ({ viewer, browser, page, errors } = session);
  pick = await busiestPid();
});

after(async () => {
  await session?.close();
});

test('page loads with the header, overview, chips and lanes, no console errors and no request off the origin', async () => {
  await page.goto(viewer.url);
  await page.waitForSelector('[data-testid=lanes] .row');
  await waitIdle();
  const fig = await text('[data-testid=header-figures]');
  assert.match(fig, /Events\s*[\d,]+/);
  assert.match(fig, /Duration\s*[\d.]+(ns|µs|ms|s)/);
  assert.match(await text('[data-testid=range-readout]'), /^0ns → .+ \(.+\)$/);
  assert.ok((await page.locator('[data-testid=chips] .chip').count()) > 0, 'chips');
  assert.match(await text('[data-testid=latency-row]'), /read .*write .*io_uring .*mem/s);
  await shot(page, '01-loaded');
  assert.deepEqual(errors, []);
});

test('nothing is fetched for hidden views', async () => {
  const reqs = await page.evaluate(() => window.__probex.requests.slice());
  // With nothing selected the panel shows the whole trace's flamegraph; the IO tab and the
  // events (of a selected process only) are not fetched.  (event_list also feeds the
  // lanes' syscall spans, with order=latency.)
  assert.ok(reqs.some((u) => u.includes('/api/event_flamegraph')), 'the whole-trace flamegraph is shown');
  for (const hidden of ['io_statistics', 'memory_statistics']) {
    assert.ok(!reqs.some((u) => u.includes(`/api/${hidden}`)), `${hidden} fetched with no view showing it: ${reqs.join(' ')}`);
  }
  assert.ok(!reqs.some((u) => u.includes('/api/event_list') && !u.includes('order=latency')), 'no events table fetched');
});

test('hidden cpu samples do not starve the lane markers: the per-process budget grows by their share', async () => {
  const budgets = () =>
    page.evaluate(() =>
      window.__probex.requests.filter((u) => u.includes('/api/process_events')).map((u) => Number(new URL(u, location.href).searchParams.get('max_events_per_pid'))),
    );
  const enabled = await page.evaluate(() => [...window.__probex.state.enabled]);
  assert.ok(!enabled.includes('cpu_sample'), 'cpu_sample hidden by default');
  // The first request may precede the overview histogram (on a slow machine it can
  // answer after the lanes); the request after a range change that follows it knows the
  // hidden share.
  await page.waitForFunction(() => window.__probex.res.overview.data !== null, null, { timeout: 30000 });
  await page.keyboard.press('+');
  await page
    .waitForFunction(
      () =>
        window.__probex.requests.some(
          (u) => u.includes('/api/process_events') && Number(new URL(u, location.href).searchParams.get('max_events_per_pid')) > 500,
        ),
      null,
      { timeout: 30000 },
    )
    .catch(() => {});
  const b = await budgets();
  assert.ok(b.some((x) => x > 500), `a request widened the budget: ${b}`);
  await waitIdle();
  await page.keyboard.press('0');
  await waitIdle();
});

test('a brush drag changes the range readout and the counts', async () => {
  const before = await text('[data-testid=range-readout]');
  const countBefore = await text('[data-testid=ev-count]');
  const box = await page.locator('[data-testid=overview]').boundingBox();
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + 3, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.2, y, { steps: 5 });
  await page.mouse.move(box.x + box.width * 0.35, y, { steps: 5 });
  await page.mouse.up();
  await page.waitForFunction((b) => document.querySelector('[data-testid=range-readout]').innerText !== b, before);
  const after = await text('[data-testid=range-readout]');
  assert.notEqual(after, before);
  assert.doesNotMatch(after, /^0ns →/, 'range start moved');
  await page.waitForFunction((c) => document.querySelector('[data-testid=ev-count]').innerText !== c, countBefore, { timeout: 30000 });
  await waitIdle();
  const n = (s) => Number(s.replace(/[^\d]/g, ''));
  assert.ok(n(await text('[data-testid=ev-count]')) < n(countBefore), 'fewer events in a narrower range');
  await shot(page, '02-brushed');
});

test('a chip toggle changes the overview histogram', async () => {
  const img = () => page.evaluate(() => document.querySelector('[data-testid=overview] canvas').toDataURL());
  const chip = page.locator('[data-testid=chips] .chip[aria-pressed=true]').first();
  const type = await chip.getAttribute('data-type');
  const before = await img();
  await chip.click();
  await page.waitForFunction((t) => !window.__probex.state.enabled.has(t), type);
  const after = await img();
  assert.notEqual(after, before, `hiding ${type} changed the histogram`);
  assert.equal(await page.locator(`[data-testid=chips] .chip[data-type="${type}"]`).getAttribute('aria-pressed'), 'false');
  await shot(page, '03-chip-off');
  await page.locator(`[data-testid=chips] .chip[data-type="${type}"]`).click();
});

test('selecting a PID by name opens its panel', async () => {
  await page.click('[data-testid=pid-input]');
  await page.fill('[data-testid=pid-input]', String(pick.pid));
  await page.waitForSelector(`[data-testid=pid-list] .opt[data-pid="${pick.pid}"]`);
  const optText = await page.locator(`[data-testid=pid-list] .opt[data-pid="${pick.pid}"]`).innerText();
  assert.ok(optText.includes(pick.name), `picker shows the name: ${optText}`);
  await page.locator(`[data-testid=pid-list] .opt[data-pid="${pick.pid}"]`).click();
  await page.waitForSelector('[data-testid=panel] .tabs button.on');
  assert.equal(await page.locator('[data-testid=panel] .tabs button').count(), 4, 'Flamegraph, IO / Memory, Events, Critical path');
  assert.equal(await page.inputValue('[data-testid=pid-input]'), `${pick.name} (${pick.pid})`);
  assert.equal(await page.locator(`.row.sel[data-pid="${pick.pid}"]`).count(), 1);
});

test('the flamegraph renders and search highlights a frame', async () => {
  await page.click('[data-testid=panel] button[data-tab=flame]');
  // Whole trace for this test: more samples.
  await page.click('[data-testid=nav] button:has-text("Reset")');
  await page.waitForFunction(() => Number(document.querySelector('[data-testid=flame-canvas]')?.dataset.frames ?? 0) > 1, null, { timeout: 60000 });
  const widest = await page.locator('[data-testid=flame-canvas]').getAttribute('data-widest');
  assert.ok(widest, 'a frame to search for');
  await page.fill('[data-testid=flame-search]', widest.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  await page.waitForFunction(() => Number(document.querySelector('[data-testid=flame-canvas]').dataset.matched) > 0);
  assert.match(await text('[data-testid=flame-matched]'), /Matched: [\d.]+%/);
  // Hover shows a tooltip line; click zooms.
  await page.locator('[data-testid=flame-canvas]').scrollIntoViewIfNeeded();
  const box = await page.locator('[data-testid=flame-canvas]').boundingBox();
  // Icicle by default: the root on top, its first callee the second row.
  await page.mouse.move(box.x + box.width / 2, box.y + 25);
  await page.waitForFunction(() => document.querySelector('.flame-info').textContent.includes('samples'));
  await page.mouse.click(box.x + box.width / 2, box.y + 25);
  await page.waitForSelector('[data-testid=flame-reset]:visible');
  await shot(page, '04-flamegraph-search');
  await page.click('[data-testid=flame-reset]');
  await page.fill('[data-testid=flame-search]', '');
});

test('IO charts render with unit labels', async () => {
  await page.click('[data-testid=panel] button[data-tab=io]');
  await page.waitForSelector('[data-testid=io-tab] [data-testid=io-latency-cdf][data-ready] svg', { timeout: 60000 });
  await page.waitForSelector('[data-testid=io-tab] [data-testid=io-size-hist][data-ready] svg');
  const labels = async (id) =>
    page.evaluate((sel) => [...document.querySelectorAll(`${sel} svg text`)].map((t) => t.textContent.trim()), `[data-testid=io-tab] [data-testid=${id}]`);
  const lat = await labels('io-latency-cdf');
  assert.ok(lat.some((l) => /^\d+(\.\d+)?(ns|µs|ms|s)$/.test(l)), `latency axis has units: ${lat.join(' | ')}`);
  assert.ok(lat.some((l) => /%$/.test(l)), 'CDF y axis in %');
  const hist = await labels('io-latency-hist');
  assert.ok(hist.some((l) => /(ns|µs|ms|s)$/.test(l)), `latency histogram bins have units: ${hist.join(' | ')}`);
  const size = await labels('io-size-cdf');
  assert.ok(size.some((l) => /^\d+(\.\d+)?(B|KiB|MiB|GiB)$/.test(l)), `size axis has units: ${size.join(' | ')}`);
  assert.match(await text('[data-testid=io-table]'), /P50[\s\S]*P95[\s\S]*P99[\s\S]*Max/);
  // Each table states its percentile rule once (the latency row uses the other one).
  assert.match(await text('[data-testid=io-table] caption'), /⌊count·N\/100⌋/);
  assert.match(await page.getAttribute('[data-testid=io-table] th:nth-child(5)', 'title'), /⌊count·N\/100⌋/);
  assert.match(await page.getAttribute('[data-testid=latency-row] .pfx', 'title'), /⌊\(count−1\)·N\/100⌋/);
  // A percentile cell opens the stack of that event.
  const cell = page.locator('[data-testid=io-tab] button.pct').first();
  if (await cell.count()) {
    await cell.click();
    await page.waitForSelector('[data-testid=stack-panel]');
  }
  await page.locator('[data-testid=io-tab]').scrollIntoViewIfNeeded();
  await shot(page, '05-io-memory');
});

test('the event list pages, resets paging on a range change, and shows leaf frames', async () => {
  await page.click('[data-testid=panel] button[data-tab=events]');
  await page.waitForSelector('[data-testid=events-table]', { timeout: 60000 });
  const label = await text('[data-testid=page-label]');
  const m = /^1\/([\d,]+)$/.exec(label);
  assert.ok(m, `pager label ${label}`);
  assert.ok(Number(m[1].replace(/,/g, '')) >= 2, `needs two pages, has ${label}`);
  const firstRow = await text('[data-testid=event-row]');
  assert.match(firstRow, /T\+[\d.]+(ns|µs|ms|s)/);
  const leafCells = await page.locator('[data-testid=event-row] td.leaf').allInnerTexts();
  assert.ok(!leafCells.some((c) => c === '[user]' || c === '[kernel]'), 'leaf frames, not markers');
  // Payload fields from the file: the synthetic trace's syscalls carry fd, count and ret.
  const payloadCells = await page.locator('[data-testid=event-row] td.payload').allInnerTexts();
  assert.ok(payloadCells.some((c) => /\b(fd|bytes|count|ret|address)=/.test(c)), `payload shown: ${payloadCells.slice(0, 5)}`);
  await page.click('[data-testid=page-next]');
  await page.waitForFunction(() => /^2\//.test(document.querySelector('[data-testid=page-label]').innerText));
  await page.waitForFunction((f) => document.querySelector('[data-testid=event-row]').innerText !== f, firstRow);
  await page.locator('[data-testid=event-row]').first().click();
  await shot(page, '06-events-page2');
  // Zooming resets the page.
  await page.keyboard.press('+');
  await page.waitForFunction(() => /^1\//.test(document.querySelector('[data-testid=page-label]')?.innerText ?? ''), null, { timeout: 30000 });
});

test('disabling every chip lists no events', async () => {
  await page.locator('[data-testid=chips] [data-testid=chips-none]').click();
  await page.waitForSelector('[data-testid=events-card] >> text=No event types enabled');
  await page.locator('[data-testid=chips] [data-testid=chips-all]').click();
  await page.waitForSelector('[data-testid=events-table]', { timeout: 30000 });
});

test('keyboard: ← and → pan, + and − zoom, Esc deselects', async () => {
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  const r0 = await page.evaluate(() => ({ ...window.__probex.state.range }));
  await page.keyboard.press('ArrowRight');
  const r1 = await page.evaluate(() => ({ ...window.__probex.state.range }));
  assert.ok(r1.start > r0.start || r0.end === (await page.evaluate(() => window.__probex.state.summary.max_ts_ns)), 'pans right');
  await page.keyboard.press('-');
  const r2 = await page.evaluate(() => ({ ...window.__probex.state.range }));
  assert.ok(r2.end - r2.start >= r1.end - r1.start, 'zooms out');
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => window.__probex.state.pid === null);
  // With nothing selected the panel covers the whole trace.
  assert.match(await page.locator('[data-testid=panel-scope]').innerText(), /All processes/);
});

test('a reload restores the URL state (range, PID, tab, flamegraph type)', async () => {
  await page.fill('[data-testid=pid-input]', String(pick.pid));
  await page.keyboard.press('Enter');
  await page.click('[data-testid=panel] button[data-tab=io]');
  await page.keyboard.press('+');
  await page.keyboard.press('ArrowLeft');
  await waitIdle();
  await page.evaluate(() => window.__probex.flushUrl());
  const url = page.url();
  assert.match(url, /[?&]s=\d+/);
  assert.match(url, new RegExp(`[?&]pid=${pick.pid}`));
  assert.match(url, /[?&]tab=io/);
  const readout = await text('[data-testid=range-readout]');
  const fg = await page.evaluate(() => window.__probex.state.flameType);
  await page.reload();
  await page.waitForSelector('[data-testid=panel] .tabs button.on');
  assert.equal(await text('[data-testid=range-readout]'), readout);
  assert.equal(await page.inputValue('[data-testid=pid-input]'), `${pick.name} (${pick.pid})`);
  assert.equal(await page.locator('[data-testid=panel] .tabs button.on').getAttribute('data-tab'), 'io');
  assert.equal(await page.evaluate(() => window.__probex.state.flameType), fg);
  assert.equal(page.url(), url);
  // A second page opened on the same link shows the same view (sharing).
  const other = await browser.ctx.newPage();
  await other.goto(url);
  await other.waitForSelector('[data-testid=panel] .tabs button.on');
  assert.equal(await other.locator('[data-testid=range-readout]').innerText(), readout);
  await other.close();
  await waitIdle();
  await shot(page, '07-reloaded');
  assert.deepEqual(errors, []);
});

test('loading errors are shown with a retry', async () => {
  const p = await browser.ctx.newPage();
  let fail = true;
  await p.route('**/api/event_type_counts**', (route) => (fail ? route.fulfill({ status: 500, body: 'boom' }) : route.continue()));
  await p.goto(viewer.url);
  await p.waitForSelector('[data-testid=chips] .error-box');
  assert.match(await p.locator('[data-testid=chips] .error-box').innerText(), /HTTP 500: boom/);
  await shot(p, '08-error');
  fail = false;
  await p.locator('[data-testid=chips] .error-box button').click();
  await p.waitForSelector('[data-testid=chips] .chip');
  await p.close();
});

test('an empty trace shows a message', async () => {
  const p = await browser.ctx.newPage();
  await p.route('**/api/summary', (route) =>
    route.fulfill({
      contentType: 'application/json',
      body: JSON.stringify({ total_events: 0, event_types: [], unique_pids: [], min_ts_ns: 0, max_ts_ns: 0, cpu_sample_frequency_hz: 999 }),
    }),
  );
  await p.goto(viewer.url);
  await p.waitForSelector('[data-testid=empty]');
  assert.match(await p.locator('[data-testid=empty]').innerText(), /no events/);
  await p.close();
});

test('charts are disposed when their view closes', async () => {
  await page.click('[data-testid=panel] button[data-tab=events]');
  const n = await page.evaluate(() => window.__probex.liveCharts());
  assert.equal(n, 0, 'no live chart once the IO view is hidden');
});
