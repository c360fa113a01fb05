// Application state (view range, selected PID, enabled types, tab, ...) with change
// notification. Views subscribe and redraw only when a key they use changes.

import type { Summary, ProcessLifetime } from './api';

export type Tab = 'flame' | 'io' | 'events' | 'critpath';

export interface Range {
  start: number;
  end: number;
}

export interface State {
  summary: Summary | null;
  processes: ProcessLifetime[] | null;
  /** Current view, absolute ns. */
  range: Range | null;
  pid: number | null;
  /** Types whose markers, histogram share and event rows are shown. */
  enabled: Set<string>;
  flameType: string;
  tab: Tab;
  collapsed: Set<number>;
  latencyOpen: boolean;
  /** The IO table lists every syscall, not only the I/O ones. */
  ioAll: boolean;
  eventsPage: number;
  /** Absolute ns under the mouse (overview or lanes), or null. */
  hoverNs: number | null;
  /** Process-name filter typed in the tree search box. */
  treeFilter: string;
  /** Hide rows whose lifetime does not overlap the view. */
  hideOutside: boolean;
  flameSearch: string;
  /** Root at the top (icicle, the default) or at the bottom (flame). */
  flameInverted: boolean;
  /** The flamegraph tab's view: the graph, or one function's callers and callees. */
  flameView: 'graph' | 'sandwich';
  /** The sandwich view's function ('' until one is picked). */
  sandwichFn: string;
  /** Events tab: by time or longest latency first, and the server-side search text. */
  eventsOrder: 'ts' | 'latency';
  eventsSearch: string;
  /** Process tree order: by start (the tree), CPU time or wall time. */
  treeSort: 'start' | 'cpu' | 'wall';
}

export type Key = keyof State;
type Listener = (changed: Set<Key>) => void;

export const state: State = {
  summary: null,
  processes: null,
  range: null,
  pid: null,
  enabled: new Set(),
  flameType: '',
  tab: 'flame',
  collapsed: new Set(),
  latencyOpen: false,
  ioAll: false,
  eventsPage: 0,
  hoverNs: null,
  treeFilter: '',
  hideOutside: false,
  flameSearch: '',
  flameInverted: true,
  flameView: 'graph',
  sandwichFn: '',
  eventsOrder: 'ts',
  eventsSearch: '',
  treeSort: 'start',
};

const listeners: Listener[] = [];
let pending = new Set<Key>();
let scheduled = false;

export function subscribe(fn: Listener): void {
  listeners.push(fn);
}

/** Update state; listeners run once per animation-free microtask with every changed key. */
export function set(patch: Partial<State>): void {
  for (const k of Object.keys(patch) as Key[]) {
    const v = patch[k];
    if (sameValue(state[k], v)) continue;
    (state as unknown as Record<string, unknown>)[k] = v;
    pending.add(k);
  }
  // Paging always restarts when what is paged changes, so no page past the end is shown.
  if (!('eventsPage' in patch) && (pending.has('range') || pending.has('pid') || pending.has('enabled') || pending.has('eventsOrder') || pending.has('eventsSearch'))) {
    if (state.eventsPage !== 0) {
      state.eventsPage = 0;
      pending.add('eventsPage');
    }
  }
  if (pending.size && !scheduled) {
    scheduled = true;
    queueMicrotask(flush);
  }
}

function flush(): void {
  scheduled = false;
  const changed = pending;
  pending = new Set();
  for (const fn of listeners) fn(changed);
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Set && b instanceof Set) {
    if (a.size !== b.size) return false;
    for (const x of a) if (!b.has(x)) return false;
    return true;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && 'start' in a && 'start' in b) {
    const ra = a as Range;
    const rb = b as Range;
    return ra.start === rb.start && ra.end === rb.end;
  }
  return false;
}

// ---- derived helpers -----------------------------------------------------------------

export function traceRange(): Range | null {
  const s = state.summary;
  if (!s) return null;
  return { start: s.min_ts_ns, end: s.max_ts_ns };
}

export function fullDuration(): number {
  const t = traceRange();
  return t ? t.end - t.start : 0;
}

/** Smallest window any gesture may reach: one rule for brush, wheel, buttons, keys and lane
 *  drags. 1 µs, or the whole trace when it is shorter. */
export function minWindow(): number {
  return Math.max(1, Math.min(1000, fullDuration()));
}

/** Clamp a proposed range into the trace, enforcing the minimum window. */
export function clampRange(start: number, end: number): Range {
  const t = traceRange()!;
  const full = t.end - t.start;
  let w = Math.min(full, Math.max(minWindow(), end - start));
  if (full <= 0) return { start: t.start, end: t.end };
  let s = Math.round(start);
  w = Math.round(w);
  s = Math.max(t.start, Math.min(t.end - w, s));
  return { start: s, end: s + w };
}

let rangeDebounced = false;

/** Set the view. Discrete gestures (keys, buttons, a finished drag) fetch at once;
 *  continuous ones (wheel) pass `debounce` so only the last of a burst is fetched. */
export function setRange(start: number, end: number, debounce = false): void {
  if (!(end >= start)) return;
  rangeDebounced = debounce;
  set({ range: clampRange(start, end) });
}

/** Whether the latest range change asked for a debounced fetch. */
export function lastRangeDebounced(): boolean {
  return rangeDebounced;
}

export function isFullRange(): boolean {
  const t = traceRange();
  const r = state.range;
  return !!t && !!r && r.start <= t.start && r.end >= t.end;
}

export function processByPid(pid: number): ProcessLifetime | undefined {
  return pidIndex().get(pid);
}

let indexFor: ProcessLifetime[] | null = null;
let index = new Map<number, ProcessLifetime>();
function pidIndex(): Map<number, ProcessLifetime> {
  if (indexFor !== state.processes) {
    indexFor = state.processes;
    index = new Map((state.processes ?? []).map((p) => [p.pid, p]));
  }
  return index;
}

/** Default enabled chips: every type except cpu_sample, unless it is the only one. */
export function defaultEnabled(types: string[]): Set<string> {
  const s = new Set(types.filter((t) => t !== 'cpu_sample'));
  if (s.size === 0) for (const t of types) s.add(t);
  return s;
}

/** Default flamegraph type: cpu_sample when the trace has it, else the first type with
 *  stacks likely (the reference offered cpu_sample even when absent). */
export function defaultFlameType(types: string[]): string {
  if (types.includes('cpu_sample')) return 'cpu_sample';
  const pref = ['page_fault', 'sched_switch', 'syscall_read_enter', 'syscall_write_enter'];
  for (const p of pref) if (types.includes(p)) return p;
  return types[0] ?? '';
}
