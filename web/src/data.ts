// What the views show comes from here: one resource per endpoint, fetched only when a
// visible view needs it (the reference refetched every endpoint on each change), debounced
// on range changes, superseded requests dropped, errors and loading states kept so views can
// show them.

import {
  getJson,
  isAbort,
  errorText,
  type Params,
  type ProcessEventsResponse,
  type CountsResponse,
  type LatencyStats,
  type IoStats,
  type MemoryStats,
  type FlamegraphResponse,
  type EventListResponse,
  type HistogramResponse,
} from './api';
import { state, subscribe, lastRangeDebounced, type Range, type Key } from './state';
import { WALL_FLAME } from './calltree';
import { scopeParams, wallScopeParams } from './scope';

export const PAGE_SIZE = 100;
export const MAX_MARKERS_PER_PID = 500;
export const MAX_FLAME_STACKS = 5000;
/** Bounded distributions: the server summarises latencies and sizes into this many points. */
export const MAX_DIST_POINTS = 512;
const DEBOUNCE_MS = 80;

export type Status = 'idle' | 'loading' | 'ok' | 'error';

export class Resource<T> {
  status: Status = 'idle';
  data: T | null = null;
  error: string | null = null;
  /** URL key of `data` and the one being fetched. */
  key: string | null = null;
  wantKey: string | null = null;
  /** Scope (range) and parameters the data was fetched with. */
  range: Range | null = null;
  params: Params | null = null;
  private ctrl: AbortController | null = null;
  private listeners: Array<() => void> = [];
  private retryFn: (() => void) | null = null;

  constructor(readonly name: string) {}

  on(fn: () => void): void {
    this.listeners.push(fn);
  }
  private emit(): void {
    for (const fn of this.listeners) fn();
  }

  /** Fetch `path?params` unless it is already shown or on its way. */
  want(path: string, params: Params, range: Range | null): void {
    const key = `${path}?${JSON.stringify(params)}`;
    if (key === this.wantKey && this.status !== 'error') return;
    this.wantKey = key;
    this.ctrl?.abort();
    const ctrl = new AbortController();
    this.ctrl = ctrl;
    this.status = 'loading';
    this.error = null;
    this.retryFn = () => {
      this.wantKey = null;
      this.want(path, params, range);
    };
    this.emit();
    getJson<T>(path, params, ctrl.signal).then(
      (d) => {
        if (ctrl !== this.ctrl) return;
        this.data = d;
        this.key = key;
        this.range = range;
        this.params = params;
        this.status = 'ok';
        this.emit();
      },
      (e) => {
        if (isAbort(e) || ctrl !== this.ctrl) return;
        this.status = 'error';
        this.error = errorText(e);
        console.warn(`probex: ${this.name}: ${this.error}`);
        this.emit();
      },
    );
  }

  /** Call fn once this resource is no longer loading (at once when it is not). */
  whenSettled(fn: () => void): void {
    if (this.status !== 'loading') return fn();
    const once = () => {
      if (this.status === 'loading') return;
      this.listeners = this.listeners.filter((l) => l !== once);
      fn();
    };
    this.listeners.push(once);
  }

  /** The view is hidden: stop waiting, keep what we have. */
  idle(): void {
    if (this.status === 'loading') {
      this.ctrl?.abort();
      this.status = this.data ? 'ok' : 'idle';
      this.wantKey = this.key;
      this.emit();
    }
  }

  retry(): void {
    this.retryFn?.();
  }
}

export const res = {
  overview: new Resource<HistogramResponse>('histogram'),
  lanes: new Resource<ProcessEventsResponse>('process events'),
  counts: new Resource<CountsResponse>('event counts'),
  latency: new Resource<LatencyStats>('latency stats'),
  io: new Resource<IoStats>('IO statistics'),
  mem: new Resource<MemoryStats>('memory statistics'),
  flame: new Resource<FlamegraphResponse>('flamegraph'),
  events: new Resource<EventListResponse>('event list'),
};

/** Range the debounced resources are fetched for (lags the live range by the debounce). */
let fetchRange: Range | null = null;
let timer = 0;

const RANGE_KEYS: Key[] = ['range', 'pid', 'enabled', 'eventsSearch'];
const VIEW_KEYS: Key[] = ['tab', 'flameType', 'latencyOpen', 'eventsPage', 'eventsOrder', 'summary', 'processes'];

