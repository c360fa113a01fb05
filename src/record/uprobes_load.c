/* --probe: load userprobes.bpf.c on the main object's maps and attach each probe. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "record/probes.h"
#include "record/progs.h"
#include "record/uprobes.h"
#include "userprobes.skel.h"

#define ATTACH_UPROBE_MULTI 48	/* enum bpf_attach_type BPF_TRACE_UPROBE_MULTI (Linux 6.6) */

static int reuse(struct bpf_map *m, int fd)
{
	return fd < 0 ? -EBADF : bpf_map__reuse_fd(m, fd);
}

static uint32_t ring_size(int fd)
{
	struct bpf_map_info info = { 0 };
	uint32_t len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.max_entries;
}

static bool has_kind(const struct uprobe_set *s, enum uprobe_kind kind)
{
	for (int i = 0; i < s->n; i++)
		if (s->d[i].kind == kind)
			return true;
	return false;
}

/* Whether some u: probe has (str) or has no (!str) string arguments. */
static bool has_u(const struct uprobe_set *s, bool str)
{
	for (int i = 0; i < s->n; i++)
		if (s->d[i].kind == UPK_U && uprobe__has_str(&s->d[i]) == str)
			return true;
	return false;
}

static int open_object(struct uprobe_set *s, const int map_fds[], const struct probes_opts *o)
{
	struct userprobes *k = userprobes__open();
	uint32_t rb = ring_size(map_fds[MAP_rb]);
	int err;

	if (!k)
		return -errno;
	s->skel = k;
	k->rodata->stack_mode = o->stacks;
	k->rodata->stack_interval_ns = o->stack_interval_ns;
	k->rodata->ustack_copy_bytes = o->ustack_copy_bytes;
	k->rodata->ustack_copy_events = o->ustack_copy_bytes && o->stacks == STACKS_SAMPLED;
	k->rodata->trace_all = o->trace_all;
	k->rodata->self_tgid = (uint32_t)getpid();
	/* As the main object: wake the consumer at 1/16 of the buffer, at most 1 MiB. */
	k->rodata->wakeup_bytes = rb / 16 < (1u << 20) ? rb / 16 : (1u << 20);
	/* Only the programs the probes need: each one costs its verification (tens of ms). */
	bpf_program__set_autoload(k->progs.probe_enter, has_u(s, false));
	bpf_program__set_autoload(k->progs.probe_enter_str, has_u(s, true));
	bpf_program__set_autoload(k->progs.probe_exit, has_kind(s, UPK_U));
	bpf_program__set_autoload(k->progs.probe_task_exit, has_kind(s, UPK_U));
	bpf_program__set_autoload(k->progs.probe_drain, has_kind(s, UPK_U));
	bpf_program__set_autoload(k->progs.probe_usdt, has_kind(s, UPK_USDT));
	bpf_program__set_autoload(k->progs.probe_tp, has_kind(s, UPK_TP));
	if (s->multi) {
		bpf_program__set_expected_attach_type(k->progs.probe_enter, ATTACH_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(k->progs.probe_enter_str, ATTACH_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(k->progs.probe_exit, ATTACH_UPROBE_MULTI);
	}
	err = reuse(k->maps.rb, map_fds[MAP_rb]);
	err = err ?: reuse(k->maps.traced, map_fds[MAP_traced]);
	err = err ?: reuse(k->maps.tstates, map_fds[MAP_tstates]);
	err = err ?: reuse(k->maps.counters, map_fds[MAP_counters]);
	err = err ?: reuse(k->maps.sideband, map_fds[MAP_sideband]);
	/* No program here submits io_uring requests: the smallest map. */
	err = err ?: bpf_map__set_max_entries(k->maps.iou_inflight, 1);
	return err ?: userprobes__load(k);
}

static int fill_specs(struct uprobe_set *s)
{
	int fd = bpf_map__fd(s->skel->maps.pspecs);

	for (int i = 0; i < s->n; i++) {
		const struct uprobe_def *d = &s->d[i];
		struct probe_spec sp = { .nargs = (uint8_t)d->nargs };
		uint32_t key = (uint32_t)i;

		for (int k = 0; k < d->nargs; k++) {
			struct probe_arg_spec *a = &sp.arg[k];

			a->type = d->args[k].type;
			a->loc = d->args[k].loc;
			a->size = d->args[k].size;
			a->off = d->args[k].off;
			if (a->type == PA_STR)
				a->slot = sp.nstr++;
		}
		if (bpf_map_update_elem(fd, &key, &sp, BPF_ANY))
			return -errno;
	}
	return 0;
}

static int add_link(struct uprobe_set *s, struct bpf_link *l)
{
	if (!l)
		return -errno;
	s->links[s->nlinks++] = l;
	return 0;
}

static int attach_one(struct uprobe_set *s, int id)
{
	const struct uprobe_def *d = &s->d[id];
	struct userprobes *k = s->skel;
	int err;

	switch (d->kind) {
	case UPK_U: {
		if (s->multi)
			return 0;	/* attached per binary */
		LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = (uint64_t)id);

		err = add_link(s, bpf_program__attach_uprobe_opts(uprobe__has_str(d) ? k->progs.probe_enter_str
										     : k->progs.probe_enter,
								  -1, d->path, d->offset, &uo));
		uo.retprobe = true;
		return err ?: add_link(s, bpf_program__attach_uprobe_opts(k->progs.probe_exit, -1, d->path,
									  d->offset, &uo));
	}
	case UPK_USDT: {
		LIBBPF_OPTS(bpf_usdt_opts, so, .usdt_cookie = (uint64_t)id);

		return add_link(s, bpf_program__attach_usdt(k->progs.probe_usdt, -1, d->path, d->a, d->b, &so));
	}
	case UPK_TP: {
		LIBBPF_OPTS(bpf_tracepoint_opts, to, .bpf_cookie = (uint64_t)id);

		return add_link(s, bpf_program__attach_tracepoint_opts(k->progs.probe_tp, d->a, d->b, &to));
	}
	default:
		return -EOPNOTSUPP;
	}
}

static double secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int uprobes__attach(struct uprobe_set *s, const int map_fds[], const struct probes_opts *o)
{
	double t0;
	int err, bad;

	s->links = calloc(2 * s->n + 2, sizeof(*s->links));
	if (!s->links)
		return -ENOMEM;
	s->multi = uprobes_multi__supported();
	t0 = secs();
	err = open_object(s, map_fds, o);
	if (err) {
		log__error("--probe: cannot load the probes' BPF programs: %s", strerror(-err));
		return err;
	}
	log__debug("probes: --probe programs loaded in %.3f s", secs() - t0);
	t0 = secs();
	err = fill_specs(s);
	/* Entries held for their return are sent when their thread ends inside the call. */
	if (!err && has_kind(s, UPK_U) &&
	    !(s->exit_link = bpf_program__attach(s->skel->progs.probe_task_exit)))
		err = -errno;
	if (err)
		log__error("--probe: cannot attach the probes' thread-exit program: %s", strerror(-err));
	if (!err && s->multi) {
		bad = 0;
		err = uprobes_multi__attach(s, bpf_program__fd(s->skel->progs.probe_enter),
					    bpf_program__fd(s->skel->progs.probe_enter_str),
					    bpf_program__fd(s->skel->progs.probe_exit), s->multi_fds,
					    &s->nmulti, &bad);
		if (err)
			log__error("--probe '%s': cannot attach: %s", s->d[bad].spec, strerror(-err));
	}
	for (int i = 0; i < s->n && !err; i++) {
		err = attach_one(s, i);
		if (err)
			log__error("--probe '%s': cannot attach: %s", s->d[i].spec, strerror(-err));
	}
	log__debug("probes: %d --probe attached in %.3f s", s->n, secs() - t0);
	return err;
}

void uprobes__drops(const struct uprobe_set *s, struct strbuf *out)
{
	int ncpu = libbpf_num_possible_cpus(), fd;
	uint64_t *v;

	if (!s || !s->skel || ncpu <= 0 || !(v = calloc(ncpu, sizeof(*v))))
		return;
	fd = bpf_map__fd(s->skel->maps.probe_drops);
	for (int i = 0; i < s->n; i++) {
		uint32_t key = (uint32_t)i;
		uint64_t sum = 0;

		if (bpf_map_lookup_elem(fd, &key, v))
			continue;
		for (int c = 0; c < ncpu; c++)
			sum += v[c];
		if (sum)
			strbuf__addf(out, "\"probe_drops_%s\":%llu,", s->d[i].event, (unsigned long long)sum);
	}
	free(v);
}

static void detach(struct uprobe_set *s)
{
	for (int i = 0; i < s->nlinks; i++)
		bpf_link__destroy(s->links[i]);
	s->nlinks = 0;
	uprobes_multi__close(s->multi_fds, s->nmulti);
	s->nmulti = 0;
}

/* Detached first: no entry is held while the open calls are sent.  Threads that end
 * meanwhile send their own (probe_task_exit stays attached). */
int uprobes__drain(struct uprobe_set *s)
{
	struct bpf_link *it;
	char buf[64];
	int fd, err = 0;
	ssize_t n;

	if (!s || !s->skel || !s->exit_link)
		return 0;
	detach(s);
	it = bpf_program__attach_iter(s->skel->progs.probe_drain, NULL);
	if (!it)
		return -errno;
	fd = bpf_iter_create(bpf_link__fd(it));
	if (fd < 0)
		err = -errno;
	while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
	}
	if (fd >= 0)
		close(fd);
	bpf_link__destroy(it);
	return err;
}

void uprobes__close(struct uprobe_set *s)
{
	if (!s)
		return;
	detach(s);
	bpf_link__destroy(s->exit_link);
	s->exit_link = NULL;
	free(s->links);
	s->links = NULL;
	userprobes__destroy(s->skel);
	s->skel = NULL;
}
