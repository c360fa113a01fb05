// Process rows: tree labels, per-process lanes, duration column, the lane time labels;
// clicking a row selects its PID, a tree chevron collapses or expands its children,
// dragging inside a lane zooms to the dragged range. Rows are virtualised when the list scrolls, so thousands of
// threads stay cheap. Beyond the reference: a time axis with ticks aligned to the lanes and
// a crosshair on lane hover too; a filter, and hiding rows outside the view; with a
// scrolling list the analysis panel sits below it instead of inside the scroll area;
// marker hover detail and a note when markers are sampled; the wall-clock views too:
// each thread's state strip, a click on a blocked span (its details, an arrow from its
// waker's lane), and the critical-path track as a row under its thread.

import { h, replace, showTip, hideTip, errorBox, blurInputs, fitCanvas } from './dom';
import { state, set, subscribe, traceRange, setRange, processByPid, type Range } from './state';
import { res, MAX_MARKERS_PER_PID } from './data';
import { visibleRows, togglePid, selectPid, treeModel, type Row } from './tree';
import { drawLane, cpuBins, markersNear, type LaneData } from './lanedraw';
import { renderAxis } from './axis';
import { onPreview, zoomAt } from './overview';
import { formatDurationShort, formatOffsetPrecise, formatInt, escapeHtml } from './format';
import { markerColor } from './colors';
import type { ProcessLifetime } from './api';
import { wantStates, onStates, drawStates, spanAt, stateTip, isBlocked, statesNotes, STATE_CLICK_H } from './threadstates';
import { selectedSpan, selectSpan, onSpanSelect, placeWakeArrow, spanDetailEl } from './statedetail';
import { path as critPath, onCritPath, drawTrack, trackRow } from './critpath';
import { wantSpans, onSpans, drawSpans, opSpanAt, opSpanTip, selectOp, selectedOp, opDetailEl, SPAN_Y, SPAN_H } from './spans';
import { cpuNsOf, noteLaneSamples } from './scope';
import { rowLabel } from './lanelabel';

const ROW_H = 30;
const SCROLL_AT = 15;
const LANE_H = 20;

interface RowEl {
  el: HTMLElement;
  lane: HTMLElement;
  canvas: HTMLCanvasElement;
  dur: HTMLElement;
  selBox: HTMLElement;
  sig: string;
}

