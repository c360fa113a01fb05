/* --probe SPEC: user-chosen uprobes (u:), USDT probes (usdt:), tracepoints (tp:) and
 * kernel functions (k:).  Specs are parsed and resolved before anything runs (a bad one
 * is a usage error), then loaded as a BPF object of their own (userprobes.bpf.c) that
 * shares the main object's ring buffer and traced-thread state. */
#ifndef PROBEX_RECORD_UPROBES_H
#define PROBEX_RECORD_UPROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/records.h"
#include "common/strbuf.h"

enum uprobe_kind { UPK_U, UPK_USDT, UPK_TP, UPK_K };

#define UPROBE_NAME_MAX 128

struct uprobe_arg {
	char name[48];
	uint8_t type;		/* enum probe_arg_type */
	uint8_t loc;		/* tp: 0 value, 1 char array, 2 __data_loc */
	uint8_t size;		/* tp: field bytes */
	uint16_t off;		/* tp: field offset */
};

struct uprobe_def {
	enum uprobe_kind kind;
	const char *spec;		/* as given */
	char path[4096];		/* u:, usdt: the resolved binary */
	char a[UPROBE_NAME_MAX];	/* u: function; usdt: provider; tp: category */
	char b[UPROBE_NAME_MAX];	/* usdt: name; tp: name */
	char event[2 * UPROBE_NAME_MAX + 8];	/* probe_FUNC, usdt_P_N, tp_C_N */
	uint64_t offset;		/* u: file offset of the function */
	uint64_t vaddr;			/* u: its address in the file's symbols */
	uint8_t ret_type;		/* u: enum probe_arg_type of ret (PA_S64 unknown) */
	int nargs;
	struct uprobe_arg args[PROBEX_PROBE_ARGS];
};

struct uprobe_set {
	int n;
	struct uprobe_def *d;
	struct userprobes *skel;
	struct bpf_link **links;
	int nlinks;
	struct bpf_link *exit_link;		/* probe_task_exit: held entries of ending threads */
	bool multi;				/* u: as uprobe_multi links */
	int multi_fds[3 * PROBEX_PROBES_MAX];	/* uprobe_multi links (uprobes_multi.c) */
	int nmulti;
};

/* Parse and resolve every spec (binaries through pids' mappings, the loader's paths and
 * PATH).  Returns 0, or -EINVAL with the offending spec quoted in a message printed. */
int uprobes__parse(struct uprobe_set *s, const char *const *specs, int n, const int *pids, int npids);
/* Load the probes' object on the main object's maps and attach every probe. */
struct probes_opts;
int uprobes__attach(struct uprobe_set *s, const int map_fds[], const struct probes_opts *o);
/* The "probex.probes" metadata value: a JSON array, one object per probe id. */
void uprobes__describe(const struct uprobe_set *s, struct strbuf *out);
/* Per-probe ring-buffer drops as `"probe_drops_EVENT":N,` entries (none when zero). */
void uprobes__drops(const struct uprobe_set *s, struct strbuf *out);
/* At the end of a recording whose processes live on: detach the probes, then send the
 * entries of calls still open as enter rows. */
int uprobes__drain(struct uprobe_set *s);
void uprobes__close(struct uprobe_set *s);

/* probex --list-probes BINARY|tp: print what can be probed; returns an exit status. */
int uprobes__list(const char *what);

/* tp:CATEGORY:NAME (after "tp:") into d, its fields from tracefs (uprobes_tp.c). */
int uprobes__parse_tp(struct uprobe_def *d, const char *rest);
/* Print every tracepoint (tp:CATEGORY:NAME) to stdout. */
int uprobes__list_tp(void);

/* Whether u: probes go into uprobe_multi links (uprobes_multi.c): Linux 6.6 and later. */
bool uprobes_multi__supported(void);
/* Attach every u: probe, one link per binary for entries (enter_fd's program, or
 * enter_str_fd's for probes with str arguments) and one for returns; link fds go to
 * fds[*nfds++].  On error *bad is the probe whose binary failed. */
/* Close the links, each on a thread of its own: each waits for grace periods. */
void uprobes_multi__close(int *fds, int n);
int uprobes_multi__attach(struct uprobe_set *s, int enter_fd, int enter_str_fd, int exit_fd, int *fds,
			  int *nfds, int *bad);
/* Whether a u: probe has str arguments (its entry program reads strings). */
bool uprobe__has_str(const struct uprobe_def *d);

/* ELF helpers (uprobes_elf.c). */
/* File offset (and address) of function func in path: 0, -ENOENT (absent; *stripped set
 * when the file has no .symtab), or another -errno. */
int uprobes_elf__func(const char *path, const char *func, uint64_t *off, uint64_t *vaddr, int *stripped);
struct usdt_note {
	char provider[UPROBE_NAME_MAX], name[UPROBE_NAME_MAX];
	char args[256];		/* the note's argument specs, e.g. "-4@%eax 8@%rdx" */
	int nargs;
	int8_t size[12];	/* per argument: bytes, negative when signed */
	uint64_t sema;
};
/* Call fn for each USDT note of path; stops at a non-zero return (returned). */
int uprobes_elf__notes(const char *path, int (*fn)(const struct usdt_note *n, void *ctx), void *ctx);
/* Print every function of path (sorted, unique) to stdout. */
int uprobes_elf__list_funcs(const char *path);
/* The enum probe_arg_type of func's return (at vaddr) in path's DWARF (or its build-id
 * debug file), or -ENOENT (no debug info, no such function, not an integer or pointer). */
int uprobes_dwarf__ret_type(const char *path, const char *func, uint64_t vaddr);
/* Close the DWARF kept open for the next probe on the same binary. */
void uprobes_dwarf__close(void);

#endif
