// The viewer's JSON API (the /api/* endpoints the UI calls): response types, URL building
// with proper encoding, a small response cache and cancellable requests.

export interface Summary {
  total_events: number;
  event_types: string[];
  unique_pids: number[];
  min_ts_ns: number;
  max_ts_ns: number;
  cpu_sample_frequency_hz: number;
  /** Records the ring buffer dropped (absent when none). */
  dropped_records?: number;
  /** Events the exact counts hold (absent without probex.exact). */
  exact_records?: number;
  /** Distinct processes; present when the endpoints take `tgid=`. */
  unique_tgids?: number[];
}

export interface ProcessLifetime {
  pid: number;
  process_name: string | null;
  parent_pid: number | null;
  start_ns: number;
  end_ns: number;
  exit: number | null;
  was_forked: boolean;
  tgid?: number | null;
  /** The command line of the process's last exec, when the trace records it. */
  argv?: string[] | null;
  /** CPU time (samples × period) of this thread, or of all threads on a process row. */
  cpu_ns?: number | null;
  /** probex's viewer: the name of the pid's last named row (after exec). */
  last_process_name?: string | null;
  /** @client Set by the UI when the last name replaced a different first one (never sent). */
  first_process_name?: string | null;
}

export interface LifetimesResponse {
  processes: ProcessLifetime[];
}

export interface HistogramBucket {
  bucket_start_ns: number;
  bucket_end_ns: number;
  count: number;
  counts_by_type: Record<string, number>;
}

export interface HistogramResponse {
  buckets: HistogramBucket[];
  total_in_range?: number;
}

export interface EventMarker {
  ts_ns: number;
  event_type: string;
}

export interface ProcessEventsResponse {
  events_by_pid: Record<string, EventMarker[]>;
  cpu_sample_counts_by_pid: Record<string, number[]>;
  cpu_sample_bucket_count: number;
  /** Events in range per pid before sampling (additive: the reference lacks it). */
  total_events_by_pid: Record<string, number>;
}

export interface CountsResponse {
  counts: Record<string, number>;
  /** Exact counts of the types whose rows are fewer (whole trace only). */
  exact_counts?: Record<string, number>;
  note?: string;
}


export interface LatencySummary {
  count: number;
  avg_ns: number;
  p50_ns: number;
  p95_ns: number;
  max_ns: number;
  /** Where rows were dropped (whole trace only): the exact count, errors, summed latency. */
  exact_count?: number;
  exact_errors?: number;
  exact_total_ns?: number;
  incomplete?: boolean;
}

export interface LatencyStats {
  read: LatencySummary;
  write: LatencySummary;
  io_uring: LatencySummary;
  mmap_alloc_bytes: number;
  munmap_free_bytes: number;
  note?: string;
}

export interface EventDetail {
  ts_ns: number;
  latency_ns: number | null;
  event_type: string;
  pid: number;
  stack_trace: string[] | null;
  [payload: string]: unknown;
}

export interface OpStats {
  operation: string;
  total_ops: number;
  total_bytes: number;
  avg_latency_ns: number;
  p50_event: EventDetail | null;
  p95_event: EventDetail | null;
  p99_event: EventDetail | null;
  max_event: EventDetail | null;
  /** [[value, fraction of values <= value], ...], ascending, bounded by max_points. */
  latency_cdf: Array<[number, number]>;
  size_cdf: Array<[number, number]>;
  /** IO operations: the files their fds were opened with, where known. */
  files?: Array<{ path: string; ops: number; bytes: number; total_latency_ns: number }>;
  /** Exact counts in power-of-two bins [lo, hi). */
  latency_histogram: HistogramBin[];
  size_histogram: HistogramBin[];
  /** Where rows were dropped (whole trace only): the exact count, errors, summed latency. */
  exact_count?: number;
  exact_errors?: number;
  exact_total_ns?: number;
  incomplete?: boolean;
}

export interface HistogramBin {
  lo: number;
  hi: number;
  count: number;
}

export interface IoStats {
  by_operation: OpStats[];
  total_ops: number;
  total_bytes: number;
  time_range_ns?: [number, number];
  note?: string;
}

export interface MemoryStats {
  by_operation: OpStats[];
  total_alloc_ops: number;
  total_alloc_bytes: number;
  total_free_ops: number;
  total_free_bytes: number;
  cumulative_usage?: Array<{ ts_ns: number; cumulative_bytes: number }>;
  time_range_ns?: [number, number];
}

/** event_flamegraph's answer, or wall_flamegraph's (which sends no event_type, total_samples,
 *  total_in_range or svg, and sends total_ns, on_cpu_ns and off_cpu_ns instead). */
