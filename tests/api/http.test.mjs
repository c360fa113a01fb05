// The HTTP surface: parameter errors, unknown endpoints, static files and the SPA
// fallback, path escapes, concurrent requests, ports, shutdown.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { get, getJson, qs, startViewer, stopViewer, tmpdir, runProbex } from './lib.mjs';
import { traceA, write } from './traces.mjs';

let v, file;
before(async () => {
  file = write(tmpdir(), 'a', traceA);
  v = await startViewer(file);
});
after(async () => { assert.equal(await stopViewer(v), 0); });

async function bad(p, param, status = 400) {
  const r = await get(v, p);
  assert.equal(r.status, status, `${p}: ${r.text}`);
  assert.match(r.type, /application\/json/);
  assert.equal(r.json.parameter, param, `${p}: ${r.text}`);
  assert.ok(r.json.error.includes(param), r.json.error);
}

test('missing, malformed and out-of-range parameters are 400s naming the parameter', async () => {
  await bad('/api/histogram?end_ns=10&num_buckets=2', 'start_ns');
  await bad('/api/histogram?start_ns=abc&end_ns=10&num_buckets=2', 'start_ns');
  await bad('/api/histogram?start_ns=-1&end_ns=10&num_buckets=2', 'start_ns');
  await bad('/api/histogram?start_ns=1&end_ns=99999999999999999999&num_buckets=2', 'end_ns');
  await bad('/api/histogram?start_ns=10&end_ns=5&num_buckets=2', 'end_ns');
  await bad('/api/histogram?start_ns=1&end_ns=10', 'num_buckets');
  await bad('/api/histogram?start_ns=1&end_ns=10&num_buckets=0', 'num_buckets');
  await bad('/api/histogram?start_ns=1&end_ns=10&num_buckets=1.5', 'num_buckets');
  await bad('/api/histogram?start_ns=1&end_ns=10&num_buckets=1000000', 'num_buckets');
  await bad('/api/event_type_counts?start_ns=10&end_ns=5', 'end_ns');
  await bad('/api/pid_event_type_counts?start_ns=1', 'pid');
  await bad('/api/pid_event_type_counts?pid=4294967296', 'pid');
  await bad('/api/syscall_latency_stats?start_ns=1&end_ns=5&pid=x', 'pid');
  await bad('/api/process_events?start_ns=1&end_ns=5&max_events_per_pid=0', 'max_events_per_pid');
  await bad('/api/process_events?start_ns=1&end_ns=5', 'max_events_per_pid');
  await bad('/api/event_flamegraph?start_ns=1&end_ns=5&max_stacks=5', 'event_type');
  await bad('/api/event_flamegraph?start_ns=1&end_ns=5&max_stacks=5&event_type=', 'event_type');
  await bad('/api/event_flamegraph?start_ns=1&end_ns=5&max_stacks=0&event_type=cpu_sample', 'max_stacks');
  await bad('/api/io_statistics?start_ns=1&end_ns=5&max_points=0', 'max_points');
  await bad('/api/memory_statistics?start_ns=6&end_ns=5', 'end_ns');
  await bad('/api/event_list?start_ns=1&end_ns=5&limit=5&offset=0', 'pid');
  await bad('/api/event_list?start_ns=1&end_ns=5&pid=1&limit=0&offset=0', 'limit');
  await bad('/api/event_list?start_ns=1&end_ns=5&pid=1&limit=5', 'offset');
});

test('unknown API paths are 404 JSON; other methods 405', async () => {
  for (const p of ['/api/nope', '/api/', '/api/summary/x']) {
    const r = await get(v, p);
    assert.equal(r.status, 404, p);
    assert.match(r.json.error, /unknown API endpoint/);
  }
  const r = await fetch(`${v.base}/api/summary`, { method: 'POST', body: 'x' });
  assert.equal(r.status, 405);
});

// Raw request paths: fetch() would normalise the dots away.
function raw(p) {
  const u = new URL(v.base);
  return new Promise((resolve, reject) => {
    http.get({ host: u.hostname, port: u.port, path: p }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'], body }));
    }).on('error', reject);
  });
}

test('static files, SPA fallback, no path escapes', async () => {
  const index = await raw('/');
  assert.equal(index.status, 200);
  assert.match(index.type, /^text\/html/);
  assert.match(index.body, /<html/i);
  assert.equal((await raw('/index.html')).body, index.body);
  for (const p of ['/processes/12', '/some/deep/route', '/api']) {
    const r = await raw(p);
    assert.equal(r.status, 200, p);
    assert.equal(r.body, index.body, p);
  }
  for (const p of ['/missing.js', '/x.css', '/../etc/passwd', '/%2e%2e/etc/passwd', '/%2E%2E%2Fetc%2Fpasswd',
    '//etc/passwd', '/a/../../index.html', '/..%2f..%2fetc/passwd', '/%252e%252e/x', '/a\\..\\b']) {
    const r = await raw(p);
    assert.equal(r.status, 404, p);
    assert.ok(!r.body.includes('root:'), p);
  }
});

test('concurrent requests all succeed with the same answers', async () => {
  const paths = [
    '/api/summary', '/api/process_lifetimes', `/api/histogram?${qs({ start_ns: 100, end_ns: 600, num_buckets: 80 })}`,
    `/api/process_events?${qs({ start_ns: 100, end_ns: 600, max_events_per_pid: 500 })}`,
    `/api/syscall_latency_stats?${qs({ start_ns: 100, end_ns: 600 })}`,
    `/api/io_statistics?${qs({ start_ns: 100, end_ns: 600, pid: 10 })}`,
    `/api/memory_statistics?${qs({ start_ns: 100, end_ns: 600, pid: 10 })}`,
    `/api/event_flamegraph?${qs({ start_ns: 100, end_ns: 600, pid: 20, event_type: 'cpu_sample', max_stacks: 5000 })}`,
    `/api/event_list?${qs({ start_ns: 100, end_ns: 600, pid: 10, limit: 50, offset: 0 })}`,
    '/api/event_type_counts',
  ];
  const seq = [];
  for (const p of paths) seq.push(await getJson(v, p));
  const par = await Promise.all([...paths, ...paths, ...paths].map((p) => getJson(v, p)));
  par.forEach((r, i) => assert.deepEqual(r, seq[i % paths.length]));
});

test('a port in use is an error before anything is served', async () => {
  const port = new URL(v.base).port;
  const r = runProbex(['--view', file, '-p', port]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /cannot listen/);
  assert.doesNotMatch(r.stderr, /viewer at/);
});

test('SIGTERM stops the viewer cleanly; --bind is honoured', async () => {
  const w = await startViewer(file, ['--bind', '127.0.0.1']);
  assert.match(w.base, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.notEqual(new URL(w.base).port, '0');
  assert.equal((await getJson(w, '/api/summary')).total_events, 27);
  assert.equal(await stopViewer(w, 'SIGTERM'), 0);
});