export function mountLanes(parent: HTMLElement, panel: HTMLElement): void {
  const filter = h('input', {
    type: 'search',
    placeholder: 'Filter processes…',
    'aria-label': 'Filter processes by name or PID',
    'data-testid': 'tree-filter',
  });
  const hideOut = h('input', { type: 'checkbox', 'data-testid': 'hide-outside' });
  const sortSel = h(
    'select',
    { 'aria-label': 'Order the processes', 'data-testid': 'tree-sort', title: 'Order siblings in the tree' },
    h('option', { value: 'start' }, 'order: start time'),
    h('option', { value: 'cpu' }, 'order: CPU time'),
    h('option', { value: 'wall' }, 'order: wall time'),
  );
  sortSel.addEventListener('change', () => set({ treeSort: sortSel.value as 'start' | 'cpu' | 'wall' }));
  const note = h('span', { class: 'sample-note', 'data-testid': 'sample-note' });
  const tools = h(
    'div',
    { class: 'tree-tools' },
    filter,
    h('label', { class: 'dim' }, hideOut, ' hide processes outside the view'),
    sortSel,
    note,
    h('span', { class: 'kbd-help', style: 'margin-left:auto' }, 'Keys: W/S zoom at pointer · A/D or ←/→ pan · +/− zoom · Ctrl+wheel zoom · 0 reset · Esc deselect'),
  );
  const axis = h('div', { class: 'axis', style: 'position:absolute;top:0' });
  const axisRow = h('div', { style: 'position:relative;height:14px' }, axis);
  const rows = h('div', { class: 'rows', 'data-testid': 'rows' });
  const scroller = h('div', { class: 'rows-wrap' }, rows);
  const crosshair = h('div', { class: 'crosshair', style: 'display:none' });
  const arrows = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  arrows.setAttribute('class', 'wake-arrows');
  const outer = h('div', { style: 'position:relative' }, scroller, crosshair, arrows);
  const status = h('div');
  const detail = spanDetailEl();
  const opDetail = opDetailEl();
  const section = h('section', { 'data-testid': 'lanes' }, tools, status, axisRow, outer, detail, opDetail);
  parent.appendChild(section);

  let list: Row[] = [];
  let byPid = new Map<number, Row>();
  let scrollMode = false;
  const els = new Map<number, RowEl>();
  let preview: Range | null = null;
  let laneW = 0;
  let laneLeft = 0;
  // Lane geometry is measured only after the rows or the size changed: measuring forces a
  // layout, which is costly right after other views changed the page.
  let geomDirty = true;
  let sampledCpu = false;

  const view = (): Range | null => preview ?? state.range;

  function laneData(pid: number): LaneData {
    const d = res.lanes.data;
    return {
      markers: d?.events_by_pid[String(pid)],
      cpu: d?.cpu_sample_counts_by_pid[String(pid)],
      fetched: res.lanes.range,
      buckets: d?.cpu_sample_bucket_count ?? 0,
      hz: state.summary?.cpu_sample_frequency_hz ?? 0,
    };
  }

  function rowEl(r: Row): RowEl {
    if (r.p.pid < 0) return trackEl(r);
    const sig = `${r.depth}|${r.guides.join('')}|${r.isLast}|${r.hasChildren}|${state.collapsed.has(r.p.pid)}|${r.hit}|${r.descendants}|${cpuNsOf(r.p)}`;
    let re = els.get(r.p.pid);
    if (re && re.sig === sig) return re;
    const p = r.p;
    const lbl = rowLabel(r);
    const canvas = re?.canvas ?? h('canvas');
    const selBox = h('div', { class: 'sel-box', style: 'display:none' });
    const lane = h('div', { class: 'lane', 'data-pid': String(p.pid) }, canvas, selBox);
    const dur = h('div', { class: 'dur' });
    const el = h('div', { class: `row${r.hit ? ' hit' : ''}`, 'data-pid': String(p.pid) }, lbl, lane, dur);
    attachLaneEvents(lane, selBox, p);
    re = { el, lane, canvas, dur, selBox, sig };
    els.set(p.pid, re);
    return re;
  }

  function rebuild(): void {
    list = withTrack(visibleRows());
    byPid = new Map(list.map((r) => [r.p.pid, r]));
    const keep = new Set(list.map((r) => r.p.pid));
    for (const pid of [...els.keys()]) if (!keep.has(pid)) els.delete(pid);
    scrollMode = list.length > SCROLL_AT;
    scroller.classList.toggle('scroll', scrollMode);
    rows.style.height = scrollMode ? `${list.length * ROW_H}px` : '';
    rows.style.position = scrollMode ? 'relative' : '';
    layout();
  }

  /** Place the rows to show (all, or the visible window when scrolling) and the panel. */
  function layout(): void {
    const shown: HTMLElement[] = [];
    let from = 0;
    let to = list.length;
    if (scrollMode) {
      const top = scroller.scrollTop;
      const hgt = scroller.clientHeight || 600;
      from = Math.max(0, Math.floor(top / ROW_H) - 5);
      to = Math.min(list.length, Math.ceil((top + hgt) / ROW_H) + 5);
    }
    let panelPlaced = false;
    for (let i = from; i < to; i++) {
      const r = list[i]!;
      const re = rowEl(r);
      re.el.classList.toggle('sel', state.pid === r.p.pid);
      const dot = re.el.querySelector<HTMLElement>('.dot');
      if (dot) dot.style.display = state.pid === r.p.pid ? '' : 'none';
      if (scrollMode) {
        re.el.style.position = 'absolute';
        re.el.style.left = '0';
        re.el.style.right = '0';
        re.el.style.top = `${i * ROW_H}px`;
      } else {
        re.el.style.position = '';
        re.el.style.top = '';
      }
      shown.push(re.el);
      // The panel goes under the selected thread, or under its critical-path track.
      const owner = state.pid !== null && (r.p.pid === state.pid || r.p.pid === trackPid(state.pid));
      if (!scrollMode && owner && list[i + 1]?.p.pid !== trackPid(state.pid!)) {
        panel.classList.remove('below');
        shown.push(panel);
        panelPlaced = true;
      }
    }
    replace(rows, shown);
    geomDirty = true;
    if (!list.length) {
      rows.appendChild(
        h('div', { class: 'muted', style: 'padding:8px' }, state.treeFilter ? 'No process matches the filter' : 'No process in view'),
      );
    }
    if (panelPlaced) {
      if (panel.parentElement !== rows) rows.appendChild(panel);
    } else {
      panel.classList.add('below');
      if (panel.previousElementSibling !== opDetail) opDetail.after(panel);
    }
    drawAll();
  }

  function measure(): void {
    if (!geomDirty) return;
    const first = rows.querySelector('.lane') as HTMLElement | null;
    if (!first) return;
    geomDirty = false;
    const lr = first.getBoundingClientRect();
    const or = outer.getBoundingClientRect();
    laneW = lr.width;
    laneLeft = lr.left - or.left;
    axis.style.left = `${laneLeft}px`;
    axis.style.width = `${laneW}px`;
  }

  function drawAll(): void {
    const v = view();
    const t = traceRange();
    if (!v || !t) return;
    measure();
    renderAxis(axis, v.start - t.start, v.end - t.start, laneW);
    const stateTids: number[] = [];
    for (const re of rows.querySelectorAll<HTMLElement>('.row')) {
      const pid = Number(re.dataset.pid);
      const r = els.get(pid);
      const row = byPid.get(pid);
      if (!r || !row) continue;
      if (pid < 0) {
        fitCanvasTrack(r, v);
        continue;
      }
      drawLane(r.canvas, laneW, LANE_H, row.p, v, laneData(pid), state.enabled);
      drawStates(r.canvas, laneW, pid, v, selectedSpan?.tid === pid ? selectedSpan.span : null);
      drawSpans(r.canvas, laneW, pid, v, selectedOp?.tid === pid ? selectedOp.span : null);
      r.dur.textContent = durText(row.p, v);
      if (row.p.end_ns >= v.start && row.p.start_ns <= v.end) stateTids.push(pid);
    }
    if (state.range && laneW) {
      wantStates(stateTids, state.range, laneW);
      wantSpans(stateTids, state.range);
    }
    drawWakeArrow();
    drawNote();
    drawCrosshair();
    perfMark(v);
  }

  function drawNote(): void {
    const d = res.lanes.data;
    if (!d) return replace(note);
    const budget = Number(res.lanes.params?.max_events_per_pid ?? MAX_MARKERS_PER_PID);
    let sampled = 0;
    for (const k in d.events_by_pid) {
      if ((d.total_events_by_pid[k] ?? 0) > d.events_by_pid[k]!.length) sampled++;
    }
    const states = statesNotes();
    note.textContent = [
      sampled
        ? `Markers sampled: ${formatInt(budget)} per process in range, all types (${formatInt(sampled)} process${sampled > 1 ? 'es' : ''}); zoom in to see every event.`
        : '',
      states.length ? `Thread states: ${states.join('; ')}.` : '',
    ].filter((x) => x).join(' ');
  }

  let shownError: string | null = null;
  function drawStatus(): void {
    const r = res.lanes;
    const err = r.status === 'error' ? r.error : null;
    if (err !== shownError) {
      shownError = err;
      replace(status, err ? errorBox(`Process events: ${err}`, () => r.retry()) : null);
    }
    const opacity = r.status === 'loading' && !r.data ? '0.6' : '1';
    if (outer.style.opacity !== opacity) outer.style.opacity = opacity;
  }

  function drawCrosshair(): void {
    const v = view();
    const ns = state.hoverNs;
    if (!v || ns === null || ns < v.start || ns > v.end || !laneW) {
      crosshair.style.display = 'none';
      return;
    }
    crosshair.style.display = 'block';
    crosshair.style.left = `${laneLeft + ((ns - v.start) / (v.end - v.start)) * laneW}px`;
  }

  // ---- lane mouse gestures --------------------------------------------------------------
  let suppressClick = false;
  /** The lane under the first click of a possible double-click.  That click toggles the
   *  selection, which changes the chips above the lanes and can move them under the
   *  pointer before the second click: the double-click zooms to this lane, wherever the
   *  second click landed. */
  let firstClick: { p: ProcessLifetime; at: number } | null = null;
  const DBLCLICK_MS = 800;
  document.addEventListener(
    'mousedown',
    (ev) => {
      if (ev.detail <= 1 && !(ev.target instanceof Element && ev.target.closest('.lane'))) firstClick = null;
    },
    true,
  );
  document.addEventListener('dblclick', (ev) => {
    const f = firstClick;
    firstClick = null;
    if (!f || ev.timeStamp - f.at > DBLCLICK_MS) return;
    const t = traceRange()!;
    selectPid(f.p.pid);
    const end = f.p.end_ns > f.p.start_ns ? f.p.end_ns : Math.min(t.end, f.p.start_ns + 1);
    setRange(f.p.start_ns, end);
  });
  function attachLaneEvents(lane: HTMLElement, selBox: HTMLElement, p: ProcessLifetime): void {
    lane.addEventListener('mousedown', (ev) => {
      if (ev.button !== 0) return;
      ev.preventDefault();
      blurInputs();
      const b = lane.getBoundingClientRect();
      const x0 = ev.clientX;
      let active = false;
      let overlay: HTMLElement | null = null;
      const fr = (x: number) => Math.max(0, Math.min(1, (x - b.left) / b.width));
      const move = (e: MouseEvent) => {
        if (!active && Math.abs(e.clientX - x0) < 3) return;
        if (!active) {
          active = true;
          hideTip();
          overlay = h('div', { class: 'drag-overlay', style: 'cursor:ew-resize' });
          document.body.appendChild(overlay);
        }
        const a = fr(x0);
        const c = fr(e.clientX);
        selBox.style.display = 'block';
        selBox.style.left = `${Math.min(a, c) * 100}%`;
        selBox.style.width = `${Math.max(0.002, Math.abs(c - a)) * 100}%`;
      };
      const up = (e: MouseEvent) => {
        window.removeEventListener('mousemove', move);
        window.removeEventListener('mouseup', up);
        overlay?.remove();
        selBox.style.display = 'none';
        if (!active) return;
        suppressClick = true;
        setTimeout(() => (suppressClick = false), 0);
        const v = state.range!;
        const w = v.end - v.start;
        const a = fr(x0);
        const c = fr(e.clientX);
        const s = v.start + Math.round(w * Math.min(a, c));
        const en = Math.max(s + 1, v.start + Math.round(w * Math.max(a, c)));
        selectPid(p.pid);
        setRange(s, en);
      };
      window.addEventListener('mousemove', move);
      window.addEventListener('mouseup', up);
    });
    lane.addEventListener('click', (ev) => {
      // The second click of a double-click belongs to the double-click.
      if (suppressClick || ev.detail > 1) return;
      if (clickSpan(p, lane, ev) || clickOp(p, lane, ev)) return;
      firstClick = { p, at: ev.timeStamp };
      togglePid(p.pid);
    });
    lane.addEventListener('mousemove', (ev) => {
      const v = view();
      if (!v) return;
      const b = lane.getBoundingClientRect();
      const x = ev.clientX - b.left;
      const ns = v.start + (x / b.width) * (v.end - v.start);
      set({ hoverNs: ns });
      showTip(ev.clientX, ev.clientY, laneTip(p, laneData(p.pid), v, b.width, x));
    });
    lane.addEventListener('mouseleave', () => {
      set({ hoverNs: null });
      hideTip();
    });
  }

  function laneTip(p: ProcessLifetime, d: LaneData, v: Range, w: number, x: number): string {
    const t = traceRange()!;
    const ns = v.start + (x / w) * (v.end - v.start);
    const was = p.first_process_name ? ` (started as ${escapeHtml(p.first_process_name)})` : '';
    const lines = [`<b>${escapeHtml(p.process_name || 'unknown')}</b>${was} PID ${p.pid} · T+${formatOffsetPrecise(ns - t.start)}`];
    const sp = spanAt(p.pid, ns, ((v.end - v.start) / w) * 1);
    if (sp) lines.push(stateTip(sp, t.start, nameOf));
    const op = opSpanAt(p.pid, ns, ((v.end - v.start) / w) * 1);
    if (op) lines.push(opSpanTip(op, t.start));
    const near = markersNear(d, v, w, x, 3, state.enabled);
    for (const m of near.slice(0, 6)) {
      lines.push(
        `<span style="color:${markerColor(m.event_type)}">▍</span>${escapeHtml(m.event_type)} at T+${formatOffsetPrecise(m.ts_ns - t.start)}`,
      );
    }
    if (near.length > 6) lines.push(`… ${near.length - 6} more here`);
    const bin = cpuBins(d, v, w).find((b) => x >= b.x0 && x <= b.x1);
    if (bin) {
      lines.push(`CPU ≈ ${bin.usage.toFixed(0)}% (${bin.samples} sample${bin.samples === 1 ? '' : 's'} in ${formatDurationShort(bin.t1 - bin.t0)})`);
    }
    if (!near.length) lines.push('<span style="opacity:.7">click: select · double-click: zoom to lifetime · drag: zoom</span>');
    return lines.join('\n');
  }

  // ---- thread states, wakeup arrow, critical-path track -----------------------------------
  const nameOf = (tid: number): string | null => processByPid(tid)?.process_name ?? null;

  /** The list with the critical-path track row under its thread (a row of pid -1-tid). */
  function withTrack(rows: Row[]): Row[] {
    const cp = critPath;
    const i = cp && state.tab === 'critpath' ? rows.findIndex((r) => r.p.pid === cp.tid) : -1;
    if (!cp || i < 0) return rows;
    const p: ProcessLifetime = { pid: trackPid(cp.tid), process_name: 'critical path', parent_pid: null, start_ns: cp.range.start, end_ns: cp.range.end, exit: null, was_forked: false };
    const track: Row = { p, depth: rows[i]!.depth, guides: [], isLast: true, hasChildren: false, descendants: 0, hit: false };
    return [...rows.slice(0, i + 1), track, ...rows.slice(i + 1)];
  }

  function trackEl(r: Row): RowEl {
    const old = els.get(r.p.pid);
    if (old) return old;
    const re = { ...trackRow(-1 - r.p.pid, r.p.pid, r.depth, view, reveal), selBox: h('div'), sig: 'track' };
    els.set(r.p.pid, re);
    return re;
  }

  function fitCanvasTrack(re: RowEl, v: Range): void {
    fitCanvas(re.canvas, laneW, LANE_H);
    drawTrack(re.canvas, laneW, LANE_H, v);
    const cp = critPath;
    re.dur.textContent = !cp ? '' : cp.status === 'loading' ? 'loading…' : cp.status === 'error' ? 'error' : `${((cp.range.end - cp.range.start) / 1e6).toFixed(1)} ms`;
  }

  /** A click on a blocked span of the state strip selects it (and shows its waker). */
  function clickSpan(p: ProcessLifetime, lane: HTMLElement, ev: MouseEvent): boolean {
    const v = view();
    if (!v) return false;
    const b = lane.getBoundingClientRect();
    if (ev.clientY - b.top > STATE_CLICK_H) return false;
    const ns = v.start + ((ev.clientX - b.left) / b.width) * (v.end - v.start);
    const sp = spanAt(p.pid, ns, ((v.end - v.start) / b.width) * 2);
    if (!sp || !isBlocked(sp)) return false;
    selectSpan({ tid: p.pid, span: sp }, nameOf, reveal);
    if (sp.waker_tid) reveal(sp.waker_tid);
    return true;
  }

  /** A click on an operation's span (the band under the state strip) opens its details. */
  function clickOp(p: ProcessLifetime, lane: HTMLElement, ev: MouseEvent): boolean {
    const v = view();
    if (!v) return false;
    const b = lane.getBoundingClientRect();
    const y = ev.clientY - b.top;
    if (y < SPAN_Y - 1 || y > SPAN_Y + SPAN_H + 1) return false;
    const ns = v.start + ((ev.clientX - b.left) / b.width) * (v.end - v.start);
    const op = opSpanAt(p.pid, ns, ((v.end - v.start) / b.width) * 2);
    if (!op) return false;
    selectOp({ tid: p.pid, span: op }, (tid) => nameOf(tid) ?? 'thread');
    return true;
  }

  /** Bring tid's lane into view: expand its ancestors, drop a filter that hides it, scroll. */
  function reveal(tid: number): void {
    const m = treeModel();
    const collapsed = new Set(state.collapsed);
    for (let id = m.parent.get(tid); id !== undefined; id = m.parent.get(id)) collapsed.delete(id);
    const patch: Parameters<typeof set>[0] = { collapsed };
    if (state.treeFilter && !list.some((r) => r.p.pid === tid)) patch.treeFilter = '';
    set(patch);
    requestAnimationFrame(() => {
      const i = list.findIndex((r) => r.p.pid === tid);
      if (i < 0) return;
      if (scrollMode) {
        const top = i * ROW_H;
        if (top < scroller.scrollTop || top + ROW_H > scroller.scrollTop + scroller.clientHeight) {
          scroller.scrollTop = Math.max(0, top - scroller.clientHeight / 2);
          layout();
        }
      }
      const re = els.get(tid);
      if (!re) return;
      re.el.scrollIntoView({ block: 'nearest' });
      re.el.classList.add('flash');
      setTimeout(() => re.el.classList.remove('flash'), 1200);
      drawWakeArrow();
    });
  }

  function drawWakeArrow(): void {
    const sel = selectedSpan;
    const from = sel?.span.waker_tid ? els.get(sel.span.waker_tid)?.lane : undefined;
    placeWakeArrow(arrows, outer, scrollMode ? scroller : null, from, sel ? els.get(sel.tid)?.lane : undefined, view());
  }

  // ---- wiring -----------------------------------------------------------------------------
  // Ctrl+wheel zooms at the pointer (a plain wheel scrolls the page).
  outer.addEventListener(
    'wheel',
    (ev) => {
      if (!ev.ctrlKey && !ev.metaKey) return;
      const v = view();
      const lane = (ev.target as Element | null)?.closest?.('.lane') as HTMLElement | null;
      if (!v || !lane) return;
      ev.preventDefault();
      const b = lane.getBoundingClientRect();
      zoomAt(v.start + ((ev.clientX - b.left) / b.width) * (v.end - v.start), 1 + (ev.deltaY / 100) * 0.15);
    },
    { passive: false },
  );
  filter.addEventListener('input', () => set({ treeFilter: filter.value }));
  filter.addEventListener('keydown', (e) => e.stopPropagation());
  hideOut.addEventListener('change', () => set({ hideOutside: hideOut.checked }));
  let scrollQueued = false;
  scroller.addEventListener('scroll', () => {
    if (scrollQueued) return;
    scrollQueued = true;
    requestAnimationFrame(() => {
      scrollQueued = false;
      if (scrollMode) layout();
      else drawWakeArrow();
    });
  });
  onStates(() => drawAll());
  onSpanSelect(() => drawAll());
  onSpans(() => drawAll());
  onCritPath(() => rebuild());
  onPreview((r) => {
    preview = r;
    drawAll();
  });
  subscribe((c) => {
    if (c.has('treeFilter') && filter.value !== state.treeFilter) filter.value = state.treeFilter;
    if (c.has('treeSort') && sortSel.value !== state.treeSort) sortSel.value = state.treeSort;
    if (c.has('processes') || c.has('collapsed') || c.has('treeFilter') || c.has('treeSort') || (c.has('range') && state.hideOutside) || c.has('hideOutside')) {
      rebuild();
    } else if (c.has('pid')) {
      layout();
    } else if (c.has('range') || c.has('enabled')) {
      drawAll();
    } else if (c.has('hoverNs')) {
      drawCrosshair();
    }
    if (c.has('pid') && state.pid !== null) revealSelected();
  });
  res.lanes.on(() => {
    // The lanes at full range give each thread's CPU samples: the rows' CPU time.
    const f = res.lanes.range;
    const t = traceRange();
    if (res.lanes.status === 'ok' && f && t && f.start <= t.start && f.end >= t.end) {
      const before = res.lanes.data;
      noteLaneSamples(before, true);
      if (!sampledCpu) {
        sampledCpu = true;
        rebuild();
      }
    }
    drawStatus();
    drawAll();
  });
  new ResizeObserver(() => {
    geomDirty = true;
    drawAll();
  }).observe(outer);

  function revealSelected(): void {
    const i = list.findIndex((r) => r.p.pid === state.pid);
    if (i < 0) return;
    if (scrollMode) {
      const top = i * ROW_H;
      if (top < scroller.scrollTop || top + ROW_H > scroller.scrollTop + scroller.clientHeight) {
        scroller.scrollTop = Math.max(0, top - scroller.clientHeight / 3);
      }
    } else {
      els.get(state.pid!)?.el.scrollIntoView({ block: 'nearest' });
    }
  }

  rebuild();
  drawStatus();
}

function durText(p: ProcessLifetime, v: Range): string {
  if (p.end_ns < v.start || p.start_ns > v.end) return '—';
  const vis = Math.min(p.end_ns, v.end) - Math.max(p.start_ns, v.start);
  const pre = p.exit === null || p.exit === undefined ? '' : p.exit === 0 ? '✓ ' : '✗ ';
  return pre + formatDurationShort(vis);
}

// ---- redraw timing, read by the browser tests (zoom within 300 ms on big traces) ---------
interface Perf {
  drawn: { start: number; end: number; at: number } | null;
  settled: { start: number; end: number; at: number } | null;
}
export const perf: Perf = { drawn: null, settled: null };

function perfMark(v: Range): void {
  const at = performance.now();
  perf.drawn = { start: v.start, end: v.end, at };
  const f = res.lanes.range;
  if (f && f.start === v.start && f.end === v.end && res.lanes.status === 'ok') {
    perf.settled = { start: v.start, end: v.end, at };
    document.dispatchEvent(new CustomEvent('probex:settled', { detail: perf.settled }));
  }
}

/** The critical-path track's row id: below every pid, one per thread. */
function trackPid(tid: number): number {
  return -1 - tid;
}
