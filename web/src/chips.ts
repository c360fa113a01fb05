// Event-type chips (each toggles one type in every view) and the latency summary row
// (read/write/io_uring count and avg/p50/p95/max, memory alloc/free/net; a click opens the
// aggregate IO/Memory card).

import { h, replace, errorBox } from './dom';
import { state, set, subscribe } from './state';
import { res } from './data';
import { chipTone, DISABLED_TONE } from './colors';
import { formatBytes, formatDuration, formatInt, formatNetBytesSigned, PCT_RULE_ROW } from './format';
import type { LatencySummary } from './api';
import { MARK, keptTitle } from './exact';

// With every syscall recorded a trace has dozens of types: the most frequent get a chip
// each, the rest one "other" chip (toggling them together) until expanded.
const TOP_CHIPS = 15;

export function mountChips(parent: HTMLElement): void {
  const row = h('div', { class: 'chips', 'data-testid': 'chips' });
  parent.appendChild(row);
  let expanded = false;
  const draw = () => {
    const r = res.counts;
    if (r.status === 'error' && !r.data) return replace(row, errorBox(`Event counts: ${r.error}`, () => r.retry()));
    const counts = r.data?.counts;
    if (!counts) return replace(row, r.status === 'loading' ? h('span', { class: 'muted' }, 'Counting events…') : null);
    const exact = r.data?.exact_counts ?? {};
    // By the count shown: the exact one where rows were dropped.
    const shownN = ([t, n]: [string, number]) => Math.max(n, exact[t] ?? 0);
    // A type whose rows were all dropped has a chip too (its exact count, 0 rows kept).
    const list = Object.entries({ ...Object.fromEntries(Object.keys(exact).map((t) => [t, 0])), ...counts })
      .filter(([t, n]) => n > 0 || exact[t])
      .sort((a, b) => shownN(b) - shownN(a) || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    if (!list.length) return replace(row, h('span', { class: 'muted' }, 'No event badges in this range'));
    const folded = !expanded && list.length > TOP_CHIPS + 1;
    const shown = folded ? list.slice(0, TOP_CHIPS) : list;
    const rest = folded ? list.slice(TOP_CHIPS) : [];
    const count = (type: string, n: number) =>
      exact[type] && exact[type] > n
        ? h('span', { class: 'n tnum incomplete', title: keptTitle(n, exact[type]) }, formatInt(exact[type]), h('span', { class: 'mark' }, MARK))
        : h('span', { class: 'n tnum' }, formatInt(n));
    const chips = shown.map(([type, n]) => {
      const on = state.enabled.has(type);
      const tone = on ? chipTone(type) : DISABLED_TONE;
      return h(
        'button',
        {
          class: `chip${on ? '' : ' off'}`,
          style: `border-color:${tone.border};color:${tone.text}`,
          'data-type': type,
          'aria-pressed': on ? 'true' : 'false',
          title: `${on ? 'Hide' : 'Show'} ${type} (markers, overview, event list)`,
          onclick: () => {
            const next = new Set(state.enabled);
            if (on) next.delete(type);
            else next.add(type);
            set({ enabled: next });
          },
        },
        type,
        count(type, n),
      );
    });
    if (rest.length) {
      const types = rest.map(([t]) => t);
      const rows = rest.reduce((a, [, n]) => a + n, 0);
      const all = rest.reduce((a, [t, n]) => a + Math.max(n, exact[t] ?? 0), 0);
      const on = types.some((t) => state.enabled.has(t));
      const tone = on ? chipTone('other') : DISABLED_TONE;
      chips.push(
        h(
          'button',
          {
            class: `chip${on ? '' : ' off'}`,
            style: `border-color:${tone.border};color:${tone.text}`,
            'data-testid': 'chip-other',
            'aria-pressed': on ? 'true' : 'false',
            title: `${on ? 'Hide' : 'Show'} ${types.length} less frequent types: ${types.join(', ')}`,
            onclick: () => {
              const next = new Set(state.enabled);
              for (const t of types) on ? next.delete(t) : next.add(t);
              set({ enabled: next });
            },
          },
          `other (${types.length} types)`,
          all > rows
            ? h('span', { class: 'n tnum incomplete', title: keptTitle(rows, all) }, formatInt(all), h('span', { class: 'mark' }, MARK))
            : h('span', { class: 'n tnum' }, formatInt(rows)),
        ),
      );
    }
    const all = list.map(([t]) => t);
    const allOn = all.every((t) => state.enabled.has(t));
    const noneOn = all.every((t) => !state.enabled.has(t));
    replace(
      row,
      chips,
      h(
        'span',
        { class: 'muted', style: 'margin-left:6px' },
        h('button', { class: 'link-btn', 'data-testid': 'chips-all', disabled: allOn, onclick: () => set({ enabled: new Set([...state.enabled, ...all]) }) }, 'all'),
        ' · ',
        h('button', { class: 'link-btn', 'data-testid': 'chips-none', disabled: noneOn, onclick: () => set({ enabled: new Set() }) }, 'none'),
        list.length > TOP_CHIPS + 1 ? ' · ' : null,
        list.length > TOP_CHIPS + 1
          ? h('button', { class: 'link-btn', 'data-testid': 'chips-expand', onclick: () => { expanded = !expanded; draw(); } }, expanded ? 'fewer' : `all ${list.length} types`)
          : null,
      ),
      r.status === 'loading' ? h('span', { class: 'busy-dot', title: 'Updating' }) : null,
    );
  };
  res.counts.on(draw);
  subscribe((c) => c.has('enabled') && draw());
  draw();
}

export function mountLatencyRow(parent: HTMLElement, onToggle: () => void): HTMLElement {
  const row = h('div', {
    class: 'latrow',
    role: 'button',
    tabindex: '0',
    'data-testid': 'latency-row',
    title: 'Show or hide IO and memory statistics for the current scope',
  });
  parent.appendChild(row);
  const toggle = () => {
    set({ latencyOpen: !state.latencyOpen });
    onToggle();
  };
  row.addEventListener('click', toggle);
  row.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      toggle();
    }
  });
  const lat = (label: string, s: LatencySummary | undefined) =>
    h(
      'span',
      null,
      `${label} `,
      !s || (!s.count && !s.exact_count)
        ? '—'
        : s.incomplete && s.exact_count
          ? [
              h('span', { class: 'pfx incomplete', title: keptTitle(s.count, s.exact_count), 'data-testid': `lat-${label}-exact` },
                `${formatInt(s.exact_count)}`, h('span', { class: 'mark' }, MARK), '× avg/p50/p95/max '),
              // Percentiles from the rows kept: none when every row was dropped.
              `${formatDuration(Math.round((s.exact_total_ns ?? 0) / s.exact_count))}/` +
                (s.count ? `${formatDuration(s.p50_ns)}/${formatDuration(s.p95_ns)}/${formatDuration(s.max_ns)}` : '—/—/—'),
            ]
          : [
              h('span', { class: 'pfx', title: PCT_RULE_ROW }, `${formatInt(s.count)}× avg/p50/p95/max `),
              `${formatDuration(s.avg_ns)}/${formatDuration(s.p50_ns)}/${formatDuration(s.p95_ns)}/${formatDuration(s.max_ns)}`,
            ],
    );
  const draw = () => {
    const r = res.latency;
    const d = r.data;
    const chev = state.latencyOpen ? '▼' : '▶';
    if (r.status === 'error' && !d) {
      return replace(row, h('span', null, chev), errorBox(`Latency: ${r.error}`, () => r.retry()));
    }
    const mem =
      d && (d.mmap_alloc_bytes || d.munmap_free_bytes)
        ? `${formatBytes(d.mmap_alloc_bytes)}/${formatBytes(d.munmap_free_bytes)}/${formatNetBytesSigned(d.mmap_alloc_bytes, d.munmap_free_bytes)}`
        : '—';
    replace(
      row,
      h('span', null, chev),
      lat('read', d?.read),
      lat('write', d?.write),
      lat('io_uring', d?.io_uring),
      h('span', null, 'mem +/\u2212/net ', mem),
      r.status === 'loading' ? h('span', { class: 'busy-dot', title: 'Updating' }) : null,
    );
  };
  res.latency.on(draw);
  subscribe((c) => c.has('latencyOpen') && draw());
  draw();
  return row;
}
