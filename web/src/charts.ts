// ECharts, tree-shaken and bundled (no CDN: works offline). Charts are owned by a ChartSet
// that disposes them when their view goes away, so instances never pile up. Axis labels and
// tooltips carry units rather than raw ns and bytes.

import * as echarts from 'echarts/core';
import { LineChart, BarChart } from 'echarts/charts';
import { GridComponent, TooltipComponent, LegendComponent, DataZoomInsideComponent } from 'echarts/components';
import { SVGRenderer } from 'echarts/renderers';
import { h } from './dom';
import { latencyAxis, latencyTip, sizeAxis, sizeTip, formatInt, formatDuration, formatBytes } from './format';
import { SERIES_COLORS } from './colors';
import { binAll, type Dist, type Kind } from './distrib';

echarts.use([LineChart, BarChart, GridComponent, TooltipComponent, LegendComponent, DataZoomInsideComponent, SVGRenderer]);

type Option = echarts.EChartsCoreOption;

/** Live chart instances, for tests and leak checks. */
export const liveCharts = new Set<echarts.ECharts>();

export class ChartSet {
  private charts: Array<{ chart: echarts.ECharts; ro: ResizeObserver }> = [];

  /** A chart in a new div of `height` px. */
  add(option: Option, height = 180, testid = ''): HTMLElement {
    const el = h('div', { class: 'chart', style: `height:${height}px`, 'data-testid': testid || null });
    // The element must be in the document with a size before init: defer one frame.
    requestAnimationFrame(() => {
      if (!el.isConnected || el.dataset.disposed) return;
      const chart = echarts.init(el, undefined, { renderer: 'svg' });
      chart.setOption(option, true);
      liveCharts.add(chart);
      const ro = new ResizeObserver(() => chart.resize());
      ro.observe(el);
      this.charts.push({ chart, ro });
      el.dataset.ready = '1';
    });
    this.els.push(el);
    return el;
  }
  private els: HTMLElement[] = [];

  dispose(): void {
    for (const el of this.els) el.dataset.disposed = '1';
    this.els = [];
    for (const { chart, ro } of this.charts) {
      ro.disconnect();
      liveCharts.delete(chart);
      chart.dispose();
    }
    this.charts = [];
  }
}

export interface Series {
  name: string;
  dist: Dist;
}

const axisFmt = (k: Kind) => (k === 'latency' ? latencyAxis : sizeAxis);
const tipFmt = (k: Kind) => (k === 'latency' ? latencyTip : sizeTip);

/** Log axis when values span more than a decade, else linear. Zeros sit at `floor` on a log
 *  axis (shown as 0 in tooltips), so they neither vanish nor break it. */
