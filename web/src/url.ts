// URL state: range, PID, tab, flamegraph type, enabled chips, the open latency card, the
// sandwich view and its function, the events' order and search, and the tree's order live
// in the query string, so a reload restores the view and a link shares it.
//   ?s=<offset ns>&e=<offset ns>&pid=<pid>&tab=flame|io|events|critpath&fg=<type>&types=a,b|none&lat=1
//   &fv=sandwich&fn=<function>&eo=latency&q=<event search>&order=cpu|wall
// Offsets are relative to the trace start: small, exact integers.

import { state, set, subscribe, traceRange, clampRange, defaultEnabled, type Tab, type Key } from './state';

const TABS: Tab[] = ['flame', 'io', 'events', 'critpath'];

/** Apply the URL to the state; call once the summary is known. */
export function readUrlState(): void {
  const q = new URLSearchParams(location.search);
  const t = traceRange();
  const patch: Parameters<typeof set>[0] = {};
  if (t) {
    const so = Number(q.get('s'));
    const eo = Number(q.get('e'));
    if (q.has('s') && q.has('e') && Number.isFinite(so) && Number.isFinite(eo) && eo > so) {
      patch.range = clampRange(t.start + so, t.start + eo);
    }
  }
  const pid = Number(q.get('pid'));
  if (q.has('pid') && Number.isInteger(pid) && pid >= 0) patch.pid = pid;
  const tab = q.get('tab') as Tab | null;
  if (tab && TABS.includes(tab)) patch.tab = tab;
  const fg = q.get('fg');
  if (fg) patch.flameType = fg;
  const types = q.get('types');
  if (types !== null) {
    patch.enabled = types === 'none' ? new Set() : new Set(types.split(',').filter((x) => x));
  }
  if (q.get('lat') === '1') patch.latencyOpen = true;
  if (q.get('fv') === 'sandwich') patch.flameView = 'sandwich';
  if (q.get('fn')) patch.sandwichFn = q.get('fn')!;
  if (q.get('eo') === 'latency') patch.eventsOrder = 'latency';
  if (q.get('q')) patch.eventsSearch = q.get('q')!;
  const order = q.get('order');
  if (order === 'cpu' || order === 'wall') patch.treeSort = order;
  set(patch);
}

const WATCHED: Key[] = ['range', 'pid', 'tab', 'flameType', 'enabled', 'latencyOpen', 'flameView', 'sandwichFn', 'eventsOrder', 'eventsSearch', 'treeSort'];
let timer = 0;

export function startUrlSync(): void {
  subscribe((changed) => {
    if (!WATCHED.some((k) => changed.has(k))) return;
    clearTimeout(timer);
    timer = window.setTimeout(writeUrl, 150);
  });
}

export function currentQuery(): string {
  const q = new URLSearchParams();
  const t = traceRange();
  const r = state.range;
  if (t && r && (r.start > t.start || r.end < t.end)) {
    q.set('s', String(r.start - t.start));
    q.set('e', String(r.end - t.start));
  }
  if (state.pid !== null) q.set('pid', String(state.pid));
  if (state.tab !== 'flame') q.set('tab', state.tab);
  if (state.flameType) q.set('fg', state.flameType);
  const def = defaultEnabled(state.summary?.event_types ?? []);
  const en = state.enabled;
  const same = def.size === en.size && [...def].every((x) => en.has(x));
  if (!same) q.set('types', en.size ? [...en].sort().join(',') : 'none');
  if (state.latencyOpen) q.set('lat', '1');
  if (state.flameView === 'sandwich') q.set('fv', 'sandwich');
  if (state.flameView === 'sandwich' && state.sandwichFn) q.set('fn', state.sandwichFn);
  if (state.eventsOrder === 'latency') q.set('eo', 'latency');
  if (state.eventsSearch.trim()) q.set('q', state.eventsSearch.trim());
  if (state.treeSort !== 'start') q.set('order', state.treeSort);
  return q.toString();
}

function writeUrl(): void {
  const qs = currentQuery();
  const next = `${location.pathname}${qs ? `?${qs}` : ''}${location.hash}`;
  if (next !== `${location.pathname}${location.search}${location.hash}`) {
    history.replaceState(null, '', next);
  }
}

/** Write immediately (used before tests reload, and on pagehide). */
export function flushUrl(): void {
  clearTimeout(timer);
  writeUrl();
}
