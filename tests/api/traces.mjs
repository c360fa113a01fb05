// Hand-built traces shared by the API tests.  Expected values in the tests are worked
// out by hand from these rows (see the comments there), not by running the viewer.
import path from 'node:path';
import { writeTrace } from './lib.mjs';

export const S = {
  fork: ['[user]', 'main', 'fork_child', '[kernel]', 'kernel_clone'],
  read: ['[user]', 'main', 'do_read', '[kernel]', 'ksys_read'],
  cpu1: ['[user]', 'child_main', 'work'],
  cpu2: ['[user]', 'child_main', 'other'],
  brk: ['[user]', 'main', 'grow'],
  mmap: ['[user]', 'main', 'map'],
  write: ['[user]', 'worker', 'send'],
  fsync: ['[user]', 'worker', 'sync'],
  uring: ['[kernel]', 'irq', 'complete'],
};

// Trace A: three tasks.  pid 10 "main" forks pid 20 "child" at 100, reads twice, moves
// its break three times, maps and unmaps a page; pid 11 "worker" has a write exit with
// no enter (105), a write enter with no exit (210), an fsync and io_uring completions;
// pid 20 takes three CPU samples and exits with code 3.  Rows are deliberately not in
// time order.
export const traceA = [
  { event_type: 'process_fork', ts_ns: 100, pid: 10, tgid: 10, process_name: 'main', parent_pid: 10, child_pid: 20, stack_trace: S.fork },
  { event_type: 'syscall_read_enter', ts_ns: 110, pid: 10, tgid: 10, process_name: 'main', count: 100, fd: 3, stack_trace: S.read },
  { event_type: 'syscall_read_exit', ts_ns: 150, pid: 10, tgid: 10, process_name: 'main', ret: 60, stack_trace: S.read },
  { event_type: 'cpu_sample', ts_ns: 120, pid: 20, tgid: 20, process_name: '', stack_trace: S.cpu1 },
  { event_type: 'cpu_sample', ts_ns: 130, pid: 20, tgid: 20, process_name: 'child', stack_trace: S.cpu1 },
  { event_type: 'cpu_sample', ts_ns: 140, pid: 20, tgid: 20, process_name: 'child', stack_trace: S.cpu2 },
  { event_type: 'syscall_read_enter', ts_ns: 160, pid: 10, tgid: 10, process_name: 'main', count: 10, fd: 3, stack_trace: S.read },
  { event_type: 'syscall_read_exit', ts_ns: 200, pid: 10, tgid: 10, process_name: 'main', ret: -11, stack_trace: S.read },
  { event_type: 'syscall_write_exit', ts_ns: 105, pid: 11, tgid: 10, process_name: 'worker', ret: 5, stack_trace: S.write },
  { event_type: 'syscall_write_enter', ts_ns: 210, pid: 11, tgid: 10, process_name: 'worker', count: 7, fd: 4, stack_trace: S.write },
  { event_type: 'process_exit', ts_ns: 300, pid: 20, tgid: 20, process_name: 'child', exit_code: 3 },
  { event_type: 'syscall_brk_enter', ts_ns: 220, pid: 10, tgid: 10, process_name: 'main', address: 0, stack_trace: S.brk },
  { event_type: 'syscall_brk_exit', ts_ns: 225, pid: 10, tgid: 10, process_name: 'main', ret: 1000, stack_trace: S.brk },
  { event_type: 'syscall_brk_enter', ts_ns: 230, pid: 10, tgid: 10, process_name: 'main', address: 1500, stack_trace: S.brk },
  { event_type: 'syscall_brk_exit', ts_ns: 240, pid: 10, tgid: 10, process_name: 'main', ret: 1500, stack_trace: S.brk },
  { event_type: 'syscall_brk_enter', ts_ns: 250, pid: 10, tgid: 10, process_name: 'main', address: 1200, stack_trace: S.brk },
  { event_type: 'syscall_brk_exit', ts_ns: 252, pid: 10, tgid: 10, process_name: 'main', ret: 1200, stack_trace: S.brk },
  { event_type: 'syscall_mmap_enter', ts_ns: 260, pid: 10, tgid: 10, process_name: 'main', count: 4096, address: 0, stack_trace: S.mmap },
  { event_type: 'syscall_mmap_exit', ts_ns: 270, pid: 10, tgid: 10, process_name: 'main', ret: 140000, stack_trace: S.mmap },
  { event_type: 'syscall_munmap_enter', ts_ns: 280, pid: 10, tgid: 10, process_name: 'main', count: 4096, address: 140000, stack_trace: S.mmap },
  { event_type: 'syscall_munmap_exit', ts_ns: 281, pid: 10, tgid: 10, process_name: 'main', ret: 0, stack_trace: S.mmap },
  { event_type: 'syscall_fsync_enter', ts_ns: 310, pid: 11, tgid: 10, process_name: 'worker', fd: 4, stack_trace: S.fsync },
  { event_type: 'syscall_fsync_exit', ts_ns: 400, pid: 11, tgid: 10, process_name: 'worker', ret: 0, stack_trace: S.fsync },
  { event_type: 'io_uring_complete', ts_ns: 500, pid: 11, tgid: 10, process_name: 'worker', submit_ts_ns: 450, io_uring_opcode: 22, io_uring_res: 4096, stack_trace: S.uring },
  { event_type: 'io_uring_complete', ts_ns: 505, pid: 11, tgid: 10, process_name: 'worker', submit_ts_ns: 0, io_uring_opcode: 22, io_uring_res: 1, stack_trace: S.uring },
  { event_type: 'io_uring_complete', ts_ns: 506, pid: 11, tgid: 10, process_name: 'worker', io_uring_opcode: 22, io_uring_res: 2 },
  { event_type: 'sched_switch', ts_ns: 600, pid: 10, tgid: 10, process_name: 'main', prev_pid: 10, next_pid: 11, prev_state: 1 },
];