export interface FlamegraphResponse {
  event_type?: string;
  total_samples?: number;
  /** Rows of event_type in the window before sampling to max_stacks. */
  total_in_range?: number;
  /** Kept for the reference's clients; the UI draws from `stacks`. */
  svg?: string | null;
  /** Folded stacks, root first; weights sum to total_samples. */
  stacks: Array<{ frames: string[]; weight: number }>;
  /** "ns" when weights are blocked time (off_cpu), "events" otherwise; absent on older servers. */
  weight_unit?: string;
  /** cpu_sample: the sampling period, so samples read as time. */
  period_ns?: number;
  /** wall_flamegraph only: on-CPU plus off-CPU ns, and each part. */
  total_ns?: number;
  on_cpu_ns?: number;
  off_cpu_ns?: number;
}

/** The syscall a blocked span was in: its name and the enter row's decoded fields. */
export interface SpanSyscall {
  name: string;
  fd?: number;
  filename?: string;
}

export interface StateSpan {
  start_ns: number;
  end_ns: number;
  /** running, runnable, sleeping, disk or unknown. */
  state: string;
  syscall: SpanSyscall | null;
  waker_tid: number | null;
  waker_pid: number | null;
  waker_name: string | null;
  stack: string[] | null;
  waker_stack: string[] | null;
  /** Spans of this many merged into one (narrower than the window / max_spans). */
  merged?: number;
}

export interface ThreadStatesResponse {
  spans: StateSpan[];
  note: string | null;
}

export interface CritSegment {
  tid: number;
  pid: number;
  thread_name: string | null;
  state: string;
  start_ns: number;
  end_ns: number;
  stack: string[] | null;
  /** A blocked segment that ends the chain names the waker the path could not follow. */
  waker_tid: number | null;
  waker_pid: number | null;
  waker_name: string | null;
}

export interface CriticalPathResponse {
  segments: CritSegment[];
  note: string | null;
}

export interface EventListResponse {
  events: EventDetail[];
  total_in_range: number;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    body: string,
  ) {
    super(`HTTP ${status}: ${body.trim().slice(0, 300) || '(empty body)'}`);
  }
}

export type Params = Record<string, string | number | boolean | null | undefined>;

export function apiUrl(path: string, params: Params = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined || v === '') continue;
    q.set(k, String(v));
  }
  const qs = q.toString();
  return `/api/${path}${qs ? `?${qs}` : ''}`;
}

/** Responses keyed by URL, least recently used evicted first. Returning to a range or
 *  a PID seen before costs nothing (the reference refetched it). */
class ResponseCache {
  private map = new Map<string, unknown>();
  constructor(private limit: number) {}
  get(key: string): unknown {
    if (!this.map.has(key)) return undefined;
    const v = this.map.get(key);
    this.map.delete(key);
    this.map.set(key, v);
    return v;
  }
  set(key: string, v: unknown): void {
    this.map.delete(key);
    this.map.set(key, v);
    while (this.map.size > this.limit) this.map.delete(this.map.keys().next().value as string);
  }
}

const cache = new ResponseCache(96);
const inflight = new Map<string, Promise<unknown>>();

/** Count of requests sent to the server, exposed for tests (`window.__probex.requests`). */
export const requestLog: string[] = [];

export async function getJson<T>(path: string, params: Params = {}, signal?: AbortSignal): Promise<T> {
  const url = apiUrl(path, params);
  const hit = cache.get(url);
  if (hit !== undefined) return hit as T;
  let p = inflight.get(url);
  if (!p) {
    requestLog.push(url);
    p = fetch(url, { headers: { Accept: 'application/json' } })
      .then(async (r) => {
        if (!r.ok) throw new HttpError(r.status, await r.text());
        // json() parses the bytes directly, without an intermediate string (big responses).
        try {
          return (await r.json()) as unknown;
        } catch (e) {
          throw new Error(`invalid JSON from ${url}: ${e instanceof Error ? e.message : e}`);
        }
      })
      .then((v) => {
        cache.set(url, v);
        return v;
      })
      .finally(() => inflight.delete(url));
    inflight.set(url, p);
  }
  // A superseded caller stops waiting; the shared request still fills the cache.
  if (!signal) return p as Promise<T>;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new DOMException('superseded', 'AbortError'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    p!.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v as T);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

export function isAbort(e: unknown): boolean {
  return e instanceof DOMException && e.name === 'AbortError';
}

export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}

/** /api/compare: whether the viewer has a base trace (`--base`). */
export interface CompareInfo {
  new_file: string;
  base_file: string | null;
}

/** /api/diff_flamegraph: one event type's folded stacks in NEW and BASE, matched. */
export interface DiffFlameResponse {
  event_type: string;
  /** 'ns' (off-CPU time), 'samples' (cpu_sample) or 'events'. */
  weight_unit: string;
  base_total: number;
  total: number;
  base_in_range: number;
  in_range: number;
  stacks: Array<{ frames: string[]; base_weight: number; weight: number }>;
}
