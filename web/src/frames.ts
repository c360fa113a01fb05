// Stack frames as stored: root first, "[user]"/"[kernel]" markers before each part, leaf last.

import { h } from './dom';

export function isMarker(f: string): boolean {
  return f === '[user]' || f === '[kernel]';
}

/** The leaf (innermost) real frame, or null (the reference showed the first
 *  stored element, usually the "[user]" marker). */
export function leafFrame(frames: string[] | null | undefined): string | null {
  if (!frames) return null;
  for (let i = frames.length - 1; i >= 0; i--) if (!isMarker(frames[i]!)) return frames[i]!;
  return null;
}

/** Frames, numbered from the root, the leaf in bold. */
export function renderFrames(frames: string[] | null | undefined, emptyText: string): HTMLElement {
  if (!frames) return h('div', { class: 'frames' }, h('i', { class: 'muted' }, emptyText));
  if (!frames.length) return h('div', { class: 'frames' }, h('i', { class: 'muted' }, 'Empty stack trace'));
  const leaf = frames.length - 1;
  return h(
    'div',
    { class: 'frames', 'data-testid': 'frames' },
    frames.map((f, i) =>
      h('div', { class: isMarker(f) ? 'marker' : i === leaf ? 'leaf' : '' }, `${String(i).padStart(2, ' ')}: ${f}`),
    ),
  );
}

/** The innermost frame of the user part of a stack (what the program was doing), else the
 *  leaf: a syscall's stack ends in the kernel's `syscall_exit_work` on every row. */
export function userLeaf(frames: string[] | null | undefined): string | null {
  if (!frames) return null;
  const u = frames.indexOf('[user]');
  if (u >= 0) {
    let last: string | null = null;
    for (let i = u + 1; i < frames.length && frames[i] !== '[kernel]'; i++) if (!isMarker(frames[i]!)) last = frames[i]!;
    if (last) return last;
  }
  return leafFrame(frames);
}