export function startData(): void {
  subscribe((changed) => {
    if (RANGE_KEYS.some((k) => changed.has(k))) {
      clearTimeout(timer);
      // Wheel bursts are debounced; page load, keys, buttons and finished drags fetch at once.
      const delay = changed.has('range') && fetchRange && lastRangeDebounced() ? DEBOUNCE_MS : 0;
      timer = window.setTimeout(() => {
        fetchRange = state.range;
        refresh();
      }, delay);
    } else if (VIEW_KEYS.some((k) => changed.has(k))) {
      refresh();
    }
  });
}

/** The analysis panel is always shown: under the selected row, or for the whole trace. */
export function panelVisible(): boolean {
  return true;
}

/** Enabled chip types as a stable, comma-joined list. */
function enabledList(): string {
  return [...state.enabled].sort().join(',');
}

/** After a range change the lanes are fetched first and the other views right after, so
 *  on a busy server (2 cores here) the main view is not slowed by queries competing with
 *  it; they still start after LANES_HEAD_START_MS at the latest. */
const LANES_HEAD_START_MS = 400;
let generation = 0;

export function refresh(): void {
  const r = fetchRange;
  if (!r || !state.summary) return;
  const span = { start_ns: r.start, end_ns: r.end };
  const my = ++generation;

  res.lanes.want('process_events', { ...span, max_events_per_pid: markerBudget(r) }, r);
  if (res.lanes.status !== 'loading') return refreshViews(r);
  let started = false;
  const go = () => {
    if (started || my !== generation) return;
    started = true;
    refreshViews(r);
  };
  res.lanes.whenSettled(go);
  setTimeout(go, LANES_HEAD_START_MS);
}

/** Markers per process to ask for. The server samples over every type, so hidden types
 *  (cpu_sample by default) would eat the budget: widen it by the hidden share of
 *  the range, estimated from the overview histogram, so about MAX_MARKERS_PER_PID visible
 *  markers remain. Stepped, so toggling chips rarely changes the request; at most 4×. */
export function markerBudget(r: Range): number {
  const h = res.overview.data;
  if (!h) return MAX_MARKERS_PER_PID;
  let all = 0;
  let shown = 0;
  for (const b of h.buckets) {
    if (b.bucket_end_ns < r.start || b.bucket_start_ns > r.end) continue;
    for (const k in b.counts_by_type) {
      const n = b.counts_by_type[k]!;
      all += n;
      if (state.enabled.has(k)) shown += n;
    }
  }
  if (!all || !shown) return MAX_MARKERS_PER_PID;
  const want = MAX_MARKERS_PER_PID * (all / shown);
  for (const step of [1, 1.5, 2, 3]) if (want <= MAX_MARKERS_PER_PID * step * 1.05) return MAX_MARKERS_PER_PID * step;
  return MAX_MARKERS_PER_PID * 4;
}

function refreshViews(r: Range): void {
  const span = { start_ns: r.start, end_ns: r.end };
  const pid = state.pid;
  const scope = scopeParams();

  if (pid !== null) res.counts.want('pid_event_type_counts', { ...scope, ...span }, r);
  else res.counts.want('event_type_counts', span, r);

  res.latency.want('syscall_latency_stats', { ...span, ...scope }, r);

  const ioVisible = (panelVisible() && state.tab === 'io') || state.latencyOpen;
  if (ioVisible) {
    res.io.want('io_statistics', { ...span, ...scope, max_points: MAX_DIST_POINTS, ...(state.ioAll ? { all_syscalls: 1 } : {}) }, r);
    res.mem.want('memory_statistics', { ...span, ...scope, max_points: MAX_DIST_POINTS }, r);
  } else {
    res.io.idle();
    res.mem.idle();
  }

  if (panelVisible() && state.tab === 'flame' && state.flameType === WALL_FLAME && pid !== null) {
    res.flame.want('wall_flamegraph', { ...span, ...wallScopeParams() }, r);
  } else if (panelVisible() && state.tab === 'flame' && state.flameType && state.flameType !== WALL_FLAME) {
    res.flame.want(
      'event_flamegraph',
      { ...span, event_type: state.flameType, max_stacks: MAX_FLAME_STACKS, ...scope },
      r,
    );
  } else {
    res.flame.idle();
  }

  // event_list lists one pid's (or, with tgid, one process's) rows: none for the whole trace.
  if (pid !== null && state.tab === 'events' && state.enabled.size > 0) {
    res.events.want(
      'event_list',
      {
        ...span,
        ...scope,
        limit: PAGE_SIZE,
        offset: state.eventsPage * PAGE_SIZE,
        event_types: enabledList(),
        order: state.eventsOrder === 'latency' ? 'latency' : null,
        search: state.eventsSearch.trim() || null,
      },
      r,
    );
  } else {
    res.events.idle();
  }
}
