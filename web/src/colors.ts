// Colour rules: lane marker colours and chip tones per event type, the reference's
// (Tailwind v3 palette). Unknown event types fall through to neutral gray.

export function markerColor(type: string): string {
  if (type === 'sched_switch') return '#2563eb';
  if (type === 'process_fork') return '#16a34a';
  if (type === 'process_exit') return '#dc2626';
  if (type === 'process_exec') return '#0d9488';
  if (type === 'page_fault') return '#f97316';
  if (type.includes('syscall')) return '#7c3aed';
  return '#4b5563';
}

export interface Tone {
  border: string;
  text: string;
}

export function chipTone(type: string): Tone {
  if (type === 'sched_switch') return { border: '#93c5fd', text: '#1d4ed8' };
  if (type === 'process_fork') return { border: '#86efac', text: '#15803d' };
  if (type === 'process_exit') return { border: '#fca5a5', text: '#b91c1c' };
  if (type === 'process_exec') return { border: '#5eead4', text: '#0f766e' };
  if (type === 'page_fault') return { border: '#fcd34d', text: '#b45309' };
  if (type === 'off_cpu') return { border: '#f9a8d4', text: '#be185d' };
  if (type.includes('read')) return { border: '#7dd3fc', text: '#0369a1' };
  if (type.includes('write')) return { border: '#fdba74', text: '#c2410c' };
  if (type.includes('mmap') || type.includes('munmap') || type.includes('brk')) {
    return { border: '#d8b4fe', text: '#7e22ce' };
  }
  if (type.includes('syscall')) return { border: '#a5b4fc', text: '#4338ca' };
  return { border: '#d1d5db', text: '#374151' };
}

export const DISABLED_TONE: Tone = { border: '#e5e7eb', text: '#9ca3af' };

/** Series colours for chart operations, by index, repeating (the reference's order). */
export const SERIES_COLORS = ['#60a5fa', '#f97316', '#a78bfa', '#34d399', '#f472b6', '#facc15'];

export const CPU_AREA = 'rgba(107,114,128,0.12)';
export const CPU_LINE = 'rgba(107,114,128,0.35)';
export const OVERVIEW_FILL = 'rgba(107,114,128,0.4)';
/** The overview's CPU activity series. */
export const CPU_FILL = 'rgba(37,99,235,0.22)';
export const CPU_STROKE = 'rgba(37,99,235,0.7)';
export const FORK_COLOR = '#16a34a';
export const EXIT_BAD_COLOR = '#dc2626';

/** Thread states, in Perfetto's colours: running green, runnable light blue, sleeping
 *  light gray, uninterruptible (disk) orange; unknown is drawn hatched over this gray. */
export const STATE_COLORS: Record<string, string> = {
  running: '#2e9e4f',
  runnable: '#7cc8ec',
  sleeping: '#d9dee5',
  disk: '#f0772f',
  unknown: '#eceff3',
};

export function stateColor(state: string): string {
  return STATE_COLORS[state] ?? STATE_COLORS.unknown!;
}

/** Critical-path threads, by order of first appearance on the path: apart from each
 *  other and from the state colours drawn beneath them. */
export const PATH_COLORS = ['#6d5bd0', '#d9485f', '#1c7ed6', '#c2255c', '#0c8599', '#e8590c', '#5c940d', '#862e9c', '#364fc7', '#a61e4d'];

/** A Python frame's label, "QUALNAME (FILE:LINE)" (a C++ name may hold parentheses, never
 *  this shape). */
const PYTHON_FRAME = /^[^\s()]+ \([^()]*:\d+\)$/;

/** Python frames in greens, apart from the native frames' warm colours. */
export function pythonFrameColor(name: string, v1: number, v2: number): string | null {
  if (!PYTHON_FRAME.test(name)) return null;
  return `rgb(${Math.round(60 + 50 * v1)},${Math.round(170 + 50 * v2)},${Math.round(90 + 40 * v1)})`;
}
