// Boot: load the summary and the process lifetimes, then build the page (header, overview,
// controls, chips, process rows). Failures show a message with a retry, an empty or
// zero-length trace says so.

import { h, replace, errorBox, spinner } from './dom';
import { getJson, errorText, requestLog, type Summary, type LifetimesResponse, type CompareInfo } from './api';
import { mountCompare } from './compare';
import { state, set, setRange, defaultEnabled, defaultFlameType, processByPid } from './state';
import { readUrlState, startUrlSync, flushUrl, currentQuery } from './url';
import { startData, res } from './data';
import { mountHeader, mountControls } from './controls';
import { mountOverview } from './overview';
import { mountChips, mountLatencyRow } from './chips';
import { mountLanes, perf } from './lanes';
import { createPanel, createAggregateCard } from './panel';
import { startKeyboard } from './keyboard';
import { formatDuration } from './format';
import { liveCharts } from './charts';
import { spansOf, statesStatus } from './threadstates';
import { path as critPath } from './critpath';
import { spansOfTid, spansStatus } from './spans';
import { flameFrame } from './flamegraph';
import { selectPid } from './tree';
import { resetRange } from './controls';

/** Set when the server has a base trace (`--base`): the compare card is shown. */
let compare: CompareInfo | null = null;

async function boot(): Promise<void> {
  const app = document.getElementById('app')!;
  replace(app);
  mountHeader(app);
  const main = h('main');
  app.appendChild(main);
  const load = async () => {
    replace(main, spinner('Loading trace summary…'));
    let summary: Summary;
    let lifetimes: LifetimesResponse | null = null;
    let lifetimesError = '';
    try {
      const [s, l, c] = await Promise.allSettled([
        getJson<Summary>('summary'),
        getJson<LifetimesResponse>('process_lifetimes'),
        getJson<CompareInfo>('compare'),
      ]);
      compare = c.status === 'fulfilled' && c.value.base_file ? c.value : null;
      if (s.status === 'rejected') throw s.reason;
      summary = s.value;
      if (l.status === 'fulfilled') lifetimes = l.value;
      else lifetimesError = errorText(l.reason);
    } catch (e) {
      replace(main, errorBox(`Failed to load summary: ${errorText(e)}`, load));
      return;
    }
    if (!(summary.max_ts_ns >= summary.min_ts_ns)) {
      replace(main, errorBox('Invalid summary range: max_ts_ns must be >= min_ts_ns'));
      return;
    }
    set({ summary });
    if (!summary.total_events) {
      replace(main, h('div', { class: 'empty-msg', 'data-testid': 'empty' }, 'This trace contains no events.'));
      return;
    }
    if (summary.max_ts_ns === summary.min_ts_ns) {
      replace(
        main,
        h('div', { class: 'empty-msg', 'data-testid': 'empty' },
          `This trace has ${summary.total_events} event${summary.total_events === 1 ? '' : 's'} at a single instant: there is no timeline to show.`),
      );
      return;
    }
    if (!lifetimes) {
      replace(main, errorBox(`Failed to load process lifetimes: ${lifetimesError}`, load));
      return;
    }
    // A process is known by the name it ended with (a forked shell that ran gzip is
    // "gzip", not "sh"); the first name stays in first_process_name.
    for (const p of lifetimes.processes) {
      if (p.last_process_name && p.last_process_name !== p.process_name) {
        p.first_process_name = p.process_name;
        p.process_name = p.last_process_name;
      }
    }
    build(main, summary, lifetimes);
  };
  await load();
}

function build(main: HTMLElement, summary: Summary, lifetimes: LifetimesResponse): void {
  replace(main);
  set({
    processes: lifetimes.processes,
    range: { start: summary.min_ts_ns, end: summary.max_ts_ns },
    enabled: defaultEnabled(summary.event_types),
    flameType: defaultFlameType(summary.event_types),
  });
  readUrlState();
  // A PID from the URL that the trace does not have is dropped.
  if (state.pid !== null && !processByPid(state.pid) && !summary.unique_pids.includes(state.pid)) set({ pid: null });
  startData();
  startUrlSync();
  startKeyboard();

  mountOverview(main);
  mountControls(main);
  if (compare) mountCompare(main, compare);
  mountChips(main);
  mountLatencyRow(main, () => undefined);
  main.appendChild(createAggregateCard());
  if (!lifetimes.processes.length) {
    main.appendChild(h('div', { class: 'empty-msg' }, `No processes in this trace (${formatDuration(summary.max_ts_ns - summary.min_ts_ns)} of events without process information).`));
    return;
  }
  mountLanes(main, createPanel());
}

// Test and debugging hooks: state, request log, redraw timings, live chart count.
(window as unknown as Record<string, unknown>).__probex = {
  state,
  requests: requestLog,
  perf,
  res: { ...res, states: statesStatus, spans: spansStatus },
  liveCharts: () => liveCharts.size,
  threadStates: spansOf,
  critPath: () => critPath,
  query: currentQuery,
  flushUrl,
  opSpans: spansOfTid,
  flameFrame,
  select: selectPid,
  setRange,
  resetRange,
  setEnabled: (types: 'all' | string[]) => set({ enabled: new Set(types === 'all' ? state.summary?.event_types ?? [] : types) }),
};
window.addEventListener('pagehide', flushUrl);

void boot();
