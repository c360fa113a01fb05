// Thread states on the lanes: each visible thread's spans (running, runnable, sleeping,
// disk, unknown) from /api/thread_states, fetched for the view at about one span per lane
// pixel, drawn as a strip along the top of the lane, and found again under the mouse.
// A blocked span can be selected: its details and the arrow to its waker follow it.

import { getJson, HttpError, isAbort, errorText, type StateSpan, type ThreadStatesResponse } from './api';
import { STATE_COLORS, stateColor } from './colors';
import { formatDuration, formatOffsetPrecise, escapeHtml } from './format';
import type { Range } from './state';
import { res } from './data';

/** Height of the state strip at the top of a lane, and the click zone that selects a span
 *  (the lane's middle still selects the thread). */
export const STATE_H = 8;
export const STATE_CLICK_H = STATE_H + 1;
const CONCURRENT = 3;
const DEBOUNCE_MS = 120;

interface Entry {
  key: string;
  spans: StateSpan[];
  note?: string | null;
}

const byTid = new Map<number, Entry>();
const queued = new Map<number, string>();
const inflight = new Set<number>();
let wantKey = '';
/** The window and span budget of wantKey. */
let want: { r: Range; maxSpans: number } | null = null;
let timer = 0;
let ctrl = new AbortController();
let listeners: Array<() => void> = [];
/** Why the states are not shown (old server, trace without scheduling rows), or ''. */
export let unavailable = '';

export function onStates(fn: () => void): void {
  listeners.push(fn);
}
function emit(): void {
  for (const fn of listeners) fn();
}

/** Ask for the states of `tids` over `r`, one span per about one of `width` pixels. */
export function wantStates(tids: number[], r: Range, width: number): void {
  if (unavailable) return;
  const maxSpans = Math.max(64, Math.min(4000, Math.round(width)));
  const key = `${r.start}:${r.end}:${maxSpans}`;
  if (key !== wantKey) {
    wantKey = key;
    want = { r, maxSpans };
    ctrl.abort();
    ctrl = new AbortController();
    queued.clear();
  }
  let added = false;
  for (const tid of tids) {
    if (byTid.get(tid)?.key === key || queued.has(tid)) continue;
    queued.set(tid, key);
    added = true;
  }
  if (!added) return;
  clearTimeout(timer);
  timer = window.setTimeout(pump, DEBOUNCE_MS);
}

let waiting = false;
function pump(): void {
  if (!want) return;
  const { r, maxSpans } = want;
  // The lanes' markers come first: states are asked for once they arrived.
  if (res.lanes.status === 'loading') {
    if (!waiting) {
      waiting = true;
      res.lanes.whenSettled(() => {
        waiting = false;
        pump();
      });
    }
    return;
  }
  for (const [tid, key] of queued) {
    if (inflight.size >= CONCURRENT) return;
    if (key !== wantKey) {
      queued.delete(tid);
      continue;
    }
    queued.delete(tid);
    inflight.add(tid);
    const signal = ctrl.signal;
    getJson<ThreadStatesResponse>('thread_states', { tid, start_ns: r.start, end_ns: r.end, max_spans: maxSpans }, signal)
      .then(
        (d) => byTid.set(tid, { key, spans: Array.isArray(d.spans) ? d.spans : [], note: d.note }),
        (e) => {
          if (isAbort(e)) return;
          // An older server has no such endpoint: stop asking.
          if (e instanceof HttpError && e.status === 404) {
            unavailable = 'this server has no thread states';
            queued.clear();
          }
          else byTid.set(tid, { key, spans: [], note: errorText(e) });
        },
      )
      .finally(() => {
        inflight.delete(tid);
        emit();
        pump();
      });
  }
}

/** What the server said about the states shown (an old trace, no switches), once each. */
export function statesNotes(): string[] {
  const out = new Set<string>();
  if (unavailable) out.add(unavailable);
  for (const e of byTid.values()) if (e.key === wantKey && e.note) out.add(e.note);
  return [...out];
}

/** Loading while any visible thread's states are asked for (tests wait for it to settle). */
export const statesStatus = {
  get status(): string {
    return queued.size || inflight.size ? 'loading' : 'ok';
  },
};

export function spansOf(tid: number): StateSpan[] | undefined {
  return byTid.get(tid)?.spans;
}

/** The span of tid at ns, or the nearest within tolNs. */
export function spanAt(tid: number, ns: number, tolNs = 0): StateSpan | null {
  const s = byTid.get(tid)?.spans;
  if (!s || !s.length) return null;
  let lo = 0;
  let hi = s.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (s[mid]!.end_ns <= ns) lo = mid + 1;
    else hi = mid;
  }
  return nearestSpan([s[lo - 1], s[lo]].filter((x): x is StateSpan => !!x), ns, tolNs);
}

