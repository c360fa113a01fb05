// Browser test on a real recording that lost most of its rows (a 100 x 2000 uname burst,
// a 64 KiB ring and the test build's slow consumer): the header says what was dropped,
// the chips and the IO table show the exact counts marked *, with the rows kept in the
// mark's tooltip; so does the latency row for a dd that lost most of its reads and writes.
// A recording without drops shows neither.  Needs root to record.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { root, startViewer, stopViewer, launchBrowser, watchErrors, waitIdle, shot } from './lib.mjs';

const asRoot = process.getuid && process.getuid() === 0;
const probex = path.resolve(root, process.env.PROBEX || 'build/probex');
const burst = path.join(path.dirname(probex), 'fixtures/burst');
const skip = !asRoot ? 'needs root to record' : !fs.existsSync(burst) ? `no ${burst} (make fixtures)` : false;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'probex-e2e-exact-'));
let browser;

function record(name, cmd, args, env = {}) {
  const file = path.join(dir, `${name}.parquet`);
  const r = spawnSync(cmd, ['-q', '--no-viewer', '-o', file, ...args], { env: { ...process.env, ...env }, timeout: 120000 });
  assert.equal(r.status, 0, String(r.stderr));
  return file;
}

async function open(file) {
  const viewer = await startViewer(probex, ['--view', file, '-p', '0']);
  const page = await browser.ctx.newPage();
  const errors = watchErrors(page, new URL(viewer.url).origin);
  await page.goto(viewer.url);
  await page.waitForSelector('[data-testid=chips] .chip');
  await waitIdle(page);
  return { viewer, page, errors };
}

before(async () => {
  if (!skip) browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('drops: the header notice, exact counts marked in the chips and the IO table', { skip }, async () => {
  const file = record('drops', path.join(path.dirname(probex), 'probex-test'),
    ['--ringbuf-size', '64', '--', burst, '100', '2000'], { PROBEX_TEST_CONSUMER_DELAY_MS: '20' });
  const { viewer, page, errors } = await open(file);
  try {
    assert.match(await page.locator('[data-testid=drop-notice]').innerText(),
      /^dropped [\d,]+ of [\d,]+ records \(\d+\.\d%\) — re-record with --lossless$/);
    const chip = page.locator('[data-testid=chips] .chip[data-type=syscall_uname_exit] .n');
    assert.equal(await chip.innerText(), '200,000*');
    assert.match(await chip.getAttribute('title'), /^[\d,]+ of 200,000 rows kept; percentiles from the rows kept$/);
    await shot(page, '30-exact-drops-header-chips');
    await page.click('[data-testid=latency-row]');
    await page.waitForSelector('[data-testid=aggregate-card] [data-testid=io-table]', { timeout: 60000 });
    await waitIdle(page);
    // Every syscall, not only the I/O ones (uname is not I/O).
    await page.click('[data-testid=aggregate-card] [data-testid=io-all]');
    await waitIdle(page);
    // Under load every uname row may be dropped (then uname has no row in the table).
    const table = page.locator('[data-testid=aggregate-card] [data-testid=io-table]');
    assert.ok(await table.locator('[data-testid=exact-count]').count() > 0, 'an operation marked');
    assert.match(await page.locator('[data-testid=io-exact-total]').innerText(), /^[\d.]+K ops\*$/);
    const row = table.locator('tbody tr', { hasText: 'uname' });
    if (await row.count()) {
      const cell = row.locator('[data-testid=exact-count]');
      assert.match(await cell.innerText(), /^200(\.0)?K\*$/);
      assert.match(await cell.getAttribute('title'), /^[\d,]+ of 200,000 rows kept; percentiles from the rows kept$/);
    }
    await shot(page, '31-exact-drops-io');
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
    await stopViewer(viewer);
  }
});

test('drops of reads and writes: the latency row shows their exact counts, marked', { skip }, async () => {
  const file = record('dd', path.join(path.dirname(probex), 'probex-test'),
    ['--ringbuf-size', '64', '--', 'dd', 'if=/dev/zero', 'of=/dev/null', 'bs=1', 'count=100000'], { PROBEX_TEST_CONSUMER_DELAY_MS: '20' });
  const { viewer, page, errors } = await open(file);
  try {
    for (const op of ['read', 'write']) {
      const mark = page.locator(`[data-testid=lat-${op}-exact]`);
      // dd's 100 000 calls and the loader's few.
      assert.match(await mark.innerText(), /^100,0\d\d\*× avg\/p50\/p95\/max $/);
      assert.match(await mark.getAttribute('title'), /^[\d,]+ of 100,0\d\d rows kept; percentiles from the rows kept$/);
    }
    await shot(page, '32-exact-dd-latency-row');
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
    await stopViewer(viewer);
  }
});

test('no drops: no notice, no marks', { skip }, async () => {
  const { viewer, page, errors } = await open(record('nodrops', probex, ['--', burst, '10', '300']));
  try {
    assert.equal(await page.locator('[data-testid=drop-notice]').count(), 0);
    assert.equal(await page.locator('[data-testid=chips] .chip[data-type=syscall_uname_exit] .n').innerText(), '3,000');
    assert.equal(await page.locator('.incomplete').count(), 0);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
    await stopViewer(viewer);
  }
});
