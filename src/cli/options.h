/* Command-line model and parser (separate from main.c so unit tests can drive it). */
#ifndef PROBEX_CLI_OPTIONS_H
#define PROBEX_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "record/record.h"


#define PROBEX_MAX_ATTACH 64

/* --probe's default --sample-freq: a CPU profile that leaves probed calls their time. */
#define PROBEX_PROBE_SAMPLE_FREQ 99

struct probex_opts {
	const char *output;		/* -o; NULL → probex-YYYYMMDD-HHMMSS.parquet */
	unsigned int port;		/* -p, default 8080 */
	bool port_set;
	const char *bind;		/* --bind, default 127.0.0.1 */
	bool no_viewer;
	bool no_token;			/* --no-token: no token even for a non-loopback --bind */
	bool force;			/* --force: replace an existing output (else FILE.old) */
	bool no_cache;			/* --no-cache: no on-disk symbol cache */
	const char *view_file;		/* --view FILE */
	const char *base_file;		/* --base FILE: compared with view_file */
	unsigned long sample_freq;	/* --sample-freq, default 1999 (99 with --probe) */
	bool sample_freq_set;
	enum stack_mode stacks;		/* --stacks */
	unsigned long stack_interval_us;/* --stack-interval */
	unsigned long ringbuf_kib;	/* --ringbuf-size (KiB, power of two); 0: by CPU count */
	bool lossless;			/* --lossless */
	enum call_graph call_graph;	/* --call-graph */
	unsigned long stack_copy_kib;	/* --stack-copy: user stack copied per CPU sample */
	uint8_t sys_flags[PROBEX_SYSCALL_MAX];	/* --syscalls: SYSF_* per syscall number */
	unsigned long offcpu_min_us;	/* --offcpu-min */
	int pids[PROBEX_MAX_ATTACH];	/* --pid */
	int npids;
	bool all_cpus;			/* -a */
	uint64_t duration_s;		/* --duration; 0 = until the command ends */
	uint64_t max_size;		/* --max-size (spool bytes); 0 = no limit */
	uint64_t ring;			/* --ring (spool bytes kept); 0 = everything */
	bool quiet;
	int verbose;
	const char *probes[PROBEX_PROBES_MAX];	/* --probe SPEC, in order */
	int nprobes;
	const char *list_probes;	/* --list-probes BINARY|tp */
	char **cmd;			/* command after options/--, NULL-terminated */
	int cmd_argc;
};

enum opts_result {
	OPTS_RUN = 0,	/* proceed */
	OPTS_EXIT_OK,	/* --version printed */
	OPTS_HELP,	/* --help: print opts__print_help() and the subcommands */
	OPTS_USAGE,	/* usage error printed; exit 2 */
};

#define OPTS_MIN_MAX_SIZE	(1ull << 20)
#define OPTS_MIN_RING		(8ull << 20)	/* eight segments of at least 1 MiB */

void opts__defaults(struct probex_opts *o);
enum opts_result opts__parse(struct probex_opts *o, int argc, char **argv);
void opts__print_help(void);

#endif
