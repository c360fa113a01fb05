#include <string.h>

#include "bpf/records.h"
#include "trace/schema.h"

const char *const event_type_names[EV__COUNT] = {
	[EV_SCHED_SWITCH] = "sched_switch",
	[EV_PROCESS_FORK] = "process_fork",
	[EV_PROCESS_EXIT] = "process_exit",
	[EV_PAGE_FAULT] = "page_fault",
	[EV_READ_ENTER] = "syscall_read_enter",
	[EV_READ_EXIT] = "syscall_read_exit",
	[EV_WRITE_ENTER] = "syscall_write_enter",
	[EV_WRITE_EXIT] = "syscall_write_exit",
	[EV_MMAP_ENTER] = "syscall_mmap_enter",
	[EV_MMAP_EXIT] = "syscall_mmap_exit",
	[EV_MUNMAP_ENTER] = "syscall_munmap_enter",
	[EV_MUNMAP_EXIT] = "syscall_munmap_exit",
	[EV_BRK_ENTER] = "syscall_brk_enter",
	[EV_BRK_EXIT] = "syscall_brk_exit",
	[EV_IO_URING_SETUP_ENTER] = "syscall_io_uring_setup_enter",
	[EV_IO_URING_SETUP_EXIT] = "syscall_io_uring_setup_exit",
	[EV_IO_URING_ENTER_ENTER] = "syscall_io_uring_enter_enter",
	[EV_IO_URING_ENTER_EXIT] = "syscall_io_uring_enter_exit",
	[EV_IO_URING_REGISTER_ENTER] = "syscall_io_uring_register_enter",
	[EV_IO_URING_REGISTER_EXIT] = "syscall_io_uring_register_exit",
	[EV_CPU_SAMPLE] = "cpu_sample",
	[EV_FSYNC_ENTER] = "syscall_fsync_enter",
	[EV_FSYNC_EXIT] = "syscall_fsync_exit",
	[EV_FDATASYNC_ENTER] = "syscall_fdatasync_enter",
	[EV_FDATASYNC_EXIT] = "syscall_fdatasync_exit",
	[EV_IO_URING_COMPLETE] = "io_uring_complete",
	[EV_PROCESS_EXEC] = "process_exec",
};

int event_type__from_name(const char *name)
{
	for (int i = 0; i < EV__COUNT; i++)
		if (strcmp(event_type_names[i], name) == 0)
			return i;
	return -1;
}

const char *const stack_mode_names[3] = {
	[STACKS_SAMPLED] = "sampled",
	[STACKS_ALL] = "all",
	[STACKS_NONE] = "none",
};
