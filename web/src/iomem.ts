// IO / Memory card: per-operation summary tables with clickable percentile cells and their
// stack panels, latency and size CDFs and histograms, and the memory-in-use timeline the
// reference never drew. Shows loading, stale and error states (the reference showed stale
// data with no indicator); disposes its charts when hidden, so they never accumulate.

import { h, replace, spinner, errorBox } from './dom';
import { state, traceRange } from './state';
import { res, refresh } from './data';
import { formatBytes, formatCount, formatDuration, formatInt, formatNetBytesSigned, formatOffsetPrecise, PCT_RULE_TABLE } from './format';
import { ChartSet, cdfOption, histogramOption, usageOption, type Series } from './charts';
import { opDist, type Kind } from './distrib';
import { renderFrames } from './frames';
import type { OpStats, EventDetail } from './api';
import { MARK, keptTitle } from './exact';
import type { View } from './flamegraph';

type Pct = 'P50' | 'P95' | 'P99' | 'Max';
const PCT_FIELD: Record<Pct, keyof OpStats> = { P50: 'p50_event', P95: 'p95_event', P99: 'p99_event', Max: 'max_event' };

// With every syscall recorded IO has dozens of operations (the server lists the
// reference's first, then the others by count): the table shows the first TOP_ROWS until
// expanded, the charts the first TOP_PLOTTED.
const TOP_ROWS = 12;
const TOP_PLOTTED = 8;

