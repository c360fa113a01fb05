// Browser tests of the gestures: overview (wheel, click-to-snap, Shift+drag pan, double-click reset),
// navigation buttons, process tree (collapse, expand, reveal on selection), lanes (click,
// double-click, drag-to-zoom, hover detail) and the aggregate IO/Memory card.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openSession, waitIdle, shot } from './lib.mjs';

let session;
let page;
let errors;

const range = () => page.evaluate(() => ({ ...window.__probex.state.range }));
const summary = () => page.evaluate(() => window.__probex.state.summary);
const idle = () => waitIdle(page);

before(async () => {
  session = await openSession({ fixture: 'build/e2e/fixture.parquet' });
  ({ page, errors } = session);
  await page.goto(session.viewer.url);
  await page.waitForSelector('[data-testid=lanes] .row');
  await idle();
});

after(async () => {
  await session?.close();
});

test('overview: wheel zooms around the cursor, a click outside the window snaps its edge, double-click resets', async () => {
  const s = await summary();
  const box = await page.locator('[data-testid=overview]').boundingBox();
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width * 0.5, y);
  for (let i = 0; i < 5; i++) await page.mouse.wheel(0, -300);
  await page.waitForFunction((full) => {
    const r = window.__probex.state.range;
    return r.end - r.start < full;
  }, s.max_ts_ns - s.min_ts_ns);
  const z = await range();
  const mid = s.min_ts_ns + (s.max_ts_ns - s.min_ts_ns) * 0.5;
  assert.ok(z.start <= mid && z.end >= mid, 'the cursor time stays inside the window');
  // Click-to-snap: a click left of the window moves the left edge there.
  await page.mouse.click(box.x + box.width * 0.1, y);
  await page.waitForFunction((st) => window.__probex.state.range.start < st, z.start);
  const snapped = await range();
  assert.equal(snapped.end, z.end, 'right edge kept');
  const expect = s.min_ts_ns + (s.max_ts_ns - s.min_ts_ns) * 0.1;
  assert.ok(Math.abs(snapped.start - expect) < (s.max_ts_ns - s.min_ts_ns) * 0.02, 'left edge at the click');
  // Pan: Shift+drag the middle of the window (a plain drag selects a new range).
  const wl = (snapped.start - s.min_ts_ns) / (s.max_ts_ns - s.min_ts_ns);
  const wr = (snapped.end - s.min_ts_ns) / (s.max_ts_ns - s.min_ts_ns);
  const cx = box.x + box.width * ((wl + wr) / 2);
  await page.waitForTimeout(350); // not a double-click
  await page.mouse.move(cx, y);
  await page.keyboard.down('Shift');
  await page.mouse.down();
  await page.mouse.move(cx + box.width * 0.1, y, { steps: 4 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  const panned = await range();
  assert.equal(panned.end - panned.start, snapped.end - snapped.start, 'pan keeps the width');
  assert.ok(panned.start > snapped.start, 'pan moved right');
  await shot(page, '10-overview-zoomed');
  // Double-click resets to the full trace.
  await page.waitForTimeout(350);
  await page.mouse.click(box.x + box.width * 0.5, y, { clickCount: 2 });
  await page.waitForFunction((full) => {
    const r = window.__probex.state.range;
    return r.end - r.start === full;
  }, s.max_ts_ns - s.min_ts_ns);
});

test('navigation buttons: + − ◀ ▶ Reset, disabled at the limits', async () => {
  const nav = (label) => page.locator(`[data-testid=nav] button:has-text("${label}")`);
  assert.equal(await nav('−').isDisabled(), true, '− disabled at full range');
  assert.equal(await nav('◀').isDisabled(), true, '◀ disabled at the start');
  const r0 = await range();
  await nav('+').click();
  const r1 = await range();
  assert.ok(Math.abs(r1.end - r1.start - (r0.end - r0.start) / 2) <= 1, '+ halves');
  await nav('◀').click();
  const r2 = await range();
  assert.ok(r2.start < r1.start, '◀ pans left');
  await nav('▶').click();
  await nav('▶').click();
  const r3 = await range();
  assert.ok(r3.start > r2.start, '▶ pans right');
  await nav('−').click();
  await nav('Reset').click();
  const r4 = await range();
  assert.deepEqual(r4, r0);
  assert.match(await page.locator('[data-testid=range-readout]').innerText(), /^0ns → /);
});

test('process tree: collapse hides descendants with a +N badge, selecting a hidden PID reveals it', async () => {
  const tog = page.locator('[data-testid=lanes] .row .tog').first();
  if (!(await tog.count())) return; // a flat process list has nothing to collapse
  const row = tog.locator('xpath=ancestor::div[contains(concat(" ", @class, " "), " row ")]');
  const parentPid = Number(await row.getAttribute('data-pid'));
  const rowsBefore = await page.evaluate(() => window.__probex.state.processes.length);
  await tog.click();
  await page.waitForSelector(`.row[data-pid="${parentPid}"] .badge`);
  const badge = await page.locator(`.row[data-pid="${parentPid}"] .badge`).innerText();
  assert.match(badge, /^\+\d+$/);
  const child = await page.evaluate((pp) => window.__probex.state.processes.find((p) => p.parent_pid === pp)?.pid, parentPid);
  assert.equal(await page.locator(`.row[data-pid="${child}"]`).count(), 0, 'child hidden');
  await shot(page, '11-collapsed');
  // Selecting the hidden child through the picker expands its ancestors.
  await page.fill('[data-testid=pid-input]', String(child));
  await page.keyboard.press('Enter');
  await page.waitForSelector(`.row.sel[data-pid="${child}"]`);
  assert.equal(await page.locator('[data-testid=panel]').count(), 1, 'panel shown');
  await page.keyboard.press('Escape');
  // Collapse all / expand all.
  await page.locator('.tree-btns button:has-text("Collapse")').click();
  assert.equal(await page.locator('.tree-btns button:has-text("Collapse")').isDisabled(), true);
  await page.locator('.tree-btns button:has-text("Expand")').click();
  assert.ok(rowsBefore > 0);
  assert.equal(await page.locator('.tree-btns button:has-text("Expand")').isDisabled(), true);
});

test('process filter and "hide outside the view"', async () => {
  const first = await page.evaluate(() => window.__probex.state.processes[0]);
  await page.fill('[data-testid=tree-filter]', first.process_name ?? 'unknown');
  await page.waitForSelector('.row.hit');
  const names = await page.locator('.row.hit .name').allInnerTexts();
  assert.ok(names.length > 0 && names.every((n) => n.toLowerCase().includes((first.process_name ?? 'unknown').toLowerCase())));
  await page.fill('[data-testid=tree-filter]', '');
  await page.waitForFunction(() => !document.querySelector('.row.hit'));
});

test('lanes: hover shows details, click selects, drag zooms, double-click zooms to the lifetime', async () => {
  const lane = page.locator('[data-testid=lanes] .row .lane').first();
  const pid = Number(await lane.getAttribute('data-pid'));
  await lane.scrollIntoViewIfNeeded();
  const b = await lane.boundingBox();
  await page.mouse.move(b.x + b.width * 0.5, b.y + b.height / 2);
  await page.waitForSelector('.tip', { state: 'visible' });
  assert.match(await page.locator('.tip').innerText(), new RegExp(`PID ${pid} · T\\+`));
  assert.equal(await page.locator('.crosshair').isVisible(), true, 'crosshair follows the lane hover');
  // Click toggles the selection.
  await page.mouse.click(b.x + b.width * 0.5, b.y + b.height / 2);
  await page.waitForFunction((p) => window.__probex.state.pid === p, pid);
  await idle();
  // Drag to zoom (selects too). The chips above changed to this PID's: measure again.
  await lane.scrollIntoViewIfNeeded();
  const b2 = await page.locator(`.lane[data-pid="${pid}"]`).boundingBox();
  b.x = b2.x;
  b.y = b2.y;
  const r0 = await range();
  await page.mouse.move(b.x + b.width * 0.3, b.y + b.height / 2);
  await page.mouse.down();
  await page.mouse.move(b.x + b.width * 0.45, b.y + b.height / 2, { steps: 5 });
  await page.mouse.move(b.x + b.width * 0.6, b.y + b.height / 2, { steps: 5 });
  await page.mouse.up();
  await page.waitForFunction((w) => {
    const r = window.__probex.state.range;
    return r.end - r.start < w;
  }, r0.end - r0.start);
  const r1 = await range();
  const frac = (r1.end - r1.start) / (r0.end - r0.start);
  assert.ok(frac > 0.25 && frac < 0.35, `drag selected ~30% of the view (${frac})`);
  assert.equal(await page.evaluate(() => window.__probex.state.pid), pid);
  await idle();
  await shot(page, '12-lane-drag');
  // Double-click zooms to the lifetime.
  const p = await page.evaluate((x) => window.__probex.state.processes.find((q) => q.pid === x), pid);
  const lb = await page.locator(`.lane[data-pid="${pid}"]`).boundingBox();
  await page.mouse.dblclick(lb.x + 5, lb.y + lb.height / 2);
  await page.waitForFunction((q) => {
    const r = window.__probex.state.range;
    const s = window.__probex.state.summary;
    const start = Math.max(s.min_ts_ns, q.start_ns);
    const end = Math.min(s.max_ts_ns, Math.max(q.end_ns, start + 1000));
    return Math.abs(r.start - start) <= 1000 && Math.abs(r.end - end) <= 1000;
  }, p);
  assert.equal(await page.evaluate(() => window.__probex.state.pid), pid);
  await page.keyboard.press('Escape');
  await page.keyboard.press('0');
});

test('the latency row opens the aggregate IO/Memory card', async () => {
  await page.evaluate(() => window.__probex.requests.splice(0));
  await page.click('[data-testid=latency-row]');
  await page.waitForSelector('[data-testid=aggregate-card] [data-testid=io-section], [data-testid=aggregate-card] .card', { timeout: 60000 });
  await idle();
  const reqs = await page.evaluate(() => window.__probex.requests.filter((u) => u.includes('io_statistics')));
  assert.ok(reqs.length > 0 && reqs.every((u) => !u.includes('pid=')), `aggregate: all PIDs (${reqs})`);
  assert.match(await page.locator('[data-testid=latency-row]').innerText(), /^▼/);
  await shot(page, '13-aggregate-card');
  await page.click('[data-testid=latency-row]');
  await page.waitForFunction(() => !document.querySelector('[data-testid=aggregate-card] .card'));
  assert.equal(await page.evaluate(() => window.__probex.liveCharts()), 0, 'charts disposed');
  assert.deepEqual(errors, []);
});
