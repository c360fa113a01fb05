// Browser test on a real recording with every syscall (tar czf of a small directory, dozens
// of syscall types): the chips fold the rare types into one "other" chip, the IO table
// shows its first rows until expanded.  Needs root to record (skipped otherwise).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { root, startViewer, stopViewer, launchBrowser, watchErrors, waitIdle, shot } from './lib.mjs';

const asRoot = process.getuid && process.getuid() === 0;
let viewer, browser, page, errors;

before(async () => {
  if (!asRoot) return;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'probex-e2e-sys-'));
  fs.mkdirSync(path.join(dir, 'd'));
  for (const f of ['a', 'b', 'c']) fs.writeFileSync(path.join(dir, 'd', f), `${f}\n`);
  const probex = path.resolve(root, process.env.PROBEX || 'build/probex');
  const file = path.join(dir, 't.parquet');
  const r = spawnSync(probex, ['-q', '-o', file, '--no-viewer', '--', 'tar', 'czf', path.join(dir, 'x.tgz'), '-C', dir, 'd']);
  assert.equal(r.status, 0, String(r.stderr));
  viewer = await startViewer(probex, ['--view', file, '-p', '0']);
  browser = await launchBrowser();
  page = await browser.ctx.newPage();
  errors = watchErrors(page, new URL(viewer.url).origin);
});

after(async () => {
  await browser?.close();
  if (viewer) await stopViewer(viewer);
});

test('many syscall types: top chips, one "other" chip, expandable', { skip: !asRoot && 'needs root to record' }, async () => {
  await page.goto(viewer.url);
  await page.waitForSelector('[data-testid=lanes] .row');
  await waitIdle(page);
  const types = Object.keys((await (await fetch(new URL('api/event_type_counts', viewer.url))).json()).counts).length;
  assert.ok(types > 16, `a recording with many types (${types})`);
  assert.equal(await page.locator('[data-testid=chips] .chip').count(), 16);
  assert.match(await page.locator('[data-testid=chip-other]').innerText(), new RegExp(`other \\(${types - 15} types\\)`));
  // The "other" chip hides every folded type at once.
  const pressed = () => page.locator('[data-testid=chips] .chip').evaluateAll((cs) => cs.map((c) => c.getAttribute('aria-pressed')));
  const before = await pressed();
  assert.equal(before[15], 'true');
  await page.click('[data-testid=chip-other]');
  assert.deepEqual(await pressed(), [...before.slice(0, 15), 'false']);
  assert.equal(await page.evaluate(() => window.__probex.state.enabled.size), before.slice(0, 15).filter((p) => p === 'true').length);
  await page.click('[data-testid=chip-other]');
  await page.click('[data-testid=chips-expand]');
  assert.equal(await page.locator('[data-testid=chips] .chip').count(), types);
  await page.click('[data-testid=chips-expand]');
  await shot(page, '20-many-syscalls-chips');
  // IO table: the reference's operations first, then the others; 12 rows until expanded.
  await page.click('[data-testid=latency-row]');
  await page.waitForSelector('[data-testid=aggregate-card] [data-testid=io-table]', { timeout: 60000 });
  await waitIdle(page);
  // Every syscall, not only the I/O ones.
  await page.click('[data-testid=aggregate-card] [data-testid=io-all]');
  await waitIdle(page);
  const visible = () => page.locator('[data-testid=aggregate-card] [data-testid=io-table] tbody tr:visible').count();
  assert.equal(await visible(), 12);
  assert.equal((await page.locator('[data-testid=aggregate-card] [data-testid=io-table] tbody tr').first().locator('td').first().innerText()).split('\n')[0], 'read');
  await page.click('[data-testid=aggregate-card] [data-testid=io-more]');
  assert.ok((await visible()) > 12);
  await shot(page, '21-many-syscalls-io');
  assert.deepEqual(errors, []);
});