export function ioMemoryView(testid: string): View {
  const el = h('div', { 'data-testid': testid });
  let visible = false;
  let charts = new ChartSet();
  let drawnFor: [unknown, unknown] = [null, null];
  const open: Record<string, { op: string; pct: Pct } | null> = { io: null, mem: null };

  function draw(): void {
    if (!visible) return;
    const io = res.io;
    const mem = res.mem;
    const loading = io.status === 'loading' || mem.status === 'loading';
    if (!io.data && !mem.data) {
      drawnFor = [null, null];
      charts.dispose();
      if (io.status === 'error' || mem.status === 'error') {
        return replace(
          el,
          h('div', { class: 'card' }, errorBox(`IO / memory statistics: ${io.error ?? mem.error}`, () => {
            io.retry();
            mem.retry();
          })),
        );
      }
      return replace(el, h('div', { class: 'card' }, spinner('Loading IO and memory statistics...')));
    }
    if (drawnFor[0] !== io.data || drawnFor[1] !== mem.data) {
      drawnFor = [io.data, mem.data];
      rebuild();
    }
    const card = el.firstElementChild as HTMLElement | null;
    const old = card?.querySelector(':scope > .overlay');
    if (loading && card) {
      if (!old) card.appendChild(h('div', { class: 'overlay', style: 'align-items:flex-start;padding-top:24px' }, spinner('Updating...')));
    } else old?.remove();
    const errs = [io, mem].filter((r) => r.status === 'error').map((r) => `${r.name}: ${r.error}`);
    const banner = el.querySelector(':scope > .error-box');
    banner?.remove();
    if (errs.length) el.prepend(errorBox(`${errs.join('; ')} (showing the previous data)`, () => [io, mem].forEach((r) => r.status === 'error' && r.retry())));
  }

  function rebuild(): void {
    charts.dispose();
    charts = new ChartSet();
    const io = res.io.data;
    const mem = res.mem.data;
    const ioOps = io?.by_operation.filter((o) => o.total_ops > 0) ?? [];
    const memOps = mem?.by_operation.filter((o) => o.total_ops > 0) ?? [];
    if (!ioOps.length && !memOps.length) {
      return replace(el, h('div', { class: 'card' }, h('div', { class: 'muted', style: 'padding:8px' }, 'No IO or memory data in current scope')));
    }
    const ioSect = h('div', { class: 'card', 'data-testid': 'io-section' });
    if (!io) ioSect.append(h('div', { class: 'muted' }, 'No IO data'));
    else if (!io.total_ops) ioSect.append(h('div', { class: 'sect-head muted' }, 'No IO events', allToggle()));
    else {
      ioSect.append(
        h('div', { class: 'sect-head' }, h('b', null, 'IO'), ...ioHead(io.total_ops, io.total_bytes, ioOps), allToggle()),
        ...section('io', ioOps),
      );
    }
    const memSect = h('div', { class: 'card', 'data-testid': 'mem-section' });
    if (!mem) memSect.append(h('div', { class: 'muted' }, 'No memory data'));
    else if (!mem.total_alloc_ops && !mem.total_free_ops) memSect.append(h('div', { class: 'muted' }, 'No memory events'));
    else {
      memSect.append(
        h(
          'div',
          { class: 'sect-head' },
          h('b', null, 'Memory'),
          `alloc ${formatInt(mem.total_alloc_ops)} ops · ${formatBytes(mem.total_alloc_bytes)} — free ${formatInt(mem.total_free_ops)} ops · ${formatBytes(mem.total_free_bytes)} — net ${formatNetBytesSigned(mem.total_alloc_bytes, mem.total_free_bytes)}`,
        ),
        ...section('mem', memOps),
      );
      const usage = usagePoints(mem.cumulative_usage);
      if (usage.length > 1) {
        memSect.append(h('div', { class: 'chart-title' }, 'Memory in use over time (alloc − free)'), charts.add(usageOption(usage), 160, 'mem-usage-chart'));
      }
    }
    replace(el, h('div', { class: 'card', style: 'padding:0;border:0;background:none' }, h('div', { class: 'iogrid' }, ioSect, memSect)));
  }

  function section(which: 'io' | 'mem', ops: OpStats[]): HTMLElement[] {
    const stackSlot = h('div');
    const table = opTable(which, ops, stackSlot);
    const out: HTMLElement[] = [table];
    if (ops.length > TOP_ROWS) {
      const rest = table.querySelectorAll<HTMLElement>('tbody tr.extra');
      const more = h('button', { class: 'link-btn', 'data-testid': `${which}-more` }, `show ${ops.length - TOP_ROWS} more operations`);
      more.onclick = () => {
        const hidden = rest.length > 0 && rest[0].style.display === 'none';
        rest.forEach((r) => (r.style.display = hidden ? '' : 'none'));
        more.textContent = hidden ? 'show fewer' : `show ${ops.length - TOP_ROWS} more operations`;
      };
      out.push(h('div', { class: 'muted', style: 'font-size:11px' }, more));
    }
    out.push(stackSlot);
    const plotted = ops.slice(0, TOP_PLOTTED);
    if (ops.length > TOP_PLOTTED) {
      out.push(h('div', { class: 'muted', style: 'font-size:11px' }, `charts: the first ${TOP_PLOTTED} of ${ops.length} operations`));
    }
    for (const kind of ['latency', 'size'] as Kind[]) {
      const series: Series[] = [];
      const allZero: string[] = [];
      for (const op of plotted) {
        const d = opDist(op, kind);
        if (!d) continue;
        if (kind === 'size' && d.max <= 0) allZero.push(op.operation);
        else series.push({ name: op.operation, dist: d });
      }
      if (!series.length && !allZero.length) continue;
      out.push(h('div', { class: 'chart-title' }, kind === 'latency' ? 'Latency CDF' : 'Size CDF'));
      if (series.length) {
        out.push(
          h(
            'div',
            { class: 'chart-pair' },
            charts.add(cdfOption(kind, series), 180, `${which}-${kind}-cdf`),
            charts.add(histogramOption(kind, series), 180, `${which}-${kind}-hist`),
          ),
        );
      }
      if (allZero.length) out.push(h('div', { class: 'muted', style: 'font-size:11px' }, `${allZero.join(', ')}: every size is 0 B (not plotted)`));
    }
    return out;
  }

  function opTable(which: 'io' | 'mem', ops: OpStats[], stackSlot: HTMLElement): HTMLElement {
    const drawStack = () => {
      const o = open[which];
      const op = o && ops.find((x) => x.operation === o.op);
      if (!o || !op) return replace(stackSlot);
      const ev = op[PCT_FIELD[o.pct]] as EventDetail | null;
      replace(stackSlot, stackPanel(`${o.pct} for ${op.operation}`, ev, () => {
        open[which] = null;
        redrawCells();
        drawStack();
      }));
    };
    const cells: HTMLButtonElement[] = [];
    const redrawCells = () => {
      for (const c of cells) c.classList.toggle('on', open[which]?.op === c.dataset.op && open[which]?.pct === c.dataset.pct);
    };
    const pctCell = (op: OpStats, pct: Pct) => {
      const ev = op[PCT_FIELD[pct]] as EventDetail | null;
      if (!ev || ev.latency_ns === null || ev.latency_ns === undefined) return h('td', { class: 'muted' }, '—');
      const b = h(
        'button',
        {
          class: 'pct',
          'data-op': op.operation,
          'data-pct': pct,
          title: `Show the stack of the ${pct} ${op.operation} event`,
          onclick: () => {
            const cur = open[which];
            open[which] = cur && cur.op === op.operation && cur.pct === pct ? null : { op: op.operation, pct };
            redrawCells();
            drawStack();
          },
        },
        formatDuration(ev.latency_ns),
      );
      cells.push(b);
      return h('td', null, b);
    };
    const table = h(
      'table',
      { class: 'ops', 'data-testid': `${which}-table` },
      h('caption', { class: 'legend' }, PCT_RULE_TABLE),
      h('thead', null, h('tr', null, ['Op', 'Count', 'Bytes', 'Avg', 'P50', 'P95', 'P99', 'Max'].map((c) => h('th', c[0] === 'P' || c === 'Max' ? { title: PCT_RULE_TABLE } : null, c)))),
      h(
        'tbody',
        null,
        ops.map((op, i) =>
          h(
            'tr',
            i >= TOP_ROWS ? { class: 'extra', style: 'display:none' } : null,
            h('td', null, op.operation, filesOf(op)),
            ...(which === 'mem' ? memCountCells(op) : countCells(op)),
            pctCell(op, 'P50'),
            pctCell(op, 'P95'),
            pctCell(op, 'P99'),
            pctCell(op, 'Max'),
          ),
        ),
      ),
    );
    redrawCells();
    drawStack();
    return table;
  }

  res.io.on(draw);
  res.mem.on(draw);
  return {
    el,
    show() {
      visible = true;
      drawnFor = [null, null];
      draw();
    },
    hide() {
      visible = false;
      charts.dispose();
      drawnFor = [null, null];
      replace(el);
    },
  };
}

