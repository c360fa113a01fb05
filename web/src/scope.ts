// What a selected row means: a process row (pid == tgid) stands for all of its threads,
// a thread row for that thread alone, no selection for the whole trace.  Requests name
// the scope with `tgid=` (all threads) or `pid=` (one thread); a server without `tgid=`
// (no `unique_tgids` in its summary) is asked by pid, as before.

import type { Params, ProcessLifetime } from './api';
import { state, processByPid } from './state';

/** The row's process id: its tgid, or its own pid on traces without one. */
export function tgidOf(p: ProcessLifetime): number {
  return p.tgid === null || p.tgid === undefined ? p.pid : p.tgid;
}

export function isProcessRow(p: ProcessLifetime): boolean {
  return tgidOf(p) === p.pid;
}

let threadsFor: ProcessLifetime[] | null = null;
let threadIndex = new Map<number, ProcessLifetime[]>();

/** The threads of process tgid other than its main thread, by start time. */
export function threadsOf(tgid: number): ProcessLifetime[] {
  if (threadsFor !== state.processes) {
    threadsFor = state.processes;
    threadIndex = new Map();
    for (const p of state.processes ?? []) {
      if (isProcessRow(p)) continue;
      const g = tgidOf(p);
      let l = threadIndex.get(g);
      if (!l) threadIndex.set(g, (l = []));
      l.push(p);
    }
    for (const l of threadIndex.values()) l.sort((a, b) => a.start_ns - b.start_ns || a.pid - b.pid);
  }
  return threadIndex.get(tgid) ?? [];
}

/** Whether the server takes `tgid=` on the endpoints that take `pid=`. */
export function tgidSupported(): boolean {
  return Array.isArray(state.summary?.unique_tgids);
}

/** The selection is a whole process with more than its main thread. */
export function processSelected(): boolean {
  const pid = state.pid;
  if (pid === null) return false;
  const p = processByPid(pid);
  return !!p && isProcessRow(p) && threadsOf(pid).length > 0;
}

/** `{tgid}` for a process row (when the server knows tgid), `{pid}` for a thread, `{}`
 *  for the whole trace. */
export function scopeParams(): Params {
  const pid = state.pid;
  if (pid === null) return {};
  if (processSelected() && tgidSupported()) return { tgid: pid };
  return { pid };
}

/** wall_flamegraph names one thread `tid=` or a process `tgid=`. */
export function wallScopeParams(): Params {
  const pid = state.pid;
  if (pid === null) return {};
  return processSelected() ? { tgid: pid } : { tid: pid };
}

/** The command line as typed: the program's base name and its arguments, else the name. */
export function commandText(p: ProcessLifetime | undefined): string {
  if (!p) return 'unknown';
  const argv = p.argv;
  if (Array.isArray(argv) && argv.length) return [argv[0]!.replace(/^.*\//, ''), ...argv.slice(1)].join(' ');
  return p.process_name || 'unknown';
}

/** The arguments alone (what tells one cc1 from another), or ''. */
export function argsText(p: ProcessLifetime): string {
  return Array.isArray(p.argv) ? p.argv.slice(1).join(' ') : '';
}

/** The whole command line, program path included (tooltips). */
export function fullCommand(p: ProcessLifetime): string {
  return Array.isArray(p.argv) && p.argv.length ? p.argv.join(' ') : p.process_name || 'unknown';
}

/** "process make (PID 5, 3 threads)", "thread cc1 (TID 7 of PID 5)", "all processes". */
export function scopeLabel(): string {
  const pid = state.pid;
  if (pid === null) return 'All processes (whole trace)';
  const p = processByPid(pid);
  const name = p?.process_name || 'unknown';
  if (!p || isProcessRow(p)) {
    const n = threadsOf(pid).length;
    return n ? `Process ${name} · PID ${pid} · all ${n + 1} threads` : `Process ${name} · PID ${pid}`;
  }
  return `Thread ${name} · TID ${pid} of PID ${tgidOf(p)}`;
}

// ---- CPU and wall time per row ------------------------------------------------------------

/** Samples per thread over the whole trace, from the lanes' CPU density when they were
 *  fetched at full range (exact below 65 535 samples per bucket): the CPU time a server
 *  without `cpu_ns` does not send. */
const fullSamples = new Map<number, number>();
let samplesFrom: unknown = null;

export function noteLaneSamples(d: { cpu_sample_counts_by_pid: Record<string, number[]> } | null, full: boolean): void {
  if (!d || !full || samplesFrom === d) return;
  samplesFrom = d;
  fullSamples.clear();
  for (const [pid, arr] of Object.entries(d.cpu_sample_counts_by_pid)) {
    let n = 0;
    for (const x of arr) n += x;
    fullSamples.set(Number(pid), n);
  }
}

function periodNs(): number {
  const hz = state.summary?.cpu_sample_frequency_hz ?? 0;
  return hz > 0 ? 1e9 / hz : 0;
}

/** CPU time of a row: a thread's own, a process row's summed over its threads; null when
 *  unknown.  Counted from the full-range lanes when fetched (the same samples for every
 *  server), else the server's `cpu_ns` (a process row's covers its threads). */
export function cpuNsOf(p: ProcessLifetime): number | null {
  const rows = isProcessRow(p) ? [p, ...threadsOf(p.pid)] : [p];
  if (samplesFrom && periodNs()) {
    let n = 0;
    for (const r of rows) n += fullSamples.get(r.pid) ?? 0;
    return n * periodNs();
  }
  return typeof p.cpu_ns === 'number' ? p.cpu_ns : null;
}

export function wallNsOf(p: ProcessLifetime): number {
  return Math.max(0, p.end_ns - p.start_ns);
}
