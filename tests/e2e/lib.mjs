// Helpers for the browser tests: start a viewer process and parse the URL it prints, launch
// Debian's chromium through playwright-core, collect console errors, save screenshots.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(path.join(root, 'web/package.json'));
const { chromium } = require('playwright-core');

export const CHROMIUM = process.env.PROBEX_CHROMIUM || '/usr/bin/chromium';
export const artifacts = path.resolve(root, process.env.E2E_ARTIFACTS || 'build/e2e-artifacts');

/** Start `cmd args`, resolve with { url, proc } once it prints "viewer at URL". */
export function startViewer(cmd, args, { timeoutMs = 120000 } = {}) {
  return new Promise((resolve, reject) => {
    const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => {
      proc.kill('SIGTERM');
      reject(new Error(`viewer did not print its URL within ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const onData = (d) => {
      out += d.toString();
      const m = /viewer at (http:\/\/[^\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1].endsWith('/') ? m[1] : `${m[1]}/`, proc, output: () => out });
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`viewer exited with ${code} before serving:\n${out}`));
    });
  });
}

export function stopViewer(v) {
  if (!v || v.proc.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    v.proc.once('exit', resolve);
    v.proc.kill('SIGTERM');
    setTimeout(() => v.proc.kill('SIGKILL'), 5000).unref();
  });
}

/** Headless chromium with a fresh profile and no background networking (closed network). */
export async function launchBrowser() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'probex-e2e-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
  return {
    ctx,
    async close() {
      await ctx.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Record console errors, page errors, failed requests and any request that leaves the
 *  viewer's origin (the UI must work offline: no CDN) into the returned array. */
export function watchErrors(page, origin) {
  const errors = [];
  page.on('request', (r) => {
    const u = r.url();
    if (origin && !u.startsWith(origin) && !u.startsWith('data:')) errors.push(`foreign request: ${u}`);
  });
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  // The viewer sends a Content-Security-Policy: anything the UI does that it forbids is
  // an error here (the console message alone depends on the browser's wording).
  page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}:${e.columnNumber} ${e.sample} ${e.target && e.target.outerHTML ? e.target.outerHTML.slice(0, 200) : ''}`);
    });
  });
  page.on('requestfailed', (r) => {
    const f = r.failure()?.errorText ?? '';
    if (!/ERR_ABORTED/.test(f)) errors.push(`requestfailed: ${r.url()} ${f}`);
  });
  return errors;
}

export async function shot(page, name) {
  fs.mkdirSync(artifacts, { recursive: true });
  const file = path.join(artifacts, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

export function haveChromium() {
  return fs.existsSync(CHROMIUM);
}

/** The viewer on E2E_FIXTURE (or the E2E_SERVER command line; `file` wins over both: a
 *  trace the test recorded itself), a browser and a watched page.
 *  Returns { viewer, browser, page, errors, close }. */
export async function openSession({ fixture, file: own, timeoutMs } = {}) {
  if (!haveChromium()) throw new Error(`chromium not found at ${CHROMIUM}: run ./scripts/deps.sh (installs Debian's chromium)`);
  const probex = path.resolve(root, process.env.PROBEX || 'build/probex');
  const file = path.resolve(root, own || process.env.E2E_FIXTURE || fixture);
  const cmd = process.env.E2E_SERVER && !own ? process.env.E2E_SERVER.split(' ') : [probex, '--view', file, '-p', '0'];
  const viewer = await startViewer(cmd[0], cmd.slice(1), { timeoutMs });
  const browser = await launchBrowser();
  const page = await browser.ctx.newPage();
  const errors = watchErrors(page, new URL(viewer.url).origin);
  return {
    viewer,
    browser,
    page,
    errors,
    async close() {
      await browser.close();
      await stopViewer(viewer);
    },
  };
}

/** Until no resource of the page is loading. */
export function waitIdle(page, timeout = 60000) {
  return page.waitForFunction(() => Object.values(window.__probex.res).every((r) => r.status !== 'loading'), null, { timeout });
}
