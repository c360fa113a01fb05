// Header figures (events, duration, PIDs, sample rate) and the controls row: PID picker,
// in-range event counter, range readout, process counts with Expand/Collapse, navigation
// buttons.
// The PID picker shows names next to PIDs, has a search, and keyboard selection (the
// reference listed bare PIDs).

import { h, replace } from './dom';
import { state, set, subscribe, traceRange, fullDuration, minWindow, setRange, isFullRange, processByPid } from './state';
import { res } from './data';
import { formatDuration, formatInt } from './format';
import { collapsibleIds, selectPid } from './tree';
import { dropNotice } from './exact';
import { commandText, isProcessRow, threadsOf, tgidOf } from './scope';

export function mountHeader(parent: HTMLElement): void {
  const figures = h('div', { class: 'figures', 'data-testid': 'header-figures' });
  const busy = h('span', { class: 'loading small', 'data-testid': 'busy', hidden: true }, h('span', { class: 'spin' }), 'Loading…');
  parent.appendChild(h('header', { class: 'header' }, h('div', { class: 'title' }, h('h1', null, 'Probex Trace Viewer'), busy), figures));
  // One visible "something is loading" signal for slow queries on big traces.
  const drawBusy = () => {
    const loading = Object.values(res).filter((r) => r.status === 'loading');
    busy.hidden = loading.length === 0;
    busy.title = loading.map((r) => r.name).join(', ');
  };
  for (const r of Object.values(res)) r.on(drawBusy);
  const draw = () => {
    const s = state.summary;
    if (!s) return replace(figures);
    const fig = (label: string, value: string, title = '') =>
      h('span', { title }, h('span', { class: 'label' }, label), h('span', { class: 'value tnum' }, value));
    replace(
      figures,
      fig('Events', formatInt(s.total_events), 'Events in the whole trace'),
      fig('Duration', formatDuration(Math.max(0, s.max_ts_ns - s.min_ts_ns))),
      fig('Processes', formatInt(s.unique_tgids?.length ?? processCount()), 'Processes (thread groups) in the trace'),
      fig('Threads', formatInt(s.unique_pids.length), 'Distinct task ids: every thread of every process'),
      fig('Sample Hz', String(Math.round(s.cpu_sample_frequency_hz))),
      dropNotice(s),
    );
  };
  subscribe((c) => (c.has('summary') || c.has('processes')) && draw());
  draw();
}

function processCount(): number {
  const procs = state.processes;
  if (!procs) return state.summary?.unique_pids.length ?? 0;
  return new Set(procs.map(tgidOf)).size;
}

