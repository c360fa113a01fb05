// Syscalls, io_uring operations and page faults with a latency, drawn as spans on their
// thread's lane (below the state strip) wherever they are wider than a pixel; narrower
// ones stay the lane's ticks, and overlapping ones merge into one bar, as Perfetto draws
// them.  Each visible thread's longest operations in the view come from
// /api/event_list?order=latency.  Hover names one; a click opens its details (arguments,
// the file of its fd, its return with the errno name, its stack, its latency).

import { getJson, isAbort, type EventDetail, type EventListResponse } from './api';
import { h, replace } from './dom';
import { state, traceRange, type Range } from './state';
import { res } from './data';
import { markerColor } from './colors';
import { formatOffsetPrecise, escapeHtml } from './format';
import { formatMs } from './threadstates';
import { fieldPairs, opName } from './evdetail';

/** The band of the lane the spans take: its lower third (the state strip is on top, the
 *  middle still selects the row). */
export const SPAN_Y = 13;
export const SPAN_H = 6;
/** Longest operations asked for per thread and view: more are narrower than these. */
const PER_THREAD = 300;
const CONCURRENT = 3;

export interface OpSpan {
  start: number;
  end: number;
  ev: EventDetail;
  /** ev carries the row's fields (read on the first click). */
  full?: boolean;
}

interface Entry {
  key: string;
  spans: OpSpan[];
}

const byTid = new Map<number, Entry>();
const queued = new Set<number>();
let inflight = 0;
let wantKey = '';
let want: Range | null = null;
let ctrl = new AbortController();
const listeners: Array<() => void> = [];

export function onSpans(fn: () => void): void {
  listeners.push(fn);
}
function emit(): void {
  for (const fn of listeners) fn();
}

/** Types whose rows carry the operation's latency: syscall exits, io_uring completions,
 *  page faults. */
function spanTypes(): string {
  const all = state.summary?.event_types ?? [];
  return all.filter((t) => /^syscall_.+_exit$/.test(t) || t === 'io_uring_complete' || t === 'page_fault').sort().join(',');
}

export function wantSpans(tids: number[], r: Range): void {
  const types = spanTypes();
  if (!types) return;
  const key = `${r.start}:${r.end}`;
  if (key !== wantKey) {
    wantKey = key;
    want = r;
    ctrl.abort();
    ctrl = new AbortController();
    queued.clear();
    inflight = 0;
  }
  for (const tid of tids) if (byTid.get(tid)?.key !== key) queued.add(tid);
  pump();
}

function pump(): void {
  const r = want;
  if (!r) return;
  if (res.lanes.status === 'loading') return res.lanes.whenSettled(pump);
  for (const tid of [...queued]) {
    if (inflight >= CONCURRENT) return;
    queued.delete(tid);
    inflight++;
    const key = wantKey;
    // The rows alone: a clicked span's fields are fetched on the click.
    const params = { start_ns: r.start, end_ns: r.end, pid: tid, limit: PER_THREAD, offset: 0, order: 'latency', event_types: spanTypes(), payload: 0 };
    getJson<EventListResponse>('event_list', params, ctrl.signal)
      .then(
        (d) => {
          const spans: OpSpan[] = [];
          for (const ev of d.events) {
            const lat = ev.latency_ns;
            if (lat === null || !(lat > 0)) continue;
            spans.push({ start: ev.ts_ns - lat, end: ev.ts_ns, ev });
          }
          spans.sort((a, b) => a.start - b.start);
          byTid.set(tid, { key, spans });
        },
        (e) => {
          if (!isAbort(e)) byTid.set(tid, { key, spans: [] });
        },
      )
      .finally(() => {
        if (key === wantKey) inflight = Math.max(0, inflight - 1);
        emit();
        pump();
      });
  }
}

export const spansStatus = {
  get status(): string {
    return queued.size || inflight ? 'loading' : 'ok';
  },
};

export function spansOfTid(tid: number): OpSpan[] {
  return byTid.get(tid)?.spans ?? [];
}

/** Draw tid's spans: touching ones of a type merge into one bar, those narrower than a
 *  pixel into a grey pixel column. */
export function drawSpans(canvas: HTMLCanvasElement, width: number, tid: number, view: Range, selected: OpSpan | null): void {
  const spans = byTid.get(tid)?.spans;
  const vw = view.end - view.start;
  if (!spans || !spans.length || vw <= 0) return;
  const ctx = canvas.getContext('2d')!;
  const X = (ns: number) => ((ns - view.start) / vw) * width;
  const tiny = new Set<number>();
  let runX0 = -1;
  let runX1 = -1;
  let runColor = '';
  const flush = () => {
    if (runX1 - runX0 < 1) return;
    ctx.fillStyle = runColor;
    ctx.fillRect(runX0, SPAN_Y, runX1 - runX0, SPAN_H);
    ctx.strokeStyle = 'rgba(17,24,39,0.45)';
    ctx.lineWidth = 0.6;
    ctx.strokeRect(runX0 + 0.3, SPAN_Y + 0.3, Math.max(0.4, runX1 - runX0 - 0.6), SPAN_H - 0.6);
  };
  for (const sp of spans) {
    if (sp.end < view.start || sp.start > view.end) continue;
    const x0 = Math.max(0, X(sp.start));
    const x1 = Math.min(width, X(sp.end));
    // Narrower than a pixel: merged into that pixel's column, as Perfetto draws them.
    if (x1 - x0 < 1) {
      tiny.add(Math.floor(x0));
      continue;
    }
    const color = markerColor(sp.ev.event_type);
    if (runX1 >= 0 && x0 <= runX1 + 0.5 && color === runColor) {
      runX1 = Math.max(runX1, x1);
      continue;
    }
    flush();
    runX0 = x0;
    runX1 = x1;
    runColor = color;
  }
  flush();
  ctx.fillStyle = 'rgba(75,85,99,0.55)';
  for (const x of tiny) ctx.fillRect(x, SPAN_Y + 1, 1, SPAN_H - 2);
  if (selected && selected.end >= view.start && selected.start <= view.end) {
    ctx.strokeStyle = '#111827';
    ctx.lineWidth = 1.5;
    const x0 = Math.max(0, X(selected.start));
    ctx.strokeRect(x0 + 0.75, SPAN_Y - 1, Math.max(1.5, Math.min(width, X(selected.end)) - x0 - 1.5), SPAN_H + 2);
  }
}

