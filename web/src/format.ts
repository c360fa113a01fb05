// Formatting rules shared by every view: durations, byte sizes, counts, and the chart axis
// and tooltip formatters.
// The unit is always chosen before rounding, as in the reference.

const MU = '\u00b5';

function fixed(v: number, digits: number): string {
  return v.toFixed(digits);
}

/** Long-form duration: 1.62s, 168.56ms, 355.9µs, 999ns. */
export function formatDuration(ns: number): string {
  if (!Number.isFinite(ns)) return '—';
  const neg = ns < 0 ? '-' : '';
  const a = Math.abs(ns);
  if (a / 1e9 >= 1) return `${neg}${fixed(a / 1e9, 2)}s`;
  if (a / 1e6 >= 1) return `${neg}${fixed(a / 1e6, 2)}ms`;
  if (a / 1e3 >= 1) return `${neg}${fixed(a / 1e3, 1)}${MU}s`;
  return `${neg}${Math.round(a)}ns`;
}

/** Coarse duration: 1.4s, 169ms, 17µs, 999ns. */
export function formatDurationShort(ns: number): string {
  if (!Number.isFinite(ns)) return '—';
  const neg = ns < 0 ? '-' : '';
  const a = Math.abs(ns);
  if (a / 1e9 >= 1) return `${neg}${fixed(a / 1e9, 1)}s`;
  if (a / 1e6 >= 1) return `${neg}${fixed(a / 1e6, 0)}ms`;
  if (a / 1e3 >= 1) return `${neg}${fixed(a / 1e3, 0)}${MU}s`;
  return `${neg}${Math.round(a)}ns`;
}

/** Offset from the trace start with enough digits to tell neighbouring events apart:
 *  1.234567890s, 12.345678ms, 345.678µs, 999ns (precision scales with magnitude). */
export function formatOffsetPrecise(ns: number): string {
  const a = Math.abs(ns);
  const neg = ns < 0 ? '-' : '';
  if (a >= 1e9) return `${neg}${fixed(a / 1e9, 6)}s`;
  if (a >= 1e6) return `${neg}${fixed(a / 1e6, 3)}ms`;
  if (a >= 1e3) return `${neg}${fixed(a / 1e3, 3)}${MU}s`;
  return `${neg}${Math.round(a)}ns`;
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** Binary bytes: 1023 B, 36.00 KiB, 3.98 GiB. */
export function formatBytes(b: number): string {
  if (!Number.isFinite(b)) return '—';
  const neg = b < 0 ? '-' : '';
  let v = Math.abs(b);
  if (v < 1024) return `${neg}${Math.round(v)} B`;
  let u = 0;
  while (v >= 1024 && u < BYTE_UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  return `${neg}${fixed(v, 2)} ${BYTE_UNITS[u]}`;
}

/** +X when alloc ≥ free, else -X (ASCII hyphen). */
export function formatNetBytesSigned(alloc: number, free: number): string {
  return alloc >= free ? `+${formatBytes(alloc - free)}` : `-${formatBytes(free - alloc)}`;
}

/** Compact count: 999, 2.1K, 4.0M. */
export function formatCount(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1e6) return `${fixed(n / 1e3, 1)}K`;
  return `${fixed(n / 1e6, 1)}M`;
}

/** Exact integer with thousands separators, so large counts stay readable. */
export function formatInt(n: number): string {
  if (!Number.isFinite(n)) return '—';
  const s = String(Math.round(Math.abs(n)));
  const grouped = s.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return (n < 0 ? '-' : '') + grouped;
}

// ---- chart axis and tooltip formatters (the reference defined them but never passed
// them to ECharts, so its charts showed raw ns and bytes) ------------------------------

/** Latency axis label: 1.5s, 2.0ms, 17µs, 500ns. */
export function latencyAxis(v: number): string {
  if (v >= 1e9) return `${trim(fixed(v / 1e9, 1))}s`;
  if (v >= 1e6) return `${trim(fixed(v / 1e6, 1))}ms`;
  if (v >= 1e3) return `${trim(fixed(v / 1e3, v < 1e4 ? 1 : 0))}${MU}s`;
  return `${trim(fixed(v, 0))}ns`;
}

/** Latency tooltip value: 1.52s, 2.04ms, 17.3µs, 500ns. */
export function latencyTip(v: number): string {
  if (v >= 1e9) return `${fixed(v / 1e9, 2)}s`;
  if (v >= 1e6) return `${fixed(v / 1e6, 2)}ms`;
  if (v >= 1e3) return `${fixed(v / 1e3, 1)}${MU}s`;
  return `${fixed(v, 0)}ns`;
}

/** Size axis label: 1.5GiB, 2.0MiB, 4KiB, 512B. */
export function sizeAxis(v: number): string {
  if (v >= 2 ** 30) return `${trim(fixed(v / 2 ** 30, 1))}GiB`;
  if (v >= 2 ** 20) return `${trim(fixed(v / 2 ** 20, 1))}MiB`;
  if (v >= 1024) return `${trim(fixed(v / 1024, v < 10240 ? 1 : 0))}KiB`;
  return `${fixed(v, 0)}B`;
}

export function sizeTip(v: number): string {
  if (v >= 2 ** 30) return `${fixed(v / 2 ** 30, 2)} GiB`;
  if (v >= 2 ** 20) return `${fixed(v / 2 ** 20, 2)} MiB`;
  if (v >= 1024) return `${fixed(v / 1024, 1)} KiB`;
  return `${fixed(v, 0)} B`;
}

function trim(s: string): string {
  return s.endsWith('.0') ? s.slice(0, -2) : s;
}

/** Time-axis tick label for an offset, choosing precision from the tick step. */
export function tickLabel(offsetNs: number, stepNs: number): string {
  const a = Math.abs(offsetNs);
  if (a === 0) return '0';
  const unit = a >= 1e9 ? 1e9 : a >= 1e6 ? 1e6 : a >= 1e3 ? 1e3 : 1;
  const suffix = unit === 1e9 ? 's' : unit === 1e6 ? 'ms' : unit === 1e3 ? `${MU}s` : 'ns';
  let digits = 0;
  while (digits < 6 && stepNs / unit < Math.pow(10, -digits) * 0.999) digits++;
  return `${(offsetNs / unit).toFixed(digits)}${suffix}`;
}

/** Nice tick step (1/2/5 × 10^k) giving about `target` ticks over `span`. */
export function niceStep(span: number, target: number): number {
  if (span <= 0) return 1;
  const raw = span / Math.max(1, target);
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  const m = raw / p;
  const nice = m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10;
  return Math.max(1, nice * p);
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The two percentile rules of the reference's API, stated where each is shown: the
 *  latency row (syscall_latency_stats) and the IO/memory tables (p50_event, ...) pick
 *  different positions, so their p50s of the same operations can differ by one event. */
export const PCT_RULE_ROW =
  'pN is the latency at sorted index ⌊(count−1)·N/100⌋ of the paired enter/exit latencies; ' +
  "the IO table's PN uses ⌊count·N/100⌋, so it can be one event higher.";
export const PCT_RULE_TABLE =
  'PN is the event at sorted index ⌊count·N/100⌋ (the nearest rank above: P99 of 100 events is the slowest); ' +
  "Max is the slowest. The latency row's pN uses ⌊(count−1)·N/100⌋.";
