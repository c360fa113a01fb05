// A process row's label: tree guides, the collapse toggle, the name with the command line,
// and "PID · threads · CPU time" (a thread: "TID · PID"); the tooltip adds the wall time.

import { h } from './dom';
import { state, set } from './state';
import { togglePid, type Row } from './tree';
import { formatDurationShort } from './format';
import { argsText, fullCommand, isProcessRow, threadsOf, cpuNsOf, wallNsOf } from './scope';
import type { ProcessLifetime } from './api';

export function rowLabel(r: Row): HTMLElement {
  const p = r.p;
  const guides: HTMLElement[] = r.guides.map((g) => h('span', { class: 'guide' }, g ? '│' : ''));
  if (r.depth > 0) guides.push(h('span', { class: 'guide' }, r.isLast ? '└' : '├'));
  const collapsed = state.collapsed.has(p.pid);
  const tog = r.hasChildren
    ? h(
        'button',
        {
          class: 'tog',
          title: collapsed ? 'Expand children' : 'Collapse children',
          'aria-label': collapsed ? 'Expand children' : 'Collapse children',
          onclick: (e: Event) => {
            e.stopPropagation();
            const next = new Set(state.collapsed);
            if (collapsed) next.delete(p.pid);
            else next.add(p.pid);
            set({ collapsed: next });
          },
        },
        collapsed ? '▶' : '▼',
      )
    : h('span', { class: 'tog-sp' });
  const name = p.process_name || 'unknown';
  const args = argsText(p);
  const cmd = fullCommand(p);
  const nThreads = isProcessRow(p) ? threadsOf(p.pid).length : 0;
  const idText = p.tgid !== null && p.tgid !== undefined && p.tgid !== p.pid
    ? `TID ${p.pid} · PID ${p.tgid}`
    : `PID ${p.pid}${nThreads ? ` · ${nThreads + 1} thr` : ''}`;
  const nameBlk = h(
    'div',
    { class: 'nameblk', onclick: () => togglePid(p.pid) },
    h(
      'div',
      { class: 'l1' },
      h('span', { class: 'dot', style: 'display:none' }),
      h('span', { class: 'name' }, name),
      args ? h('span', { class: 'argv', 'data-testid': 'lane-argv' }, args) : null,
      collapsed && r.descendants ? h('span', { class: 'badge' }, `+${r.descendants}`) : null,
    ),
    h('div', { class: 'l2', 'data-testid': 'lane-times' }, idText, cpuText(p)),
  );
  const lbl = h('div', { class: 'lbl', title: `${cmd}\n${idText}${cpuText(p)} · wall ${formatDurationShort(wallNsOf(p))}${nThreads ? '\nselect: all threads of the process' : ''}` }, guides, tog, nameBlk);
  return lbl;
}

/** " · CPU 1.2s": a process row's CPU time sums its threads (its wall time is the row's
 *  right-hand column and the tooltip). */
function cpuText(p: ProcessLifetime): string {
  const cpu = cpuNsOf(p);
  return cpu === null ? '' : ` · CPU ${formatDurationShort(cpu)}`;
}