/** The longest drawn span of tid under ns (within tolNs). */
export function opSpanAt(tid: number, ns: number, tolNs: number): OpSpan | null {
  let best: OpSpan | null = null;
  for (const sp of byTid.get(tid)?.spans ?? []) {
    if (sp.start - tolNs > ns || sp.end + tolNs < ns) continue;
    if (!best || sp.end - sp.start > best.end - best.start) best = sp;
  }
  return best;
}

export function opSpanTip(sp: OpSpan, t0: number): string {
  const ev = sp.ev;
  const c = markerColor(ev.event_type);
  const facts = fieldPairs(ev).filter(([k]) => ['fd', 'ret', 'bytes', 'file', 'filename', 'address'].includes(k));
  return [
    `<span style="color:${c}">■</span> <b>${escapeHtml(opName(ev.event_type))}</b> ${formatMs(sp.end - sp.start)} · T+${formatOffsetPrecise(sp.start - t0)}`,
    facts.length ? escapeHtml(facts.map(([k, v]) => `${k}=${v}`).join(' ')) : '',
    '<span style="opacity:.7">click: details</span>',
  ].filter((x) => x).join('\n');
}

// ---- the selected span's details ---------------------------------------------------------

export let selectedOp: { tid: number; span: OpSpan } | null = null;
const drawer = h('div', { class: 'span-detail', 'data-testid': 'op-detail', role: 'region', 'aria-label': 'Operation details', style: 'display:none' });

export function opDetailEl(): HTMLElement {
  return drawer;
}

let escBound = false;

/** The row of a span with its fields (its arguments, return, file), read on a click. */
async function withFields(tid: number, sp: OpSpan): Promise<EventDetail> {
  const ev = sp.ev;
  try {
    const d = await getJson<EventListResponse>('event_list', { start_ns: ev.ts_ns, end_ns: ev.ts_ns, pid: tid, limit: 16, offset: 0, event_types: ev.event_type });
    return d.events.find((e) => e.latency_ns === ev.latency_ns) ?? ev;
  } catch {
    return ev;
  }
}

export function selectOp(sel: { tid: number; span: OpSpan } | null, threadName: (tid: number) => string): void {
  if (sel && !sel.span.full) {
    const s = sel;
    void withFields(s.tid, s.span).then((ev) => {
      s.span.ev = ev;
      s.span.full = true;
      if (selectedOp === s) selectOp(s, threadName);
    });
  }
  selectedOp = sel;
  if (!escBound) {
    escBound = true;
    // Esc closes the details first (the page's Esc then deselects the process).
    window.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape' || !selectedOp) return;
      e.stopImmediatePropagation();
      e.preventDefault();
      selectOp(null, threadName);
    }, true);
  }
  if (!sel) {
    replace(drawer);
    drawer.style.display = 'none';
    emit();
    return;
  }
  const t0 = traceRange()?.start ?? 0;
  const { span: sp, tid } = sel;
  const ev = sp.ev;
  const facts: Array<[string, string]> = [
    ['thread', `${threadName(tid)} (TID ${tid})`],
    ['latency', formatMs(sp.end - sp.start)],
    ['when', `T+${formatOffsetPrecise(sp.start - t0)} → T+${formatOffsetPrecise(sp.end - t0)}`],
    ...fieldPairs(ev),
  ];
  const frames = ev.stack_trace;
  replace(
    drawer,
    h(
      'div',
      { class: 'sd-head' },
      h('span', { class: 'sd-swatch', style: `background:${markerColor(ev.event_type)}` }),
      h('b', { 'data-testid': 'op-detail-title' }, `${opName(ev.event_type)} · ${formatMs(sp.end - sp.start)}`),
      h('button', { class: 'link-btn', 'data-testid': 'op-detail-close', onclick: () => selectOp(null, threadName) }, 'Close ✕'),
    ),
    h('table', { class: 'sd-facts', 'data-testid': 'op-detail-facts' }, facts.map(([k, v]) => h('tr', null, h('th', null, k), h('td', null, v)))),
    h(
      'div',
      { class: 'sd-stacks' },
      h(
        'div',
        { class: 'sd-stack' },
        h('div', { class: 'dim' }, 'Stack (leaf first)'),
        frames && frames.length
          ? h('ol', { class: 'sd-frames', 'data-testid': 'op-stack' }, [...frames].reverse().map((f) => h('li', { class: /^\[.*\]$/.test(f) ? 'mark' : '' }, f || '[unknown]')))
          : h('div', { class: 'muted' }, 'no stack recorded'),
      ),
    ),
  );
  drawer.style.display = '';
  emit();
  requestAnimationFrame(() => {
    if (drawer.getBoundingClientRect().top > window.innerHeight - 80) drawer.scrollIntoView({ block: 'nearest' });
  });
}
