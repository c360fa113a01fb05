/* The programs and maps of src/bpf/probex.bpf.c that user space reaches, listed once for
 * both loaders (record/loader.c) and for probes.c, which only sees descriptors. */
#ifndef PROBEX_RECORD_PROGS_H
#define PROBEX_RECORD_PROGS_H

/* Tracepoint programs, each named as its tracepoint: X(name, args, required, what).
 * `args` is how many arguments of the btf_trace_<name> prototype (minus its leading
 * void *) the program reads: a kernel with fewer cannot take it; `what` is what a trace
 * lacks without it.  io_uring_submit_req comes before io_uring_complete (completions are
 * only loaded with their submissions). */
#define PROBEX_TP_PROGS(X)							\
	X(sys_enter, 2, true, "syscalls")					\
	X(sys_exit, 2, true, "syscalls")					\
	X(task_newtask, 2, true, "fork following")				\
	X(sched_process_exit, 1, true, "exits")					\
	X(sched_switch, 3, false, "sched_switch events")			\
	X(sched_waking, 1, false, "off-CPU wakers")				\
	X(sched_wakeup, 1, false, "off-CPU runnable time")			\
	X(sched_process_exec, 3, false, "process_exec events")			\
	X(page_fault_user, 3, false, "page_fault events")			\
	X(io_uring_submit_req, 1, false, "io_uring_complete events")		\
	X(io_uring_complete, 3, false, "io_uring_complete events")

/* The others: the CPU sampler (attached to perf events) and the kernel symbol lookup
 * (run through BPF_PROG_TEST_RUN). */
#define PROBEX_OTHER_PROGS(X) X(cpu_sample) X(ksym_lookup)

#define PROBEX_MAPS(X) X(rb) X(traced) X(tstates) X(counters) X(sideband) X(ksym_buf) \
	X(stats) X(stats_spill) X(pyprocs) X(unw_rows) X(unw_rules) X(unw_procs) X(unw_stats)

#define PROBEX__TP_ENUM(name, ...) PROG_##name,
#define PROBEX__ENUM(name) PROG_##name,
enum probex_prog {
	PROBEX_TP_PROGS(PROBEX__TP_ENUM)
	PROBEX_OTHER_PROGS(PROBEX__ENUM)
	PROG__COUNT
};
#undef PROBEX__ENUM
#define PROBEX__ENUM(name) MAP_##name,
enum probex_map {
	PROBEX_MAPS(PROBEX__ENUM)
	MAP__COUNT
};
#undef PROBEX__ENUM
#undef PROBEX__TP_ENUM

/* The tracepoint programs come first. */
#define PROG__TP_COUNT PROG_cpu_sample

#endif
