// Events tab: the selected process's (all its threads') or thread's events in range, a
// page at a time, by time or longest latency first, searched on the server (type, thread
// name, stack frames).  The leaf column is the first user frame (not the kernel's syscall
// exit path); returns read `-1 ENOENT`, addresses hex, stack plumbing hidden; a row
// opens its fields and stack, and its show button moves the timeline to it.

import { h, replace, spinner, errorBox } from './dom';
import { state, set, subscribe, traceRange, setRange } from './state';
import { res, PAGE_SIZE } from './data';
import { formatDuration, formatInt, formatOffsetPrecise } from './format';
import { userLeaf, renderFrames } from './frames';
import { fieldSpans } from './evdetail';
import { formatMs } from './threadstates';
import type { EventDetail } from './api';
import type { View } from './flamegraph';

export function eventsView(): View {
  const search = h('input', {
    type: 'search',
    placeholder: 'Search type, thread, path, frame…',
    'aria-label': 'Search events',
    'data-testid': 'events-search',
    style: 'width:16rem',
  });
  const body = h('div');
  const el = h('div', { class: 'card', 'data-testid': 'events-card' }, body);
  let visible = false;
  let expanded: string | null = null;
  let shownData: unknown = null;
  let timer = 0;

  search.addEventListener('input', () => {
    clearTimeout(timer);
    timer = window.setTimeout(() => set({ eventsSearch: search.value }), 250);
  });
  search.addEventListener('keydown', (e) => e.stopPropagation());

  function sortHead(label: string, order: 'ts' | 'latency', testid: string): HTMLElement {
    const on = state.eventsOrder === order;
    return h(
      'th',
      { class: `sortable${on ? ' on' : ''}`, 'data-testid': testid, title: `Sort by ${label.toLowerCase()}`, onclick: () => set({ eventsOrder: order }) },
      `${label}${on ? (order === 'latency' ? ' ▼' : ' ▲') : ''}`,
    );
  }

  function draw(): void {
    if (!visible) return;
    if (search.value !== state.eventsSearch && document.activeElement !== search) search.value = state.eventsSearch;
    if (state.pid === null) {
      return replace(body, h('div', { class: 'muted', style: 'padding:8px' }, 'Select a process or thread (click its row) to list its events.'));
    }
    const r = res.events;
    if (state.enabled.size === 0) {
      return replace(body, h('div', { class: 'muted', style: 'padding:8px' }, 'No event types enabled — turn on a chip above to list events.'));
    }
    if (r.status === 'error') return replace(body, errorBox(`Event list: ${r.error}`, () => r.retry()));
    const d = r.data;
    if (!d) return replace(body, r.status === 'loading' ? spinner('Loading events...') : null);
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
    const q = state.eventsSearch.trim();
    const head = h(
      'div',
      { class: 'card-head' },
      h('span', { 'data-testid': 'events-total' }, `Events: ${formatInt(total)} ${q ? `matching “${q}”` : 'in range'}`),
      search,
      r.status === 'loading' ? h('span', { class: 'loading small' }, h('span', { class: 'spin' }), 'Updating...') : null,
      pager,
    );
    if (!total) return replace(body, head, h('div', { class: 'muted', style: 'padding:8px' }, q ? 'No event matches the search' : 'No events in current scope'));
    const t = traceRange()!;
    const byTime = state.eventsOrder !== 'latency';
    const hasCpu = d.events.some((ev) => ev.cpu !== undefined && ev.cpu !== null);
    const manyThreads = new Set(d.events.map((ev) => ev.pid)).size > 1 || state.pid !== d.events[0]?.pid;
    const rows: HTMLElement[] = [];
    d.events.forEach((ev, i) => {
      const key = `${page}:${i}:${ev.ts_ns}`;
      const prev = byTime && i > 0 ? d.events[i - 1] : null;
      const open = expanded === key;
      const leaf = userLeaf(ev.stack_trace);
      const jump = h('button', { class: 'link-btn jump', title: 'Show on the timeline', 'data-testid': 'event-jump', onclick: (e: Event) => {
        e.stopPropagation();
        jumpTo(ev);
      } }, 'show');
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
          h('td', { title: `${formatInt(ev.ts_ns)} ns (absolute, CLOCK_MONOTONIC)` }, jump, ` T+${formatOffsetPrecise(ev.ts_ns - t.start)}`),
          h('td', { class: 'muted' }, prev ? `+${formatDuration(ev.ts_ns - prev.ts_ns)}` : ''),
          h('td', { class: 'tnum', 'data-testid': 'event-latency' }, ev.latency_ns === null || ev.latency_ns === undefined ? '' : formatMs(ev.latency_ns)),
          h('td', null, ev.event_type),
          manyThreads ? h('td', { class: 'muted' }, String(ev.pid)) : null,
          hasCpu ? h('td', { class: 'muted' }, ev.cpu === undefined || ev.cpu === null ? '' : String(ev.cpu)) : null,
          h('td', { class: 'leaf', title: leaf ?? '', 'data-testid': 'event-leaf' }, leaf ?? '—'),
          h('td', { class: 'payload', 'data-testid': 'event-fields' }, fieldSpans(ev)),
        ),
      );
      if (open) {
        const cols = 6 + (manyThreads ? 1 : 0) + (hasCpu ? 1 : 0);
        rows.push(h('tr', { class: 'exp' }, h('td', { colspan: String(cols) }, renderFrames(ev.stack_trace, 'No stack trace available'))));
      }
    });
    const th = (c: string) => h('th', null, c);
    replace(
      body,
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
              sortHead('Time', 'ts', 'sort-time'),
              th('Δ prev'),
              sortHead('Latency', 'latency', 'sort-latency'),
              th('Type'),
              manyThreads ? th('TID') : null,
              hasCpu ? th('CPU') : null,
              th('User frame'),
              th('Details'),
            ),
          ),
          h('tbody', null, rows),
        ),
      ),
    );
  }

  res.events.on(draw);
  subscribe((c) => {
    if (c.has('enabled') || c.has('eventsPage') || c.has('eventsOrder') || c.has('pid') || c.has('eventsSearch')) draw();
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

/** Centre the timeline on an event: the operation and as much again on each side (2 ms,
 *  or the current width when narrower, for an instant). */
export function jumpTo(ev: EventDetail): void {
  const r = state.range;
  if (!r) return;
  const lat = ev.latency_ns ?? 0;
  const start = ev.ts_ns - lat;
  const w = lat > 0 ? lat * 3 : Math.min(r.end - r.start, 2e6);
  const c = start + lat / 2;
  setRange(c - w / 2, c + w / 2);
  set({ hoverNs: ev.ts_ns });
}
