/* The exact counts as JSON: one object per (process, event type, number), the per-CPU
 * values summed.  Entries the per-process map had no room for come from the spill array
 * with tgid 0. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/stats.h"
#include "record/stats.h"
#include "trace/schema.h"

_Static_assert(STAT_SPILL_KIND0 == PROBEX_SYSCALL_MAX, "a spill slot per syscall number");
_Static_assert(REC__COUNT <= STAT_SPILL_IOU0 - STAT_SPILL_KIND0, "a spill slot per record kind");

/* The event_type of the rows an entry counts.  Syscalls that never returned have no exit
 * row: "syscall_NAME_unfinished" names their enter rows without exit. */
static void entry_type(struct strbuf *out, unsigned int kind, unsigned int nr)
{
	/* enum event_type + 1: 0 is none. */
	static const int ev[REC__COUNT] = {
		[REC_SCHED_SWITCH] = EV_SCHED_SWITCH + 1, [REC_FORK] = EV_PROCESS_FORK + 1,
		[REC_EXIT] = EV_PROCESS_EXIT + 1, [REC_EXEC] = EV_PROCESS_EXEC + 1,
		[REC_PAGE_FAULT] = EV_PAGE_FAULT + 1, [REC_CPU_SAMPLE] = EV_CPU_SAMPLE + 1,
		[REC_IO_URING_COMPLETE] = EV_IO_URING_COMPLETE + 1, [REC_OFF_CPU] = EV_OFF_CPU + 1,
	};
	const char *name = NULL;
	char buf[96];

	if (kind == REC_SYSCALL || kind == REC_SYSCALL_UNFINISHED) {
		name = event_type__name(event_type__syscall(nr, kind == REC_SYSCALL));
		if (name && kind == REC_SYSCALL_UNFINISHED) {
			size_t n = strlen(name) - strlen("_enter");

			snprintf(buf, sizeof(buf), "%.*s_unfinished", (int)n, name);
			name = buf;
		}
		if (!name) {
			snprintf(buf, sizeof(buf), "syscall_%u_%s", nr,
				 kind == REC_SYSCALL ? "exit" : "unfinished");
			name = buf;
		}
	} else if (kind < REC__COUNT && ev[kind]) {
		name = event_type__name(ev[kind] - 1);
	}
	if (!name) {
		snprintf(buf, sizeof(buf), "kind_%u", kind);
		name = buf;
	}
	strbuf__add_json_str(out, name);
}

static void entry(struct strbuf *out, const struct stat_key *k, const struct stat_val *v, bool *first)
{
	int last = STAT_HIST_BUCKETS - 1;

	while (last >= 0 && !v->hist[last])
		last--;
	strbuf__addf(out, "%s{\"tgid\":%u,\"event_type\":", *first ? "" : ",", k->tgid);
	entry_type(out, k->kind, k->nr);
	strbuf__addf(out, ",\"nr\":%u,\"count\":%llu,\"errors\":%llu,\"total_ns\":%llu,\"hist\":[",
		     k->nr, (unsigned long long)v->count, (unsigned long long)v->errors,
		     (unsigned long long)v->total_ns);
	for (int i = 0; i <= last; i++)
		strbuf__addf(out, "%s%llu", i ? "," : "", (unsigned long long)v->hist[i]);
	strbuf__add(out, "]}", 2);
	*first = false;
}

/* The per-CPU copies of one value, summed into *sum. */
static void sum_cpus(const struct stat_val *vals, int ncpu, struct stat_val *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (int c = 0; c < ncpu; c++) {
		sum->count += vals[c].count;
		sum->errors += vals[c].errors;
		sum->total_ns += vals[c].total_ns;
		for (int i = 0; i < STAT_HIST_BUCKETS; i++)
			sum->hist[i] += vals[c].hist[i];
	}
}

static void add_kind(uint64_t per_kind[REC__COUNT], const struct stat_key *k, uint64_t n)
{
	if (k->kind < REC__COUNT)
		per_kind[k->kind] += n;
}

/* The spill slot's key (bpf/stats.h: STAT_SPILL_*), with tgid 0. */
static struct stat_key spill_key(uint32_t slot)
{
	if (slot < STAT_SPILL_KIND0)
		return (struct stat_key){ .kind = REC_SYSCALL, .nr = (uint16_t)slot };
	if (slot < STAT_SPILL_IOU0)
		return (struct stat_key){ .kind = (uint16_t)(slot - STAT_SPILL_KIND0) };
	return (struct stat_key){ .kind = REC_IO_URING_COMPLETE, .nr = (uint16_t)(slot - STAT_SPILL_IOU0) };
}

int stats__read(int stats_fd, int spill_fd, struct strbuf *out, uint64_t per_kind[REC__COUNT])
{
	int ncpu = libbpf_num_possible_cpus();
	struct stat_key key, next, *prev = NULL;
	struct stat_val *vals, sum;
	bool first = true;
	int err = 0;

	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	strbuf__add(out, "[", 1);
	while (stats_fd >= 0 && bpf_map_get_next_key(stats_fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(stats_fd, &key, vals))
			continue;
		sum_cpus(vals, ncpu, &sum);
		entry(out, &key, &sum, &first);
		add_kind(per_kind, &key, sum.count);
	}
	for (uint32_t slot = 0; spill_fd >= 0 && slot < STAT_SPILL_SLOTS; slot++) {
		if (bpf_map_lookup_elem(spill_fd, &slot, vals)) {
			err = -errno;
			break;
		}
		sum_cpus(vals, ncpu, &sum);
		if (!sum.count)
			continue;
		key = spill_key(slot);
		entry(out, &key, &sum, &first);
		add_kind(per_kind, &key, sum.count);
	}
	strbuf__add(out, "]", 1);
	free(vals);
	return err ? err : out->err;
}
