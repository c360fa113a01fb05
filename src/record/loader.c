/* The two ways of loading the BPF object (see loader.h for why there are two). */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/log.h"
#include "common/test_hooks.h"
#include "probex.skel.h"
#include "probex_light.lskel.h"
#include "record/loader.h"

/* A program added to src/bpf without a line in record/progs.h would load but never be
 * attached: both skeletons must hold exactly the programs listed there. */
_Static_assert(sizeof(((struct probex *)0)->progs) / sizeof(struct bpf_program *) == PROG__COUNT,
	       "record/progs.h does not list every program of probex.bpf.c");
_Static_assert(sizeof(((struct probex_light *)0)->progs) / sizeof(struct bpf_prog_desc) == PROG__COUNT,
	       "record/progs.h does not list every program of probex.bpf.c");

#define PROBEX__NAME(name, ...) #name,
const char *const bpfobj__prog_names[PROG__COUNT] = {
	PROBEX_TP_PROGS(PROBEX__NAME)
	PROBEX_OTHER_PROGS(PROBEX__NAME)
};
#undef PROBEX__NAME

struct tp_shape {
	const char *tp;
	int nargs;
	bool required;
	const char *what;
};

#define PROBEX__SHAPE(name, nargs, required, what) { #name, nargs, required, what },
static const struct tp_shape tp_shapes[PROG__TP_COUNT] = { PROBEX_TP_PROGS(PROBEX__SHAPE) };
#undef PROBEX__SHAPE

/* Both skeletons describe the same .rodata, each with a C type of its own. */
#define RODATA_FILL(rd, o)							\
	do {									\
		(rd)->stack_mode = (o)->stacks;					\
		(rd)->stack_interval_ns = (o)->stack_interval_ns;		\
		(rd)->ustack_copy_bytes = (o)->ustack_copy_bytes;		\
		(rd)->ustack_copy_events = (o)->ustack_copy_bytes && (o)->stacks == STACKS_SAMPLED; \
		memcpy((void *)(rd)->sys_flags, (o)->sys_flags, PROBEX_SYSCALL_MAX); \
		(rd)->offcpu_min_ns = (o)->offcpu_min_ns;			\
		(rd)->trace_all = (o)->trace_all;				\
		(rd)->self_tgid = (uint32_t)getpid();				\
		(rd)->wakeup_bytes = wakeup_bytes(o);				\
		(rd)->unw_walk = (o)->ustack_copy_bytes != 0;			\
	} while (0)

/* The in-kernel walk's tables (bpf/unwind.h), with stack copies only: 8 MiB of rows
 * hold the objects of a large program (a C++ browser's shared library: ~1 M rows). */
#define UNW_ROWS	(1u << 20)
#define UNW_RULES	(1u << 16)

static uint32_t unw_entries(const struct probes_opts *o, uint32_t n)
{
	return o->ustack_copy_bytes ? n : 1;
}

/* Wake the consumer when 1/16 of the buffer is used (at most 1 MiB): rare enough to be
 * cheap, early enough never to fill the buffer between polls.  The buffer itself is kept
 * modest: every page of it is a page fault for the consumer. */
static uint64_t wakeup_bytes(const struct probes_opts *o)
{
	return o->ringbuf_bytes / 16 < (1u << 20) ? o->ringbuf_bytes / 16 : (1u << 20);
}

/* Exact-count entries (bpf/stats.bpf.h): one per process and syscall it makes, ~25 for a
 * typical process; -a sees the whole machine.  Past them, events are counted for all
 * processes together (exact_spilled).  Each costs 16 bytes of buckets up front. */
static uint32_t stats_entries(const struct probes_opts *o)
{
	return o->trace_all ? 131072 : 32768;
}

static void missing_add(struct bpfobj *b, const char *name)
{
	size_t n = strlen(b->missing);

	snprintf(b->missing + n, sizeof(b->missing) - n, "%s%s", n ? "," : "", name);
}

static int load_light(struct bpfobj *b, const struct probes_opts *o)
{
	struct probex_light *s = probex_light__open();
	int err;

	if (!s)
		return -ENOMEM;
	RODATA_FILL(s->rodata, o);
	s->maps.rb.max_entries = o->ringbuf_bytes;
	s->maps.stats.max_entries = stats_entries(o);
	s->maps.unw_rows.max_entries = unw_entries(o, UNW_ROWS);
	s->maps.unw_rules.max_entries = unw_entries(o, UNW_RULES);
	s->maps.unw_procs.max_entries = unw_entries(o, o->trace_all ? 16384 : 4096);
	err = probex_light__load(s);
	if (err) {
		probex_light__destroy(s);
		return err < 0 ? err : -EINVAL;
	}
	b->lskel = s;
	b->light = true;
#define PROBEX__FD(name, ...) b->progs[PROG_##name] = s->progs.name.prog_fd;
	PROBEX_TP_PROGS(PROBEX__FD)
	PROBEX_OTHER_PROGS(PROBEX__FD)
#undef PROBEX__FD
#define PROBEX__FD(name) b->maps[MAP_##name] = s->maps.name.map_fd;
	PROBEX_MAPS(PROBEX__FD)
#undef PROBEX__FD
	b->root_tgid = &s->bss->root_tgid;
	return 0;
}

static int tp_nargs(const struct btf *btf, const char *tp)
{
	char name[128];
	const struct btf_type *t;
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return -ENOENT;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);	/* pointer */
	if (!t || !btf_is_ptr(t))
		return -EINVAL;
	t = btf__type_by_id(btf, t->type);				/* func proto */
	if (!t || !btf_is_func_proto(t))
		return -EINVAL;
	return btf_vlen(t) - 1;
}

