// Analysis panel under the selected process: Flamegraph, IO / Memory and Events
// tabs. Only the active tab is rendered and fetched; the choice survives PID changes.

import { h, replace } from './dom';
import { state, set, subscribe, processByPid, type Tab } from './state';
import { flamegraphView, type View } from './flamegraph';
import { ioMemoryView } from './iomem';
import { eventsView } from './events';
import { critPathView } from './critpath';

const TABS: Array<[Tab, string]> = [
  ['flame', 'Flamegraph'],
  ['io', 'IO / Memory'],
  ['events', 'Events'],
  ['critpath', 'Critical path'],
];

export function createPanel(): HTMLElement {
  const title = h('div', { class: 'panel-title' });
  const buttons = TABS.map(([id, label]) =>
    h('button', { 'data-tab': id, role: 'tab', onclick: () => set({ tab: id }) }, label),
  );
  const body = h('div');
  const panel = h('div', { class: 'panel', 'data-testid': 'panel' }, title, h('div', { class: 'tabs', role: 'tablist' }, buttons), body);
  const views: Record<Tab, View> = { flame: flamegraphView(), io: ioMemoryView('io-tab'), events: eventsView(), critpath: critPathView() };
  let shown: Tab | null = null;

  const draw = () => {
    if (state.pid === null) {
      if (shown) views[shown].hide();
      shown = null;
      replace(body);
      return;
    }
    const p = processByPid(state.pid);
    title.textContent = panel.classList.contains('below') ? `${p?.process_name ?? 'unknown'} · PID ${state.pid}` : '';
    for (const b of buttons) b.classList.toggle('on', b.dataset.tab === state.tab);
    for (const b of buttons) b.setAttribute('aria-selected', b.dataset.tab === state.tab ? 'true' : 'false');
    if (shown !== state.tab) {
      if (shown) views[shown].hide();
      shown = state.tab;
      replace(body, views[shown].el);
      views[shown].show();
    }
  };
  subscribe((c) => {
    if (c.has('pid') || c.has('tab')) draw();
  });
  // The lanes move the panel between "under the row" and "below the list".
  new MutationObserver(() => {
    if (state.pid !== null) {
      const p = processByPid(state.pid);
      title.textContent = panel.classList.contains('below') ? `${p?.process_name ?? 'unknown'} · PID ${state.pid}` : '';
    }
  }).observe(panel, { attributes: true, attributeFilter: ['class'] });
  draw();
  return panel;
}

/** The aggregate IO/Memory card opened from the latency row. */
export function createAggregateCard(): HTMLElement {
  const view = ioMemoryView('aggregate-card');
  const wrap = h('div');
  let open = false;
  const draw = () => {
    if (state.latencyOpen === open) return;
    open = state.latencyOpen;
    if (open) {
      replace(wrap, view.el);
      view.show();
    } else {
      view.hide();
      replace(wrap);
    }
  };
  subscribe((c) => c.has('latencyOpen') && draw());
  draw();
  return wrap;
}
