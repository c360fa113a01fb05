// Compare mode on two real recordings of tests/fixtures/compare_modes.c (`base` and `new`:
// work_b spins twice as long, nap sleeps 60 ms instead of 20, 3000 one-byte reads instead
// of 1000): the viewer opened with --view NEW --base BASE finds each change, of the right
// size, and no change in work_a.  Needs root to record (skipped otherwise).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { root, artifacts, startViewer, stopViewer, launchBrowser, watchErrors } from './lib.mjs';

const asRoot = process.getuid && process.getuid() === 0;
const skip = !asRoot && 'needs root to record';
let viewer, browser, page, errors;

function record(probex, fixture, dir, mode) {
  const file = path.join(dir, `${mode}.parquet`);
  const r = spawnSync(probex, ['-q', '-o', file, '--no-viewer', '--', fixture, mode], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return file;
}

before(async () => {
  if (!asRoot) return;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'probex-e2e-cmp-'));
  const probex = path.resolve(root, process.env.PROBEX || 'build/probex');
  const fixture = path.resolve(root, process.env.FIXTURES || 'build/fixtures', 'compare_modes');
  const base = record(probex, fixture, dir, 'base');
  const neu = record(probex, fixture, dir, 'new');
  viewer = await startViewer(probex, ['--view', neu, '--base', base, '-p', '0']);
  browser = await launchBrowser();
  page = await browser.ctx.newPage();
  errors = watchErrors(page, new URL(viewer.url).origin);
});

after(async () => {
  await browser?.close();
  if (viewer) await stopViewer(viewer);
});

async function cardShot(name) {
  fs.mkdirSync(artifacts, { recursive: true });
  await page.locator('[data-testid=compare-card]').screenshot({ path: path.join(artifacts, `${name}.png`) });
}

const frame = (name) => page.evaluate((n) => window.__probexCompare.frame(n), name);
const diffRequests = () => page.evaluate(() => window.__probex.requests.filter((u) => u.startsWith('/api/diff_flamegraph')));

async function waitFlame(type) {
  await page.waitForFunction((t) => {
    const c = document.querySelector('[data-testid=diff-canvas]');
    return c && c.isConnected && document.querySelector('[data-testid=diff-type]')?.value === t && Number(c.dataset.frames) > 0;
  }, type, { timeout: 60000 });
}

test('differential flame graph: CPU samples and off-CPU time', { skip }, async () => {
  await page.goto(viewer.url);
  await page.waitForSelector('[data-testid=compare-card]', { timeout: 60000 });
  await waitFlame('cpu_sample');
  const a = await frame('work_a');
  const b = await frame('work_b');
  assert.ok(a && b, 'both work functions are in the flame graph');
  assert.ok(b.value / b.base > 1.6 && b.value / b.base < 2.5, `work_b doubled: ${JSON.stringify(b)}`);
  assert.ok(a.value / a.base > 0.75 && a.value / a.base < 1.33, `work_a unchanged: ${JSON.stringify(a)}`);
  // Hover shows base, new and delta.
  const box = await page.locator('[data-testid=diff-canvas]').boundingBox();
  await page.mouse.move(box.x + b.x, box.y + b.y);
  const hover = await page.locator('[data-testid=diff-hover]').innerText();
  assert.match(hover, /^work_b: base [\d,]+ samples · new [\d,]+ samples · delta \+[\d,]+ samples \+\d+/);
  await cardShot('30-compare-cpu');
  // Normalised, BASE is scaled to NEW's total.
  await page.check('[data-testid=diff-normalise]');
  await page.mouse.move(box.x + b.x, box.y + b.y + 1);
  assert.match(await page.locator('[data-testid=diff-hover]').innerText(), /BASE normalised/);
  await page.uncheck('[data-testid=diff-normalise]');

  await page.selectOption('[data-testid=diff-type]', 'off_cpu');
  await waitFlame('off_cpu');
  assert.equal(await page.locator('[data-testid=compare-card]').getAttribute('data-diff-unit'), 'ns');
  const nap = await frame('nap');
  assert.ok(nap, 'the nap stack is in the off-CPU flame graph');
  assert.ok(nap.base > 15e6 && nap.base < 40e6, `BASE naps about 20 ms: ${nap.base}`);
  assert.ok(nap.value > 55e6 && nap.value < 90e6, `NEW naps about 60 ms: ${nap.value}`);
  await cardShot('31-compare-offcpu');
});

test('a selection in BASE: dragged on its strip, sent as base_start_ns/base_end_ns', { skip }, async () => {
  const strip = await page.locator('[data-testid=cmp-base-strip]').boundingBox();
  const before = (await diffRequests()).length;
  await page.mouse.move(strip.x + strip.width * 0.1, strip.y + 10);
  await page.mouse.down();
  await page.mouse.move(strip.x + strip.width * 0.4, strip.y + 10, { steps: 4 });
  await page.mouse.up();
  await page.waitForFunction(() => window.__probexCompare.baseRange() !== null);
  assert.doesNotMatch(await page.locator('[data-testid=cmp-base-window]').innerText(), /whole trace/);
  await page.waitForFunction((n) => window.__probex.requests.filter((u) => u.startsWith('/api/diff_flamegraph')).length > n, before);
  assert.match((await diffRequests()).at(-1), /base_start_ns=\d+&base_end_ns=\d+/);
  await page.click('[data-testid=cmp-base-whole]');
  assert.match(await page.locator('[data-testid=cmp-base-window]').innerText(), /whole trace/);
});

test('syscall table, CDFs and process trees of both runs', { skip }, async () => {
  await page.click('[data-ctab=syscalls]');
  const row = page.locator('[data-testid=cmp-syscalls] tr[data-op=read]');
  await row.waitFor({ timeout: 60000 });
  const calls = async (col) => Number((await row.locator(`td[data-col=${col}]`).innerText()).replaceAll(',', ''));
  assert.equal(await calls('new-calls') - await calls('base-calls'), 2000, 'NEW reads 2000 more times');
  const nano = page.locator('[data-testid=cmp-syscalls] tr[data-op=clock_nanosleep]');
  assert.equal(await nano.locator('td[data-col=base-calls]').innerText(), await nano.locator('td[data-col=new-calls]').innerText());
  await cardShot('32-compare-syscalls');

  await page.click('[data-ctab=cdf]');
  await page.waitForSelector('[data-testid="cmp-latency-cdf-read"][data-ready="1"]', { timeout: 60000 });
  const legend = await page.locator('[data-testid="cmp-latency-cdf-read"]').innerText();
  assert.match(legend, /read BASE/);
  assert.match(legend, /read NEW/);
  await cardShot('33-compare-cdfs');

  await page.click('[data-ctab=procs]');
  await page.waitForSelector('[data-testid=cmp-tree-new] tbody tr');
  for (const t of ['cmp-tree-base', 'cmp-tree-new'])
    assert.match(await page.locator(`[data-testid=${t}]`).innerText(), /compare_modes/);
  // NEW naps 40 ms longer and spins longer: its wall time grew.
  assert.match(await page.locator('[data-testid=cmp-tree-new] tbody tr').first().innerText(), /\+\d/);
  await cardShot('34-compare-processes');
  assert.deepEqual(errors, []);
});
