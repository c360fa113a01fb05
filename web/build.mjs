#!/usr/bin/env node
// Build the viewer UI into OUT_DIR: one bundled, minified app.js (ECharts included, so the
// page works with no network), plus index.html and style.css copied as they are.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(process.argv[2] || path.join(here, 'dist'));
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

const result = await esbuild.build({
  entryPoints: [path.join(here, 'src/main.ts')],
  outfile: path.join(out, 'app.js'),
  bundle: true,
  minify: process.env.WEB_MINIFY !== '0',
  format: 'iife',
  target: ['es2020'],
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
});
for (const f of ['index.html', 'style.css']) fs.copyFileSync(path.join(here, f), path.join(out, f));
const bytes = fs.statSync(path.join(out, 'app.js')).size;
console.log(`web: ${path.relative(process.cwd(), out)}/app.js ${(bytes / 1024).toFixed(0)} KiB` +
  ` (${Object.keys(result.metafile.inputs).length} modules)`);
