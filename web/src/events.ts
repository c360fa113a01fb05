// Events tab: the selected process's events in range, a page at a time, with the leaf
// frame instead of the "[user]" marker, precise relative and absolute times, the time
// since the previous row, every payload field the server sends, paging that restarts when
// the range or the filter changes, and nothing listed when every chip is off.

import { h, replace, spinner, errorBox } from './dom';
import { state, set, subscribe, traceRange } from './state';
import { res, PAGE_SIZE } from './data';
import { formatBytes, formatDuration, formatInt, formatOffsetPrecise } from './format';
import { leafFrame, renderFrames } from './frames';
import type { EventDetail } from './api';
import type { View } from './flamegraph';

// Shown in their own columns, or the same on every row of the panel's pid, or stack
// plumbing: the payload cell keeps what tells events apart (fd, bytes, ret, address, ...).
const CORE = new Set(['ts_ns', 'event_type', 'pid', 'stack_trace', 'cpu', 'tgid', 'process_name',
  'stack_id', 'kernel_stack_id', 'stack_kind', 'stack_weight']);

export function eventsView(): View {
  const el = h('div', { class: 'card', 'data-testid': 'events-card' });
  let visible = false;
  let expanded: string | null = null;
  let shownData: unknown = null;

  function draw(): void {
    if (!visible) return;
    const r = res.events;
    if (state.enabled.size === 0) {
      return replace(el, h('div', { class: 'muted', style: 'padding:8px' }, 'No event types enabled — turn on a chip above to list events.'));
    }
    if (r.status === 'error') return replace(el, errorBox(`Event list: ${r.error}`, () => r.retry()));
    const d = r.data;
    if (!d) return replace(el, r.status === 'loading' ? spinner('Loading events...') : null);
    if (shownData !== d) {
      shownData = d;
      expanded = null;
    }
    const total = d.total_in_range;
    const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
    if (state.eventsPage >= pages && total > 0) {
      set({ eventsPage: pages - 1 });
      return;
    }
    const page = state.eventsPage;
    const go = (p: number) => set({ eventsPage: Math.max(0, Math.min(pages - 1, p)) });
    const pager = h(
      'div',
      { class: 'pager', 'data-testid': 'pager' },
      h('button', { disabled: page <= 0, title: 'First page', onclick: () => go(0) }, '⇤'),
      h('button', { disabled: page <= 0, title: 'Previous page', 'data-testid': 'page-prev', onclick: () => go(page - 1) }, '←'),
      h('span', { class: 'tnum', 'data-testid': 'page-label' }, `${formatInt(page + 1)}/${formatInt(pages)}`),
      h('button', { disabled: page >= pages - 1, title: 'Next page', 'data-testid': 'page-next', onclick: () => go(page + 1) }, '→'),
      h('button', { disabled: page >= pages - 1, title: 'Last page', onclick: () => go(pages - 1) }, '⇥'),
    );
    const head = h(
      'div',
      { class: 'card-head' },
      h('span', { 'data-testid': 'events-total' }, `Events: ${formatInt(total)} in range`),
      r.status === 'loading' ? h('span', { class: 'loading small' }, h('span', { class: 'spin' }), 'Updating...') : null,
      pager,
    );
    if (!total) return replace(el, head, h('div', { class: 'muted', style: 'padding:8px' }, 'No events in current scope'));
    const t = traceRange()!;
    // Columns the server filled on this page (the reference sends no CPU or payload).
    const hasCpu = d.events.some((ev) => ev.cpu !== undefined && ev.cpu !== null);
    const hasPayload = d.events.some((ev) => payload(ev).length > 0);
    const rows: HTMLElement[] = [];
    d.events.forEach((ev, i) => {
      const key = `${page}:${i}:${ev.ts_ns}`;
      const prev = i > 0 ? d.events[i - 1] : null;
      const open = expanded === key;
      const leaf = leafFrame(ev.stack_trace);
      rows.push(
        h(
          'tr',
          {
            class: `ev${open ? ' open' : ''}`,
            'data-testid': 'event-row',
            onclick: () => {
              expanded = open ? null : key;
              draw();
            },
          },
          h('td', { title: `${formatInt(ev.ts_ns)} ns (absolute, CLOCK_MONOTONIC)` }, `T+${formatOffsetPrecise(ev.ts_ns - t.start)}`),
          h('td', { class: 'muted' }, prev ? `+${formatDuration(ev.ts_ns - prev.ts_ns)}` : ''),
          h('td', { class: 'muted' }, formatInt(ev.ts_ns)),
          h('td', null, ev.event_type),
          hasCpu ? h('td', { class: 'muted' }, ev.cpu === undefined || ev.cpu === null ? '' : String(ev.cpu)) : null,
          h('td', { class: 'leaf', title: leaf ?? '' }, leaf ?? '—'),
          hasPayload ? h('td', { class: 'payload' }, payload(ev)) : null,
        ),
      );
      if (open) {
        const cols = 5 + (hasCpu ? 1 : 0) + (hasPayload ? 1 : 0);
        rows.push(h('tr', { class: 'exp' }, h('td', { colspan: String(cols) }, renderFrames(ev.stack_trace, 'No stack trace available'))));
      }
    });
    replace(
      el,
      head,
      h(
        'div',
        { style: 'overflow-x:auto' },
        h(
          'table',
          { class: 'evt', 'data-testid': 'events-table' },
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              ['Time', 'Δ prev', 'Timestamp (ns)', 'Type', hasCpu ? 'CPU' : '', 'Leaf frame', hasPayload ? 'Details' : '']
                .filter((c) => c)
                .map((c) => h('th', null, c)),
            ),
          ),
          h('tbody', null, rows),
        ),
      ),
    );
  }

  res.events.on(draw);
  subscribe((c) => {
    if (c.has('enabled') || c.has('eventsPage')) draw();
  });
  return {
    el,
    show() {
      visible = true;
      draw();
    },
    hide() {
      visible = false;
    },
  };
}

/** Payload fields as label=value, formatted by what they hold. */
function payload(ev: EventDetail): HTMLElement[] {
  const out: HTMLElement[] = [];
  for (const [k, v] of Object.entries(ev)) {
    if (CORE.has(k) || v === null || v === undefined || typeof v === 'object') continue;
    out.push(h('span', null, h('b', null, `${label(k, ev.event_type)}=`), value(k, v as number | string)));
  }
  return out;
}

function label(k: string, type: string): string {
  if (k === 'count' && /read|write/.test(type)) return 'bytes';
  if (k === 'latency_ns') return 'latency';
  return k;
}

function value(k: string, v: number | string): string {
  if (typeof v !== 'number') return String(v);
  if (k === 'address' || k === 'error_code') return `0x${v.toString(16)}`;
  if (k === 'latency_ns') return formatDuration(v);
  if (k === 'bytes' || k === 'size' || k === 'len') return `${formatInt(v)} (${formatBytes(v)})`;
  if (k.endsWith('_ts_ns')) return formatInt(v);
  return String(v);
}