// Trace B: a lost exit.  pid 30 reads E10 E20 X30 E40 X50 X60 (the exit of one of the
// first two enters was lost); pid 31 reads cleanly E15 X25.
export const traceB = [
  { event_type: 'syscall_read_enter', ts_ns: 10, pid: 30, tgid: 30, count: 1, stack_trace: ['[user]', 'a'] },
  { event_type: 'syscall_read_enter', ts_ns: 20, pid: 30, tgid: 30, count: 1, stack_trace: ['[user]', 'b'] },
  { event_type: 'syscall_read_exit', ts_ns: 30, pid: 30, tgid: 30, ret: 3, stack_trace: ['[user]', 'x'] },
  { event_type: 'syscall_read_enter', ts_ns: 40, pid: 30, tgid: 30, count: 1, stack_trace: ['[user]', 'c'] },
  { event_type: 'syscall_read_exit', ts_ns: 50, pid: 30, tgid: 30, ret: 4, stack_trace: ['[user]', 'x'] },
  { event_type: 'syscall_read_exit', ts_ns: 60, pid: 30, tgid: 30, ret: 5, stack_trace: ['[user]', 'x'] },
  { event_type: 'syscall_read_enter', ts_ns: 15, pid: 31, tgid: 30, count: 1, stack_trace: ['[user]', 'd'] },
  { event_type: 'syscall_read_exit', ts_ns: 25, pid: 31, tgid: 30, ret: 7, stack_trace: ['[user]', 'x'] },
];

// Trace C: NULLs the reference treats as errors at query time.
export const traceC = [
  { event_type: 'syscall_read_enter', ts_ns: 10, pid: 40, tgid: 40, count: 8 },
  { event_type: 'syscall_read_exit', ts_ns: 20, pid: 40, tgid: 40 },				// ret NULL
  { event_type: 'syscall_mmap_enter', ts_ns: 30, pid: 40, tgid: 40 },				// count NULL
  { event_type: 'syscall_mmap_exit', ts_ns: 35, pid: 40, tgid: 40, ret: 4096 },
  { event_type: 'process_exit', ts_ns: 50, pid: 41, tgid: 41 },					// exit_code NULL
];

export function write(dir, name, rows, opts) {
  return writeTrace(path.join(dir, `${name}.parquet`), rows, opts);
}
