// Analysis panel under the selected process or thread (below the lanes for the whole
// trace when nothing is selected): Flamegraph, IO / Memory and Events tabs. Only the
// active tab is rendered and fetched; the choice survives PID changes.

import { h, replace } from './dom';
import { state, set, subscribe, type Tab } from './state';
import { flamegraphView, type View } from './flamegraph';
import { ioMemoryView } from './iomem';
import { eventsView } from './events';
import { critPathView } from './critpath';
import { scopeLabel } from './scope';

const TABS: Array<[Tab, string]> = [
  ['flame', 'Flamegraph'],
  ['io', 'IO / Memory'],
  ['events', 'Events'],
  ['critpath', 'Critical path'],
];

export function createPanel(): HTMLElement {
  const title = h('div', { class: 'panel-title', 'data-testid': 'panel-scope' });
  const buttons = TABS.map(([id, label]) =>
    h('button', { 'data-tab': id, role: 'tab', onclick: () => set({ tab: id }) }, label),
  );
  const body = h('div');
  const panel = h('div', { class: 'panel', 'data-testid': 'panel' }, title, h('div', { class: 'tabs', role: 'tablist' }, buttons), body);
  const views: Record<Tab, View> = { flame: flamegraphView(), io: ioMemoryView('io-tab'), events: eventsView(), critpath: critPathView() };
  let shown: Tab | null = null;

  const draw = () => {
    title.textContent = scopeLabel();
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
    if (c.has('pid') || c.has('tab') || c.has('processes')) draw();
  });
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