/** Memory operations count successful calls only, so no exact count stands in: where the
 *  calls' rows were dropped (the event counts say so) the figures are marked. */
function memCountCells(op: OpStats): HTMLElement[] {
  const cells = countCells(op);
  const type = `syscall_${op.operation}_exit`;
  const c = res.counts.data;
  const exact = c?.exact_counts?.[type];
  if (!exact) return cells;
  cells[0]!.classList.add('incomplete');
  cells[0]!.title = `${formatInt(c?.counts[type] ?? 0)} of ${formatInt(exact)} ${op.operation} calls kept; these figures from the rows kept`;
  cells[0]!.append(h('span', { class: 'mark' }, MARK));
  return cells;
}

/** I/O syscalls by default; every syscall on demand (latency of futex, uname, ...). */
function allToggle(): HTMLElement {
  const box = h('input', { type: 'checkbox', 'data-testid': 'io-all' }) as HTMLInputElement;
  box.checked = state.ioAll;
  box.addEventListener('change', () => {
    state.ioAll = box.checked;
    refresh();
  });
  return h('label', { class: 'dim', style: 'margin-left:auto', title: 'list every syscall, not only reads, writes and syncs' }, box, ' all syscalls');
}

/** "N ops · B total"; with an operation short of rows, N from the exact counts, marked. */
function ioHead(ops: number, bytes: number, list: OpStats[]): Array<string | HTMLElement> {
  const exact = list.reduce((a, o) => a + Math.max(o.total_ops, o.incomplete && o.exact_count ? o.exact_count : 0), 0);
  if (exact <= ops) return [`${formatCount(ops)} ops · ${formatBytes(bytes)} total`];
  return [
    h('span', { class: 'incomplete', title: keptTitle(ops, exact), 'data-testid': 'io-exact-total' }, `${formatCount(exact)} ops`, h('span', { class: 'mark' }, MARK)),
    ` · ${formatBytes(bytes)} total`,
    list.some((o) => o.incomplete && o.total_bytes) ? h('span', { class: 'mark', title: 'bytes from the rows kept' }, MARK) : '',
  ];
}