/** The span of spans closest to ns (0 inside it), if within tolNs. */
export function nearestSpan<T extends { start_ns: number; end_ns: number }>(spans: Iterable<T>, ns: number, tolNs: number): T | null {
  let best: T | null = null;
  let bd = Infinity;
  for (const c of spans) {
    const d = ns < c.start_ns ? c.start_ns - ns : ns >= c.end_ns ? ns - c.end_ns : 0;
    if (d <= tolNs && d < bd) {
      best = c;
      bd = d;
    }
  }
  return best;
}

export function isBlocked(sp: StateSpan): boolean {
  return sp.state === 'sleeping' || sp.state === 'disk';
}

let hatch: CanvasPattern | null = null;
function unknownFill(ctx: CanvasRenderingContext2D): CanvasPattern | string {
  if (!hatch) {
    const c = document.createElement('canvas');
    c.width = 6;
    c.height = 6;
    const g = c.getContext('2d')!;
    g.fillStyle = STATE_COLORS.unknown;
    g.fillRect(0, 0, 6, 6);
    g.strokeStyle = '#9ca3af';
    g.lineWidth = 1.2;
    g.beginPath();
    g.moveTo(0, 6);
    g.lineTo(6, 0);
    g.stroke();
    hatch = ctx.createPattern(c, 'repeat');
  }
  return hatch ?? STATE_COLORS.unknown;
}

/** Draw tid's state strip over a lane canvas already drawn by drawLane (CSS px transform). */
export function drawStates(canvas: HTMLCanvasElement, width: number, tid: number, view: Range, selected: StateSpan | null): void {
  const spans = byTid.get(tid)?.spans;
  const vw = view.end - view.start;
  if (!spans || !spans.length || vw <= 0) return;
  const ctx = canvas.getContext('2d')!;
  const X = (ns: number) => ((ns - view.start) / vw) * width;
  for (const sp of spans) {
    if (sp.end_ns < view.start || sp.start_ns > view.end) continue;
    const x0 = Math.max(0, X(sp.start_ns));
    const x1 = Math.min(width, X(sp.end_ns));
    ctx.fillStyle = sp.state === 'unknown' ? unknownFill(ctx) : stateColor(sp.state);
    ctx.fillRect(x0, 0, Math.max(0.6, x1 - x0), STATE_H);
  }
  // The selected span stays outlined after a refetch replaced the span objects.
  if (selected) {
    const x0 = X(selected.start_ns);
    const x1 = X(selected.end_ns);
    ctx.strokeStyle = '#111827';
    ctx.lineWidth = 1.5;
    ctx.strokeRect(Math.max(0.75, x0), 0.75, Math.max(1.5, Math.min(width, x1) - Math.max(0, x0)), STATE_H + 1);
  }
}

/** Hover lines for the span under the mouse. */
export function stateTip(sp: StateSpan, traceStart: number, nameOf: (tid: number) => string | null): string {
  const c = sp.state === 'unknown' ? '#9ca3af' : stateColor(sp.state);
  const lines = [
    `<span style="color:${c}">■</span> <b>${escapeHtml(String(sp.state))}</b> ${formatMs(sp.end_ns - sp.start_ns)} · T+${formatOffsetPrecise(sp.start_ns - traceStart)}`,
  ];
  if (sp.syscall) lines.push(`in ${escapeHtml(syscallText(sp))}`);
  if (sp.waker_tid) lines.push(`woken by ${escapeHtml(wakerText(sp, nameOf))}`);
  if (sp.merged && sp.merged > 1) lines.push(`<span style="opacity:.7">${sp.merged} spans merged at this zoom: zoom in for each</span>`);
  if (isBlocked(sp)) lines.push('<span style="opacity:.7">click the state strip: stacks and waker</span>');
  return lines.join('\n');
}

export function syscallText(sp: StateSpan): string {
  const c = sp.syscall;
  if (!c) return '';
  if (c.filename) return `${c.name} ${c.filename}`;
  if (c.fd !== null && c.fd !== undefined) return `${c.name} fd ${c.fd}`;
  return c.name;
}

export function wakerText(sp: StateSpan, nameOf: (tid: number) => string | null): string {
  const name = sp.waker_name ?? (sp.waker_tid ? nameOf(sp.waker_tid) : null);
  const pid = sp.waker_pid && sp.waker_pid !== sp.waker_tid ? ` · PID ${sp.waker_pid}` : '';
  return `${name ?? 'thread'} (TID ${sp.waker_tid}${pid})`;
}

/** Duration in ms, the unit the wall-clock views speak: 668.21 ms, 0.004 ms. */
export function formatMs(ns: number): string {
  const ms = ns / 1e6;
  if (ms >= 100) return `${ms.toFixed(1)} ms`;
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  if (ms >= 0.001) return `${ms.toFixed(3)} ms`;
  return formatDuration(ns);
}