export function mountControls(parent: HTMLElement): void {
  const picker = pidPicker();
  const evCount = h('span', { class: 'muted tnum', 'data-testid': 'ev-count' });
  const readout = h('span', { class: 'mono', 'data-testid': 'range-readout' });
  const procCounts = h('span', { class: 'tnum', 'data-testid': 'proc-counts' });
  const expandBtn = h('button', { class: 'link-btn', onclick: () => set({ collapsed: new Set() }) }, 'Expand');
  const collapseBtn = h('button', { class: 'link-btn', onclick: () => set({ collapsed: new Set(collapsibleIds()) }) }, 'Collapse');
  const treeBtns = h('span', { class: 'tree-btns' }, expandBtn, collapseBtn);
  const btn = (label: string, title: string, fn: () => void) =>
    h('button', { title, 'aria-label': title, onclick: fn }, label);
  const left = btn('◀', 'Pan left (←)', () => pan(-0.25));
  const right = btn('▶', 'Pan right (→)', () => pan(0.25));
  const zin = btn('+', 'Zoom in (+)', () => zoom(0.5));
  const zout = btn('−', 'Zoom out (−)', () => zoom(2));
  const reset = btn('Reset', 'Full trace (0)', resetRange);
  const nav = h('div', { class: 'nav', 'data-testid': 'nav' }, left, right, zin, zout, reset);
  parent.appendChild(
    h(
      'div',
      { class: 'controls' },
      picker.el,
      evCount,
      h('span', { class: 'divider' }),
      readout,
      h('span', { class: 'divider' }),
      procCounts,
      treeBtns,
      nav,
    ),
  );

  const draw = () => {
    const t = traceRange();
    const r = state.range;
    if (!t || !r) return;
    readout.textContent = `${formatDuration(r.start - t.start)} → ${formatDuration(r.end - t.start)} (${formatDuration(r.end - r.start)})`;
    const procs = state.processes ?? [];
    const inView = procs.filter((p) => p.end_ns >= r.start && p.start_ns <= r.end).length;
    procCounts.textContent = `${formatInt(inView)} in view · ${formatInt(procs.length)} total`;
    const coll = collapsibleIds();
    treeBtns.hidden = coll.length === 0;
    expandBtn.disabled = state.collapsed.size === 0;
    collapseBtn.disabled = coll.every((id) => state.collapsed.has(id));
    left.disabled = r.start <= t.start;
    right.disabled = r.end >= t.end;
    zin.disabled = r.end - r.start <= minWindow();
    zout.disabled = isFullRange();
  };
  const drawCount = () => {
    const d = res.counts.data;
    const loading = res.counts.status === 'loading';
    if (!d) {
      evCount.textContent = loading ? '… ev' : '';
      return;
    }
    let n = 0;
    for (const k in d.counts) n += d.counts[k]!;
    evCount.textContent = `${formatInt(n)} ev in view`;
    evCount.title = state.pid !== null ? `Events of PID ${state.pid} in the current range` : 'Events of all PIDs in the current range';
    evCount.style.opacity = loading ? '0.5' : '1';
  };
  subscribe((c) => {
    if (c.has('range') || c.has('collapsed') || c.has('processes')) draw();
  });
  res.counts.on(drawCount);
  draw();
}

export function pan(fraction: number): void {
  const r = state.range;
  if (!r) return;
  const d = Math.round((r.end - r.start) * fraction);
  setRange(r.start + d, r.end + d);
}

export function zoom(factor: number): void {
  const r = state.range;
  if (!r) return;
  const c = (r.start + r.end) / 2;
  const w = Math.max(minWindow(), Math.min(fullDuration(), (r.end - r.start) * factor));
  setRange(c - w / 2, c + w / 2);
}

export function resetRange(): void {
  const t = traceRange();
  if (t) setRange(t.start, t.end);
}

// ---- PID picker -----------------------------------------------------------------------

interface Option {
  pid: number | null;
  label: string;
  /** Searched: name, command line. */
  name: string;
  /** A thread listed under its process. */
  thread?: boolean;
  /** The process of a thread (for search hits on it). */
  tgid?: number;
}

/** Processes by PID, each followed by its other threads. */
function allOptions(): Option[] {
  const seen = new Set<number>();
  const out: Option[] = [];
  const procs = (state.processes ?? []).filter(isProcessRow).sort((a, b) => a.pid - b.pid);
  for (const p of procs) {
    seen.add(p.pid);
    const cmd = commandText(p);
    const threads = threadsOf(p.pid);
    out.push({ pid: p.pid, name: `${p.process_name ?? 'unknown'} ${cmd}`, label: threads.length ? `${cmd} · ${threads.length + 1} threads` : cmd });
    for (const t of threads) {
      seen.add(t.pid);
      out.push({ pid: t.pid, name: t.process_name ?? 'unknown', label: `thread ${t.process_name ?? 'unknown'}`, thread: true, tgid: p.pid });
    }
  }
  // Threads whose process row is missing, and pids without lifetimes.
  for (const p of state.processes ?? []) {
    if (!seen.has(p.pid)) {
      seen.add(p.pid);
      out.push({ pid: p.pid, name: p.process_name ?? 'unknown', label: `thread ${p.process_name ?? 'unknown'} (PID ${tgidOf(p)})`, thread: true });
    }
  }
  for (const pid of state.summary?.unique_pids ?? []) {
    if (!seen.has(pid)) out.push({ pid, name: 'unknown', label: 'unknown' });
  }
  return out;
}

function pickerText(): string {
  if (state.pid === null) return '';
  const p = processByPid(state.pid);
  return `${p?.process_name ?? 'unknown'} (${state.pid})`;
}

