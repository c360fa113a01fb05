// One event's fields as a user reads them: the syscall's name, its arguments (with the
// file an fd was opened with), its return as strace writes it (`-1 ENOENT`), addresses in
// hex, and no stack plumbing (stack ids, syscall numbers).  Shared by the Events tab and
// the details of a span clicked on a lane.

import { h } from './dom';
import { formatBytes, formatDuration, formatInt } from './format';
import { retText } from './errno';
import type { EventDetail } from './api';

/** Shown in their own columns, the same on every row, or stack and table plumbing. */
export const HIDDEN = new Set(['ts_ns', 'event_type', 'pid', 'stack_trace', 'cpu', 'tgid', 'process_name',
  'stack_id', 'kernel_stack_id', 'stack_kind', 'stack_weight', 'stack_trace_id', 'syscall_nr', 'latency_ns',
  'errno', 'fd_path', 'waker_stack_trace', 'stack_trace_first']);

const HEX = new Set(['address', 'error_code', 'ip', 'addr']);

/** "futex", "read", "page fault", "io_uring op 22" for an event type. */
export function opName(type: string): string {
  const m = /^syscall_(.+)_(enter|exit)$/.exec(type);
  if (m) return m[1]!;
  return type.replace(/_/g, ' ');
}

/** Whether the row's ret is an address (mmap and brk return one). */
function retIsAddress(type: string): boolean {
  return /^syscall_(mmap|mremap|brk|shmat)_exit$/.test(type);
}

function valueText(k: string, v: number | string, ev: EventDetail): string {
  if (typeof v !== 'number') return String(v);
  if (k === 'ret') return retIsAddress(ev.event_type) && v > 0 ? `0x${v.toString(16)}` : retText(v, ev.errno);
  if (HEX.has(k)) return `0x${v.toString(16)}`;
  if (k.endsWith('_ns') && !k.endsWith('_ts_ns')) return formatDuration(v);
  if (k === 'count' && /read|write|send|recv/.test(ev.event_type)) return `${formatInt(v)} (${formatBytes(v)})`;
  if (k === 'bytes' || k === 'size' || k === 'len') return `${formatInt(v)} (${formatBytes(v)})`;
  if (k.endsWith('_ts_ns')) return formatInt(v);
  return String(v);
}

function label(k: string, type: string): string {
  if (k === 'count' && /read|write/.test(type)) return 'bytes';
  return k;
}

/** label=value pairs of the row's own fields; fd with its file when known. */
export function fieldPairs(ev: EventDetail): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(ev)) {
    if (HIDDEN.has(k) || v === null || v === undefined || typeof v === 'object') continue;
    let text = valueText(k, v as number | string, ev);
    if (k === 'fd' && typeof ev.fd_path === 'string' && ev.fd_path) text = `${text} (${ev.fd_path})`;
    out.push([label(k, ev.event_type), text]);
  }
  if (typeof ev.fd_path === 'string' && ev.fd_path && !('fd' in ev)) out.push(['file', ev.fd_path]);
  return out;
}

export function fieldSpans(ev: EventDetail): HTMLElement[] {
  return fieldPairs(ev).map(([k, v]) => h('span', { class: k === 'ret' && v.startsWith('-1 ') ? 'err' : '' }, h('b', null, `${k}=`), v));
}