function xScale(series: Series[], kind: Kind): { log: boolean; floor: number; max: number; base: number } {
  let lo = Infinity;
  let hi = 0;
  for (const s of series) {
    for (const [v] of s.dist.cdf) {
      if (v > 0 && v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  const base = kind === 'size' ? 2 : 10;
  if (!(hi > 0) || !Number.isFinite(lo)) return { log: false, floor: 0, max: 1, base };
  const log = hi / lo > 20;
  const floor = log ? Math.pow(base, Math.floor(Math.log(lo) / Math.log(base) + 1e-9)) : 0;
  return { log, floor, max: hi, base };
}

export function cdfOption(kind: Kind, series: Series[]): Option {
  const sc = xScale(series, kind);
  const ax = axisFmt(kind);
  const tip = tipFmt(kind);
  return {
    animation: false,
    color: SERIES_COLORS,
    legend: { top: 0, textStyle: { fontSize: 10 }, itemHeight: 8, itemWidth: 14 },
    grid: { left: 46, right: 12, top: 24, bottom: 28, containLabel: true },
    tooltip: {
      trigger: 'axis',
      axisPointer: { type: 'line' },
      formatter: (params: unknown) => {
        const ps = params as Array<{ marker: string; seriesName: string; value: [number, number, number] }>;
        return ps
          .map((p) => `${p.marker}${p.seriesName}: ${tip(p.value[2])} = ${(p.value[1] * 100).toFixed(1)}%`)
          .join('<br/>');
      },
    },
    xAxis: {
      type: sc.log ? 'log' : 'value',
      logBase: sc.base,
      min: sc.log ? sc.floor : 0,
      max: sc.log ? undefined : 'dataMax',
      axisLabel: { fontSize: 9, formatter: (v: number) => ax(v), hideOverlap: true },
      splitLine: { lineStyle: { color: '#f3f4f6' } },
    },
    yAxis: {
      type: 'value',
      min: 0,
      max: 1,
      axisLabel: { fontSize: 9, formatter: (v: number) => `${Math.round(v * 100)}%` },
      splitLine: { lineStyle: { color: '#f3f4f6' } },
    },
    dataZoom: [{ type: 'inside', xAxisIndex: 0, filterMode: 'none' }],
    series: series.map((s) => {
      const x = (v: number) => (sc.log && v <= 0 ? sc.floor : v);
      // [x on the axis, fraction, real value for the tooltip]; the curve starts at 0% at the
      // smallest value, so a single-valued distribution still draws a visible step.
      const first = s.dist.cdf[0]!;
      const data = [[x(first[0]), 0, first[0]], ...s.dist.cdf.map(([v, f]) => [x(v), f, v])];
      return { name: s.name, type: 'line', step: 'end', showSymbol: s.dist.cdf.length <= 2, lineStyle: { width: 1.5 }, data };
    }),
  };
}

export function histogramOption(kind: Kind, series: Series[]): Option {
  const { bins, counts } = binAll(
    series.map((s) => s.dist),
    kind,
  );
  const lab = kind === 'latency' ? latencyAxis : sizeAxis;
  const full = kind === 'latency' ? formatDuration : formatBytes;
  const zero = kind === 'latency' ? '0ns' : '0 B';
  const isZero = ([lo, hi]: [number, number]) => lo === 0 && hi <= 1;
  const cats = bins.map((b) => (isZero(b) ? '0' : `<${lab(b[1])}`));
  const ranges = bins.map((b) => (isZero(b) ? zero : `${b[0] === 0 ? '>0' : full(b[0])} … <${full(b[1])}`));
  return {
    animation: false,
    color: SERIES_COLORS,
    legend: { show: false },
    grid: { left: 36, right: 6, top: 10, bottom: 28, containLabel: true },
    tooltip: {
      trigger: 'axis',
      axisPointer: { type: 'shadow' },
      formatter: (params: unknown) => {
        const ps = params as Array<{ marker: string; seriesName: string; value: number; dataIndex: number }>;
        if (!ps.length) return '';
        const head = `${kind === 'latency' ? 'latency' : 'size'} ${ranges[ps[0]!.dataIndex]}`;
        return [head, ...ps.map((p) => `${p.marker}${p.seriesName}: ${formatInt(p.value)}`)].join('<br/>');
      },
    },
    xAxis: {
      type: 'category',
      data: cats,
      axisLabel: { fontSize: 8, rotate: 40, interval: 'auto' },
    },
    yAxis: {
      type: 'value',
      name: 'count',
      nameTextStyle: { fontSize: 9, color: '#9ca3af' },
      axisLabel: { fontSize: 9, formatter: (v: number) => compact(v) },
      splitLine: { lineStyle: { color: '#f3f4f6' } },
    },
    series: series.map((s, i) => ({ name: s.name, type: 'bar', barGap: '10%', data: counts[i] })),
  };
}

/** Memory in use over time (alloc − free, cumulative), x relative to the trace start. */
export function usageOption(points: Array<[number, number]>): Option {
  return {
    animation: false,
    color: ['#a78bfa'],
    grid: { left: 52, right: 12, top: 12, bottom: 24, containLabel: true },
    tooltip: {
      trigger: 'axis',
      formatter: (params: unknown) => {
        const p = (params as Array<{ value: [number, number] }>)[0];
        return p ? `T+${formatDuration(p.value[0])}<br/>in use: ${sizeTip(Math.max(0, p.value[1]))}${p.value[1] < 0 ? ` (net ${formatBytes(p.value[1])})` : ''}` : '';
      },
    },
    xAxis: {
      type: 'value',
      min: 'dataMin',
      max: 'dataMax',
      axisLabel: { fontSize: 9, formatter: (v: number) => `T+${latencyAxis(v)}`, hideOverlap: true },
      splitLine: { show: false },
    },
    yAxis: {
      type: 'value',
      axisLabel: { fontSize: 9, formatter: (v: number) => (v < 0 ? `-${sizeAxis(-v)}` : sizeAxis(v)) },
      splitLine: { lineStyle: { color: '#f3f4f6' } },
    },
    dataZoom: [{ type: 'inside', xAxisIndex: 0, filterMode: 'none' }],
    series: [{ type: 'line', step: 'end', showSymbol: false, areaStyle: { opacity: 0.15 }, lineStyle: { width: 1.5 }, data: points }],
  };
}

function compact(v: number): string {
  if (v >= 1e6) return `${(v / 1e6).toFixed(v % 1e6 ? 1 : 0)}M`;
  if (v >= 1e3) return `${(v / 1e3).toFixed(v % 1e3 ? 1 : 0)}K`;
  return String(v);
}