function pidPicker(): { el: HTMLElement } {
  const input = h('input', {
    type: 'text',
    placeholder: 'All — search name or PID',
    'aria-label': 'Select process by name or PID',
    'data-testid': 'pid-input',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const clearBtn = h('button', { class: 'clear', title: 'Show all PIDs', 'aria-label': 'Clear PID selection' }, '✕');
  const list = h('div', { class: 'pidlist', role: 'listbox', 'data-testid': 'pid-list', style: 'display:none' });
  const el = h('div', { class: 'pidpick' }, h('label', { class: 'dim' }, 'PID'), input, clearBtn, list);
  let opts: Option[] = [];
  let active = 0;
  let firstHit = false;
  const LIMIT = 200;

  const close = () => {
    list.style.display = 'none';
    input.value = pickerText();
  };
  const choose = (o: Option) => {
    list.style.display = 'none';
    input.blur();
    selectPid(o.pid);
    input.value = pickerText();
  };
  const renderList = () => {
    const q = input.value.trim().toLowerCase();
    const all = allOptions();
    const hit = (o: Option) => String(o.pid).startsWith(q) || o.name.toLowerCase().includes(q);
    // A matching process keeps its threads listed; a matching thread its process.
    const procHit = new Set(all.filter((o) => !o.thread && hit(o)).map((o) => o.pid));
    const threadHit = new Set(all.filter((o) => o.thread && hit(o)).map((o) => o.tgid));
    const matches = q
      ? all.filter((o) => hit(o) || (o.thread ? procHit.has(o.tgid ?? -1) : threadHit.has(o.pid ?? -1)))
      : all;
    opts = [{ pid: null, label: 'All', name: 'All' }, ...matches.slice(0, LIMIT)];
    // Typing picks the first option that matches itself (not one listed as context).
    if (firstHit) {
      firstHit = false;
      const i = opts.findIndex((o, k) => k > 0 && hit(o));
      active = i > 0 ? i : opts.length > 1 ? 1 : 0;
    }
    active = Math.min(active, opts.length - 1);
    replace(
      list,
      opts.map((o, i) =>
        h(
          'div',
          {
            class: `opt${i === active ? ' active' : ''}${o.thread ? ' thread' : ''}`,
            role: 'option',
            'data-pid': o.pid === null ? '' : String(o.pid),
            onmousedown: (e: Event) => {
              e.preventDefault();
              choose(o);
            },
          },
          h('span', null, o.label),
          o.pid !== null ? h('span', { class: 'pid' }, String(o.pid)) : null,
        ),
      ),
      matches.length > LIMIT ? h('div', { class: 'more' }, `${formatInt(matches.length - LIMIT)} more — refine the search`) : null,
      matches.length === 0 ? h('div', { class: 'more' }, 'No process matches') : null,
    );
    list.style.display = 'block';
    (list.children[active] as HTMLElement | undefined)?.scrollIntoView({ block: 'nearest' });
  };
  input.addEventListener('focus', () => {
    input.select();
    active = 0;
    renderList();
  });
  input.addEventListener('input', () => {
    active = 0;
    firstHit = !!input.value.trim();
    renderList();
  });
  input.addEventListener('blur', close);
  input.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown') {
      active = Math.min(opts.length - 1, active + 1);
      renderList();
      e.preventDefault();
    } else if (e.key === 'ArrowUp') {
      active = Math.max(0, active - 1);
      renderList();
      e.preventDefault();
    } else if (e.key === 'Enter') {
      const o = opts[active];
      if (o) choose(o);
      e.preventDefault();
    } else if (e.key === 'Escape') {
      input.blur();
      e.preventDefault();
    }
    e.stopPropagation();
  });
  clearBtn.addEventListener('click', () => selectPid(null));
  subscribe((c) => {
    if ((c.has('pid') || c.has('processes')) && document.activeElement !== input) input.value = pickerText();
    clearBtn.style.visibility = state.pid === null ? 'hidden' : 'visible';
  });
  clearBtn.style.visibility = 'hidden';
  return { el };
}