/* Programs may take fewer arguments than the tracepoint has (trailing ones unused). */
static int select_programs(struct bpfobj *b, struct probex *skel)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool iou_ok = true;
	int err = 0;

	if (!btf) {
		log__error("cannot read kernel BTF (/sys/kernel/btf/vmlinux): %s", strerror(errno));
		return -errno;
	}
	for (size_t i = 0; i < PROG__TP_COUNT; i++) {
		const struct tp_shape *tp = &tp_shapes[i];
		struct bpf_program *prog = bpf_object__find_program_by_name(skel->obj, tp->tp);
		int n = tp_nargs(btf, tp->tp);

		if (!prog) {
			err = -ENOENT;
			break;
		}
		if (n >= tp->nargs && !(strncmp(tp->tp, "io_uring", 8) == 0 && !iou_ok))
			continue;
		if (tp->required) {
			log__error("kernel tracepoint %s is missing or has an unexpected shape: cannot record %s",
				   tp->tp, tp->what);
			err = -EOPNOTSUPP;
			break;
		}
		log__warn("kernel tracepoint %s unavailable: no %s in this trace", tp->tp, tp->what);
		bpf_program__set_autoload(prog, false);
		missing_add(b, tp->tp);
		/* io_uring completions are only useful with their submissions. */
		if (!strcmp(tp->tp, "io_uring_submit_req"))
			iou_ok = false;
	}
	btf__free(btf);
	return err;
}

/* With `select`, first drop the optional programs the kernel cannot take (reading the
 * kernel's BTF for that costs tens of ms, so it is only done when a plain load fails). */
static int load_libbpf_once(struct bpfobj *b, const struct probes_opts *o, bool select)
{
	struct probex *s = probex__open();
	int err;

	if (!s) {
		err = -errno;
		log__error("cannot open the BPF object: %s", strerror(-err));
		return err;
	}
	RODATA_FILL(s->rodata, o);
	err = bpf_map__set_max_entries(s->maps.rb, o->ringbuf_bytes);
	if (!err)
		err = bpf_map__set_max_entries(s->maps.stats, stats_entries(o));
	if (!err)
		err = bpf_map__set_max_entries(s->maps.unw_rows, unw_entries(o, UNW_ROWS));
	if (!err)
		err = bpf_map__set_max_entries(s->maps.unw_rules, unw_entries(o, UNW_RULES));
	if (!err)
		err = bpf_map__set_max_entries(s->maps.unw_procs,
					       unw_entries(o, o->trace_all ? 16384 : 4096));
	if (!err && select)
		err = select_programs(b, s);
	if (!err)
		err = probex__load(s);
	if (err) {
		probex__destroy(s);
		return err;
	}
	b->skel = s;
#define PROBEX__FD(name, ...) b->progs[PROG_##name] = bpf_program__fd(s->progs.name);
	PROBEX_TP_PROGS(PROBEX__FD)
	PROBEX_OTHER_PROGS(PROBEX__FD)
#undef PROBEX__FD
#define PROBEX__FD(name) b->maps[MAP_##name] = bpf_map__fd(s->maps.name);
	PROBEX_MAPS(PROBEX__FD)
#undef PROBEX__FD
	b->root_tgid = &s->bss->root_tgid;
	return 0;
}

/* The oldest kernel the programs load on: bpf_loop and bpf_find_vma came in 5.17. */
#define PROBEX_MIN_KERNEL "5.17"

static bool kernel_too_old(char *rel, size_t size)
{
	struct utsname u;
	unsigned int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return false;
	snprintf(rel, size, "%s", u.release);
	return major < 5 || (major == 5 && minor < 17);
}

static int load_libbpf(struct bpfobj *b, const struct probes_opts *o)
{
	char rel[65];

	int err;

	err = load_libbpf_once(b, o, false);
	if (err) {
		b->missing[0] = 0;
		err = load_libbpf_once(b, o, true);
	}
	if (err == -EPERM || err == -EACCES)
		log__error("not allowed to load BPF programs: run probex as root (sudo probex ...)");
	else if (err && err != -EOPNOTSUPP && kernel_too_old(rel, sizeof(rel)))
		log__error("cannot load the BPF programs: %s (this kernel is %s; probex needs "
			   PROBEX_MIN_KERNEL " or later)", strerror(-err), rel);
	else if (err && err != -EOPNOTSUPP)
		log__error("cannot load the BPF programs: %s (is this kernel built with BTF?)",
			   strerror(-err));
	return err;
}

int bpfobj__load(struct bpfobj *b, const struct probes_opts *o)
{
	int err;

	/* PROBEX_LIBBPF_DEBUG=1 shows libbpf's messages (verifier logs) when a load fails. */
	if (!getenv("PROBEX_LIBBPF_DEBUG"))
		libbpf_set_print(NULL);
	memset(b, 0, sizeof(*b));
	for (int i = 0; i < PROG__COUNT; i++)
		b->progs[i] = -1;
	for (int i = 0; i < MAP__COUNT; i++)
		b->maps[i] = -1;
	if (test_hooks__libbpf_loader()) {
		log__debug("probes: loading with libbpf (test hook)");
		return load_libbpf(b, o);
	}
	err = load_light(b, o);
	if (!err)
		return 0;
	log__debug("probes: the light skeleton did not load (%s): loading with libbpf",
		   strerror(-err));
	return load_libbpf(b, o);
}

void bpfobj__close(struct bpfobj *b)
{
	if (b->lskel)
		probex_light__destroy(b->lskel);
	if (b->skel)
		probex__destroy(b->skel);
	b->lskel = NULL;
	b->skel = NULL;
}