/** Count, bytes and average; where rows were dropped the exact count and average, marked
 *  (bytes and percentiles rest on the rows kept). */
function countCells(op: OpStats): HTMLElement[] {
  const exact = op.incomplete && op.exact_count ? op.exact_count : 0;
  if (!exact) {
    return [
      h('td', { title: formatInt(op.total_ops) }, formatCount(op.total_ops)),
      h('td', null, formatBytes(op.total_bytes)),
      h('td', null, op.avg_latency_ns || op.total_ops ? formatDuration(op.avg_latency_ns) : '—'),
    ];
  }
  const title = keptTitle(op.total_ops, exact);
  return [
    h('td', { class: 'incomplete', title, 'data-testid': 'exact-count' }, formatCount(exact), h('span', { class: 'mark' }, MARK)),
    // Bytes from the rows kept (marked unless the call returns none).
    op.total_bytes
      ? h('td', { title: `${title}; bytes from the rows kept` }, formatBytes(op.total_bytes), h('span', { class: 'mark' }, MARK))
      : h('td', null, formatBytes(op.total_bytes)),
    h('td', { title: 'from the exact counts' }, formatDuration(Math.round((op.exact_total_ns ?? 0) / exact))),
  ];
}

/** The files an IO operation touched, busiest first (three, the rest in the title). */
function filesOf(op: OpStats): HTMLElement | null {
  const f = op.files;
  if (!Array.isArray(f) || !f.length) return null;
  const sorted = [...f].sort((a, b) => b.total_latency_ns - a.total_latency_ns || b.ops - a.ops);
  const line = (x: (typeof sorted)[number]) => `${x.path} · ${formatInt(x.ops)}× · ${formatDuration(x.total_latency_ns)}`;
  return h(
    'div',
    { class: 'op-files', 'data-testid': 'op-files', title: sorted.map(line).join('\n') },
    sorted.slice(0, 3).map((x) => h('div', null, line(x))),
    sorted.length > 3 ? h('div', { class: 'muted' }, `+${sorted.length - 3} more`) : null,
  );
}

function stackPanel(title: string, ev: EventDetail | null, close: () => void): HTMLElement {
  const t = traceRange();
  const sub = ev
    ? [
        `PID ${ev.pid}`,
        ev.event_type,
        t ? `T+${formatOffsetPrecise(ev.ts_ns - t.start)}` : '',
        `end timestamp ${formatInt(ev.ts_ns)} ns`,
        ev.latency_ns !== null && ev.latency_ns !== undefined ? `latency ${formatDuration(ev.latency_ns)}` : '',
      ]
        .filter((x) => x)
        .join(' • ')
    : '';
  return h(
    'div',
    { class: 'stackpanel', 'data-testid': 'stack-panel' },
    h('div', { class: 't' }, h('span', null, title), h('button', { class: 'x', title: 'Close', 'aria-label': 'Close', onclick: close }, '✕')),
    h('div', { class: 'sub' }, sub),
    renderFrames(ev?.stack_trace ?? null, ev ? 'No stack trace captured for this event' : 'No event'),
  );
}

function usagePoints(u: Array<{ ts_ns: number; cumulative_bytes: number }> | undefined): Array<[number, number]> {
  if (!u || !u.length) return [];
  const t = traceRange();
  const base = t ? t.start : 0;
  const step = Math.max(1, Math.floor(u.length / 4000));
  const out: Array<[number, number]> = [];
  for (let i = 0; i < u.length; i += step) out.push([u[i]!.ts_ns - base, u[i]!.cumulative_bytes]);
  const last = u[u.length - 1]!;
  if (out[out.length - 1]![0] !== last.ts_ns - base) out.push([last.ts_ns - base, last.cumulative_bytes]);
  return out;
}
